/*-------------------------------------------------------------------------
 *
 * rf_split.c
 *	  The split search of one random-forest node (see random_forest.h for
 *	  the criterion and rf_int.h for the sample layout).
 *
 * For each drawn feature the segment's values are gathered, sorted and
 * swept from left to right keeping the weighted class counts (wl0, wl1)
 * of the left part; with W0, W1 the node totals, the Gini impurity
 * decrease is maximised by maximising the proxy
 *	(wl0^2 + wl1^2) / wl + (wr0^2 + wr1^2) / wr
 * (the node's own impurity is constant), as in scikit-learn.
 *
 * Three things make the search cheap without changing a single split:
 *	- ranks: each feature's values are replaced once per fit by their dense
 *	  ranks (a byte when the feature has at most 256 distinct values, else
 *	  uint16: a quarter or half of the memory the gathers touch, and a
 *	  feature with one value is known constant without a look),
 *	  and a node's positions are not sorted at all: their weights are
 *	  summed into one bucket per rank and the occupied buckets swept in
 *	  rank order through a bitmap (sweep_ranks; 1.3-1.4x faster fits on
 *	  the Groundhog features, test/bench/b-rf-fit.c).  The former sorted
 *	  sweep stays as the benchmark's baseline (tapas_rf_sweep_buckets =
 *	  0): ranks packed above the position into one uint64 sort key; short
 *	  segments insertion-sorted, longer ones counting-sorted over the
 *	  segment's rank range, or radix-sorted (two 8-bit passes) when that
 *	  range is wide.  Equal values have equal ranks, so the candidate thresholds
 *	  (between distinct adjacent values) are the same as with a float
 *	  sort, and the class sums at each are the same exact integers whatever
 *	  the order among equal values.  Without ranks (more than 65,535
 *	  samples) the key is the float's order-preserving uint32 (sign bit
 *	  flipped, negatives complemented, -0 taken as +0), radix-sorted in up
 *	  to four passes (a pass skipped when every key has the same byte).
 *	- constant features are recognised from the gathered minimum and
 *	  maximum, before any sort.
 *	- once the best split is perfect (proxy = W0 + W1, both sides pure) no
 *	  feature can beat it by the 1e-12 margin (a computed proxy is at most
 *	  (W0 + W1)(1 + u)^4, u the unit round-off, as the weights are exact
 *	  integers), so later draws are only tested for constancy: drawing
 *	  must still visit max_features non-constant features, since the
 *	  random stream has to advance as before.
 * The weights are bootstrap counts, so every wl, wr is an exact integer
 * and the sweep's arithmetic is the same operation for operation.
 * Features with a NaN anywhere keep the plain float sort (NaN has no
 * place in an order; the result is whatever that sort gives, as before).
 *
 * IDENTIFICATION
 *	  src/attacks/rf_split.c
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <string.h>

#include "attacks/rf_int.h"
#include "util/memory.h"

size_t		tapas_rf_rank_max_n = RF_RANK_MAX_N;
int			tapas_rf_sweep_buckets = 1;

/* segments up to this length are insertion-sorted */
#define RF_INSERTION_MAX 24

/* ----------------------------------------------------------------
 *		Float sort (3-way quicksort, insertion sort for short runs)
 * ----------------------------------------------------------------
 */
static void
pairs_sort(rf_pair *a, long n)
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
			pairs_sort(a, lt);
			a += gt;
			n -= gt;
		}
		else
		{
			pairs_sort(a + gt, n - gt);
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

/* order-preserving key of a non-NaN float (-0 and +0 alike) */
static inline uint32_t
float_key(float v)
{
	uint32_t	u;

	if (v == 0.0f)
		v = 0.0f;
	memcpy(&u, &v, sizeof(u));
	return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* the float of a key */
static inline float
key_float(uint32_t k)
{
	uint32_t	u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
	float		v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* sorts a[0..n-1] by their upper 32 bits; tmp holds n */
static void
keys_sort(uint64_t *a, long n, uint64_t *tmp)
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
 *		Sweep
 * ----------------------------------------------------------------
 */

/*
 * The candidate split between left sums (wl0, wl1) and the rest, with the
 * two adjacent distinct values lo_v < hi_v around it: improves *best.
 */
static inline void
consider(rf_split *best, int f, double wl0, double wl1, double W0, double W1,
		 float lo_v, float hi_v)
{
	double		wl = wl0 + wl1,
				wr0 = W0 - wl0,
				wr1 = W1 - wl1,
				wr = wr0 + wr1,
				proxy;

	if (wl <= 0 || wr <= 0)
		return;
	proxy = (wl0 * wl0 + wl1 * wl1) / wl + (wr0 * wr0 + wr1 * wr1) / wr;
	if (proxy > best->proxy + 1e-12)
	{
		double		t = ((double) lo_v + (double) hi_v) / 2.0;

		/* the midpoint must separate the two floats */
		if (!((float) t < hi_v) || (float) t < lo_v)
			t = lo_v;
		best->proxy = proxy;
		best->feature = f;
		best->threshold = t;
	}
}

/* no split can beat *best by the margin: it is perfect (see the header) */
static inline int
best_is_perfect(const rf_split *best, double W0, double W1)
{
	return best->proxy + 1e-12 >= (W0 + W1) * (1.0 + 4.0 * DBL_EPSILON);
}

/* feature f with a float sort (some value of the data is NaN) */
static int
split_feature_float(rf_builder *b, int f, long lo, long hi, double W0,
					double W1, rf_split *best)
{
	const float *xf = b->Xc + (size_t) f * b->n;
	rf_pair    *pr = b->pairs;
	long		n = hi - lo,
				k,
				msl = b->p->min_samples_leaf;
	double		wl0 = 0,
				wl1 = 0;

	for (k = 0; k < n; k++)
	{
		pr[k].v = xf[b->idx[lo + k]];
		pr[k].pos = (int32_t) (lo + k);
	}
	pairs_sort(pr, n);
	if (!(pr[0].v < pr[n - 1].v))
		return 1;
	for (k = 0; k < n - 1; k++)
	{
		int32_t		s = pr[k].pos;

		wl0 += b->w0[s];
		wl1 += b->w1[s];
		if (!(pr[k].v < pr[k + 1].v) || k + 1 < msl || n - k - 1 < msl)
			continue;
		consider(best, f, wl0, wl1, W0, W1, pr[k].v, pr[k + 1].v);
	}
	return 0;
}

/* ----------------------------------------------------------------
 *		Ranks
 * ----------------------------------------------------------------
 */

/* the ranks of feature f into b->rank + f * n; returns the distinct count */
static uint32_t
feature_ranks(rf_builder *b, size_t f, size_t *total)
{
	size_t		n = b->n;
	const float *xf = b->Xc + f * n;
	uint16_t   *rf = b->rank + f * n;
	uint64_t   *key = b->keys;
	uint32_t	prev = 0;
	long		i,
				r = -1;

	for (i = 0; i < (long) n; i++)
		key[i] = ((uint64_t) float_key(xf[i]) << 32) | (uint32_t) i;
	keys_sort(key, (long) n, b->keys_tmp);
	b->rank_off[f] = *total;
	for (i = 0; i < (long) n; i++)
	{
		uint32_t	v = (uint32_t) (key[i] >> 32);

		if (r < 0 || v != prev)
		{
			b->rank_value[*total + ++r] = key_float(v);
			prev = v;
		}
		rf[(uint32_t) key[i]] = (uint16_t) r;
	}
	*total += r + 1;
	return (uint32_t) (r + 1);
}

tapas_status
tapas_rf_build_ranks(rf_builder *b)
{
	size_t		n = b->n,
				d = b->d,
				f,
				i,
				total = 0,
				narrow = 0,
				wide = 0;

	b->rank = tapas_malloc(n * d * sizeof(uint16_t));
	b->rank_value = tapas_malloc(n * d * sizeof(float));
	b->rank_off = tapas_malloc(d * sizeof(size_t));
	b->rank_col = tapas_malloc(d * sizeof(size_t));
	b->rank_count = tapas_malloc(d * sizeof(uint32_t));
	b->count = tapas_malloc((n + 1) * sizeof(uint32_t));
	b->bucket_w0 = tapas_calloc(n + 1, sizeof(double));
	b->bucket_w1 = tapas_calloc(n + 1, sizeof(double));
	b->bucket_n = tapas_calloc(n + 1, sizeof(uint32_t));
	b->bucket_bits = tapas_calloc(n / 64 + 1, sizeof(uint64_t));
	b->seg_rank = tapas_malloc(n * sizeof(uint32_t));
	if (!b->rank || !b->rank_value || !b->rank_off || !b->rank_col ||
		!b->rank_count || !b->count || !b->bucket_w0 || !b->bucket_w1 ||
		!b->bucket_n || !b->bucket_bits || !b->seg_rank)
		return TAPAS_ENOMEM;
	for (f = 0; f < d; f++)
	{
		b->rank_count[f] = feature_ranks(b, f, &total);
		narrow += b->rank_count[f] <= 256;
	}
	/* narrow features to bytes; wide ones compacted to the front of rank */
	b->rank8 = tapas_malloc((narrow ? narrow : 1) * n);
	if (b->rank8 == NULL)
		return TAPAS_ENOMEM;
	narrow = 0;
	for (f = 0; f < d; f++)
	{
		const uint16_t *src = b->rank + f * n;

		if (b->rank_count[f] <= 256)
		{
			b->rank_col[f] = narrow * n;
			for (i = 0; i < n; i++)
				b->rank8[narrow * n + i] = (uint8_t) src[i];
			narrow++;
		}
		else
		{
			b->rank_col[f] = wide * n;
			memmove(b->rank + wide * n, src, n * sizeof(uint16_t));
			wide++;
		}
	}
	return TAPAS_OK;
}

/*
 * Sorts a[0..n-1] by their upper 32 bits, ranks within [lo, hi] (hi - lo
 * < b->n); returns a or tmp, whichever holds the result.
 */
static uint64_t *
rank_sort(rf_builder *b, uint64_t *a, long n, uint64_t *tmp, uint32_t lo, uint32_t hi)
{
	uint32_t   *c = b->count;
	uint32_t	range = hi - lo + 1,
				sum = 0,
				j;
	long		i;

	if (n <= RF_INSERTION_MAX)
	{
		keys_sort(a, n, tmp);
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
 * The sweep of the segment's n positions by their ranks sr[] (rmin..rmax),
 * without sorting them: each rank's weights and number of positions are
 * summed into its bucket and marked in a bitmap, then the marked ranks
 * are visited in ascending order (count-trailing-zeros over the bitmap's
 * words) and each bucket cleared behind.  The candidates are those of the
 * sorted sweep (between adjacent distinct ranks, ascending), the left
 * sums at each are the same exact integers (bootstrap counts, added in
 * another order) and so are the position counts (min_samples_leaf), so
 * the split is the same; but there is no sort, and no branch that depends
 * on the data but the bucket loop's (a node's insertion sort and its
 * sweep's tie test mispredicted about once per sample).
 */
static void
sweep_ranks(rf_builder *b, int f, long lo, long n, const uint32_t *sr,
			uint32_t rmin, uint32_t rmax, double W0, double W1, rf_split *best)
{
	const float *value = b->rank_value + b->rank_off[f] + rmin;
	const double *w0 = b->w0 + lo,
			   *w1 = b->w1 + lo;
	double	   *h0 = b->bucket_w0,
			   *h1 = b->bucket_w1;
	uint32_t   *hn = b->bucket_n;
	uint64_t   *bits = b->bucket_bits;
	uint32_t	words = (rmax - rmin) / 64 + 1,
				w,
				prev = 0;
	long		k,
				msl = b->p->min_samples_leaf,
				left = 0;
	double		wl0 = 0,
				wl1 = 0;

	for (k = 0; k < n; k++)
	{
		uint32_t	q = sr[k] - rmin;

		h0[q] += w0[k];
		h1[q] += w1[k];
		hn[q]++;
		bits[q >> 6] |= UINT64_C(1) << (q & 63);
	}
	for (w = 0; w < words; w++)
	{
		uint64_t	m = bits[w];

		bits[w] = 0;
		while (m != 0)
		{
			uint32_t	q = w * 64 + (uint32_t) __builtin_ctzll(m);

			m &= m - 1;
			if (left > 0 && left >= msl && n - left >= msl)
				consider(best, f, wl0, wl1, W0, W1, value[prev], value[q]);
			wl0 += h0[q];
			wl1 += h1[q];
			left += hn[q];
			h0[q] = h1[q] = 0;
			hn[q] = 0;
			prev = q;
		}
	}
}

/* the segment's ranks into sr[]; their min and max */
#define GATHER_SEG_RANKS(type, ranks) \
	{ \
	const type *col = (ranks); \
	for (k = 0; k < n; k++) \
	{ \
		uint32_t	r = col[idx[k]]; \
\
		rmin = r < rmin ? r : rmin; \
		rmax = r > rmax ? r : rmax; \
		sr[k] = r; \
	} \
	}

/* split_feature with ranks (b->rank set) */
static int
split_feature_ranks(rf_builder *b, int f, long lo, long hi, double W0,
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
		uint32_t   *sr = b->seg_rank;

		if (b->rank_count[f] <= 256)
			GATHER_SEG_RANKS(uint8_t, b->rank8 + b->rank_col[f])
		else
			GATHER_SEG_RANKS(uint16_t, b->rank + b->rank_col[f])
		if (rmin == rmax)
			return 1;
		if (!best_is_perfect(best, W0, W1))
			sweep_ranks(b, f, lo, n, sr, rmin, rmax, W0, W1, best);
		return 0;
	}
	if (b->rank_count[f] <= 256)
		GATHER_RANKS(b->rank8 + b->rank_col[f])
	else
		GATHER_RANKS(b->rank + b->rank_col[f])
	if (rmin == rmax)
		return 1;
	if (best_is_perfect(best, W0, W1))
		return 0;
	key = rank_sort(b, key, n, b->keys_tmp, rmin, rmax);
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

/*
 * Best split of the segment [lo, hi) on feature f, improving *best.
 * Returns 1 if f is constant in the segment.
 */
static int
split_feature(rf_builder *b, int f, long lo, long hi, double W0, double W1,
			  rf_split *best)
{
	const float *xf = b->Xc + (size_t) f * b->n;
	const int32_t *idx = b->idx + lo;
	uint64_t   *key = b->keys;
	long		n = hi - lo,
				k,
				msl = b->p->min_samples_leaf;
	uint32_t	kmin = UINT32_MAX,
				kmax = 0;
	double		wl0 = 0,
				wl1 = 0;

	if (b->rank != NULL)
		return split_feature_ranks(b, f, lo, hi, W0, W1, best);
	if (b->has_nan)
		return split_feature_float(b, f, lo, hi, W0, W1, best);
	for (k = 0; k < n; k++)
	{
		uint32_t	v = float_key(xf[idx[k]]);

		kmin = v < kmin ? v : kmin;
		kmax = v > kmax ? v : kmax;
		key[k] = ((uint64_t) v << 32) | (uint32_t) (lo + k);
	}
	if (kmin == kmax)
		return 1;
	if (best_is_perfect(best, W0, W1))
		return 0;
	keys_sort(key, n, b->keys_tmp);
	for (k = 0; k < n - 1; k++)
	{
		uint32_t	s = (uint32_t) key[k],
					v = (uint32_t) (key[k] >> 32),
					v_next = (uint32_t) (key[k + 1] >> 32);

		wl0 += b->w0[s];
		wl1 += b->w1[s];
		if (v == v_next || k + 1 < msl || n - k - 1 < msl)
			continue;
		consider(best, f, wl0, wl1, W0, W1, key_float(v), key_float(v_next));
	}
	return 0;
}

void
tapas_rf_find_split(rf_builder *b, long lo, long hi, double W0, double W1,
					rf_split *best)
{
	size_t		d = b->d,
				drawn = 0;
	int			visited = 0;

	best->feature = -1;
	best->proxy = (W0 * W0 + W1 * W1) / (W0 + W1);	/* no split */
	while (visited < b->max_features && drawn < d)
	{
		size_t		j = drawn + tapas_rng_below(b->rng, d - drawn);
		int32_t		f = b->feat[j];

		b->feat[j] = b->feat[drawn];
		b->feat[drawn++] = f;
		if (!split_feature(b, f, lo, hi, W0, W1, best))
			visited++;
	}
}
