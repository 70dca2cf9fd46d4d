/*
 * t-compare.c
 *	  Unit tests for src/util/compare.c.
 *
 * Oracle: the sign of the difference computed in a wider type (__int128
 * for 64-bit values), on the ends of each range, where a comparator that
 * subtracts overflows, and on random pairs; then qsort with the comparator
 * yields a non-decreasing array.
 */
#include <stdint.h>
#include <stdlib.h>

#include "util/compare.h"
#include "util/rng.h"
#include "tapas_test.h"

static int
sign128(__int128 d)
{
	return (d > 0) - (d < 0);
}

static const int64_t ends64[] = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX};

static void
test_cmp_int64_ends_and_random(void)
{
	tapas_rng_t rng;
	size_t		ne = sizeof(ends64) / sizeof(ends64[0]);

	for (size_t i = 0; i < ne; i++)
		for (size_t j = 0; j < ne; j++)
			TAPAS_CHECK_MSG(tapas_cmp_int64(&ends64[i], &ends64[j]) ==
							sign128((__int128) ends64[i] - ends64[j]),
							"%lld vs %lld", (long long) ends64[i], (long long) ends64[j]);
	tapas_rng_seed(&rng, tapas_test_seed());
	for (long it = 0; it < tapas_test_iters(10000); it++)
	{
		int64_t		a = (int64_t) tapas_rng_u64(&rng),
					b = (int64_t) tapas_rng_u64(&rng);

		TAPAS_CHECK(tapas_cmp_int64(&a, &b) == sign128((__int128) a - b));
	}
}

static void
test_cmp_int32_and_uint64_ends(void)
{
	const int32_t e32[] = {INT32_MIN, -1, 0, 1, INT32_MAX};
	const uint64_t eu[] = {0, 1, UINT64_C(1) << 63, UINT64_MAX - 1, UINT64_MAX};

	for (size_t i = 0; i < 5; i++)
		for (size_t j = 0; j < 5; j++)
		{
			TAPAS_CHECK(tapas_cmp_int32(&e32[i], &e32[j]) ==
						sign128((__int128) e32[i] - e32[j]));
			TAPAS_CHECK(tapas_cmp_uint64(&eu[i], &eu[j]) ==
						sign128((__int128) eu[i] - (__int128) eu[j]));
		}
}

static void
test_cmp_int64_sorts(void)
{
	tapas_rng_t rng;
	int64_t		v[1000];

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (size_t i = 0; i < 1000; i++)
		v[i] = i < 7 ? ends64[i] : (int64_t) tapas_rng_u64(&rng) >> (i % 60);
	qsort(v, 1000, sizeof(int64_t), tapas_cmp_int64);
	for (size_t i = 1; i < 1000; i++)
		TAPAS_CHECK(v[i - 1] <= v[i]);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_cmp_int64_ends_and_random);
	TAPAS_TEST_RUN(test_cmp_int32_and_uint64_ends);
	TAPAS_TEST_RUN(test_cmp_int64_sorts);
	TAPAS_TEST_DONE();
}
