/*-------------------------------------------------------------------------
 *
 * rf_int.h
 *	  Internal interface between random_forest.c (tree growth) and
 *	  rf_split.c (the split search of one node).
 *
 * A tree's distinct bootstrap samples are the positions of idx[]; each
 * position carries its bootstrap weight split by class, w0[] (weight when
 * the label is 0, else 0) and w1[] (weight when it is 1, else 0), so the
 * split sweep adds both without looking up the label.  The node being
 * split is the segment [lo, hi) of the positions; partition() permutes
 * the three arrays together.  Not for use outside src/attacks/random_forest*
 * and rf_split.c.
 *
 * IDENTIFICATION
 *	  src/attacks/rf_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_RF_INT_H
#define TAPAS_RF_INT_H

#include <float.h>
#include <string.h>

#include "attacks/random_forest.h"

/* a value and its position in the node segment, for the float sort */
typedef struct rf_pair
{
	float		v;
	int32_t		pos;
} rf_pair;

/*
 * An entry of the feature permutation the draws take from: the feature,
 * and (with ranks) its distinct count and where its ranks are, so that a
 * draw reads one entry, not the entry and then two per-feature arrays.
 */
typedef struct rf_feat
{
	int32_t		f;
	uint32_t	count;			/* rank_count[f] (with ranks) */
	size_t		col;			/* rank_col[f] (with ranks) */
} rf_feat;

/* everything one tree build needs, allocated once per fit */
typedef struct rf_builder
{
	const double *X;			/* the caller's matrix, n x d ... */
	const float *Xf;			/* ... or as floats (tapas_rf_fit_float) */
	const float *Xc;			/* feature-major, d x n; NULL with ranks */
	const int  *y;
	size_t		n,
				d;
	const tapas_rf_params_t *p;
	int			max_features;
	int			has_nan;		/* some feature value is NaN: float sort */
	tapas_rng_t *rng;
	/*
	 * Cancellation inside the ranking and the trees (rf_poll): the
	 * caller's progress, the fraction reported (-1 while ranking, then
	 * trees grown / trees), and the work (samples visited times features
	 * looked at) since the last poll.
	 */
	const tapas_progress_t *progress;
	double		fraction;
	size_t		unpolled;
	int32_t    *idx;			/* distinct samples of the tree */
	double	   *w0;				/* their weights, class 0 (else 0) */
	double	   *w1;				/* their weights, class 1 (else 0) */
	uint64_t   *wp;				/* ranks only: their weights packed (RF_PACK) */
	rf_feat    *feat;			/* feature permutation for drawing */
	rf_pair    *pairs;			/* float sort buffer (NaN inputs) */
	uint64_t   *keys;			/* key sort buffers, n each */
	uint64_t   *keys_tmp;
	/*
	 * Ranks (rank NULL: none, when n > tapas_rf_rank_max_n or a value is
	 * NaN).  Feature f has rank_count[f] distinct values; its n ranks are
	 * at rank8 + rank_col[f] when they fit a byte (rank_count <= 256), else
	 * at rank + rank_col[f].  The values of ranks are read back from X
	 * (tapas_rf_rank_threshold).
	 */
	uint16_t   *rank;			/* the wide features' ranks */
	uint8_t    *rank8;			/* the narrow features' ranks */
	size_t	   *rank_col;		/* d */
	uint32_t   *rank_count;		/* d */
	uint64_t   *block_keys;		/* while ranking: the keys of a block */
	uint32_t   *count;			/* n + 1 counters (counting sort) */
	/*
	 * The rank sweep's buckets (rf_sweep.c): per rank of a segment its
	 * packed weights and positions, and a mark byte (0x80) per rank
	 * present; all zero between two uses.
	 */
	uint64_t   *bucket;			/* n + 1 packed sums (RF_PACK) */
	uint8_t    *bucket_mark;	/* (n / 64 + 1) * 64 bytes */
	/*
	 * The sweep's present ranks in ascending order, n + 1 each: the rank,
	 * the packed left sums before it (RF_PACK) and the proxy of the
	 * candidate split below it (rf_sweep.c).
	 */
	uint32_t   *cand_rank;
	uint64_t   *cand_left;
	double	   *cand_proxy;
	int32_t    *tmp_idx;		/* partition buffers */
	uint64_t   *tmp_wp;
	double	   *tmp_w0;
	double	   *tmp_w1;
	tapas_rf_tree_t *tree;
} rf_builder;

/* work between two polls: about a millisecond of the split search */
#define RF_POLL_WORK ((size_t) 1 << 20)

/*
 * Counts work units done and polls the caller every RF_POLL_WORK of them;
 * nonzero when it asked to stop (the fit then returns TAPAS_ECANCELED).
 */
static inline int
rf_poll(rf_builder *b, size_t work)
{
	b->unpolled += work;
	if (b->unpolled < RF_POLL_WORK)
		return 0;
	b->unpolled = 0;
	return tapas_progress_poll(b->progress, b->fraction);
}

typedef struct rf_split
{
	int			feature;
	double		threshold;		/* with ranks: set by find_split at its end */
	double		proxy;
	/* with ranks: the best split's adjacent ranks (threshold between them) */
	uint32_t	lo_rank,
				hi_rank;
} rf_split;

/*
 * Packed weights (the rank path, n <= RF_RANK_MAX_N): a position's class-0
 * weight, class-1 weight and a count of 1 in three 21-bit fields, so one
 * integer addition sums all three; a segment's sums never exceed n.
 */
#define RF_PACK_BITS 21
#define RF_PACK_MASK ((UINT64_C(1) << RF_PACK_BITS) - 1)
#define RF_PACK(w0, w1) (((uint64_t) (w1) << (2 * RF_PACK_BITS)) | \
						 ((uint64_t) (w0) << RF_PACK_BITS) | 1)
#define RF_PACK_N(p) ((long) ((p) & RF_PACK_MASK))
#define RF_PACK_W0(p) ((double) (((p) >> RF_PACK_BITS) & RF_PACK_MASK))
#define RF_PACK_W1(p) ((double) ((p) >> (2 * RF_PACK_BITS)))

/* ranks fit in 16 bits up to this many samples */
#define RF_RANK_MAX_N 65535

/*
 * Fits use ranks up to this many samples: RF_RANK_MAX_N, lowered only by
 * the unit tests (to 0, to test the float-key path on small inputs).
 */
extern size_t tapas_rf_rank_max_n;

/*
 * 1 (the default): a node's ranks are swept through buckets (rf_split.c,
 * sweep_ranks); 0: sorted first, as before (the unit tests and the
 * benchmark's baseline; both grow the same trees).
 */
extern int	tapas_rf_sweep_buckets;

/*
 * Rows fetched ahead while ranking a block of features (rf_ranks.c); 0:
 * none, as before (the benchmark's baseline).
 */
extern int	tapas_rf_rank_ahead;

/*
 * Fills the ranks of b from b->X (b->n <= RF_RANK_MAX_N): rank r of
 * feature f is the r-th smallest distinct value of the feature, -0 and +0
 * alike.  Returns TAPAS_OK or TAPAS_ENOMEM; on a NaN, TAPAS_OK with no
 * ranks (b->rank NULL) and b->has_nan set.
 */
extern tapas_status tapas_rf_build_ranks(rf_builder *b);

/*
 * The threshold of the split best found on ranks in positions [lo, hi):
 * between the values of its lo_rank and hi_rank, as split_threshold.
 */
extern double tapas_rf_rank_threshold(const rf_builder *b, const rf_split *best,
									  long lo, long hi);

/*
 * The best split of positions [lo, hi) (class weights W0, W1) over up to
 * max_features non-constant features drawn in random order from b->rng;
 * best->feature is -1 when no split improves on the node.
 */
extern void tapas_rf_find_split(rf_builder *b, long lo, long hi, double W0,
								double W1, rf_split *best);

/* rf_sort.c: see there */
extern void tapas_rf_pairs_sort(rf_pair *a, long n);

/* sorts a[0..n-1] by their upper 32 bits; tmp holds n */
extern void tapas_rf_keys_sort(uint64_t *a, long n, uint64_t *tmp);

/*
 * Sorts a[0..n-1] by their upper 32 bits, ranks within [lo, hi] (hi - lo
 * < b->n); returns a or tmp, whichever holds the result.
 */
extern uint64_t *tapas_rf_rank_sort(rf_builder *b, uint64_t *a, long n,
									uint64_t *tmp, uint32_t lo, uint32_t hi);

/*
 * rf_sweep.c: the best split of positions [lo, hi) on feature e->f by its
 * ranks (b->rank set), improving *best; returns 1 if it is constant there.
 */
extern int	tapas_rf_split_feature_ranks(rf_builder *b, const rf_feat *e, long lo,
										 long hi, double W0, double W1,
										 rf_split *best);

/* the float the fit sees for sample i's feature f */
static inline float
rf_x(const rf_builder *b, size_t i, size_t f)
{
	return b->Xf != NULL ? b->Xf[i * b->d + f] : (float) b->X[i * b->d + f];
}

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

/* the threshold between adjacent distinct values lo_v < hi_v */
static inline double
split_threshold(float lo_v, float hi_v)
{
	double		t = ((double) lo_v + (double) hi_v) / 2.0;

	/* the midpoint must separate the two floats */
	if (!((float) t < hi_v) || (float) t < lo_v)
		t = lo_v;
	return t;
}

/*
 * The candidate split between left sums (wl0, wl1) and the rest improves
 * *best: returns 1 and sets best->proxy and best->feature if it does.
 */
static inline int
consider_proxy(rf_split *best, int f, double wl0, double wl1, double W0,
			   double W1)
{
	double		wl = wl0 + wl1,
				wr0 = W0 - wl0,
				wr1 = W1 - wl1,
				wr = wr0 + wr1,
				proxy;

	if (wl <= 0 || wr <= 0)
		return 0;
	proxy = (wl0 * wl0 + wl1 * wl1) / wl + (wr0 * wr0 + wr1 * wr1) / wr;
	if (!(proxy > best->proxy + 1e-12))
		return 0;
	best->proxy = proxy;
	best->feature = f;
	return 1;
}

/*
 * The candidate split between left sums (wl0, wl1) and the rest, with the
 * two adjacent distinct values lo_v < hi_v around it: improves *best.
 */
static inline void
consider(rf_split *best, int f, double wl0, double wl1, double W0, double W1,
		 float lo_v, float hi_v)
{
	if (consider_proxy(best, f, wl0, wl1, W0, W1))
		best->threshold = split_threshold(lo_v, hi_v);
}

/* no split can beat *best by the margin: it is perfect (see the header) */
static inline int
best_is_perfect(const rf_split *best, double W0, double W1)
{
	return best->proxy + 1e-12 >= (W0 + W1) * (1.0 + 4.0 * DBL_EPSILON);
}

#endif							/* TAPAS_RF_INT_H */
