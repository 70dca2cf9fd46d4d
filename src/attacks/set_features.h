/*-------------------------------------------------------------------------
 *
 * set_features.h
 *	  Set features of one dataset for shadow-modelling attacks: naive,
 *	  histogram, correlation and random targeted queries, concatenable.
 *
 * A dataset is a row-major n x m matrix of "coded" records: column j is
 * either categorical (cell = category code 0..k_j-1, stored as a double)
 * or numeric (any value).  The encoded view one-hot encodes categorical
 * columns and maps a numeric cell v to (v - shift_j) * scale_j, giving
 * e = sum_j (categorical ? k_j : 1) encoded columns, contiguous in column
 * order (column j starts at offset[j]).  This is exactly the encoding of
 * attacks/dataset.h (ordinal: shift 0, scale 1/(card-1); continuous:
 * shift lower, scale 1/(upper-lower)), built by
 * tapas_coded_schema_from_specs; a plain n x d matrix of doubles is the
 * special case of d numeric columns with shift 0 and scale 1.
 *
 * Features (Stadler et al., "Synthetic data - anonymisation groundhog day",
 * USENIX Security 2022; the set features of the TAPAS toolbox),
 * all computed over the encoded view:
 *	naive:	 [mean(e), median(e), var(e)]  (numpy: median of an even count is
 *			 the mean of the two middle values; variance with ddof 0)  -> 3e
 *	hist:	 categorical column: frequency of each category (k_j values);
 *			 numeric column: n_bins equal-width bins over [lo, hi] divided
 *			 by n (last bin closed; values outside the bounds are counted
 *			 in the edge bins instead of being dropped, unlike the
 *			 reference)											  -> sum
 *	corr:	 upper triangle (i < j, row-major) of the Pearson correlation
 *			 matrix of the encoded columns; 0 where a column is constant
 *			 (numpy gives NaN, the reference maps it to 0)	  -> e(e-1)/2
 *	queries: for each of `number` random subsets S of `order` columns
 *			 (drawn once from a seed; distinct subsets while C(m, order) <
 *			 1e6, as the reference), the number of records equal to the
 *			 target on every column of S (a COUNT(*) per query) -> number
 *
 * One pass over the records accumulates sums and the co-moment matrix
 * S = X^T X of the encoded view from the sparse rows (one nonzero per
 * column), so the cost is O(n m^2) instead of O(n e^2); between two
 * categorical columns the co-moments are counts of records, taken as
 * popcounts of per-category record bitsets (set_features_cocount.c), the
 * same exact integers; queries count distinct match masks once and test
 * each query against those.
 *
 * IDENTIFICATION
 *	  src/attacks/set_features.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SET_FEATURES_H
#define TAPAS_SET_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/rng.h"
#include "util/status.h"

#define TAPAS_COL_NUMERIC		0
#define TAPAS_COL_CATEGORICAL	1

/* Layout of coded records. */
typedef struct tapas_coded_schema
{
	size_t		m;				/* number of columns */
	int		   *kind;			/* TAPAS_COL_* per column */
	int		   *ncat;			/* categories per categorical column, else 1 */
	double	   *shift;			/* numeric: encoded = (v - shift) * scale */
	double	   *scale;
	size_t	   *offset;			/* first encoded column of each column */
	size_t		e;				/* encoded dimension */
} tapas_coded_schema_t;

/*
 * Builds a schema from m kinds and category counts (ncat ignored for
 * numeric columns; may be NULL when all are numeric).  Returns NULL on
 * ENOMEM or when a categorical column has fewer than 1 category.  Free with
 * tapas_coded_schema_free (NULL-safe).
 */
extern tapas_coded_schema_t *tapas_coded_schema_create(size_t m, const int *kind,
													   const int *ncat);
extern void tapas_coded_schema_free(tapas_coded_schema_t *schema);

/*
 * The schema of a dataset.h column list (same encoding as
 * tapas_dataset_encode).  NULL on ENOMEM or an invalid specification.
 */
struct tapas_column_spec;
extern tapas_coded_schema_t *tapas_coded_schema_from_specs(size_t c,
														   const struct tapas_column_spec *cols);

#define TAPAS_SETFEAT_NAIVE		0
#define TAPAS_SETFEAT_HIST		1
#define TAPAS_SETFEAT_CORR		2
#define TAPAS_SETFEAT_QUERIES	3

/* One feature set of a concatenation. */
typedef struct tapas_setfeat_item
{
	int			type;			/* TAPAS_SETFEAT_* */
	int			n_bins;			/* hist: bins per numeric column (>= 1) */
	double		lo,
				hi;				/* hist: bounds for numeric columns, lo < hi */
	int			order;			/* queries: columns per query, 1..m */
	int			number;			/* queries: number of queries (>= 1) */
	uint64_t	seed;			/* queries: seed of the subset draw */
	/* filled by tapas_setfeat_create */
	size_t		dim;			/* number of features of this item */
	uint64_t   *masks;			/* queries: one column bit mask per query */
} tapas_setfeat_item_t;

/* A concatenation of feature sets (SetFeature "+" in the reference). */
typedef struct tapas_setfeat
{
	const tapas_coded_schema_t *schema; /* borrowed, must outlive this */
	size_t		n_items;
	tapas_setfeat_item_t *items;	/* owned copy */
	size_t		dim;			/* total number of features */
	double	   *target;			/* queries: coded target record (m), owned */
	/* scratch for one extraction, sized at creation */
	double	   *sum;			/* e */
	double	   *comoment;		/* e x e, upper triangle used */
	uint64_t   *bits;			/* e x bits_words: categorical columns'
								 * record bitsets (NULL unless some column
								 * is categorical and m <= 64) */
	size_t		bits_words;		/* ceil(n_max / 64) */
	double	   *colbuf;			/* n_max, for numeric medians */
	uint64_t   *maskbuf;		/* n_max: distinct match masks */
	double	   *countbuf;		/* n_max: records per distinct mask */
	double	   *sd;				/* e: standard deviations */
	size_t		n_max;
} tapas_setfeat_t;

/*
 * Creates a feature extractor for datasets of at most n_max records.
 * items: n_items descriptions (copied); queries items need the coded target
 * record (m values; may be NULL otherwise) and at most 64 columns.  The
 * query subsets are drawn here, from each item's seed.  Returns TAPAS_OK,
 * TAPAS_EINVAL (bad parameter; *reason says which) or TAPAS_ENOMEM.
 */
extern tapas_status tapas_setfeat_create(tapas_setfeat_t **out,
										 const tapas_coded_schema_t *schema,
										 const tapas_setfeat_item_t *items,
										 size_t n_items, const double *target,
										 size_t n_max, const char **reason);
extern void tapas_setfeat_free(tapas_setfeat_t *fs);

/*
 * Extracts the features of one dataset (n x m coded, row-major, 1 <= n <=
 * n_max) into out[fs->dim].  Categorical codes are assumed valid (checked
 * by callers).  Allocates nothing.
 */
extern tapas_status tapas_setfeat_extract(tapas_setfeat_t *fs, const double *x,
										  size_t n, double *out);

/* Number of subsets of size k of m things, saturating at UINT64_MAX. */
extern uint64_t tapas_setfeat_binomial(size_t m, size_t k);

#endif							/* TAPAS_SET_FEATURES_H */
