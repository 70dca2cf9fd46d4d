/*-------------------------------------------------------------------------
 *
 * dataset.c
 *	  Construction, row selection, validation and encoding of datasets.
 *
 * The layout (offset, width, encoded_dim) is computed once from the column
 * specifications when a dataset is created; the encoding itself is a single
 * pass over the raw matrix (see dataset.h for the map of each column kind).
 * One-hot blocks are written by zeroing the whole encoded row first and then
 * setting one cell per categorical column, so a row costs O(encoded_dim).
 *
 * IDENTIFICATION
 *	  src/attacks/dataset.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/dataset.h"
#include "util/memory.h"

const char *
tapas_column_kind_name(tapas_column_kind kind)
{
	switch (kind)
	{
		case TAPAS_COLUMN_CATEGORICAL:
			return "categorical";
		case TAPAS_COLUMN_ORDINAL:
			return "ordinal";
		case TAPAS_COLUMN_CONTINUOUS:
			return "continuous";
	}
	return "unknown";
}

/* nonzero when one column specification is usable */
static int
spec_is_valid(const tapas_column_spec_t *spec)
{
	switch (spec->kind)
	{
		case TAPAS_COLUMN_CATEGORICAL:
		case TAPAS_COLUMN_ORDINAL:
			return spec->cardinality >= 1;
		case TAPAS_COLUMN_CONTINUOUS:
			return isfinite(spec->lower) && isfinite(spec->upper) &&
				spec->lower <= spec->upper;
	}
	return 0;
}

tapas_dataset_t *
tapas_dataset_create(size_t n, size_t c, const tapas_column_spec_t *cols)
{
	tapas_dataset_t *ds;
	size_t		j,
				dim = 0;

	if (c == 0 || cols == NULL)
		return NULL;
	for (j = 0; j < c; j++)
		if (!spec_is_valid(&cols[j]))
			return NULL;

	ds = tapas_calloc(1, sizeof(tapas_dataset_t));
	if (ds == NULL)
		return NULL;
	ds->n = n;
	ds->c = c;
	ds->cols = tapas_malloc(c * sizeof(tapas_column_spec_t));
	ds->offset = tapas_malloc(c * sizeof(size_t));
	ds->width = tapas_malloc(c * sizeof(size_t));
	ds->values = tapas_calloc(n * c + 1, sizeof(double));
	if (ds->cols == NULL || ds->offset == NULL || ds->width == NULL ||
		ds->values == NULL)
		goto fail;
	memcpy(ds->cols, cols, c * sizeof(tapas_column_spec_t));
	for (j = 0; j < c; j++)
	{
		ds->offset[j] = dim;
		ds->width[j] = cols[j].kind == TAPAS_COLUMN_CATEGORICAL ?
			cols[j].cardinality : 1;
		dim += ds->width[j];
	}
	ds->encoded_dim = dim;
	return ds;

fail:
	tapas_dataset_free(ds);
	return NULL;
}

tapas_dataset_t *
tapas_dataset_from_values(size_t n, size_t c, const tapas_column_spec_t *cols,
						  const double *values)
{
	tapas_dataset_t *ds = tapas_dataset_create(n, c, cols);

	if (ds != NULL && n > 0)
		memcpy(ds->values, values, n * c * sizeof(double));
	return ds;
}

tapas_dataset_t *
tapas_dataset_select_rows(const tapas_dataset_t *src, const size_t *rows,
						  size_t k)
{
	tapas_dataset_t *ds = tapas_dataset_create(k, src->c, src->cols);
	size_t		i,
				c = src->c,
				e = src->encoded_dim;

	if (ds == NULL)
		return NULL;
	for (i = 0; i < k; i++)
		memcpy(ds->values + i * c, src->values + rows[i] * c,
			   c * sizeof(double));
	if (src->encoded != NULL)
	{
		ds->encoded = tapas_malloc((k * e + 1) * sizeof(double));
		if (ds->encoded == NULL)
		{
			tapas_dataset_free(ds);
			return NULL;
		}
		for (i = 0; i < k; i++)
			memcpy(ds->encoded + i * e, src->encoded + rows[i] * e,
				   e * sizeof(double));
	}
	return ds;
}

int
tapas_dataset_same_schema(const tapas_dataset_t *a, const tapas_dataset_t *b)
{
	size_t		j;

	if (a->c != b->c)
		return 0;
	for (j = 0; j < a->c; j++)
	{
		const tapas_column_spec_t *x = &a->cols[j],
				   *y = &b->cols[j];

		if (x->kind != y->kind)
			return 0;
		if (x->kind == TAPAS_COLUMN_CONTINUOUS)
		{
			if (x->lower != y->lower || x->upper != y->upper)
				return 0;
		}
		else if (x->cardinality != y->cardinality)
			return 0;
	}
	return 1;
}

tapas_dataset_t *
tapas_dataset_concat(const tapas_dataset_t *a, const tapas_dataset_t *b)
{
	tapas_dataset_t *ds;

	if (!tapas_dataset_same_schema(a, b))
		return NULL;
	ds = tapas_dataset_create(a->n + b->n, a->c, a->cols);
	if (ds == NULL)
		return NULL;
	if (a->n > 0)
		memcpy(ds->values, a->values, a->n * a->c * sizeof(double));
	if (b->n > 0)
		memcpy(ds->values + a->n * a->c, b->values,
			   b->n * b->c * sizeof(double));
	return ds;
}

void
tapas_dataset_encode_record(const tapas_dataset_t *ds, const double *raw,
							double *out)
{
	size_t		j;

	memset(out, 0, ds->encoded_dim * sizeof(double));
	for (j = 0; j < ds->c; j++)
	{
		const tapas_column_spec_t *spec = &ds->cols[j];
		double		v = raw[j];
		double	   *cell = out + ds->offset[j];

		switch (spec->kind)
		{
			case TAPAS_COLUMN_CATEGORICAL:
				if (v >= 0 && v < (double) spec->cardinality)
					cell[(size_t) v] = 1.0;
				break;
			case TAPAS_COLUMN_ORDINAL:
				/* one code: every record encodes to 0 */
				*cell = spec->cardinality > 1 ?
					v / (double) (spec->cardinality - 1) : 0.0;
				break;
			case TAPAS_COLUMN_CONTINUOUS:
				*cell = spec->upper > spec->lower ?
					(v - spec->lower) / (spec->upper - spec->lower) : 0.0;
				break;
		}
	}
}

tapas_status
tapas_dataset_encode(tapas_dataset_t *ds)
{
	size_t		i;

	tapas_free(ds->encoded);
	ds->encoded = tapas_malloc((ds->n * ds->encoded_dim + 1) * sizeof(double));
	if (ds->encoded == NULL)
		return TAPAS_ENOMEM;
	for (i = 0; i < ds->n; i++)
		tapas_dataset_encode_record(ds, ds->values + i * ds->c,
									ds->encoded + i * ds->encoded_dim);
	return TAPAS_OK;
}

void
tapas_dataset_column_range(const tapas_dataset_t *ds, size_t j, double *min,
						   double *max)
{
	size_t		i;
	double		lo = 0,
				hi = 0;

	for (i = 0; i < ds->n; i++)
	{
		double		v = ds->values[i * ds->c + j];

		if (i == 0 || v < lo)
			lo = v;
		if (i == 0 || v > hi)
			hi = v;
	}
	*min = lo;
	*max = hi;
}

tapas_status
tapas_dataset_validate(const tapas_dataset_t *ds, const char **reason)
{
	size_t		i,
				j;
	const char *why = NULL;

	for (j = 0; j < ds->c && why == NULL; j++)
		if (!spec_is_valid(&ds->cols[j]))
			why = "invalid column specification";
	for (i = 0; i < ds->n && why == NULL; i++)
	{
		for (j = 0; j < ds->c; j++)
		{
			double		v = ds->values[i * ds->c + j];

			if (!isfinite(v))
				why = "non-finite value";
			else if (ds->cols[j].kind != TAPAS_COLUMN_CONTINUOUS &&
					 (v < 0 || v >= (double) ds->cols[j].cardinality ||
					  v != floor(v)))
				why = "categorical code out of range";
			if (why != NULL)
				break;
		}
	}
	if (why == NULL)
		return TAPAS_OK;
	if (reason != NULL)
		*reason = why;
	return TAPAS_EINVAL;
}

void
tapas_dataset_free(tapas_dataset_t *ds)
{
	if (ds == NULL)
		return;
	tapas_free(ds->cols);
	tapas_free(ds->values);
	tapas_free(ds->offset);
	tapas_free(ds->width);
	tapas_free(ds->encoded);
	tapas_free(ds);
}
