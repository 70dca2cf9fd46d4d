/*
 * t-threat_model.c
 *	  Unit tests for src/attacks/threat_model.c and generators.c.
 *
 * Checks the sampling invariants directly: the target is in exactly the
 * positive MIA datasets (and in every AIA one), sizes, balanced pairs that
 * share their base dataset, training rows only from the auxiliary part and
 * test rows only from the test part, disjoint chunks within one shuffle,
 * determinism per seed; generators against their definitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/generators.h"
#include "attacks/threat_model.h"
#include "util/memory.h"
#include "tapas_test.h"

static size_t
count_target(const tapas_threat_model_dataset_t *d)
{
	size_t		i,
				c = 0;

	for (i = 0; i < d->n_rows; i++)
		c += d->rows[i] == TAPAS_THREAT_MODEL_TARGET;
	return c;
}

static void
test_tm_mia_pairs(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *tm;
	const char *reason = NULL;
	size_t		k,
				i,
				pos = 0;
	char	   *part = calloc(1000, 1);
	char	   *seen = calloc(1000, 1);

	tapas_threat_model_params_default(&p);
	p.n_pool = 1000;
	p.num_training_records = 100;
	p.n_train = 20;
	p.n_test = 11;
	p.seed = tapas_test_seed();
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, &reason) == TAPAS_OK);
	TAPAS_CHECK(tm->n_datasets == 31 && tm->n_aux == 500);
	TAPAS_CHECK(tapas_threat_model_validate(tm, &p, &reason));
	for (k = 0; k < tm->n_datasets; k++)
	{
		tapas_threat_model_dataset_t *d = &tm->ds[k];

		TAPAS_CHECK(d->n_rows == 100);
		TAPAS_CHECK(count_target(d) == (size_t) d->label);
		pos += d->label;
		/* rows of a part never appear in the other part */
		for (i = 0; i < d->n_rows; i++)
		{
			int32_t		r = d->rows[i];

			if (r == TAPAS_THREAT_MODEL_TARGET)
				continue;
			if (part[r] == 0)
				part[r] = d->training ? 1 : 2;
			TAPAS_CHECK(part[r] == (d->training ? 1 : 2));
		}
	}
	/* pairs: 10 + 5 balanced pairs, then one odd test dataset */
	TAPAS_CHECK(pos >= 15 && pos <= 16);
	for (k = 0; k < 30; k += 2)
	{
		tapas_threat_model_dataset_t *a = &tm->ds[k],
				   *b = &tm->ds[k + 1];
		size_t		diff = 0;

		TAPAS_CHECK(a->label + b->label == 1);
		TAPAS_CHECK(a->training == b->training);
		for (i = 0; i < 100; i++)
			diff += a->rows[i] != b->rows[i];
		TAPAS_CHECK(diff == 1);
	}
	/* the first 5 training bases (500 / 100 chunks) are disjoint */
	for (k = 0; k < 10; k += 2)
		for (i = 0; i < 100; i++)
		{
			int32_t		r = tm->ds[k].rows[i] == TAPAS_THREAT_MODEL_TARGET ?
				tm->ds[k + 1].rows[i] : tm->ds[k].rows[i];

			TAPAS_CHECK(!seen[r]);
			seen[r] = 1;
		}
	tapas_threat_model_free(tm);
	free(part);
	free(seen);
}

static void
test_tm_mia_append_and_determinism(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *a,
			   *b,
			   *c;
	size_t		k,
				same = 1,
				differ = 0;
	const char *reason;

	tapas_threat_model_params_default(&p);
	p.n_pool = 300;
	p.num_training_records = 40;
	p.n_train = 8;
	p.n_test = 6;
	p.replace_target = 0;
	p.generate_pairs = 0;
	p.seed = 11;
	TAPAS_CHECK(tapas_threat_model_sample(&a, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_threat_model_sample(&b, &p, NULL) == TAPAS_OK);
	p.seed = 12;
	TAPAS_CHECK(tapas_threat_model_sample(&c, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_threat_model_validate(a, &p, &reason));
	for (k = 0; k < a->n_datasets; k++)
	{
		TAPAS_CHECK(a->ds[k].n_rows == 40 + (size_t) a->ds[k].label);
		same &= a->ds[k].label == b->ds[k].label &&
			memcmp(a->ds[k].rows, b->ds[k].rows, a->ds[k].n_rows * 4) == 0;
		differ += a->ds[k].rows[0] != c->ds[k].rows[0];
	}
	TAPAS_CHECK(same);
	TAPAS_CHECK(differ > 0);
	tapas_threat_model_free(a);
	tapas_threat_model_free(b);
	tapas_threat_model_free(c);
}

static void
test_tm_aia(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *tm;
	size_t		k,
				ones = 0;
	const char *reason;

	tapas_threat_model_params_default(&p);
	p.goal = TAPAS_THREAT_MODEL_AIA;
	p.n_pool = 2000;
	p.num_training_records = 50;
	p.n_train = 300;
	p.n_test = 100;
	p.seed = tapas_test_seed();
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_threat_model_validate(tm, &p, &reason));
	for (k = 0; k < tm->n_datasets; k++)
	{
		TAPAS_CHECK(tm->ds[k].n_rows == 50 && count_target(&tm->ds[k]) == 1);
		TAPAS_CHECK(tm->ds[k].label == 0 || tm->ds[k].label == 1);
		ones += tm->ds[k].label;
	}
	/* Binomial(400, 1/2): mean 200, sd 10 */
	TAPAS_CHECK_MSG(ones > 150 && ones < 250, "ones %zu", ones);
	tapas_threat_model_free(tm);
}

/*
 * The AIA value distribution: k = 4 values with weights 1 : 0 : 2 : 5.
 * Every count is Binomial(2000, w / 8) (sd at most 22); the zero weight is
 * never drawn.  Uniform with 5 values: every label in range and each
 * value about 1/5 of the datasets.
 */
static void
test_tm_aia_distribution(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *tm;
	double		w[4] = {1, 0, 2, 5};
	size_t		count[5] = {0},
				k;
	int			v;

	tapas_threat_model_params_default(&p);
	p.goal = TAPAS_THREAT_MODEL_AIA;
	p.n_pool = 400;
	p.num_training_records = 20;
	p.n_train = 1000;
	p.n_test = 1000;
	p.n_values = 4;
	p.value_weights = w;
	p.seed = tapas_test_seed();
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
	for (k = 0; k < tm->n_datasets; k++)
	{
		TAPAS_CHECK(tm->ds[k].label >= 0 && tm->ds[k].label < 4);
		count[tm->ds[k].label]++;
	}
	TAPAS_CHECK(count[1] == 0);
	for (v = 0; v < 4; v++)
		TAPAS_CHECK_MSG(fabs((double) count[v] - 2000 * w[v] / 8) < 100,
						"value %d drawn %zu times, expected %g", v, count[v], 2000 * w[v] / 8);
	tapas_threat_model_free(tm);

	memset(count, 0, sizeof(count));
	p.value_weights = NULL;
	p.n_values = 5;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
	for (k = 0; k < tm->n_datasets; k++)
	{
		TAPAS_CHECK(tm->ds[k].label >= 0 && tm->ds[k].label < 5);
		count[tm->ds[k].label < 5 ? tm->ds[k].label : 0]++;
	}
	for (v = 0; v < 5; v++)
		TAPAS_CHECK_MSG(fabs((double) count[v] - 400) < 100, "value %d: %zu", v, count[v]);
	tapas_threat_model_free(tm);

	/* invalid weights: negative, all zero; too many values */
	w[0] = -1;
	p.n_values = 4;
	p.value_weights = w;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_EINVAL);
	w[0] = w[2] = w[3] = 0;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_EINVAL);
	p.value_weights = NULL;
	p.n_values = TAPAS_THREAT_MODEL_MAX_VALUES + 1;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_EINVAL);
}

/*
 * Exact data knowledge: every dataset, training or test, holds the same
 * base set D of num_training_records pool records (plus the target, which
 * replaces one of them when present), so the records outside the target
 * are D or D minus one record; D may be the whole pool, larger than a
 * half.
 */
static void
test_tm_exact_knowledge(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *tm;
	char	   *in_d = calloc(300, 1);
	size_t		k,
				i,
				d_size = 0,
				pos = 0;
	int			goal;

	for (goal = 0; goal < 2; goal++)
	{
		tapas_threat_model_params_default(&p);
		p.goal = goal;
		p.exact_knowledge = 1;
		p.n_pool = 300;
		p.num_training_records = goal ? 300 : 200;
		p.n_train = 40;
		p.n_test = 41;
		p.seed = tapas_test_seed() + goal;
		TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
		memset(in_d, 0, 300);
		/* D: the union of every dataset without the target (MIA) */
		for (k = 0; k < tm->n_datasets && d_size == 0; k++)
			if (count_target(&tm->ds[k]) == 0)
				for (i = 0; i < tm->ds[k].n_rows; i++)
					in_d[tm->ds[k].rows[i]] = 1;
		d_size = 0;
		for (i = 0; i < 300; i++)
			d_size += in_d[i];
		TAPAS_CHECK(goal == 1 || d_size == 200);
		pos = 0;
		for (k = 0; k < tm->n_datasets; k++)
		{
			tapas_threat_model_dataset_t *d = &tm->ds[k];
			size_t		others = 0;

			TAPAS_CHECK(d->n_rows == p.num_training_records);
			for (i = 0; i < d->n_rows; i++)
				if (d->rows[i] != TAPAS_THREAT_MODEL_TARGET)
				{
					TAPAS_CHECK(goal == 1 || in_d[d->rows[i]]);
					others++;
				}
			TAPAS_CHECK(others == p.num_training_records - count_target(d));
			pos += d->label;
		}
		if (goal == 0)
			TAPAS_CHECK_MSG(pos == 40 || pos == 41, "positives %zu of 81 (20 + 20 pairs and one single)", pos);
		TAPAS_CHECK(tapas_threat_model_validate(tm, &p, NULL));
		tapas_threat_model_free(tm);
		d_size = 0;
	}
	/* larger than the pool */
	p.num_training_records = 301;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_EINVAL);
	free(in_d);
}

/* occurrences of target t's row code in d */
static size_t
count_target_t(const tapas_threat_model_dataset_t *d, size_t t)
{
	size_t		i,
				c = 0;

	for (i = 0; i < d->n_rows; i++)
		c += d->rows[i] == TAPAS_THREAT_MODEL_TARGET_T(t);
	return c;
}

/*
 * Several targets share the datasets: each target is in a dataset iff its
 * label says so (once), MIA pairs hold complementary labels, every target
 * is balanced by the pairs, targets replace distinct records (the size
 * stays s) or are appended (s + the targets in), AIA datasets hold every
 * target with its own value; one target reproduces the single-target
 * model (same seed, same datasets).
 */
static void
test_tm_multi_target(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *tm,
			   *one;
	size_t		k,
				t,
				i,
				pos[7] = {0};
	int			replace;

	for (replace = 0; replace < 2; replace++)
	{
		tapas_threat_model_params_default(&p);
		p.n_pool = 600;
		p.num_training_records = 40;
		p.n_train = 60;
		p.n_test = 40;
		p.n_targets = 7;
		p.replace_target = replace;
		p.seed = tapas_test_seed() + replace;
		TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
		TAPAS_CHECK(tm->n_targets == 7);
		TAPAS_CHECK(tapas_threat_model_validate(tm, &p, NULL));
		memset(pos, 0, sizeof(pos));
		for (k = 0; k < tm->n_datasets; k++)
		{
			tapas_threat_model_dataset_t *d = &tm->ds[k];
			size_t		in = 0;

			for (t = 0; t < 7; t++)
			{
				TAPAS_CHECK(count_target_t(d, t) == (size_t) d->labels[t]);
				in += d->labels[t];
				pos[t] += d->labels[t];
				if (k % 2 == 0)
					TAPAS_CHECK(tm->ds[k + 1].labels[t] == 1 - d->labels[t]);
			}
			TAPAS_CHECK(d->label == d->labels[0]);
			TAPAS_CHECK_MSG(d->n_rows == (replace ? 40 : 40 + in), "rows %zu, in %zu", d->n_rows, in);
			/* the pool records of a pair are the same base dataset */
			if (k % 2 == 0 && replace == 0)
				for (i = 0; i < 40; i++)
					TAPAS_CHECK(d->rows[i] == tm->ds[k + 1].rows[i]);
		}
		for (t = 0; t < 7; t++)
			TAPAS_CHECK_MSG(pos[t] == 50, "target %zu in %zu of 100 datasets", t, pos[t]);
		tapas_threat_model_free(tm);
	}

	/* AIA: every target in every dataset, labels in range */
	p.goal = TAPAS_THREAT_MODEL_AIA;
	p.n_values = 3;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_threat_model_validate(tm, &p, NULL));
	for (k = 0; k < tm->n_datasets; k++)
		for (t = 0; t < 7; t++)
			TAPAS_CHECK(count_target_t(&tm->ds[k], t) == 1 &&
						tm->ds[k].labels[t] >= 0 && tm->ds[k].labels[t] < 3 &&
						tm->ds[k].n_rows == 40);
	tapas_threat_model_free(tm);

	/* n_targets 1 and 0 are the single-target model */
	p.goal = TAPAS_THREAT_MODEL_MIA;
	p.n_targets = 1;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_OK);
	p.n_targets = 0;
	TAPAS_CHECK(tapas_threat_model_sample(&one, &p, NULL) == TAPAS_OK);
	for (k = 0; k < tm->n_datasets; k++)
	{
		TAPAS_CHECK(tm->ds[k].label == one->ds[k].label &&
					tm->ds[k].n_rows == one->ds[k].n_rows);
		TAPAS_CHECK(memcmp(tm->ds[k].rows, one->ds[k].rows,
						   tm->ds[k].n_rows * sizeof(int32_t)) == 0);
	}
	tapas_threat_model_free(tm);
	tapas_threat_model_free(one);

	/* more targets than records, or than the limit */
	p.n_targets = 41;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_EINVAL);
	p.num_training_records = 2000;
	p.n_pool = 5000;
	p.n_targets = TAPAS_THREAT_MODEL_MAX_TARGETS + 1;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, NULL) == TAPAS_EINVAL);
}

static void
test_tm_errors(void)
{
	tapas_threat_model_params_t p;
	tapas_threat_model_t *tm;
	const char *reason = NULL;
	long		live = tapas_memory_live(),
				k;
	tapas_status st;

	tapas_threat_model_params_default(&p);
	p.n_pool = 100;
	p.num_training_records = 51;	/* larger than the 50-record parts */
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, &reason) == TAPAS_EINVAL && reason != NULL);
	p.num_training_records = 10;
	p.auxiliary_split = 1.0;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, &reason) == TAPAS_EINVAL);
	p.auxiliary_split = 0.5;
	p.n_test = 0;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, &reason) == TAPAS_EINVAL);
	p.n_test = 4;
	p.goal = TAPAS_THREAT_MODEL_AIA;
	p.n_values = 1;
	TAPAS_CHECK(tapas_threat_model_sample(&tm, &p, &reason) == TAPAS_EINVAL);
	p.n_values = 2;
	for (k = 0; k < 5; k++)
	{
		tapas_memory_fail_after(k);
		st = tapas_threat_model_sample(&tm, &p, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_OK || st == TAPAS_ENOMEM);
		tapas_threat_model_free(tm);
		TAPAS_CHECK(tapas_memory_live() == live);
	}
}

static void
test_gen_raw_and_marginals(void)
{
	size_t		n = 50,
				m = 3,
				i,
				j,
				l;
	double	   *train = malloc(n * m * sizeof(double)),
			   *out = malloc(400 * m * sizeof(double));
	size_t	   *scratch = malloc(n * sizeof(size_t));
	tapas_rng_t rng;
	int32_t		rows[3] = {2, TAPAS_THREAT_MODEL_TARGET, 0};
	double		target[3] = {-1, -2, -3},
				mat[9];

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			train[i * m + j] = 100.0 * j + i;	/* cell identifies its row */
	TAPAS_CHECK(tapas_gen_run(TAPAS_GEN_RAW, train, n, m, n, &rng, scratch, out) == TAPAS_OK);
	TAPAS_CHECK(memcmp(out, train, n * m * sizeof(double)) == 0);
	TAPAS_CHECK(tapas_gen_run(TAPAS_GEN_RAW, train, n, m, 20, &rng, scratch, out) == TAPAS_OK);
	for (i = 0; i < 20; i++)
	{
		/* a whole training row, never twice */
		TAPAS_CHECK(out[i * m + 1] == out[i * m] + 100 && out[i * m + 2] == out[i * m] + 200);
		for (l = 0; l < i; l++)
			TAPAS_CHECK(out[l * m] != out[i * m]);
	}
	TAPAS_CHECK(tapas_gen_run(TAPAS_GEN_RAW, train, n, m, n + 1, &rng, scratch, out) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_gen_run(7, train, n, m, n, &rng, scratch, out) == TAPAS_EINVAL);

	/* marginals: column j's cells come from column j; rows get mixed */
	TAPAS_CHECK(tapas_gen_run(TAPAS_GEN_MARGINALS, train, n, m, 400, &rng, NULL, out) == TAPAS_OK);
	l = 0;
	for (i = 0; i < 400; i++)
	{
		for (j = 0; j < m; j++)
			TAPAS_CHECK(out[i * m + j] >= 100.0 * j && out[i * m + j] < 100.0 * j + n);
		l += out[i * m + 1] - 100 != out[i * m];
	}
	TAPAS_CHECK(l > 300);		/* P(same row) = 1/50 */

	tapas_gen_materialise(train, m, target, rows, 3, mat);
	TAPAS_CHECK(mat[0] == 2 && mat[3] == -1 && mat[5] == -3 && mat[6] == 0);
	free(train);
	free(out);
	free(scratch);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_tm_mia_pairs);
	TAPAS_TEST_RUN(test_tm_mia_append_and_determinism);
	TAPAS_TEST_RUN(test_tm_aia);
	TAPAS_TEST_RUN(test_tm_aia_distribution);
	TAPAS_TEST_RUN(test_tm_exact_knowledge);
	TAPAS_TEST_RUN(test_tm_multi_target);
	TAPAS_TEST_RUN(test_tm_errors);
	TAPAS_TEST_RUN(test_gen_raw_and_marginals);
	TAPAS_TEST_DONE();
}
