/*
 * t-sparse_search.c
 *	  Unit tests for src/recon/sparse_search.c.
 *
 * Oracle: brute force over every support of weight <= 3 of small random
 * matrices (some with repeated columns and low density so that many
 * solutions exist), comparing the full sorted solution lists.  Also:
 * the cap, the work limit, the no-pivot case (all answers 0 or 3), a
 * planted weight-3 x in a larger Bernoulli design (unique), and errors.
 */
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/sparse_search.h"
#include "tapas_test.h"

/* the oracle: sorted list of all solutions, 3 entries each */
static size_t
brute(const tapas_binmat_t *A, const int64_t *b, int maxw, int64_t *out)
{
	size_t		cnt = 0;
	int64_t		n = (int64_t) A->n,
				u,
				v,
				w;
	int			wt;

	for (wt = 0; wt <= maxw; wt++)
		for (u = wt >= 1 ? 0 : -1; u < (wt >= 1 ? n : 0); u++)
			for (v = wt >= 2 ? u + 1 : -1; v < (wt >= 2 ? n : 0); v++)
				for (w = wt >= 3 ? v + 1 : -1; w < (wt >= 3 ? n : 0); w++)
				{
					size_t		i;
					int			ok = 1;

					for (i = 0; i < A->m && ok; i++)
					{
						int64_t		s = 0;

						s += u >= 0 ? tapas_binmat_get(A, i, (size_t) u) : 0;
						s += v >= 0 ? tapas_binmat_get(A, i, (size_t) v) : 0;
						s += w >= 0 ? tapas_binmat_get(A, i, (size_t) w) : 0;
						ok = s == b[i];
					}
					if (ok)
					{
						int64_t		sol[3] = {u, v, w};
						int			k;

						/* padded at the end, like the kernel's rows */
						for (k = 0; k < 3; k++)
							out[cnt * 3 + k] = k < wt ? sol[k] : -1;
						cnt++;
					}
				}
	return cnt;
}

static void
test_sparse_vs_bruteforce(void)
{
	tapas_rng_t rng;
	static int64_t oracle[3 * 20000];
	int			trial;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (trial = 0; trial < tapas_test_iters(300); trial++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 30),
					m = 1 + tapas_rng_below(&rng, 12),
					i,
					j,
					cnt;
		int			density = 1 + (int) tapas_rng_below(&rng, 3);	/* 1/2, 1/4, 1/8 */
		tapas_binmat_t *A = tapas_binmat_create(m, n);
		int64_t		b[16],
					x[32] = {0};
		tapas_sparse_result res;
		int			wt = (int) tapas_rng_below(&rng, 4),
					k;

		for (i = 0; i < m; i++)
			for (j = 0; j < n; j++)
			{
				int			bit = (tapas_rng_u64(&rng) >> (64 - density)) == 0;

				/* repeat column j - 1 sometimes */
				if (j > 0 && trial % 3 == 0 && j % 4 == 1)
					bit = tapas_binmat_get(A, i, j - 1);
				tapas_binmat_set(A, i, j, bit);
			}
		for (k = 0; k < wt; k++)
			x[tapas_rng_below(&rng, n)] = 1;
		tapas_binmat_mul_i64(A, x, b);
		if (trial % 10 == 9)
			b[tapas_rng_below(&rng, m)] += 1;	/* often no solution */
		cnt = brute(A, b, 3, oracle);
		TAPAS_CHECK(tapas_sparse_search(A, b, 3, 100000, TAPAS_SPARSE_WORK_LIMIT,
										&res, NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(res.found == cnt && res.stored == cnt &&
						(cnt == 0 || memcmp(res.supports, oracle, cnt * 3 * sizeof(int64_t)) == 0),
						"trial %d m %zu n %zu: found %zu oracle %zu", trial, m, n,
						res.found, cnt);
		tapas_sparse_result_clear(&res);
		/*
		 * with the hashes of the first rows cached (built in two
		 * extensions, as the audit grows them): the same solutions
		 */
		{
			tapas_sparse_hashes *H = NULL;
			size_t		part = tapas_rng_below(&rng, m + 1);

			TAPAS_CHECK(tapas_sparse_hashes_extend(&H, A, part / 2) == TAPAS_OK);
			TAPAS_CHECK(tapas_sparse_hashes_extend(&H, A, part) == TAPAS_OK);
			TAPAS_CHECK(H->rows == part && H->n == n);
			TAPAS_CHECK(tapas_sparse_search_hashed(A, H, b, 3, 100000, TAPAS_SPARSE_WORK_LIMIT,
												   &res, NULL) == TAPAS_OK);
			TAPAS_CHECK_MSG(res.found == cnt &&
							(cnt == 0 || memcmp(res.supports, oracle, cnt * 3 * sizeof(int64_t)) == 0),
							"hashed trial %d m %zu n %zu part %zu: found %zu oracle %zu",
							trial, m, n, part, res.found, cnt);
			tapas_sparse_result_clear(&res);
			tapas_sparse_hashes_free(H);
		}
		/* max_weight 1 gives the oracle's weight <= 1 prefix */
		cnt = brute(A, b, 1, oracle);
		TAPAS_CHECK(tapas_sparse_search(A, b, 1, 100000, 0.0, &res, NULL) == TAPAS_OK);
		TAPAS_CHECK(res.found == cnt &&
					(cnt == 0 || memcmp(res.supports, oracle, cnt * 3 * sizeof(int64_t)) == 0));
		tapas_sparse_result_clear(&res);
		tapas_binmat_free(A);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_sparse_no_pivot_and_cap(void)
{
	/* 8 identical columns, answers 3 everywhere: C(8,3) = 56 solutions */
	tapas_binmat_t *A = tapas_binmat_create(4, 8);
	int64_t		b[4] = {3, 3, 3, 3};
	tapas_sparse_result res;
	size_t		i,
				j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 8; j++)
			tapas_binmat_set(A, i, j, 1);
	TAPAS_CHECK(tapas_sparse_search(A, b, 3, 1000, 1e9, &res, NULL) == TAPAS_OK);
	TAPAS_CHECK_MSG(res.found == 56 && res.stored == 56, "found %zu", res.found);
	TAPAS_CHECK(tapas_sparse_result_weight(&res, 0) == 3);
	TAPAS_CHECK(res.supports[0] == 0 && res.supports[1] == 1 && res.supports[2] == 2);
	tapas_sparse_result_clear(&res);
	/* the cap keeps 5 but counts all */
	TAPAS_CHECK(tapas_sparse_search(A, b, 3, 5, 1e9, &res, NULL) == TAPAS_OK);
	TAPAS_CHECK(res.found == 56 && res.stored == 5);
	tapas_sparse_result_clear(&res);
	/* the work limit */
	TAPAS_CHECK(tapas_sparse_search(A, b, 3, 5, 10.0, &res, NULL) == TAPAS_ELIMIT);
	TAPAS_CHECK(res.found == 0 && res.work > 10.0);
	tapas_sparse_result_clear(&res);
	TAPAS_CHECK(tapas_sparse_search(A, b, 4, 5, 1e9, &res, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_sparse_search(A, b, -1, 5, 1e9, &res, NULL) == TAPAS_EINVAL);
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_sparse_planted_unique(void)
{
	tapas_rng_t rng;
	size_t		n = 20000,
				m = 60,
				i,
				j;
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	int64_t    *x = calloc(n, sizeof(int64_t)),
				b[60];
	int64_t		planted[3] = {17, 4242, 19999};
	tapas_sparse_result res;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			tapas_binmat_set(A, i, j, (int) (tapas_rng_u64(&rng) >> 63));
	for (i = 0; i < 3; i++)
		x[planted[i]] = 1;
	tapas_binmat_mul_i64(A, x, b);
	TAPAS_CHECK(tapas_sparse_search(A, b, 3, 10, TAPAS_SPARSE_WORK_LIMIT, &res,
									NULL) == TAPAS_OK);
	TAPAS_CHECK_MSG(res.found == 1 && memcmp(res.supports, planted, sizeof(planted)) == 0,
					"found %zu work %g", res.found, res.work);
	tapas_sparse_result_clear(&res);
	/* an answer off by one: no solution at all */
	b[5] += 1;
	TAPAS_CHECK(tapas_sparse_search(A, b, 3, 10, TAPAS_SPARSE_WORK_LIMIT, &res,
									NULL) == TAPAS_OK);
	TAPAS_CHECK(res.found == 0);
	tapas_sparse_result_clear(&res);
	/* allocation failures are reported and leak nothing */
	b[5] -= 1;
	for (i = 0; i < 12; i++)
	{
		tapas_status st;

		tapas_memory_fail_after((long) i);
		st = tapas_sparse_search(A, b, 3, 10, TAPAS_SPARSE_WORK_LIMIT, &res, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_ENOMEM || (st == TAPAS_OK && res.found == 1));
		tapas_sparse_result_clear(&res);
	}
	/* cancellation */
	{
		tapas_progress_t stop = {tapas_test_cancel, NULL};

		TAPAS_CHECK(tapas_sparse_search(A, b, 3, 10, TAPAS_SPARSE_WORK_LIMIT, &res,
										&stop) == TAPAS_ECANCELED);
		TAPAS_CHECK(res.found == 0 && res.supports == NULL);
	}
	tapas_binmat_free(A);
	free(x);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_sparse_vs_bruteforce);
	TAPAS_TEST_RUN(test_sparse_no_pivot_and_cap);
	TAPAS_TEST_RUN(test_sparse_planted_unique);
	TAPAS_TEST_DONE();
}
