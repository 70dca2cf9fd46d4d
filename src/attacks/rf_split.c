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
 *	  computed once per fit (rf_ranks.c), and a node's positions are not
 *	  sorted at all: their weights are summed into one bucket per rank and
 *	  the occupied buckets swept in rank order (marks read back as bitmaps)
 *	  (rf_sweep.c; 1.3-1.4x faster fits on the Groundhog features than the
 *	  sorted sweep, test/bench/b-rf-fit.c).  The sorts are in rf_sort.c.
 *	  The sweeps keep the best split's two ranks; its threshold is computed
 *	  once, for the node's winner, from the values of those ranks.
 *	  Equal values have equal ranks, so the candidate thresholds
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
#include <string.h>

#include "attacks/rf_int.h"

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
	tapas_rf_pairs_sort(pr, n);
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

/*
 * Best split of the segment [lo, hi) on feature e->f, improving *best.
 * Returns 1 if f is constant in the segment.
 */
static int
split_feature(rf_builder *b, const rf_feat *e, long lo, long hi, double W0,
			  double W1, rf_split *best)
{
	int			f = e->f;
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
		return tapas_rf_split_feature_ranks(b, e, lo, hi, W0, W1, best);
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
	tapas_rf_keys_sort(key, n, b->keys_tmp);
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

/*
 * Prefetches the ranks of the feature drawn after this one (ranks only),
 * so that its column (one of thousands, n bytes or uint16s: together they
 * overflow the core's cache) arrives while this one is swept.  The draw is
 * read from a copy of the generator, so the stream advances as before.
 */
static void
prefetch_next(const rf_builder *b, size_t drawn, long lo, long hi)
{
	tapas_rng_t peek = *b->rng;
	const rf_feat *e = &b->feat[drawn + tapas_rng_below_inline(&peek, b->d - drawn)];
	const char *col;
	size_t		len,
				o;
	int			shift;
	long		k;

	if (e->count == 1)
		return;
	if (e->count <= 256)
		col = (const char *) (b->rank8 + e->col), len = b->n, shift = 0;
	else
		col = (const char *) (b->rank + e->col), len = 2 * b->n, shift = 1;
	if ((size_t) (hi - lo) * 64 < len)
	{
		/*
		 * A node of fewer positions than the column has cache lines: the
		 * lines of its positions only (a prefetch per line of the column
		 * would keep the line fill buffers, which the core's other thread
		 * shares, busy with lines this node never reads).
		 */
		for (k = lo; k < hi; k++)
			__builtin_prefetch(col + ((size_t) b->idx[k] << shift));
		return;
	}
	for (o = 0; o < len; o += 64)
		__builtin_prefetch(col + o);
	__builtin_prefetch(col + len - 1);
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
		size_t		j = drawn + tapas_rng_below_inline(b->rng, d - drawn);
		rf_feat		e = b->feat[j];

		b->feat[j] = b->feat[drawn];
		b->feat[drawn++] = e;
		if (b->rank != NULL && drawn < d)
			prefetch_next(b, drawn, lo, hi);
		if (!split_feature(b, &e, lo, hi, W0, W1, best))
			visited++;
	}
	/* on ranks, the threshold of the winner only (rf_ranks.c) */
	if (b->rank != NULL && best->feature >= 0)
		best->threshold = tapas_rf_rank_threshold(b, best, lo, hi);
}
