/*-------------------------------------------------------------------------
 *
 * rf_sort.c
 *	  The sorts of the random forest's split search (rf_int.h): the float
 *	  sort of pairs (features with a NaN), the radix sort of uint64 keys by
 *	  their upper 32 bits, and the counting or radix sort of rank keys over
 *	  a segment's rank range (the sorted sweep, the benchmark's baseline).
 *
 * Short inputs (up to RF_INSERTION_MAX) are insertion-sorted.  The key
 * sort is LSD radix over the four bytes of the upper half, a pass skipped
 * when every key has the same byte; the rank sort counts over the range
 * when it is narrow (at most n + 512 ranks), else two 8-bit radix passes.
 *
 * IDENTIFICATION
 *	  src/attacks/rf_sort.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/rf_int.h"

/* segments up to this length are insertion-sorted */
#define RF_INSERTION_MAX 24

/* ----------------------------------------------------------------
 *		Float sort (3-way quicksort, insertion sort for short runs)
 * ----------------------------------------------------------------
 */
void
tapas_rf_pairs_sort(rf_pair *a, long n)
{
	while (n > 16)
	{
		float		x = a[n / 2].v,
					x0 = a[0].v,
					x1 = a[n - 1].v;
		float		pivot;
		long		lt = 0,
					i = 0,
					gt = n;

		/* median of three */
		pivot = (x0 < x) ? ((x < x1) ? x : (x0 < x1 ? x1 : x0))
			: ((x0 < x1) ? x0 : (x < x1 ? x1 : x));
		while (i < gt)
		{
			rf_pair		t;

			if (a[i].v < pivot)
			{
				t = a[lt];
				a[lt++] = a[i];
				a[i++] = t;
			}
			else if (a[i].v > pivot)
			{
				t = a[--gt];
				a[gt] = a[i];
				a[i] = t;
			}
			else
				i++;
		}
		/* recurse into the smaller side, loop on the larger */
		if (lt < n - gt)
		{
			tapas_rf_pairs_sort(a, lt);
			a += gt;
			n -= gt;
		}
		else
		{
			tapas_rf_pairs_sort(a + gt, n - gt);
			n = lt;
		}
	}
	{
		long		i,
					j;

		for (i = 1; i < n; i++)
		{
			rf_pair		t = a[i];

			for (j = i; j > 0 && a[j - 1].v > t.v; j--)
				a[j] = a[j - 1];
			a[j] = t;
		}
	}
}

/* ----------------------------------------------------------------
 *		Key sort
 * ----------------------------------------------------------------
 */

/* sorts a[0..n-1] by their upper 32 bits; tmp holds n */
void
tapas_rf_keys_sort(uint64_t *a, long n, uint64_t *tmp)
{
	long		i,
				j;

	if (n <= RF_INSERTION_MAX)
	{
		for (i = 1; i < n; i++)
		{
			uint64_t	t = a[i];

			for (j = i; j > 0 && a[j - 1] > t; j--)
				a[j] = a[j - 1];
			a[j] = t;
		}
		return;
	}
	{
		uint32_t	count[4][256];
		int			pass;
		uint64_t   *src = a,
				   *dst = tmp;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
		{
			uint32_t	k = (uint32_t) (a[i] >> 32);

			count[0][k & 0xff]++;
			count[1][(k >> 8) & 0xff]++;
			count[2][(k >> 16) & 0xff]++;
			count[3][k >> 24]++;
		}
		for (pass = 0; pass < 4; pass++)
		{
			uint32_t   *c = count[pass];
			uint32_t	sum = 0;
			int			shift = 32 + 8 * pass;
			uint64_t   *t;

			if (c[(src[0] >> shift) & 0xff] == (uint32_t) n)
				continue;		/* every key has this byte */
			for (j = 0; j < 256; j++)
			{
				uint32_t	cj = c[j];

				c[j] = sum;
				sum += cj;
			}
			for (i = 0; i < n; i++)
				dst[c[(src[i] >> shift) & 0xff]++] = src[i];
			t = src;
			src = dst;
			dst = t;
		}
		if (src != a)
			memcpy(a, src, n * sizeof(uint64_t));
	}
}

/* ----------------------------------------------------------------
 *		Rank sort
 * ----------------------------------------------------------------
 */

/*
 * Sorts a[0..n-1] by their upper 32 bits, ranks within [lo, hi] (hi - lo
 * < b->n); returns a or tmp, whichever holds the result.
 */
uint64_t *
tapas_rf_rank_sort(rf_builder *b, uint64_t *a, long n, uint64_t *tmp, uint32_t lo, uint32_t hi)
{
	uint32_t   *c = b->count;
	uint32_t	range = hi - lo + 1,
				sum = 0,
				j;
	long		i;

	if (n <= RF_INSERTION_MAX)
	{
		tapas_rf_keys_sort(a, n, tmp);
		return a;
	}
	if (range > (uint32_t) n + 512)
	{
		/* a wide range: LSD radix over the two bytes of rank - lo */
		uint32_t	c0[256],
					c1[256],
					s0 = 0,
					s1 = 0;

		memset(c0, 0, sizeof(c0));
		memset(c1, 0, sizeof(c1));
		for (i = 0; i < n; i++)
		{
			uint32_t	r = (uint32_t) (a[i] >> 32) - lo;

			c0[r & 0xff]++;
			c1[r >> 8]++;
		}
		for (j = 0; j < 256; j++)
		{
			uint32_t	t0 = c0[j],
						t1 = c1[j];

			c0[j] = s0;
			c1[j] = s1;
			s0 += t0;
			s1 += t1;
		}
		for (i = 0; i < n; i++)
			tmp[c0[((uint32_t) (a[i] >> 32) - lo) & 0xff]++] = a[i];
		for (i = 0; i < n; i++)
			a[c1[((uint32_t) (tmp[i] >> 32) - lo) >> 8]++] = tmp[i];
		return a;
	}
	/* counting sort over the range */
	memset(c, 0, range * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		c[(uint32_t) (a[i] >> 32) - lo]++;
	for (j = 0; j < range; j++)
	{
		uint32_t	cj = c[j];

		c[j] = sum;
		sum += cj;
	}
	for (i = 0; i < n; i++)
		tmp[c[(uint32_t) (a[i] >> 32) - lo]++] = a[i];
	return tmp;
}
