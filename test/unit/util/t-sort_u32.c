/*
 * t-sort_u32.c
 *	  Unit tests for src/util/sort_u32.c.
 *
 * Oracle: qsort from the C library, on random arrays of random lengths and
 * value ranges (small ranges give many duplicates and skipped passes), on
 * arrays already sorted and reversed, and on hand-checked tiny cases.
 */
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/sort_u32.h"
#include "tapas_test.h"

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a;
	uint32_t	y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

static void
test_sort_small(void)
{
	uint32_t	a[5] = {3, 0xFFFFFFFF, 1, 0x01000000, 1};
	uint32_t	want[5] = {1, 1, 3, 0x01000000, 0xFFFFFFFF};
	uint32_t	s[5];
	uint32_t	one = 7;

	tapas_sort_u32(a, s, 5);
	TAPAS_CHECK(memcmp(a, want, sizeof(a)) == 0);
	TAPAS_CHECK(tapas_u32_sorted(a, 5));
	tapas_sort_u32(&one, s, 1);
	TAPAS_CHECK(one == 7);
	tapas_sort_u32(NULL, NULL, 0);
	TAPAS_CHECK(tapas_u32_sorted(NULL, 0));
	TAPAS_CHECK(!tapas_u32_sorted((uint32_t[]) {2, 1}, 2));
}

static void
test_sort_random_against_qsort(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(300);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (long it = 0; it < iters; it++)
	{
		size_t		n = tapas_rng_below(&rng, 5000) + 1;
		uint64_t	range = (uint64_t) 1 << (1 + tapas_rng_below(&rng, 32));
		uint32_t   *a = malloc(n * sizeof(uint32_t));
		uint32_t   *b = malloc(n * sizeof(uint32_t));
		uint32_t   *s = malloc(n * sizeof(uint32_t));
		int			shape = (int) tapas_rng_below(&rng, 4);

		for (size_t i = 0; i < n; i++)
			a[i] = (uint32_t) tapas_rng_below(&rng, range);
		if (shape == 1)			/* already sorted */
			qsort(a, n, sizeof(uint32_t), cmp_u32);
		else if (shape == 2)	/* reversed */
		{
			qsort(a, n, sizeof(uint32_t), cmp_u32);
			for (size_t i = 0; i < n / 2; i++)
			{
				uint32_t	t = a[i];

				a[i] = a[n - 1 - i];
				a[n - 1 - i] = t;
			}
		}
		memcpy(b, a, n * sizeof(uint32_t));
		qsort(b, n, sizeof(uint32_t), cmp_u32);
		tapas_sort_u32(a, s, n);
		TAPAS_CHECK_MSG(memcmp(a, b, n * sizeof(uint32_t)) == 0,
						"n %zu range %llu shape %d", n, (unsigned long long) range, shape);
		TAPAS_CHECK(tapas_u32_sorted(a, n));
		free(a);
		free(b);
		free(s);
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_sort_small);
	TAPAS_TEST_RUN(test_sort_random_against_qsort);
	TAPAS_TEST_DONE();
}
