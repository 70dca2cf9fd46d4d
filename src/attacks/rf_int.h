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

#include "attacks/random_forest.h"

/* a value and its position in the node segment, for the float sort */
typedef struct rf_pair
{
	float		v;
	int32_t		pos;
} rf_pair;

/* everything one tree build needs, allocated once per fit */
typedef struct rf_builder
{
	const float *Xc;			/* feature-major, d x n */
	const int  *y;
	size_t		n,
				d;
	const tapas_rf_params_t *p;
	int			max_features;
	int			has_nan;		/* some feature value is NaN: float sort */
	tapas_rng_t *rng;
	int32_t    *idx;			/* distinct samples of the tree */
	double	   *w0;				/* their weights, class 0 (else 0) */
	double	   *w1;				/* their weights, class 1 (else 0) */
	int32_t    *feat;			/* feature permutation for drawing */
	rf_pair    *pairs;			/* float sort buffer (NaN inputs) */
	uint64_t   *keys;			/* key sort buffers, n each */
	uint64_t   *keys_tmp;
	/*
	 * Ranks (rank NULL: none, when n > tapas_rf_rank_max_n or a value is
	 * NaN).  Feature f has rank_count[f] distinct values; its n ranks are
	 * at rank8 + rank_col[f] when they fit a byte (rank_count <= 256), else
	 * at rank + rank_col[f].
	 */
	uint16_t   *rank;			/* the wide features' ranks */
	uint8_t    *rank8;			/* the narrow features' ranks */
	size_t	   *rank_col;		/* d */
	uint32_t   *rank_count;		/* d */
	float	   *rank_value;		/* the value of each rank, rank_off[f] + r */
	size_t	   *rank_off;		/* d */
	uint32_t   *count;			/* n + 1 counters (counting sort) */
	/*
	 * The rank sweep's buckets (rf_split.c, sweep_ranks): per rank of a
	 * segment its weights and positions, and a bitmap of the ranks present;
	 * n + 1 entries, all zero between two uses.
	 */
	double	   *bucket_w0;
	double	   *bucket_w1;
	uint32_t   *bucket_n;
	uint64_t   *bucket_bits;	/* n / 64 + 1 words */
	uint32_t   *seg_rank;		/* n: the segment's ranks */
	int32_t    *tmp_idx;		/* partition buffers */
	double	   *tmp_w0;
	double	   *tmp_w1;
	tapas_rf_tree_t *tree;
} rf_builder;

typedef struct rf_split
{
	int			feature;
	double		threshold;
	double		proxy;
} rf_split;

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
 * Fills the ranks of b from b->Xc (b->n <= RF_RANK_MAX_N, no NaN): rank r
 * of feature f is the r-th smallest distinct value of the feature, -0 and
 * +0 alike.  Returns TAPAS_OK or TAPAS_ENOMEM.
 */
extern tapas_status tapas_rf_build_ranks(rf_builder *b);

/*
 * The best split of positions [lo, hi) (class weights W0, W1) over up to
 * max_features non-constant features drawn in random order from b->rng;
 * best->feature is -1 when no split improves on the node.
 */
extern void tapas_rf_find_split(rf_builder *b, long lo, long hi, double W0,
								double W1, rf_split *best);

#endif							/* TAPAS_RF_INT_H */
