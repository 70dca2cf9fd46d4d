/*
 * t-binmat_families.c
 *	  Unit tests for src/recon/binmat_families.c (runs of disjoint rows)
 *	  and the BHTP trial that uses them (cs_bhtp.c).
 *
 * Oracles: the product z = A^T r and the column updates computed entry by
 * entry from tapas_binmat_get (independent of the families' indices), on
 * designs made of random partitions (GROUP BY groups over a random subset
 * of the columns) with some overlapping rows between them; the split
 * checked against its definition (each family's rows pairwise disjoint,
 * and each family's first row meets the previous family's union); the
 * column-pattern product (binmat.c) equal bit for bit for integer r;
 * Bernoulli rows declined; the greedy trial returning the same support
 * and overlap with and without families; allocation failures.
 */
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/binmat_families.h"
#include "recon/cs.h"
#include "tapas_test.h"

/* parts random partitions of a random half of the columns, then a random row, repeated */
static tapas_binmat_t *
grouped(tapas_rng_t *rng, size_t n, int parts, size_t *m_out)
{
	size_t		cap = (size_t) parts * 13;
	tapas_binmat_t *A = tapas_binmat_create(cap, n);
	size_t		m = 0;

	for (int p = 0; p < parts; p++)
	{
		size_t		g = 2 + tapas_rng_below(rng, 10);

		for (size_t j = 0; j < n; j++)
			if (tapas_rng_below(rng, 2))
				tapas_binmat_set(A, m + tapas_rng_below(rng, g), j, 1);
		m += g;
		/* an overlapping row (a range), which may start a family of its own */
		for (size_t j = tapas_rng_below(rng, n); j < n; j += 1 + tapas_rng_below(rng, 3))
			tapas_binmat_set(A, m, j, 1);
		m++;
	}
	A->m = m;
	*m_out = m;
	return A;
}

static int
disjoint(const tapas_binmat_t *A, size_t a, size_t b)
{
	for (size_t j = 0; j < A->n; j++)
		if (tapas_binmat_get(A, a, j) && tapas_binmat_get(A, b, j))
			return 0;
	return 1;
}

static void
test_families_oracle(void)
{
	tapas_rng_t rng;

	tapas_rng_seed(&rng, tapas_test_seed() + 11);
	for (int rep = 0; rep < 6; rep++)
	{
		size_t		n = 300 + tapas_rng_below(&rng, 200),
					m;
		tapas_binmat_t *A = grouped(&rng, n, 8 + rep, &m);
		tapas_binmat_families_t *FA = tapas_binmat_families_create(A, m);
		tapas_binmat_colbytes_t *P = tapas_binmat_colbytes_create(A);
		double	   *r = tapas_malloc(m * sizeof(double)),
				   *z = tapas_malloc(n * sizeof(double)),
				   *zp = tapas_malloc(n * sizeof(double)),
				   *c = tapas_calloc(m, sizeof(double));
		int			ok = 1;

		TAPAS_CHECK(FA != NULL && P != NULL);
		/* the split's definition */
		TAPAS_CHECK(FA->start[0] == 0 && FA->start[FA->F] == m && FA->F >= 1 && FA->F <= m);
		for (size_t f = 0; f < FA->F; f++)
		{
			for (size_t a = FA->start[f]; a < FA->start[f + 1]; a++)
				for (size_t b = a + 1; b < FA->start[f + 1]; b++)
					ok = ok && disjoint(A, a, b);
			if (f > 0)
			{
				int			meets = 0;

				for (size_t a = FA->start[f - 1]; a < FA->start[f]; a++)
					meets = meets || !disjoint(A, a, FA->start[f]);
				ok = ok && meets;
			}
		}
		TAPAS_CHECK_MSG(ok, "rep %d: families not runs of disjoint rows", rep);
		/* integer r: the oracle, and the patterns' product bit for bit */
		for (size_t i = 0; i < m; i++)
			r[i] = (double) ((int) tapas_rng_below(&rng, 21) - 10);
		tapas_binmat_families_mul_t(FA, r, z);
		tapas_binmat_colbytes_mul_t(P, r, zp);
		for (size_t j = 0; j < n; j++)
		{
			double		o = 0;

			for (size_t i = 0; i < m; i++)
				if (tapas_binmat_get(A, i, j))
					o += r[i];
			ok = ok && z[j] == o && zp[j] == z[j];
		}
		TAPAS_CHECK_MSG(ok, "rep %d: product differs from the oracle", rep);
		/* real r: the oracle up to rounding */
		for (size_t i = 0; i < m; i++)
			r[i] = (double) tapas_rng_below(&rng, 1000) / 7.0 - 50.0;
		tapas_binmat_families_mul_t(FA, r, z);
		for (size_t j = 0; j < n; j++)
		{
			double		o = 0;

			for (size_t i = 0; i < m; i++)
				if (tapas_binmat_get(A, i, j))
					o += r[i];
			ok = ok && z[j] - o < 1e-9 && o - z[j] < 1e-9;
		}
		TAPAS_CHECK_MSG(ok, "rep %d: real product differs", rep);
		/* column updates */
		for (int t = 0; t < 20; t++)
		{
			size_t		j = tapas_rng_below(&rng, n);
			double		sign = t % 2 ? -1.0 : 1.0;

			tapas_binmat_families_add_column(FA, j, sign, c);
			for (size_t i = 0; i < m; i++)
				r[i] = (t == 0 ? 0.0 : r[i]) + (tapas_binmat_get(A, i, j) ? sign : 0.0);
		}
		for (size_t i = 0; i < m; i++)
			ok = ok && c[i] == r[i];
		TAPAS_CHECK_MSG(ok, "rep %d: column updates differ", rep);
		/* fewer families allowed than there are: declined */
		if (FA->F > 1)
			TAPAS_CHECK(tapas_binmat_families_create(A, FA->F - 1) == NULL);
		tapas_binmat_families_free(FA);
		tapas_binmat_colbytes_free(P);
		tapas_binmat_free(A);
		tapas_free(r);
		tapas_free(z);
		tapas_free(zp);
		tapas_free(c);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* Bernoulli(1/2) rows: every row meets the one before, so F = m; declined at m / 16 */
static void
test_families_bernoulli(void)
{
	tapas_rng_t rng;
	tapas_binmat_t *A = tapas_binmat_create(160, 500);
	tapas_binmat_families_t *FA;

	tapas_rng_seed(&rng, tapas_test_seed() + 12);
	for (size_t i = 0; i < 160; i++)
		for (size_t j = 0; j < 500; j++)
			tapas_binmat_set(A, i, j, (int) (tapas_rng_u64(&rng) >> 63));
	TAPAS_CHECK(tapas_binmat_families_create(A, 160 / 16) == NULL);
	FA = tapas_binmat_families_create(A, 160);
	TAPAS_CHECK(FA != NULL && FA->F == 160);
	tapas_binmat_families_free(FA);
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* the greedy trial: the same support and overlap with and without families */
static void
test_families_trial(void)
{
	tapas_rng_t rng;

	tapas_rng_seed(&rng, tapas_test_seed() + 13);
	for (int rep = 0; rep < 8; rep++)
	{
		size_t		n = 2000,
					m;
		tapas_binmat_t *A = grouped(&rng, n, 30 + 10 * rep, &m);
		tapas_binmat_colbytes_t *P = tapas_binmat_colbytes_create(A);
		tapas_binmat_families_t *FA = tapas_binmat_families_create(A, m);
		double	   *x = tapas_calloc(n, sizeof(double)),
				   *x1 = tapas_malloc(n * sizeof(double)),
				   *x2 = tapas_malloc(n * sizeof(double)),
				   *b = tapas_malloc(m * sizeof(double));
		int			s = 5 + 20 * rep,
					k = 0,
					f1 = -1,
					f2 = -2,
					it1 = -1,
					it2 = -2;

		while (k < s)
		{
			size_t		j = tapas_rng_below(&rng, n);

			if (x[j] == 0.0)
			{
				x[j] = 1.0;
				k++;
			}
		}
		tapas_binmat_mul(A, x, b);
		TAPAS_CHECK(FA != NULL && FA->F < m);
		TAPAS_CHECK(tapas_cs_bhtp_trial(P, b, s, x, s, 30, x1, &it1, &f1, NULL) == TAPAS_OK);
		TAPAS_CHECK(tapas_cs_bhtp_trial_families(P, FA, b, s, x, s, 30, x2, &it2, &f2, NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(f1 == f2 && it1 == it2 && memcmp(x1, x2, n * sizeof(double)) == 0,
						"rep %d: trials differ (found %d / %d, steps %d / %d)", rep, f1, f2, it1, it2);
		tapas_binmat_families_free(FA);
		/* families of another matrix: refused */
		A->m = m - 1;
		FA = tapas_binmat_families_create(A, m);
		TAPAS_CHECK(tapas_cs_bhtp_trial_families(P, FA, b, s, x, s, 30, x2, NULL, NULL, NULL) == TAPAS_EINVAL);
		tapas_binmat_families_free(FA);
		tapas_binmat_colbytes_free(P);
		tapas_binmat_free(A);
		tapas_free(x);
		tapas_free(x1);
		tapas_free(x2);
		tapas_free(b);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_families_nomem(void)
{
	tapas_rng_t rng;
	size_t		m;
	tapas_binmat_t *A;

	tapas_rng_seed(&rng, tapas_test_seed() + 14);
	A = grouped(&rng, 400, 6, &m);
	for (int k = 0; k < 40; k++)
	{
		tapas_binmat_families_t *FA;

		tapas_memory_fail_after(k);
		FA = tapas_binmat_families_create(A, m);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(FA == NULL || FA->start[FA->F] == m);
		tapas_binmat_families_free(FA);
	}
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_families_oracle);
	TAPAS_TEST_RUN(test_families_bernoulli);
	TAPAS_TEST_RUN(test_families_trial);
	TAPAS_TEST_RUN(test_families_nomem);
	TAPAS_TEST_DONE();
}
