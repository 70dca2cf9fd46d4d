/*-------------------------------------------------------------------------
 *
 * threat_model.c
 *	  Sampling of the labelled datasets of the targeted MIA/AIA threat
 *	  models (see threat_model.h for the procedure).
 *
 * All datasets are stored back to back in one array; each dataset has at
 * most num_training_records + n_targets rows (MIA without replacement
 * appends the targets).  The chunker keeps TAPAS' index_split semantics: disjoint chunks
 * of one shuffle while they last.
 *
 * IDENTIFICATION
 *	  src/attacks/threat_model.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/threat_model.h"
#include "util/memory.h"
#include "util/rng.h"

/* index_split over one part of the pool */
typedef struct threat_model_chunker
{
	int64_t    *perm;			/* the part's pool rows, shuffled */
	size_t		n;
	size_t		pos;			/* next unused position */
} threat_model_chunker;

void
tapas_threat_model_params_default(tapas_threat_model_params_t *p)
{
	memset(p, 0, sizeof(*p));
	p->goal = TAPAS_THREAT_MODEL_MIA;
	p->auxiliary_split = 0.5;
	p->num_training_records = 1000;
	p->n_train = 100;
	p->n_test = 100;
	p->replace_target = 1;
	p->generate_pairs = 1;
	p->n_values = 2;
}

/* next disjoint chunk of `size` rows into out, reshuffling when used up */
static void
chunk_next(threat_model_chunker *c, tapas_rng_t *rng, size_t size, int32_t *out)
{
	size_t		i;

	if (c->pos + size > c->n)
	{
		tapas_rng_shuffle_i64(rng, c->perm, c->n);
		c->pos = 0;
	}
	for (i = 0; i < size; i++)
		out[i] = (int32_t) c->perm[c->pos + i];
	c->pos += size;
}

/* AIA value index: uniform, or by inversion of the weights' running sum */
static int
draw_value(const tapas_threat_model_params_t *p, tapas_rng_t *rng)
{
	double		total = 0,
				u,
				run = 0;
	int			v,
				last = 0;

	if (p->value_weights == NULL)
		return (int) tapas_rng_below(rng, (uint64_t) p->n_values);
	for (v = 0; v < p->n_values; v++)
		total += p->value_weights[v];
	u = tapas_rng_uniform(rng) * total;
	for (v = 0; v < p->n_values; v++)
	{
		if (p->value_weights[v] <= 0)
			continue;
		last = v;
		run += p->value_weights[v];
		if (u < run)
			return v;
	}
	return last;				/* u rounded up to the total */
}

/* number of targets (0 means 1) */
static size_t
n_targets(const tapas_threat_model_params_t *p)
{
	return p->n_targets == 0 ? 1 : p->n_targets;
}

/*
 * Puts target t into the base dataset rows[0..s-1] (n_in targets in so
 * far): over a uniformly random record no earlier target replaced, or
 * appended after the s records.
 */
static void
insert_target(const tapas_threat_model_params_t *p, tapas_rng_t *rng, int32_t *rows,
			  size_t s, size_t t, size_t *n_in, int replace)
{
	size_t		pos;

	if (!replace)
	{
		rows[s + (*n_in)++] = TAPAS_THREAT_MODEL_TARGET_T(t);
		return;
	}
	do
		pos = tapas_rng_below(rng, s);
	while (rows[pos] < 0);
	rows[pos] = TAPAS_THREAT_MODEL_TARGET_T(t);
	(*n_in)++;
}

/* dataset d on rows, with the targets whose label equals `in` inserted */
static void
fill_mia(const tapas_threat_model_params_t *p, tapas_rng_t *rng,
		 tapas_threat_model_dataset_t *d, int32_t *rows, const int *l, int in,
		 int training)
{
	size_t		s = p->num_training_records,
				T = n_targets(p),
				n_in = 0,
				t;

	d->rows = rows;
	d->training = training;
	for (t = 0; t < T; t++)
	{
		d->labels[t] = l[t] == in;
		if (d->labels[t])
			insert_target(p, rng, rows, s, t, &n_in, p->replace_target);
	}
	d->label = d->labels[0];
	d->n_rows = p->replace_target ? s : s + n_in;
}

/*
 * Emits the datasets of one part starting at dataset number k0; `next`
 * points at free storage (a slot of s + T rows per dataset) and is
 * advanced.  With one target the random draws are, in order and number,
 * those of the single-target model (label, then the replaced record).
 */
static void
sample_part(tapas_threat_model_t *tm, const tapas_threat_model_params_t *p, tapas_rng_t *rng,
			threat_model_chunker *c, size_t k0, size_t count, int training, int32_t **next)
{
	size_t		s = p->num_training_records,
				T = n_targets(p),
				slot = s + T,
				k = 0,
				t;
	int			l[TAPAS_THREAT_MODEL_MAX_TARGETS];

	while (k < count)
	{
		tapas_threat_model_dataset_t *d = &tm->ds[k0 + k];
		int32_t    *base = *next;

		chunk_next(c, rng, s, base);
		if (p->goal == TAPAS_THREAT_MODEL_AIA)
		{
			size_t		n_in = 0;

			d->rows = base;
			d->training = training;
			d->n_rows = s;
			for (t = 0; t < T; t++)
			{
				insert_target(p, rng, base, s, t, &n_in, 1);
				d->labels[t] = draw_value(p, rng);
			}
			d->label = d->labels[0];
			*next += slot;
			k++;
			continue;
		}
		for (t = 0; t < T; t++)
			l[t] = (int) tapas_rng_below(rng, 2);
		if (p->generate_pairs && k + 1 < count)
		{
			/* the pair: complementary labels, both from the same base */
			memcpy(base + slot, base, s * sizeof(int32_t));
			fill_mia(p, rng, d, base, l, 1, training);
			fill_mia(p, rng, &tm->ds[k0 + k + 1], base + slot, l, 0, training);
			*next += 2 * slot;
			k += 2;
		}
		else
		{
			fill_mia(p, rng, d, base, l, 1, training);
			*next += slot;
			k++;
		}
	}
}

/* weights: n_values finite non-negative numbers with a positive sum */
static int
weights_ok(const tapas_threat_model_params_t *p)
{
	double		total = 0;
	int			v;

	if (p->value_weights == NULL)
		return 1;
	for (v = 0; v < p->n_values; v++)
	{
		if (!(p->value_weights[v] >= 0) || p->value_weights[v] > 1e300)
			return 0;
		total += p->value_weights[v];
	}
	return total > 0;
}

static tapas_status
check_params(const tapas_threat_model_params_t *p, size_t n_aux, const char **reason)
{
	if (p->goal != TAPAS_THREAT_MODEL_MIA && p->goal != TAPAS_THREAT_MODEL_AIA)
		*reason = "the goal must be MIA or AIA";
	else if (!(p->auxiliary_split > 0.0 && p->auxiliary_split < 1.0))
		*reason = "auxiliary_split must be in (0, 1)";
	else if (p->num_training_records < 1 || p->num_training_records > INT32_MAX / 2)
		*reason = "num_training_records must be at least 1";
	else if (p->n_train < 1 || p->n_test < 1)
		*reason = "the numbers of training and test datasets must be at least 1";
	else if (p->goal == TAPAS_THREAT_MODEL_AIA &&
			 (p->n_values < 2 || p->n_values > TAPAS_THREAT_MODEL_MAX_VALUES))
		*reason = "attribute inference needs 2 to 64 candidate values";
	else if (p->goal == TAPAS_THREAT_MODEL_AIA && !weights_ok(p))
		*reason = "the value weights must be non-negative with a positive sum";
	else if (n_targets(p) > TAPAS_THREAT_MODEL_MAX_TARGETS ||
			 n_targets(p) > p->num_training_records)
		*reason = "the number of targets must be between 1 and 1024 and at most num_training_records";
	else if (p->n_pool > INT32_MAX)
		*reason = "the auxiliary table is too large";
	else if (p->exact_knowledge && p->n_pool < p->num_training_records)
		*reason = "num_training_records is larger than the auxiliary table";
	else if (!p->exact_knowledge &&
			 (n_aux < p->num_training_records ||
			  p->n_pool - n_aux < p->num_training_records))
		*reason = "num_training_records is larger than a part of the auxiliary table";
	else
		return TAPAS_OK;
	return TAPAS_EINVAL;
}

tapas_status
tapas_threat_model_sample(tapas_threat_model_t **out, const tapas_threat_model_params_t *p, const char **reason)
{
	tapas_threat_model_t *tm;
	tapas_rng_t rng;
	threat_model_chunker	aux,
				test;
	int64_t    *perm = NULL;
	int32_t    *next;
	const char *dummy;
	size_t		n_aux = (size_t) (p->auxiliary_split * (double) p->n_pool),
				i;
	tapas_status st;

	if (reason == NULL)
		reason = &dummy;
	*out = NULL;
	st = check_params(p, n_aux, reason);
	if (st != TAPAS_OK)
		return st;
	tm = tapas_calloc(1, sizeof(*tm));
	perm = tapas_malloc(p->n_pool * sizeof(int64_t));
	if (tm == NULL || perm == NULL)
		goto nomem;
	tm->n_datasets = p->n_train + p->n_test;
	tm->n_targets = n_targets(p);
	tm->ds = tapas_calloc(tm->n_datasets, sizeof(tapas_threat_model_dataset_t));
	tm->storage = tapas_malloc(tm->n_datasets * (p->num_training_records + tm->n_targets) *
							   sizeof(int32_t));
	tm->label_storage = tapas_malloc(tm->n_datasets * tm->n_targets * sizeof(int));
	if (tm->ds == NULL || tm->storage == NULL || tm->label_storage == NULL)
		goto nomem;
	for (i = 0; i < tm->n_datasets; i++)
		tm->ds[i].labels = tm->label_storage + i * tm->n_targets;
	tm->n_aux = n_aux;
	tm->n_test_part = p->n_pool - n_aux;

	/* 1. the split; each part then starts "used up" so it is shuffled */
	tapas_rng_seed(&rng, p->seed);
	for (i = 0; i < p->n_pool; i++)
		perm[i] = (int64_t) i;
	tapas_rng_shuffle_i64(&rng, perm, p->n_pool);
	aux.perm = perm;
	aux.n = n_aux;
	aux.pos = n_aux;
	test.perm = perm + n_aux;
	test.n = p->n_pool - n_aux;
	test.pos = test.n;
	if (p->exact_knowledge)
	{
		/*
		 * One base dataset D (the first records of the shuffle) for both
		 * parts: a chunk of exactly |D| rows is D itself, reshuffled.
		 */
		n_aux = p->num_training_records;
		tm->n_aux = tm->n_test_part = n_aux;
		aux.n = aux.pos = test.n = test.pos = n_aux;
		test.perm = perm;
	}

	/* 2-3. training datasets from the auxiliary part, then test ones */
	next = tm->storage;
	sample_part(tm, p, &rng, &aux, 0, p->n_train, 1, &next);
	sample_part(tm, p, &rng, &test, p->n_train, p->n_test, 0, &next);
	tapas_free(perm);
	*out = tm;
	return TAPAS_OK;
nomem:
	tapas_free(perm);
	tapas_threat_model_free(tm);
	return TAPAS_ENOMEM;
}

int
tapas_threat_model_validate(const tapas_threat_model_t *tm, const tapas_threat_model_params_t *p,
				  const char **reason)
{
	size_t		k,
				i,
				t,
				T = n_targets(p);
	size_t		count[TAPAS_THREAT_MODEL_MAX_TARGETS];
	const char *dummy;

	if (reason == NULL)
		reason = &dummy;
	for (k = 0; k < tm->n_datasets; k++)
	{
		const tapas_threat_model_dataset_t *d = &tm->ds[k];

		memset(count, 0, T * sizeof(size_t));
		for (i = 0; i < d->n_rows; i++)
		{
			int32_t		r = d->rows[i];

			if (r < 0 && (size_t) (-1 - (int64_t) r) < T)
				count[-1 - r]++;
			else if (r < 0 || (size_t) r >= p->n_pool)
			{
				*reason = "row number outside the pool";
				return 0;
			}
		}
		for (t = 0; t < T; t++)
			if (p->goal == TAPAS_THREAT_MODEL_MIA ? count[t] != (size_t) (d->labels[t] == 1) :
				count[t] != 1)
			{
				*reason = "target presence does not match the label";
				return 0;
			}
		if (d->label != d->labels[0])
		{
			*reason = "label is not the first target's";
			return 0;
		}
		if (d->training != (k < p->n_train))
		{
			*reason = "training flag out of order";
			return 0;
		}
	}
	return 1;
}

void
tapas_threat_model_free(tapas_threat_model_t *tm)
{
	if (tm == NULL)
		return;
	tapas_free(tm->ds);
	tapas_free(tm->storage);
	tapas_free(tm->label_storage);
	tapas_free(tm);
}
