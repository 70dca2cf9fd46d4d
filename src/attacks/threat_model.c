/*-------------------------------------------------------------------------
 *
 * threat_model.c
 *	  Sampling of the labelled datasets of the targeted MIA/AIA threat
 *	  models (see threat_model.h for the procedure).
 *
 * All datasets are stored back to back in one array; each dataset has at
 * most num_training_records + 1 rows (MIA without replacement appends the
 * target).  The chunker keeps TAPAS' index_split semantics: disjoint chunks
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

/*
 * Emits the datasets of one part starting at dataset number k0; `next`
 * points at free storage and is advanced.
 */
static void
sample_part(tapas_threat_model_t *tm, const tapas_threat_model_params_t *p, tapas_rng_t *rng,
			threat_model_chunker *c, size_t k0, size_t count, int training, int32_t **next)
{
	size_t		s = p->num_training_records,
				k = 0;

	while (k < count)
	{
		tapas_threat_model_dataset_t *with = &tm->ds[k0 + k];
		int32_t    *base = *next;
		int			label;

		chunk_next(c, rng, s, base);
		with->rows = base;
		with->training = training;
		if (p->goal == TAPAS_THREAT_MODEL_AIA)
		{
			base[tapas_rng_below(rng, s)] = TAPAS_THREAT_MODEL_TARGET;
			with->n_rows = s;
			with->label = draw_value(p, rng);
			*next += s;
			k++;
			continue;
		}
		label = (int) tapas_rng_below(rng, 2);
		if (p->generate_pairs && k + 1 < count)
		{
			/* the pair: (without, 0) and (with, 1), in the order label gives */
			tapas_threat_model_dataset_t *a = &tm->ds[k0 + k],
					   *b = &tm->ds[k0 + k + 1];
			tapas_threat_model_dataset_t *w = label ? a : b,
					   *wo = label ? b : a;
			int32_t    *copy = base + s + 1;

			memcpy(copy, base, s * sizeof(int32_t));
			wo->rows = copy;
			wo->n_rows = s;
			wo->label = 0;
			wo->training = training;
			w->rows = base;
			w->training = training;
			w->label = 1;
			*next += 2 * (s + 1);
			with = w;
			k += 2;
		}
		else
		{
			with->label = label;
			with->n_rows = s;
			*next += s + 1;
			k++;
			if (!label)
				continue;
		}
		if (p->replace_target)
		{
			base[tapas_rng_below(rng, s)] = TAPAS_THREAT_MODEL_TARGET;
			with->n_rows = s;
		}
		else
		{
			base[s] = TAPAS_THREAT_MODEL_TARGET;
			with->n_rows = s + 1;
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
	tm->ds = tapas_calloc(tm->n_datasets, sizeof(tapas_threat_model_dataset_t));
	tm->storage = tapas_malloc(tm->n_datasets * (p->num_training_records + 1) *
							   sizeof(int32_t));
	if (tm->ds == NULL || tm->storage == NULL)
		goto nomem;
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
				i;

	for (k = 0; k < tm->n_datasets; k++)
	{
		const tapas_threat_model_dataset_t *d = &tm->ds[k];
		size_t		targets = 0;

		for (i = 0; i < d->n_rows; i++)
		{
			if (d->rows[i] == TAPAS_THREAT_MODEL_TARGET)
				targets++;
			else if (d->rows[i] < 0 || (size_t) d->rows[i] >= p->n_pool)
			{
				*reason = "row number outside the pool";
				return 0;
			}
		}
		if (p->goal == TAPAS_THREAT_MODEL_MIA ? targets != (size_t) (d->label == 1) : targets != 1)
		{
			*reason = "target presence does not match the label";
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
	tapas_free(tm);
}
