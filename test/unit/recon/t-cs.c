/*
 * t-cs.c
 *	  Unit tests for src/recon/cs.c, cs_omp.c, cs_nnls.c and cs_lp.c.
 *
 * Oracles: planted sparse x (the decoders must return it exactly after
 * rounding), a brute-force NNLS over every passive set of a tiny problem
 * (normal equations by Gaussian elimination written here), hand-solved
 * LPs, and the two OMP variants against each other.  Failure cases:
 * inconsistent answers, every documented error status, cancellation and
 * injected allocation failures (no leak).
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/cs.h"
#include "tapas_test.h"

/* Bernoulli(1/2) m x n design; b = A x for a planted s-sparse 0/1 x */
static tapas_binmat_t *
planted(tapas_rng_t *rng, size_t m, size_t n, int s, double lambda,
		double *x, double *b)
{
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	size_t		i,
				j;
	int			k = 0;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			tapas_binmat_set(A, i, j, (int) (tapas_rng_u64(rng) >> 63));
	memset(x, 0, n * sizeof(double));
	while (k < s)
	{
		j = tapas_rng_below(rng, n);
		if (x[j] == 0.0)
		{
			x[j] = 1.0;
			k++;
		}
	}
	tapas_binmat_mul(A, x, b);
	for (i = 0; i < m && lambda > 0.0; i++)
		b[i] += tapas_rng_laplace(rng, lambda);
	return A;
}

static int
same_vector(const double *a, const double *b, size_t n, double tol)
{
	size_t		j;

	for (j = 0; j < n; j++)
		if (fabs(a[j] - b[j]) > tol)
			return 0;
	return 1;
}

static void
test_cs_exact_all_methods(void)
{
	tapas_rng_t rng;
	int			trial,
				method;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (trial = 0; trial < tapas_test_iters(10); trial++)
	{
		size_t		n = 300,
					m = 80;
		double		x[300],
					xo[300],
					b[80];
		tapas_binmat_t *A = planted(&rng, m, n, 4, 0.0, x, b);

		for (method = TAPAS_CS_AUTO; method <= TAPAS_CS_LP; method++)
		{
			tapas_cs_report rep;
			tapas_status st = tapas_cs_recover(A, b, 4, 0.0, method, 1, xo,
											   &rep, NULL);

			TAPAS_CHECK_MSG(st == TAPAS_OK && rep.consistent && rep.support == 4 &&
							same_vector(x, xo, n, 0.0),
							"trial %d method %d st %d consistent %d", trial, method,
							st, rep.consistent);
			TAPAS_CHECK(rep.max_residual == 0.0);
		}
		tapas_binmat_free(A);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_cs_omp_variants_agree(void)
{
	tapas_rng_t rng;
	int			trial;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (trial = 0; trial < tapas_test_iters(10); trial++)
	{
		size_t		n = 500,
					m = 120,
					j;
		double		x[500],
					x1[500],
					x2[500],
					b[120];
		tapas_binmat_t *A = planted(&rng, m, n, 8, 0.0, x, b);
		int			i1,
					i2;

		/* real-valued x: scale the planted ones */
		for (j = 0; j < n; j++)
			x[j] *= 1.0 + (double) (j % 7);
		tapas_binmat_mul(A, x, b);
		TAPAS_CHECK(tapas_cs_omp(A, b, 8, 0.0, x1, &i1, NULL) == TAPAS_OK);
		TAPAS_CHECK(tapas_cs_omp_resolve(A, b, 8, 0.0, x2, &i2, NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(i1 == i2 && same_vector(x1, x2, n, 1e-8),
						"trial %d iterations %d %d", trial, i1, i2);
		TAPAS_CHECK_MSG(same_vector(x1, x, n, 1e-8), "trial %d: not recovered", trial);
		/* with the patterns given (as the audit's cache passes them): the same */
		{
			tapas_binmat_colbytes_t *P = NULL;
			tapas_cs_report r1,
						r2;
			double		x3[500];
			int			i3;

			TAPAS_CHECK(tapas_binmat_colbytes_update(&P, A, 0) == TAPAS_OK);
			TAPAS_CHECK(tapas_cs_omp_patterns(A, P, b, 8, 0.0, x3, &i3, NULL) == TAPAS_OK);
			TAPAS_CHECK_MSG(i3 == i1 && same_vector(x1, x3, n, 0.0), "trial %d: patterns", trial);
			/* the sparse consistency check agrees with the dense one, hit or miss */
			x3[trial % n] = x3[trial % n] != 0.0 ? 0.0 : 2.0;
			memcpy(x2, x3, sizeof(x3));
			TAPAS_CHECK(tapas_cs_check(A, b, 0.0, 0, x2, &r1) == TAPAS_OK);
			TAPAS_CHECK(tapas_cs_check_patterns(P, b, 0.0, 0, x3, &r2) == TAPAS_OK);
			TAPAS_CHECK(r1.consistent == r2.consistent && r1.support == r2.support &&
						fabs(r1.residual_norm - r2.residual_norm) <= 1e-9 &&
						fabs(r1.max_residual - r2.max_residual) <= 1e-9);
			TAPAS_CHECK(tapas_cs_check(A, b, 0.0, 0, x1, &r1) == TAPAS_OK && r1.consistent);
			TAPAS_CHECK(tapas_cs_check_patterns(P, b, 0.0, 0, x1, &r2) == TAPAS_OK && r2.consistent);
			/* patterns of another matrix: refused */
			P->m--;
			TAPAS_CHECK(tapas_cs_omp_patterns(A, P, b, 8, 0.0, x3, &i3, NULL) == TAPAS_EINVAL);
			P->m++;
			tapas_binmat_colbytes_free(P);
		}
		tapas_binmat_free(A);
	}
}

/* Solves the k x k system G z = c in place (Gauss with pivoting); 0 if singular */
static int
dense_solve(double *G, double *c, int k)
{
	int			i,
				j,
				p,
				r;

	for (i = 0; i < k; i++)
	{
		p = i;
		for (r = i + 1; r < k; r++)
			if (fabs(G[r * k + i]) > fabs(G[p * k + i]))
				p = r;
		if (fabs(G[p * k + i]) < 1e-12)
			return 0;
		for (j = 0; j < k; j++)
		{
			double		t = G[i * k + j];

			G[i * k + j] = G[p * k + j];
			G[p * k + j] = t;
		}
		{
			double		t = c[i];

			c[i] = c[p];
			c[p] = t;
		}
		for (r = 0; r < k; r++)
		{
			double		f;

			if (r == i)
				continue;
			f = G[r * k + i] / G[i * k + i];
			for (j = 0; j < k; j++)
				G[r * k + j] -= f * G[i * k + j];
			c[r] -= f * c[i];
		}
	}
	for (i = 0; i < k; i++)
		c[i] /= G[i * k + i];
	return 1;
}

/* brute-force NNLS: best feasible least-squares fit over all supports */
static double
nnls_oracle(const tapas_binmat_t *A, const double *b, double *xbest)
{
	int			n = (int) A->n,
				m = (int) A->m,
				mask;
	double		best = INFINITY;

	for (mask = 0; mask < (1 << n); mask++)
	{
		int			cols[8],
					k = 0,
					i,
					p,
					q,
					ok = 1;
		double		G[64],
					c[8],
					x[8] = {0},
					ss = 0.0;

		for (p = 0; p < n; p++)
			if (mask >> p & 1)
				cols[k++] = p;
		for (p = 0; p < k; p++)
		{
			c[p] = 0.0;
			for (i = 0; i < m; i++)
				c[p] += tapas_binmat_get(A, i, cols[p]) * b[i];
			for (q = 0; q < k; q++)
			{
				G[p * k + q] = 0.0;
				for (i = 0; i < m; i++)
					G[p * k + q] += tapas_binmat_get(A, i, cols[p]) *
						tapas_binmat_get(A, i, cols[q]);
			}
		}
		if (k > 0 && !dense_solve(G, c, k))
			continue;
		for (p = 0; p < k; p++)
		{
			ok &= c[p] >= -1e-12;
			x[cols[p]] = c[p];
		}
		if (!ok)
			continue;
		for (i = 0; i < m; i++)
		{
			double		r = -b[i];

			for (p = 0; p < n; p++)
				r += tapas_binmat_get(A, i, p) * x[p];
			ss += r * r;
		}
		if (ss < best - 1e-12)
		{
			best = ss;
			memcpy(xbest, x, sizeof(double) * n);
		}
	}
	return best;
}

static void
test_cs_nnls_vs_bruteforce(void)
{
	tapas_rng_t rng;
	int			trial;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	for (trial = 0; trial < tapas_test_iters(200); trial++)
	{
		int			n = 1 + (int) tapas_rng_below(&rng, 6),
					m = n + (int) tapas_rng_below(&rng, 5),
					i,
					j;
		tapas_binmat_t *A = tapas_binmat_create(m, n);
		double		b[16],
					xo[8],
					xr[8],
					y[16],
					ss = 0.0,
					best;

		for (i = 0; i < m; i++)
		{
			b[i] = tapas_rng_normal(&rng) * 3.0;
			for (j = 0; j < n; j++)
				tapas_binmat_set(A, i, j, (int) (tapas_rng_u64(&rng) >> 63));
		}
		best = nnls_oracle(A, b, xr);
		TAPAS_CHECK(tapas_cs_nnls(A, b, xo, NULL, NULL) == TAPAS_OK);
		tapas_binmat_mul(A, xo, y);
		for (i = 0; i < m; i++)
			ss += (y[i] - b[i]) * (y[i] - b[i]);
		for (j = 0; j < n; j++)
			TAPAS_CHECK(xo[j] >= 0.0);
		TAPAS_CHECK_MSG(fabs(ss - best) <= 1e-8 * (1.0 + best),
						"trial %d m %d n %d: nnls %g oracle %g", trial, m, n, ss, best);
		tapas_binmat_free(A);
	}
}

static void
test_cs_lp_hand_solved(void)
{
	/* identity: the box clips 2 to 1 and -1 to 0, 0.2 is kept */
	tapas_binmat_t *A = tapas_binmat_create(3, 3);
	double		b[3] = {0.2, 2.0, -1.0},
				x[3];
	int			i,
				its;

	for (i = 0; i < 3; i++)
		tapas_binmat_set(A, i, i, 1);
	TAPAS_CHECK(tapas_cs_lp(A, b, 0.0, 1, x, &its, NULL) == TAPAS_OK);
	TAPAS_CHECK_MSG(fabs(x[0] - 0.2) < 1e-9 && fabs(x[1] - 1.0) < 1e-9 &&
					fabs(x[2]) < 1e-9, "x = %g %g %g", x[0], x[1], x[2]);
	/* without the box x_1 = 2 */
	TAPAS_CHECK(tapas_cs_lp(A, b, 0.0, 0, x, &its, NULL) == TAPAS_OK);
	TAPAS_CHECK(fabs(x[1] - 2.0) < 1e-9 && fabs(x[2]) < 1e-9);
	tapas_binmat_free(A);

	/*
	 * l1 is robust to one wild answer: x = 1 measured five times, once as
	 * 100; the median-like l1 fit keeps x = 1 (least squares would not).
	 */
	A = tapas_binmat_create(5, 1);
	{
		double		b5[5] = {1, 1, 100, 1, 1},
					x1;

		for (i = 0; i < 5; i++)
			tapas_binmat_set(A, i, 0, 1);
		TAPAS_CHECK(tapas_cs_lp(A, b5, 0.0, 0, &x1, &its, NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(fabs(x1 - 1.0) < 1e-9, "x = %g", x1);
	}
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/*
 * Laplace noise of scale 1 on every answer, n = 2000, s = 5, m = 400:
 * recovery is a statistical event, so the test counts successes over 8
 * instances; measured over seeds 1-12 (96 instances): OMP 95, OMP with
 * s = 40 and the noise stopping rule 88, LP 83.
 */
static void
test_cs_noisy_recovery(void)
{
	tapas_rng_t rng;
	int			trial,
				ok_omp = 0,
				ok_lp = 0,
				ok_loose = 0,
				trials = (int) tapas_test_iters(8);
	static double x[2000],
				xo[2000],
				b[400];

	tapas_rng_seed(&rng, tapas_test_seed() + 3);
	for (trial = 0; trial < trials; trial++)
	{
		tapas_binmat_t *A = planted(&rng, 400, 2000, 5, 1.0, x, b);
		tapas_cs_report rep;

		TAPAS_CHECK(tapas_cs_recover(A, b, 5, 1.0, TAPAS_CS_OMP, 1, xo, &rep,
									 NULL) == TAPAS_OK);
		ok_omp += same_vector(x, xo, 2000, 0.0) && rep.consistent;
		TAPAS_CHECK(tapas_cs_recover(A, b, 5, 1.0, TAPAS_CS_LP, 1, xo, &rep,
									 NULL) == TAPAS_OK);
		ok_lp += same_vector(x, xo, 2000, 0.0) && rep.consistent;
		/* OMP with a loose bound s stops by the noise rule */
		TAPAS_CHECK(tapas_cs_recover(A, b, 40, 1.0, TAPAS_CS_OMP, 1, xo, &rep,
									 NULL) == TAPAS_OK);
		ok_loose += same_vector(x, xo, 2000, 0.0) && rep.iterations < 40;
		tapas_binmat_free(A);
	}
	TAPAS_CHECK_MSG(ok_omp >= trials - 1 && ok_loose >= trials - 2 &&
					ok_lp >= trials - 3,
					"of %d: OMP %d, OMP loose s %d, LP %d", trials, ok_omp,
					ok_loose, ok_lp);
}

static void
test_cs_inconsistent(void)
{
	tapas_rng_t rng;
	double		x[200],
				xo[200],
				b[60];
	tapas_binmat_t *A;
	tapas_cs_report rep;
	int			method;

	tapas_rng_seed(&rng, tapas_test_seed() + 4);
	A = planted(&rng, 60, 200, 3, 0.0, x, b);
	b[7] += 1.0;				/* one answer off by one */
	for (method = TAPAS_CS_AUTO; method <= TAPAS_CS_LP; method++)
	{
		TAPAS_CHECK(tapas_cs_recover(A, b, 3, 0.0, method, 1, xo, &rep,
									 NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(!rep.consistent && rep.max_residual >= 1.0,
						"method %d", method);
	}
	/* answers far from any noisy fit */
	b[7] -= 1.0;
	b[3] += 50.0;
	b[9] -= 50.0;
	TAPAS_CHECK(tapas_cs_recover(A, b, 3, 0.5, TAPAS_CS_OMP, 1, xo, &rep,
								 NULL) == TAPAS_OK);
	TAPAS_CHECK(!rep.consistent);
	tapas_binmat_free(A);
}

static int
cancel_now(void *arg, double fraction)
{
	return ++*(int *) arg >= 1;
}

/* cancels at the (*arg)th poll */
static int
cancel_at(void *arg, double fraction)
{
	return --*(int *) arg <= 0;
}

/*
 * The LP polls between the rows of its loading and inside the simplex
 * (from GLPK's terminal hook, whose cancel longjmps out of GLPK): either
 * cancel returns TAPAS_ECANCELED and a zero x, and GLPK still works after.
 */
static void
test_cs_lp_cancel(void)
{
	tapas_rng_t rng;
	double		x[100],
				xo[100],
				b[40];
	tapas_binmat_t *A;
	tapas_cs_report rep;
	int			calls,
				at;
	tapas_progress_t cancel = {cancel_at, &calls};

	tapas_rng_seed(&rng, tapas_test_seed() + 6);
	A = planted(&rng, 40, 100, 2, 0.0, x, b);
	for (at = 1; at <= 42; at += 20)
	{
		calls = at;				/* 1, 21: loading; 41: the simplex's first report */
		memset(xo, 0xff, sizeof(xo));
		TAPAS_CHECK_MSG(tapas_cs_recover(A, b, 2, 0.0, TAPAS_CS_LP, 1, xo, &rep, &cancel) == TAPAS_ECANCELED,
						"cancel at poll %d", at);
		TAPAS_CHECK(same_vector(xo, (double[100]) {0}, 100, 0.0));
	}
	calls = 1000000;
	TAPAS_CHECK(tapas_cs_recover(A, b, 2, 0.0, TAPAS_CS_LP, 1, xo, &rep, &cancel) == TAPAS_OK);
	TAPAS_CHECK(same_vector(x, xo, 100, 0.0));
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_cs_errors(void)
{
	tapas_rng_t rng;
	double		x[100],
				xo[100],
				b[40];
	tapas_binmat_t *A,
			   *E = tapas_binmat_create(0, 5);
	tapas_cs_report rep;
	int			calls = 0,
				method,
				k;
	tapas_progress_t cancel = {cancel_now, &calls};

	tapas_rng_seed(&rng, tapas_test_seed() + 5);
	A = planted(&rng, 40, 100, 2, 0.0, x, b);
	TAPAS_CHECK(tapas_cs_recover(A, b, 0, 0.0, TAPAS_CS_OMP, 1, xo, &rep, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_cs_recover(A, b, 2, -1.0, TAPAS_CS_OMP, 1, xo, &rep, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_cs_recover(A, b, 2, NAN, TAPAS_CS_OMP, 1, xo, &rep, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_cs_recover(A, b, 2, 0.0, (tapas_cs_method) 9, 1, xo, &rep, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_cs_recover(E, b, 2, 0.0, TAPAS_CS_OMP, 1, xo, &rep, NULL) == TAPAS_EINVAL);
	b[0] = INFINITY;
	TAPAS_CHECK(tapas_cs_recover(A, b, 2, 0.0, TAPAS_CS_LP, 1, xo, &rep, NULL) == TAPAS_EINVAL);
	tapas_binmat_mul(A, x, b);
	TAPAS_CHECK(tapas_cs_method_from_name("omp") == TAPAS_CS_OMP);
	TAPAS_CHECK(tapas_cs_method_from_name("lp") == TAPAS_CS_LP);
	TAPAS_CHECK(tapas_cs_method_from_name("nnls") == TAPAS_CS_NNLS);
	TAPAS_CHECK(tapas_cs_method_from_name("auto") == TAPAS_CS_AUTO);
	TAPAS_CHECK(tapas_cs_method_from_name("OMP") == -1);
	/* cancellation: OMP and NNLS poll before their first step */
	for (method = TAPAS_CS_OMP; method <= TAPAS_CS_NNLS; method++)
	{
		calls = 0;
		TAPAS_CHECK(tapas_cs_recover(A, b, 2, 0.0, method, 1, xo, &rep, &cancel) == TAPAS_ECANCELED);
		TAPAS_CHECK(same_vector(xo, (double[100]) {0}, 100, 0.0));
	}
	/* every allocation failure is reported and leaks nothing */
	for (method = TAPAS_CS_OMP; method <= TAPAS_CS_NNLS; method++)
		for (k = 0; k < 40; k++)
		{
			tapas_status st;

			tapas_memory_fail_after(k);
			st = tapas_cs_recover(A, b, 2, 0.0, method, 1, xo, &rep, NULL);
			tapas_memory_fail_after(-1);
			TAPAS_CHECK_MSG(st == TAPAS_OK || st == TAPAS_ENOMEM, "method %d k %d st %d", method, k, st);
			if (st == TAPAS_OK)
				TAPAS_CHECK(same_vector(x, xo, 100, 0.0));
		}
	tapas_binmat_free(A);
	tapas_binmat_free(E);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_cs_exact_all_methods);
	TAPAS_TEST_RUN(test_cs_omp_variants_agree);
	TAPAS_TEST_RUN(test_cs_nnls_vs_bruteforce);
	TAPAS_TEST_RUN(test_cs_lp_hand_solved);
	TAPAS_TEST_RUN(test_cs_noisy_recovery);
	TAPAS_TEST_RUN(test_cs_inconsistent);
	TAPAS_TEST_RUN(test_cs_lp_cancel);
	TAPAS_TEST_RUN(test_cs_errors);
	TAPAS_TEST_DONE();
}
