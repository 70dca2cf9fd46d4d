/*-------------------------------------------------------------------------
 *
 * mixed_dataset.h
 *	  A small five-column schema with every column kind, and random
 *	  datasets over it, for the dataset and distance unit tests.
 *
 * Columns: categorical(3), continuous in [-2, 2], categorical(2),
 * ordinal(4), categorical(5); the encoded dimension is 12.  Continuous
 * values are drawn on a grid of step 0.5 so that ties (equal distances)
 * happen.  The draws are row-major, one tapas_rng_below per cell, so a seed
 * gives the same dataset in every test.
 *
 * IDENTIFICATION
 *	  test/unit/attacks/mixed_dataset.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_TEST_MIXED_DATASET_H
#define TAPAS_TEST_MIXED_DATASET_H

#include "attacks/dataset.h"
#include "util/rng.h"

#define NC 5

static const tapas_column_spec_t SPECS[NC] = {
	{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, -2, 2},
	{TAPAS_COLUMN_CATEGORICAL, 2, 0, 0},
	{TAPAS_COLUMN_ORDINAL, 4, 0, 0},
	{TAPAS_COLUMN_CATEGORICAL, 5, 0, 0},
};

/* random raw record; continuous values on a coarse grid so ties happen */
static inline void
random_record(tapas_rng_t *rng, double *x)
{
	size_t		j;

	for (j = 0; j < NC; j++)
		x[j] = SPECS[j].kind == TAPAS_COLUMN_CONTINUOUS ?
			-2.0 + (double) tapas_rng_below(rng, 9) * 0.5 :
			(double) tapas_rng_below(rng, SPECS[j].cardinality);
}

/* n random records over SPECS, encoded */
static inline tapas_dataset_t *
random_dataset(tapas_rng_t *rng, size_t n)
{
	tapas_dataset_t *ds = tapas_dataset_create(n, NC, SPECS);
	size_t		i;

	for (i = 0; i < n; i++)
		random_record(rng, ds->values + i * NC);
	tapas_dataset_encode(ds);
	return ds;
}

#endif							/* TAPAS_TEST_MIXED_DATASET_H */
