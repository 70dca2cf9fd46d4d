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
 * a byte map, keeping the segment's rank range; the marked ranks are then
 * visited in ascending order (the marks of 64 ranks read as one bitmap,
 * count-trailing-zeros over it), each bucket cleared behind.  The candidates are those of the
 * sorted sweep (between adjacent distinct ranks, ascending) and the left
 * sums at each are the same exact integers (bootstrap counts, added in
 * another order), and so are the position counts (min_samples_leaf), so
 * the split is the same; but there is no sort, no branch that depends on
 * the data but the bucket loop's, and one integer addition per position
 * where the unpacked sweep made three (a third fewer instructions than
 * the unpacked bucket sweep, test/bench/b-rf-fit.c).  The visit lists each
 * present rank with the packed left sums before it; the candidates' Gini
 * proxies are then computed together, vectorised (the same operations in
 * the same order, so the same doubles), and only a feature whose largest
 * proxy beats the best so far has its candidates taken one by one, in
 * ascending order against the best so far as consider_proxy takes them.
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
 * The marks of the block of 64 ranks from base (a multiple of 64) as a
 * bitmap, the marks cleared: bytes 0x80 or 0, so SSE2's movemask reads 16
 * at a time.
 */
static inline uint64_t
take_marks(uint8_t *mark)
{
#ifdef __SSE2__
	const __m128i zero = _mm_setzero_si128();
	uint64_t	m = 0;
	int			j;

	for (j = 0; j < 4; j++)
	{
		__m128i		v = _mm_loadu_si128((const __m128i *) (mark + 16 * j));

		m |= (uint64_t) (uint32_t) _mm_movemask_epi8(v) << (16 * j);
		_mm_storeu_si128((__m128i *) (mark + 16 * j), zero);
	}
	return m;
#else
	uint64_t	m = 0;
	int			j;

	for (j = 0; j < 64; j++)
	{
		m |= (uint64_t) (mark[j] >> 7) << j;
		mark[j] = 0;
	}
	return m;
#endif
}

/*
 * The proxies of the candidate splits lo..hi-1 of a sweep into proxy[],
 * from the packed left sums left[] before each (the node totals W0,
 * W1): consider_proxy's operations in its order, branch-free so that the
 * divisions, which bound the sweep when done one by one, go four at a time
 * (compiled for AVX2 too, picked at load time; no FMA: AVX2 alone does not
 * enable it, and contraction is off), so each proxy is the same double;
 * returns the largest (finite-math-only lets the maximum vectorise: every
 * value is finite and positive).  Both sides of a candidate hold a
 * position, whose weight is at least 1, so no divisor is 0.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PROXY_CLONES __attribute__((target_clones("avx2", "default"), optimize("O3", "fp-contract=off", "finite-math-only", "no-signed-zeros")))
#elif defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* clang (PGXS's JIT bitcode) has no optimize attribute */
#define PROXY_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PROXY_CLONES
#endif

PROXY_CLONES
static double
candidate_proxies(double *restrict proxy, const uint64_t *restrict left,
				  long lo, long hi, double W0, double W1)
{
#ifdef __clang__
#pragma clang fp contract(off)
#endif
	long		i;
	double		top = 0;

	for (i = lo; i < hi; i++)
	{
		double		wl0 = (double) (int32_t) ((left[i] >> RF_PACK_BITS) & RF_PACK_MASK),
					wl1 = (double) (int32_t) (left[i] >> (2 * RF_PACK_BITS)),
					wl = wl0 + wl1,
					wr0 = W0 - wl0,
					wr1 = W1 - wl1,
					wr = wr0 + wr1,
					q = (wl0 * wl0 + wl1 * wl1) / wl + (wr0 * wr0 + wr1 * wr1) / wr;

		proxy[i] = q;
		top = q > top ? q : top;
	}
	return top;
}

/*
 * The candidates of a sweep of feature f over n positions whose p present
 * ranks are in b->cand_* (p >= 2): those leaving min_samples_leaf positions
 * each side improve *best as consider_proxy would, in ascending order, each
 * against the best so far.  The left counts rise with the rank, so those
 * candidates are one range.
 */
static void
sweep_candidates(rf_builder *b, int f, long p, long n, double W0, double W1,
				 rf_split *best)
{
	const uint64_t *cl = b->cand_left;
	const double *proxy = b->cand_proxy;
	long		msl = b->p->min_samples_leaf,
				lo = 1,
				hi = p,
				i;
	double		bar;

	while (lo < hi && RF_PACK_N(cl[lo]) < msl)
		lo++;
	while (hi > lo && n - RF_PACK_N(cl[hi - 1]) < msl)
		hi--;
	if (lo == hi)
		return;
	bar = best->proxy + 1e-12;
	/* most features have no candidate above the best: one test for all */
	if (!(candidate_proxies(b->cand_proxy, cl, lo, hi, W0, W1) > bar))
		return;
	for (i = lo; i < hi; i++)
		if (proxy[i] > bar)
		{
			best->proxy = proxy[i];
			best->feature = f;
			best->lo_rank = b->cand_rank[i - 1];
			best->hi_rank = b->cand_rank[i];
			bar = best->proxy + 1e-12;
		}
}

/*
 * The bucket sweep of feature f (see the header): the gather adds each
 * position's packed weights into the bucket of its rank directly and marks
 * the rank with a byte store (a bitmap's read-modify-write of one of a few
 * words would chain the positions through memory, and costs three more
 * instructions); the marks of the feature's ranks are then read back as
 * bitmaps of 64 ranks, each present rank listed with the left sums before
 * it, and a single rank present means the feature is constant in the
 * segment.  The candidates' proxies are then computed together
 * (sweep_candidates).
 */
#define DEFINE_SWEEP(name, type, ranks) \
static int \
name(rf_builder *b, const rf_feat *e, long lo, long n, double W0, double W1, \
	 rf_split *best) \
{ \
	const type *col = (ranks); \
	const int32_t *idx = b->idx + lo; \
	const uint64_t *wp = b->wp + lo; \
	uint64_t   *h = b->bucket, \
				left = 0; \
	uint8_t    *mark = b->bucket_mark; \
	uint32_t   *cr = b->cand_rank; \
	uint64_t   *cl = b->cand_left; \
	uint32_t	count = e->count, \
				base; \
	long		k, \
				p = 0; \
\
	if (best_is_perfect(best, W0, W1)) \
	{ \
		/* only the constancy matters: does any rank differ from the first */ \
		uint32_t	r0 = col[idx[0]], \
					diff = 0; \
\
		for (k = 1; k < n; k++) \
			diff |= col[idx[k]] ^ r0; \
		return diff == 0; \
	} \
	for (k = 0; k < n; k++) \
	{ \
		uint32_t	r = col[idx[k]]; \
\
		h[r] += wp[k]; \
		mark[r] = 0x80; \
	} \
	for (base = 0; base < count; base += 64) \
	{ \
		uint64_t	m = take_marks(mark + base); \
\
		while (m != 0) \
		{ \
			uint32_t	q = base + (uint32_t) __builtin_ctzll(m); \
\
			m &= m - 1; \
			cr[p] = q; \
			cl[p++] = left; \
			left += h[q]; \
			h[q] = 0; \
		} \
	} \
	if (p == 1) \
		return 1;				/* one rank holds every position: constant here */ \
	sweep_candidates(b, e->f, p, n, W0, W1, best); \
	return 0; \
}

DEFINE_SWEEP(sweep8, uint8_t, b->rank8 + e->col)
DEFINE_SWEEP(sweep16, uint16_t, b->rank + e->col)

/* split_feature with ranks (b->rank set) */
int
tapas_rf_split_feature_ranks(rf_builder *b, const rf_feat *e, long lo, long hi,
							 double W0, double W1, rf_split *best)
{
	int			f = e->f;
	const int32_t *idx = b->idx + lo;
	uint64_t   *key = b->keys;
	long		n = hi - lo,
				k,
				msl = b->p->min_samples_leaf;
	uint32_t	rmin = UINT32_MAX,
				rmax = 0;
	double		wl0 = 0,
				wl1 = 0;

	if (e->count == 1)
		return 1;				/* constant in every node */
	if (tapas_rf_sweep_buckets)
	{
		if (e->count <= 256)
			return sweep8(b, e, lo, n, W0, W1, best);
		return sweep16(b, e, lo, n, W0, W1, best);
	}
	if (e->count <= 256)
		GATHER_RANKS(b->rank8 + e->col)
	else
		GATHER_RANKS(b->rank + e->col)
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
		if (consider_proxy(best, f, wl0, wl1, W0, W1))
		{
			best->lo_rank = r;
			best->hi_rank = r_next;
		}
	}
	return 0;
}
