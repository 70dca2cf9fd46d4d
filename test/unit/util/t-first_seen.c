/*
 * t-first_seen.c
 *	  Unit tests for src/util/first_seen.c.
 *
 * Oracle: the quadratic definition (a key's rank is the number of distinct
 * keys seen before its first appearance), on random arrays of random
 * lengths and key ranges (narrow ranges give many repeats; wide and
 * negative ones exercise every byte pass and the sign bit), and on
 * hand-checked tiny cases.
 */
#include <stdlib.h>
#include <string.h>

#include "util/first_seen.h"
#include "util/rng.h"
#include "tapas_test.h"

/* the definition, in O(n^2) */
static size_t
oracle(const int64_t *keys, size_t n, uint32_t *rank, int64_t *uniq)
{
	size_t		count = 0;

	for (size_t i = 0; i < n; i++)
	{
		size_t		j;

		for (j = 0; j < count && uniq[j] != keys[i]; j++)
			;
		if (j == count)
			uniq[count++] = keys[i];
		rank[i] = (uint32_t) j;
	}
	return count;
}

static void
test_small(void)
{
	int64_t		keys[7] = {5, -3, 5, INT64_MIN, 9, -3, INT64_MAX};
	uint32_t	want_rank[7] = {0, 1, 0, 2, 3, 1, 4};
	int64_t		want_uniq[5] = {5, -3, INT64_MIN, 9, INT64_MAX};
	uint32_t	rank[7];
	int64_t		uniq[7];
	size_t		nu = 99;

	TAPAS_CHECK(tapas_first_seen(keys, 7, rank, uniq, &nu) == TAPAS_OK);
	TAPAS_CHECK(nu == 5);
	TAPAS_CHECK(memcmp(rank, want_rank, sizeof(want_rank)) == 0);
	TAPAS_CHECK(memcmp(uniq, want_uniq, sizeof(want_uniq)) == 0);
	nu = 99;
	TAPAS_CHECK(tapas_first_seen(NULL, 0, NULL, NULL, &nu) == TAPAS_OK && nu == 0);
	TAPAS_CHECK(tapas_first_seen(NULL, 3, rank, uniq, &nu) == TAPAS_EINVAL);
	/* one key, all equal keys */
	TAPAS_CHECK(tapas_first_seen((int64_t[]) {42}, 1, rank, uniq, &nu) == TAPAS_OK);
	TAPAS_CHECK(nu == 1 && rank[0] == 0 && uniq[0] == 42);
	TAPAS_CHECK(tapas_first_seen((int64_t[]) {7, 7, 7}, 3, rank, uniq, &nu) == TAPAS_OK);
	TAPAS_CHECK(nu == 1 && rank[0] == 0 && rank[1] == 0 && rank[2] == 0);
}

static void
test_random_against_oracle(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(300);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (long it = 0; it < iters; it++)
	{
		size_t		n = tapas_rng_below(&rng, 2000) + 1;
		int			bits = 1 + (int) tapas_rng_below(&rng, 63);
		int			negative = (int) tapas_rng_below(&rng, 2);
		int64_t    *keys = malloc(n * sizeof(int64_t));
		uint32_t   *rank = malloc(n * sizeof(uint32_t));
		uint32_t   *want_rank = malloc(n * sizeof(uint32_t));
		int64_t    *uniq = malloc(n * sizeof(int64_t));
		int64_t    *want_uniq = malloc(n * sizeof(int64_t));
		size_t		nu,
					want_nu;

		for (size_t i = 0; i < n; i++)
		{
			uint64_t	v = tapas_rng_below(&rng, UINT64_C(1) << bits);

			keys[i] = negative ? -(int64_t) v : (int64_t) v;
		}
		if (tapas_rng_below(&rng, 4) == 0)	/* ascending runs, as in cells */
			for (size_t i = 1; i < n; i++)
				keys[i] = keys[i - 1] + (int64_t) tapas_rng_below(&rng, 3);
		want_nu = oracle(keys, n, want_rank, want_uniq);
		TAPAS_CHECK(tapas_first_seen(keys, n, rank, uniq, &nu) == TAPAS_OK);
		TAPAS_CHECK_MSG(nu == want_nu, "n %zu bits %d: %zu distinct, want %zu",
						n, bits, nu, want_nu);
		TAPAS_CHECK_MSG(memcmp(rank, want_rank, n * sizeof(uint32_t)) == 0,
						"n %zu bits %d: ranks differ", n, bits);
		TAPAS_CHECK(memcmp(uniq, want_uniq, nu * sizeof(int64_t)) == 0);
		free(keys);
		free(rank);
		free(want_rank);
		free(uniq);
		free(want_uniq);
	}
}

/* tapas_keys_match against a linear search, with keys missing and repeated in q */
static void
test_match_against_oracle(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(300);

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (long it = 0; it < iters; it++)
	{
		size_t		nset = tapas_rng_below(&rng, 1500);
		size_t		nq = tapas_rng_below(&rng, 1500) + 1;
		int			bits = 1 + (int) tapas_rng_below(&rng, 63);
		int64_t    *pool = malloc((nset + 1) * sizeof(int64_t));
		int64_t    *set = malloc((nset + 1) * sizeof(int64_t));
		uint32_t   *rank = malloc((nset + 1) * sizeof(uint32_t));
		int64_t    *q = malloc(nq * sizeof(int64_t));
		int64_t    *pos = malloc(nq * sizeof(int64_t));
		size_t		ns = 0;

		for (size_t i = 0; i < nset; i++)
			pool[i] = (int64_t) (tapas_rng_below(&rng, UINT64_C(1) << bits)) -
				(int64_t) (tapas_rng_below(&rng, 2) << (bits - 1));
		/* distinct keys: the first appearances of the pool */
		TAPAS_CHECK(tapas_first_seen(pool, nset, rank, set, &ns) == TAPAS_OK);
		for (size_t i = 0; i < nq; i++)
			q[i] = (ns > 0 && tapas_rng_below(&rng, 2)) ? set[tapas_rng_below(&rng, ns)]
				: (int64_t) tapas_rng_u64(&rng);
		TAPAS_CHECK(tapas_keys_match(set, ns, q, nq, pos) == TAPAS_OK);
		for (size_t i = 0; i < nq; i++)
		{
			int64_t		want = -1;

			for (size_t j = 0; j < ns; j++)
				if (set[j] == q[i])
					want = (int64_t) j;
			TAPAS_CHECK_MSG(pos[i] == want, "nset %zu nq %zu: q[%zu] at %lld, want %lld",
							ns, nq, i, (long long) pos[i], (long long) want);
		}
		free(pool);
		free(set);
		free(rank);
		free(q);
		free(pos);
	}
	TAPAS_CHECK(tapas_keys_match(NULL, 0, (int64_t[]) {1}, 1, (int64_t[]) {0}) == TAPAS_OK);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_small);
	TAPAS_TEST_RUN(test_random_against_oracle);
	TAPAS_TEST_RUN(test_match_against_oracle);
	TAPAS_TEST_DONE();
}
