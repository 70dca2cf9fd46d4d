/*
 * t-dataset.c
 *	  Unit tests for src/attacks/dataset.c.
 *
 * Oracles: an encoded record written out by hand for every column kind,
 * row selection and concatenation checked cell by cell, the validator on
 * broken datasets, and allocation failures injected at every allocation of
 * the constructors (each must return NULL and leak nothing).
 */
#include <math.h>
#include <string.h>

#include "attacks/dataset.h"
#include "util/memory.h"
#include "util/rng.h"
#include "mixed_dataset.h"
#include "tapas_test.h"

static void
test_encoding_layout(void)
{
	tapas_dataset_t *ds = tapas_dataset_create(1, NC, SPECS);
	double		raw[NC] = {2, 1, 0, 3, 4};
	double		enc[12];
	double		expect[12] = {0, 0, 1, 0.75, 1, 0, 1, 0, 0, 0, 0, 1};
	size_t		k;

	TAPAS_CHECK(ds->encoded_dim == 12);
	TAPAS_CHECK(ds->offset[3] == 6 && ds->width[4] == 5 && ds->offset[4] == 7);
	tapas_dataset_encode_record(ds, raw, enc);
	for (k = 0; k < 12; k++)
		TAPAS_CHECK_MSG(enc[k] == expect[k], "cell %zu = %g", k, enc[k]);
	tapas_dataset_free(ds);
}

static void
test_dataset_ops(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds,
			   *sel,
			   *cat;
	size_t		rows[3] = {4, 0, 4};
	const char *why = NULL;
	tapas_column_spec_t bad = {TAPAS_COLUMN_CATEGORICAL, 0, 0, 0};

	tapas_rng_seed(&rng, tapas_test_seed() + 7);
	ds = random_dataset(&rng, 5);
	sel = tapas_dataset_select_rows(ds, rows, 3);
	TAPAS_CHECK(sel->n == 3 && sel->values[0] == ds->values[4 * NC] &&
				sel->encoded[sel->encoded_dim] == ds->encoded[0]);
	cat = tapas_dataset_concat(ds, sel);
	TAPAS_CHECK(cat->n == 8 && cat->values[7 * NC + 1] == ds->values[4 * NC + 1]);
	TAPAS_CHECK(tapas_dataset_validate(cat, &why) == TAPAS_OK);
	cat->values[2] = 7;
	TAPAS_CHECK(tapas_dataset_validate(cat, &why) == TAPAS_EINVAL && why != NULL);
	TAPAS_CHECK(tapas_dataset_create(1, 1, &bad) == NULL);
	tapas_dataset_free(ds);
	tapas_dataset_free(sel);
	tapas_dataset_free(cat);
	tapas_dataset_free(NULL);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* every allocation of the constructors may fail: NULL and no leak */
static void
test_allocation_failures(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds,
			   *got;
	size_t		rows[2] = {1, 0};
	long		k;

	tapas_rng_seed(&rng, tapas_test_seed());
	ds = random_dataset(&rng, 4);
	for (k = 0; k < 8; k++)
	{
		tapas_memory_fail_after(k);
		got = tapas_dataset_create(3, NC, SPECS);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(got == NULL || k >= 5);
		tapas_dataset_free(got);
		tapas_memory_fail_after(k);
		got = tapas_dataset_select_rows(ds, rows, 2);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(got == NULL || k >= 6);
		tapas_dataset_free(got);
		tapas_memory_fail_after(k);
		got = tapas_dataset_concat(ds, ds);
		tapas_memory_fail_after(-1);
		tapas_dataset_free(got);
	}
	tapas_memory_fail_after(0);
	TAPAS_CHECK(tapas_dataset_encode(ds) == TAPAS_ENOMEM && ds->encoded == NULL);
	tapas_memory_fail_after(-1);
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_kind_names_and_ranges(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds;
	double		lo,
				hi;

	TAPAS_CHECK(strcmp(tapas_column_kind_name(TAPAS_COLUMN_ORDINAL), "ordinal") == 0);
	tapas_rng_seed(&rng, tapas_test_seed());
	ds = random_dataset(&rng, 50);
	tapas_dataset_column_range(ds, 1, &lo, &hi);
	TAPAS_CHECK(lo >= -2 && hi <= 2 && lo <= hi);
	tapas_dataset_free(ds);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_encoding_layout);
	TAPAS_TEST_RUN(test_dataset_ops);
	TAPAS_TEST_RUN(test_allocation_failures);
	TAPAS_TEST_RUN(test_kind_names_and_ranges);
	TAPAS_TEST_DONE();
}
