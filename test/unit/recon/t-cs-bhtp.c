/*
 * t-cs-bhtp.c
 *	  Unit tests for src/recon/cs_bhtp.c (binary hard-thresholding pursuit).
 *
 * Oracles: planted s-sparse 0/1 x on Bernoulli(1/2) designs with enough
 * rows (must be returned exactly, from s = 1 to s = 60); an exhaustive
 * enumeration of every weight-s 0/1 vector of tiny problems (whatever
 * BHTP returns consistent must be one of the enumerated solutions, and
 * a unique solution with enough rows is found); the same instance with
 * its columns permuted (the result is permuted alike: no dependence on
 * the record order); errors, cancellation and allocation failures.
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/cs.h"
#include "tapas_test.h"

static tapas_binmat_t *
planted(tapas_rng_t *rng, size_t m, size_t n, int s, double *x, double *b)
{
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	int			k = 0;

	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			tapas_binmat_set(A, i, j, (int) (tapas_rng_u64(rng) >> 63));
	memset(x, 0, n * sizeof(double));
	while (k < s)
	{
		size_t		j = tapas_rng_below(rng, n);

		if (x[j] == 0.0)
		{
			x[j] = 1.0;
			k++;
		}
	}
	tapas_binmat_mul(A, x, b);
	return A;
}

static int
same(const double *a, const double *b, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (a[j] != b[j])
			return 0;
	return 1;
}

/* planted recovery at m = 3 s log2(n / s) + 20 rows */
static void
test_bhtp_planted(void)
{
	const int	ss[] = {1, 2, 5, 10, 20, 40, 60};
	tapas_rng_t rng;
	size_t		n = 3000;
	double	   *x = tapas_malloc(n * sizeof(double));
	double	   *xo = tapas_malloc(n * sizeof(double));

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (int t = 0; t < 7; t++)
		for (int rep = 0; rep < 3; rep++)
		{
			int			s = ss[t];
			size_t		m = (size_t) (3.0 * s * log2((double) n / s)) + 20;
			double	   *b = tapas_malloc(m * sizeof(double));
			tapas_binmat_t *A = planted(&rng, m, n, s, x, b);
			tapas_cs_report r;
			int			its = -1;

			TAPAS_CHECK(tapas_cs_bhtp(A, b, s, xo, &its, NULL) == TAPAS_OK);
			TAPAS_CHECK_MSG(same(x, xo, n), "s %d rep %d: not recovered (%d steps)", s, rep, its);
			TAPAS_CHECK(its >= 0 && its <= 100);
			/* through the portfolio entry point, with the consistency check */
			TAPAS_CHECK(tapas_cs_recover(A, b, s, 0.0, TAPAS_CS_BHTP, 1, xo, &r, NULL) == TAPAS_OK);
			TAPAS_CHECK(r.consistent && r.support == s && r.method == TAPAS_CS_BHTP);
			tapas_binmat_free(A);
			tapas_free(b);
		}
	tapas_free(x);
	tapas_free(xo);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* consistent solutions of weight s, by enumeration of every support (n <= 20) */
static int
enumerate(const tapas_binmat_t *A, const double *b, int s, unsigned *first)
{
	int			count = 0;
	size_t		n = A->n;

	for (unsigned mask = 0; mask < (1u << n); mask++)
	{
		int			ok = __builtin_popcount(mask) == s;

		for (size_t i = 0; ok && i < A->m; i++)
		{
			double		sum = 0;

			for (size_t j = 0; j < n; j++)
				if ((mask >> j) & 1)
					sum += tapas_binmat_get(A, i, j);
			ok = sum == b[i];
		}
		if (ok && count++ == 0)
			*first = mask;
	}
	return count;
}

static void
test_bhtp_vs_enumeration(void)
{
	tapas_rng_t rng;
	size_t		n = 16;
	double		x[16],
				xo[16],
				b[40];
	int			unique = 0,
				found = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	for (int trial = 0; trial < 200; trial++)
	{
		int			s = 1 + (int) tapas_rng_below(&rng, 4);
		size_t		m = 4 + tapas_rng_below(&rng, 14);
		tapas_binmat_t *A = planted(&rng, m, n, s, x, b);
		tapas_cs_report r;
		unsigned	first = 0;
		int			nsol = enumerate(A, b, s, &first);

		TAPAS_CHECK(nsol >= 1);
		TAPAS_CHECK(tapas_cs_recover(A, b, s, 0.0, TAPAS_CS_BHTP, 1, xo, &r, NULL) == TAPAS_OK);
		if (r.consistent)
		{
			/* a consistent answer is a solution: the enumeration has it */
			unsigned	mask = 0;
			unsigned	dummy;
			double		bb[40];

			for (size_t j = 0; j < n; j++)
				mask |= (xo[j] == 1.0 ? 1u : 0u) << j;
			TAPAS_CHECK(__builtin_popcount(mask) == s);
			tapas_binmat_mul(A, xo, bb);
			TAPAS_CHECK(same(bb, b, m));
			TAPAS_CHECK(enumerate(A, b, s, &dummy) >= 1);
			if (nsol == 1)
				TAPAS_CHECK(mask == first);
		}
		if (nsol == 1)
		{
			unique++;
			found += r.consistent;
		}
		tapas_binmat_free(A);
	}
	/* the greedy decoder is not exhaustive, but finds most unique ones */
	TAPAS_CHECK_MSG(found * 10 >= unique * 7, "found %d of %d unique", found, unique);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* permuting the records permutes the result */
static void
test_bhtp_order_free(void)
{
	tapas_rng_t rng;
	size_t		n = 2000,
				m = 260;
	int			s = 25;
	double	   *x = tapas_malloc(n * sizeof(double));
	double	   *xo = tapas_malloc(n * sizeof(double));
	double	   *xp = tapas_malloc(n * sizeof(double));
	double	   *b = tapas_malloc(m * sizeof(double));
	size_t	   *perm = tapas_malloc(n * sizeof(size_t));
	tapas_binmat_t *A,
			   *B;
	int			agree = 1;

	tapas_rng_seed(&rng, tapas_test_seed() + 3);
	A = planted(&rng, m, n, s, x, b);
	for (size_t j = 0; j < n; j++)
		perm[j] = j;
	for (size_t j = n - 1; j > 0; j--)
	{
		size_t		k = tapas_rng_below(&rng, j + 1),
					t = perm[j];

		perm[j] = perm[k];
		perm[k] = t;
	}
	B = tapas_binmat_create(m, n);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			tapas_binmat_set(B, i, perm[j], tapas_binmat_get(A, i, j));
	TAPAS_CHECK(tapas_cs_bhtp(A, b, s, xo, NULL, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_cs_bhtp(B, b, s, xp, NULL, NULL) == TAPAS_OK);
	for (size_t j = 0; j < n; j++)
		agree = agree && xo[j] == xp[perm[j]];
	TAPAS_CHECK(agree);
	TAPAS_CHECK(same(xo, x, n));
	tapas_binmat_free(A);
	tapas_binmat_free(B);
	tapas_free(x);
	tapas_free(xo);
	tapas_free(xp);
	tapas_free(b);
	tapas_free(perm);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static int
cancel_now(void *arg, double fraction)
{
	return ++*(int *) arg >= 1;
}

static void
test_bhtp_errors(void)
{
	tapas_rng_t rng;
	double		x[200],
				xo[200],
				b[60];
	tapas_binmat_t *A;
	int			calls = 0;
	tapas_progress_t cancel = {cancel_now, &calls};

	tapas_rng_seed(&rng, tapas_test_seed() + 4);
	A = planted(&rng, 60, 200, 4, x, b);
	TAPAS_CHECK(tapas_cs_bhtp(A, b, 0, xo, NULL, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_cs_method_from_name("bhtp") == TAPAS_CS_BHTP);
	/* cancelled at its first poll (an inexact start needs a step) */
	b[0] += 1.0;
	TAPAS_CHECK(tapas_cs_bhtp(A, b, 4, xo, NULL, &cancel) == TAPAS_ECANCELED);
	b[0] -= 1.0;
	for (int k = 0; k < 20; k++)
	{
		tapas_status st;

		tapas_memory_fail_after(k);
		st = tapas_cs_bhtp(A, b, 4, xo, NULL, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK_MSG(st == TAPAS_OK || st == TAPAS_ENOMEM, "k %d st %d", k, st);
		if (st == TAPAS_OK)
			TAPAS_CHECK(same(x, xo, 200));
	}
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_bhtp_planted);
	TAPAS_TEST_RUN(test_bhtp_vs_enumeration);
	TAPAS_TEST_RUN(test_bhtp_order_free);
	TAPAS_TEST_RUN(test_bhtp_errors);
	TAPAS_TEST_DONE();
}
