/*
 * t-exact.c
 *	  Unit tests for src/recon/exact.c.
 *
 * Oracle: exact rational elimination (FLINT fmpq_mat_rref_classical) of
 * [A | b] for small random matrices, read the same way (determined =
 * pivot row with one nonzero among A's columns); plus hand cases: the
 * difference attack (two queries differing in one record), a full-rank
 * square system, inconsistent answers, and the errors.
 */
#include <math.h>
#include <string.h>

#include <flint/fmpq_mat.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/exact.h"
#include "tapas_test.h"

/* the oracle: fills det and x over Q; returns consistency */
static int
oracle(const tapas_binmat_t *A, const int64_t *b, unsigned char *det, double *x)
{
	slong		m = (slong) A->m,
				n = (slong) A->n,
				i,
				j,
				rank;
	fmpq_mat_t	M,
				E;
	int			consistent = 1;

	fmpq_mat_init(M, m, n + 1);
	fmpq_mat_init(E, m, n + 1);
	for (i = 0; i < m; i++)
	{
		for (j = 0; j < n; j++)
			fmpq_set_si(fmpq_mat_entry(M, i, j), tapas_binmat_get(A, (size_t) i, (size_t) j), 1);
		fmpq_set_si(fmpq_mat_entry(M, i, n), b[i], 1);
	}
	rank = fmpq_mat_rref_classical(E, M);
	for (j = 0; j < n; j++)
		det[j] = 0;
	for (i = 0; i < rank; i++)
	{
		slong		piv = 0,
					others = 0;

		while (fmpq_is_zero(fmpq_mat_entry(E, i, piv)))
			piv++;
		if (piv == n)
		{
			consistent = 0;
			continue;
		}
		for (j = piv + 1; j < n; j++)
			others += !fmpq_is_zero(fmpq_mat_entry(E, i, j));
		if (!others)
		{
			det[piv] = 1;
			x[piv] = fmpq_get_d(fmpq_mat_entry(E, i, n));
		}
	}
	fmpq_mat_clear(M);
	fmpq_mat_clear(E);
	return consistent;
}

static void
test_exact_vs_rational(void)
{
	tapas_rng_t rng,
				prng;
	int			trial;

	tapas_rng_seed(&rng, tapas_test_seed());
	tapas_rng_seed(&prng, tapas_test_seed() + 99);
	for (trial = 0; trial < tapas_test_iters(300); trial++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 12),
					m = 1 + tapas_rng_below(&rng, 14),
					i,
					j;
		tapas_binmat_t *A = tapas_binmat_create(m, n);
		int64_t		b[16],
					x[16];
		double		xo[16],
					xr[16];
		unsigned char det[16],
					dr[16];
		tapas_exact_result res;
		int			cons,
					ok = 1;

		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++)
				tapas_binmat_set(A, i, j, tapas_rng_below(&rng, 3) == 0);
		for (j = 0; j < n; j++)
			x[j] = (int64_t) tapas_rng_below(&rng, 7) - 2;
		tapas_binmat_mul_i64(A, x, b);
		if (trial % 7 == 0)
			b[tapas_rng_below(&rng, m)] += 1;
		cons = oracle(A, b, dr, xr);
		TAPAS_CHECK(tapas_exact_solve(A, b, &prng, xo, det, &res, NULL) == TAPAS_OK);
		TAPAS_CHECK(res.consistent == cons);
		for (j = 0; j < n; j++)
		{
			int			d = cons && dr[j];

			ok &= det[j] == d;
			if (d)
				ok &= fabs(xo[j] - xr[j]) < 1e-12;
			else
				ok &= isnan(xo[j]);
		}
		TAPAS_CHECK_MSG(ok, "trial %d m %zu n %zu", trial, m, n);
		tapas_binmat_free(A);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_exact_hand_cases(void)
{
	tapas_rng_t prng;
	tapas_binmat_t *A = tapas_binmat_create(2, 4);
	int64_t		b[3] = {2, 3, 0};
	double		x[4];
	unsigned char det[4];
	tapas_exact_result res;

	tapas_rng_seed(&prng, 5);
	/* difference attack: {0,1,2} and {0,1,2,3} give x_3 = 1 */
	tapas_binmat_set(A, 0, 0, 1);
	tapas_binmat_set(A, 0, 1, 1);
	tapas_binmat_set(A, 0, 2, 1);
	tapas_binmat_set(A, 1, 0, 1);
	tapas_binmat_set(A, 1, 1, 1);
	tapas_binmat_set(A, 1, 2, 1);
	tapas_binmat_set(A, 1, 3, 1);
	TAPAS_CHECK(tapas_exact_solve(A, b, &prng, x, det, &res, NULL) == TAPAS_OK);
	TAPAS_CHECK(res.rank == 2 && res.consistent && res.determined == 1 && res.integral);
	TAPAS_CHECK(det[3] == 1 && x[3] == 1.0 && !det[0] && isnan(x[0]));
	tapas_binmat_free(A);

	/* [[1,1],[1,0],[0,1]] x = (3, 1, 1) is inconsistent; (3, 1, 2) is x = (1, 2) */
	A = tapas_binmat_create(3, 2);
	tapas_binmat_set(A, 0, 0, 1);
	tapas_binmat_set(A, 0, 1, 1);
	tapas_binmat_set(A, 1, 0, 1);
	tapas_binmat_set(A, 2, 1, 1);
	b[0] = 3;
	b[1] = 1;
	b[2] = 1;
	TAPAS_CHECK(tapas_exact_solve(A, b, &prng, x, det, &res, NULL) == TAPAS_OK);
	TAPAS_CHECK(!res.consistent && res.determined == 0 && !det[0] && !det[1]);
	b[2] = 2;
	TAPAS_CHECK(tapas_exact_solve(A, b, &prng, x, det, &res, NULL) == TAPAS_OK);
	TAPAS_CHECK(res.consistent && res.determined == 2 && x[0] == 1.0 && x[1] == 2.0);

	/* cancellation between the two primes */
	{
		tapas_progress_t stop = {tapas_test_cancel, NULL};

		TAPAS_CHECK(tapas_exact_solve(A, b, &prng, x, det, &res, &stop) == TAPAS_ECANCELED);
	}
	tapas_binmat_free(A);

	A = tapas_binmat_create(0, 3);
	TAPAS_CHECK(tapas_exact_solve(A, b, &prng, x, det, &res, NULL) == TAPAS_EINVAL);
	tapas_binmat_free(A);
	A = tapas_binmat_create(10000, 10000);
	TAPAS_CHECK(tapas_exact_solve(A, b, &prng, x, det, &res, NULL) == TAPAS_ELIMIT);
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_exact_vs_rational);
	TAPAS_TEST_RUN(test_exact_hand_cases);
	TAPAS_TEST_DONE();
}
