/*-------------------------------------------------------------------------
 *
 * rf_sweep.c
 *	  The split search of one feature by its ranks (rf_int.h): the bucket
 *	  sweep, and the sorted sweep it replaced (the benchmark's baseline).
 *
 * Bucket sweep (tapas_rf_sweep_buckets = 1, the default): a node's
 * positions are not sorted at all.  One pass gathers each position's rank,
 * adds its packed weights (RF_PACK: class-0 weight, class-1 weight and a
 * count in one uint64) into the bucket of that rank and marks the rank in
 * a bitmap, keeping the segment's rank range; the marked ranks are then
 * visited in ascending order (count-trailing-zeros over the bitmap's
 * words), each bucket cleared behind.  The candidates are those of the
 * sorted sweep (between adjacent distinct ranks, ascending) and the left
 * sums at each are the same exact integers (bootstrap counts, added in
 * another order), and so are the position counts (min_samples_leaf), so
 * the split is the same; but there is no sort, no branch that depends on
 * the data but the bucket loop's, and one integer addition per position
 * where the unpacked sweep made three (a third fewer instructions than
 * the unpacked bucket sweep, test/bench/b-rf-fit.c).
 *
 * Sorted sweep (tapas_rf_sweep_buckets = 0): ranks packed above the
 * position into one uint64 sort key, sorted by tapas_rf_rank_sort, then
 * swept with the class weights w0[], w1[].
 *
 * IDENTIFICATION
 *	  src/attacks/rf_sweep.c
 *
 *-------------------------------------------------------------------------
 */
#include "attacks/rf_int.h"

int			tapas_rf_sweep_buckets = 1;

/* the segment's ranks into key[] (rank above position); their min and max */
#define GATHER_RANKS(ranks) \
	for (k = 0; k < n; k++) \
	{ \
		uint32_t	r = (ranks)[idx[k]]; \
\
		rmin = r < rmin ? r : rmin; \
		rmax = r > rmax ? r : rmax; \
		key[k] = ((uint64_t) r << 32) | (uint32_t) (lo + k); \
	}

/*
 * The bucket sweep of feature f (see the header): the gather adds each
 * position's packed weights into the bucket of its rank directly and marks
 * the bitmap, in the same pass that finds the segment's rank range.
 */
#define DEFINE_SWEEP(name, type, ranks) \
static int \
name(rf_builder *b, int f, long lo, long n, double W0, double W1, rf_split *best) \
{ \
	const type *col = (ranks); \
	const int32_t *idx = b->idx + lo; \
	const uint64_t *wp = b->wp + lo; \
	uint64_t   *h = b->bucket, \
			   *bits = b->bucket_bits, \
				left = 0; \
	const float *value = b->rank_value + b->rank_off[f]; \
	uint32_t	rmin = UINT32_MAX, \
				rmax = 0, \
				w, \
				prev = 0; \
	long		k, \
				msl = b->p->min_samples_leaf; \
\
	if (best_is_perfect(best, W0, W1)) \
	{ \
		for (k = 0; k < n; k++) \
		{ \
			uint32_t	r = col[idx[k]]; \
\
			rmin = r < rmin ? r : rmin; \
			rmax = r > rmax ? r : rmax; \
		} \
		return rmin == rmax; \
	} \
	for (k = 0; k < n; k++) \
	{ \
		uint32_t	r = col[idx[k]]; \
\
		rmin = r < rmin ? r : rmin; \
		rmax = r > rmax ? r : rmax; \
		h[r] += wp[k]; \
		bits[r >> 6] |= UINT64_C(1) << (r & 63); \
	} \
	if (rmin == rmax) \
	{ \
		h[rmin] = 0; \
		bits[rmin >> 6] = 0; \
		return 1; \
	} \
	for (w = rmin >> 6; w <= rmax >> 6; w++) \
	{ \
		uint64_t	m = bits[w]; \
\
		bits[w] = 0; \
		while (m != 0) \
		{ \
			uint32_t	q = w * 64 + (uint32_t) __builtin_ctzll(m); \
			long		nl = RF_PACK_N(left); \
\
			m &= m - 1; \
			if (nl > 0 && nl >= msl && n - nl >= msl) \
				consider(best, f, RF_PACK_W0(left), RF_PACK_W1(left), W0, W1, \
						 value[prev], value[q]); \
			left += h[q]; \
			h[q] = 0; \
			prev = q; \
		} \
	} \
	return 0; \
}

DEFINE_SWEEP(sweep8, uint8_t, b->rank8 + b->rank_col[f])
DEFINE_SWEEP(sweep16, uint16_t, b->rank + b->rank_col[f])

/* split_feature with ranks (b->rank set) */
int
tapas_rf_split_feature_ranks(rf_builder *b, int f, long lo, long hi, double W0,
					double W1, rf_split *best)
{
	const float *value = b->rank_value + b->rank_off[f];
	const int32_t *idx = b->idx + lo;
	uint64_t   *key = b->keys;
	long		n = hi - lo,
				k,
				msl = b->p->min_samples_leaf;
	uint32_t	rmin = UINT32_MAX,
				rmax = 0;
	double		wl0 = 0,
				wl1 = 0;

	if (b->rank_count[f] == 1)
		return 1;				/* constant in every node */
	if (tapas_rf_sweep_buckets)
	{
		if (b->rank_count[f] <= 256)
			return sweep8(b, f, lo, n, W0, W1, best);
		return sweep16(b, f, lo, n, W0, W1, best);
	}
	if (b->rank_count[f] <= 256)
		GATHER_RANKS(b->rank8 + b->rank_col[f])
	else
		GATHER_RANKS(b->rank + b->rank_col[f])
	if (rmin == rmax)
		return 1;
	if (best_is_perfect(best, W0, W1))
		return 0;
	key = tapas_rf_rank_sort(b, key, n, b->keys_tmp, rmin, rmax);
	for (k = 0; k < n - 1; k++)
	{
		uint32_t	s = (uint32_t) key[k],
					r = (uint32_t) (key[k] >> 32),
					r_next = (uint32_t) (key[k + 1] >> 32);

		wl0 += b->w0[s];
		wl1 += b->w1[s];
		if (r == r_next || k + 1 < msl || n - k - 1 < msl)
			continue;
		consider(best, f, wl0, wl1, W0, W1, value[r], value[r_next]);
	}
	return 0;
}
