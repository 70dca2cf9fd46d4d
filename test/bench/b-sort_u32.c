/*
 * b-sort_u32.c
 *	  Benchmark of src/util/sort_u32.c: the radix sort of a staged block
 *	  of keys (n = 4096, the capture aggregate's stage) against qsort from
 *	  the C library, in the same process, on keys in random order (a
 *	  table's physical order after updates) and already sorted; and what
 *	  the sort buys when the block goes into a Roaring bitmap that already
 *	  holds interleaved keys: add_many unsorted vs sort + add_many.
 *	  Prints ns per key and the ratios.
 */
#include <roaring/roaring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/rng.h"
#include "util/sort_u32.h"

#define N		4096
#define REPS	200

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a;
	uint32_t	y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* ns per key of sorting a copy of src, best of REPS; kind 0 radix, 1 qsort */
static double
sort_ns(const uint32_t *src, int kind)
{
	static uint32_t a[N],
				s[N];
	double		best = 1e30;

	for (int r = 0; r < REPS; r++)
	{
		double		t;

		memcpy(a, src, sizeof(a));
		t = bench_seconds();
		if (kind == 0)
			tapas_sort_u32(a, s, N);
		else
			qsort(a, N, sizeof(uint32_t), cmp_u32);
		t = bench_seconds() - t;
		if (t < best)
			best = t;
	}
	return best * 1e9 / N;
}

/*
 * ns per key of adding nkeys keys, in the order given, to one bitmap in
 * blocks of N: how 0 add_many as they come, 1 radix sort then add_many,
 * 2 radix sort then a bitmap of the block OR'ed in (a linear merge)
 */
static double
bitmap_ns(const uint32_t *keys, size_t nkeys, int how)
{
	static uint32_t a[N],
				s[N];
	double		t = bench_seconds();
	roaring_bitmap_t *r = roaring_bitmap_create();

	for (size_t off = 0; off < nkeys; off += N)
	{
		size_t		n = nkeys - off < N ? nkeys - off : N;

		memcpy(a, keys + off, n * sizeof(uint32_t));
		if (how > 0)
			tapas_sort_u32(a, s, n);
		if (how < 2)
			roaring_bitmap_add_many(r, n, a);
		else
		{
			roaring_bitmap_t *b = roaring_bitmap_of_ptr(n, a);

			roaring_bitmap_or_inplace(r, b);
			roaring_bitmap_free(b);
		}
	}
	t = bench_seconds() - t;
	if (roaring_bitmap_get_cardinality(r) != nkeys)
		abort();
	roaring_bitmap_free(r);
	return t * 1e9 / nkeys;
}

int
main(void)
{
	tapas_rng_t rng;
	uint32_t   *shuffled = malloc(16 * N * sizeof(uint32_t));
	uint32_t	sorted[N];
	double		rs,
				qs,
				rsort,
				qsort_sorted,
				best3[3];

	tapas_rng_seed(&rng, 20261130);
	/* a random permutation of 0..16N-1: the keys of one 64 k chunk */
	for (uint32_t i = 0; i < 16 * N; i++)
		shuffled[i] = i * 2;
	for (uint32_t i = 16 * N - 1; i > 0; i--)
	{
		uint32_t	j = (uint32_t) tapas_rng_below(&rng, i + 1);
		uint32_t	t = shuffled[i];

		shuffled[i] = shuffled[j];
		shuffled[j] = t;
	}
	memcpy(sorted, shuffled, sizeof(sorted));
	qsort(sorted, N, sizeof(uint32_t), cmp_u32);

	rs = sort_ns(shuffled, 0);
	qs = sort_ns(shuffled, 1);
	rsort = sort_ns(sorted, 0);
	qsort_sorted = sort_ns(sorted, 1);
	printf("sort %d keys, random order: radix %.2f ns/key, qsort %.2f ns/key (qsort/radix %.1fx)\n",
		   N, rs, qs, qs / rs);
	printf("sort %d keys, already sorted: radix %.2f ns/key, qsort %.2f ns/key (qsort/radix %.1fx)\n",
		   N, rsort, qsort_sorted, qsort_sorted / rsort);
	/*
	 * A GROUP BY cell in physical order: 10,000 keys drawn from 0..99,999
	 * (about 6,500 per 65,536-key chunk, so Roaring keeps sorted arrays of
	 * up to 4,096 for a long time), shuffled.
	 */
	for (uint32_t i = 0; i < 10000; i++)
		shuffled[i] = (uint32_t) tapas_rng_below(&rng, 10) + 10 * i;
	for (uint32_t i = 10000 - 1; i > 0; i--)
	{
		uint32_t	j = (uint32_t) tapas_rng_below(&rng, i + 1);
		uint32_t	t = shuffled[i];

		shuffled[i] = shuffled[j];
		shuffled[j] = t;
	}
	for (int how = 0; how < 3; how++)
	{
		double		b = 1e30;

		for (int r = 0; r < 20; r++)
		{
			double		x = bitmap_ns(shuffled, 10000, how);

			b = x < b ? x : b;
		}
		best3[how] = b;
	}
	printf("a GROUP BY cell of 10,000 keys over 100,000 in random order, blocks of %d: "
		   "add_many %.1f ns/key, sort + add_many %.1f, sort + merge %.1f (add_many/merge %.1fx)\n",
		   N, best3[0], best3[1], best3[2], best3[0] / best3[2]);
	free(shuffled);
	return 0;
}
