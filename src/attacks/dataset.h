/*-------------------------------------------------------------------------
 *
 * dataset.h
 *	  A pure-C tabular dataset for the attack kernels, and its encoding.
 *
 * A dataset is n rows by c columns.  Every value is stored as a double in
 * the row-major raw matrix values[i * c + j]:
 *
 *	categorical	a code 0 .. card-1 (an exact small integer); the labels of
 *				the codes are kept by the caller (the SQL side builds one
 *				dictionary over the synthetic table and the targets, so that
 *				a code means the same value in both).
 *	ordinal		a code 0 .. card-1 of an ordered domain.
 *	continuous	any finite double, with normalisation bounds lower/upper.
 *
 * The encoding (what L_p distances, set features, density estimators and
 * classifiers read) maps each column to a contiguous block of the encoded
 * row, in column order: categorical -> card one-hot cells; ordinal -> one
 * cell code / (card - 1); continuous -> one cell (v - lower) / (upper -
 * lower), 0 when upper == lower.  Continuous values are therefore in [0, 1]
 * when the bounds cover the data (the reference toolbox forgets this
 * normalisation); values outside the bounds are not clamped.  Hamming
 * distances read the raw matrix (two values differ or not), never the
 * encoding.
 *
 * offset[j] and width[j] give column j's block; encoded_dim is the sum of
 * the widths.  The layout is fixed at creation; the encoded matrix is
 * computed on demand by tapas_dataset_encode() and is NULL until then.
 *
 * Ownership: every constructor returns a dataset the caller frees with
 * tapas_dataset_free() (NULL-safe).  Constructors copy their inputs.
 * Invariants (checked by tapas_dataset_validate): codes are integers in
 * range, continuous values are finite, bounds satisfy lower <= upper.
 *
 * IDENTIFICATION
 *	  src/attacks/dataset.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DATASET_H
#define TAPAS_DATASET_H

#include <stddef.h>

#include "util/status.h"

typedef enum tapas_column_kind
{
	TAPAS_COLUMN_CATEGORICAL,	/* unordered codes, one-hot encoded */
	TAPAS_COLUMN_ORDINAL,		/* ordered codes, one cell code/(card-1) */
	TAPAS_COLUMN_CONTINUOUS		/* real values, one cell scaled to bounds */
} tapas_column_kind;

typedef struct tapas_column_spec
{
	tapas_column_kind kind;
	size_t		cardinality;	/* categorical/ordinal: number of codes (>= 1);
								 * continuous: ignored (0) */
	double		lower;			/* continuous: normalisation lower bound */
	double		upper;			/* continuous: normalisation upper bound */
} tapas_column_spec_t;

typedef struct tapas_dataset
{
	size_t		n;				/* number of rows */
	size_t		c;				/* number of columns */
	tapas_column_spec_t *cols;	/* c column specifications (owned) */
	double	   *values;			/* n * c raw values, row-major (owned) */
	size_t		encoded_dim;	/* width of one encoded row */
	size_t	   *offset;			/* c: first encoded cell of column j */
	size_t	   *width;			/* c: encoded cells of column j */
	double	   *encoded;		/* n * encoded_dim, row-major, or NULL until
								 * tapas_dataset_encode() (owned) */
} tapas_dataset_t;

/* "categorical", "ordinal" or "continuous"; never NULL. */
extern const char *tapas_column_kind_name(tapas_column_kind kind);

/*
 * Creates a dataset of n rows (n may be 0) and c >= 1 columns with the given
 * specifications and all raw values 0.  Returns NULL when out of memory or
 * when a specification is invalid (categorical/ordinal with cardinality 0,
 * continuous with lower > upper or non-finite bounds).
 */
extern tapas_dataset_t *tapas_dataset_create(size_t n, size_t c,
											 const tapas_column_spec_t *cols);

/*
 * Same, then copies n * c raw values (row-major) from values.  Values are
 * not checked; call tapas_dataset_validate() on untrusted input.
 */
extern tapas_dataset_t *tapas_dataset_from_values(size_t n, size_t c,
												  const tapas_column_spec_t *cols,
												  const double *values);

/*
 * New dataset with the same columns and the k rows src[rows[0]], ...,
 * src[rows[k-1]] (repetitions allowed; indices assumed < src->n, not
 * checked).  The encoded matrix is copied too if src has one.
 */
extern tapas_dataset_t *tapas_dataset_select_rows(const tapas_dataset_t *src,
												  const size_t *rows, size_t k);

/*
 * New dataset: the rows of a followed by the rows of b.  Returns NULL if
 * the two have different column specifications (tapas_dataset_same_schema)
 * or when out of memory.  Not encoded.
 */
extern tapas_dataset_t *tapas_dataset_concat(const tapas_dataset_t *a,
											 const tapas_dataset_t *b);

/* Nonzero when a and b have the same columns (kinds, cardinalities, bounds). */
extern int	tapas_dataset_same_schema(const tapas_dataset_t *a,
									  const tapas_dataset_t *b);

/*
 * Computes (or recomputes) ds->encoded from ds->values.  TAPAS_ENOMEM when
 * out of memory (ds->encoded is then left NULL).
 */
extern tapas_status tapas_dataset_encode(tapas_dataset_t *ds);

/*
 * Encodes one raw record (c values) of ds's schema into out (encoded_dim
 * cells).  Codes out of range give an all-zero one-hot block.
 */
extern void tapas_dataset_encode_record(const tapas_dataset_t *ds,
										const double *raw, double *out);

/* Observed minimum and maximum of column j (0, 0 when n == 0). */
extern void tapas_dataset_column_range(const tapas_dataset_t *ds, size_t j,
									   double *min, double *max);

/*
 * Checks the invariants above.  Returns TAPAS_OK, or TAPAS_EINVAL with
 * *reason (if reason is not NULL) set to a static description.
 */
extern tapas_status tapas_dataset_validate(const tapas_dataset_t *ds,
										   const char **reason);

/* Frees ds and everything it owns; NULL is a no-op. */
extern void tapas_dataset_free(tapas_dataset_t *ds);

#endif							/* TAPAS_DATASET_H */
