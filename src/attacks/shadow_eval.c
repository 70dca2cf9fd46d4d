/*-------------------------------------------------------------------------
 *
 * shadow_eval.c
 *	  Driver of a shadow-modelling evaluation (see shadow_eval.h).
 *
 * Memory is allocated once in create: the feature matrix dominates
 * (n_datasets x dim doubles; the census Groundhog setting is 1,100 x 6,099,
 * about 54 MB).  The fit step copies the training rows' features into the
 * classifier (float, feature-major) and scores the test rows.  Several
 * targets add, when there are query features, one small extractor and
 * matrix of query features per further target, and one n_datasets x dim
 * buffer where a target's rows are assembled before its fit.
 *
 * IDENTIFICATION
 *	  src/attacks/shadow_eval.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/generators.h"
#include "attacks/shadow_eval.h"
#include "util/memory.h"
#include "util/rng.h"

static tapas_status
check_params(const tapas_coded_schema_t *schema, const tapas_shadow_params_t *p,
			 const char **reason)
{
	if (p->num_synthetic_records < 1)
		*reason = "num_synthetic_records must be at least 1";
	else if (p->generator == TAPAS_GEN_RAW &&
			 p->num_synthetic_records > p->tm.num_training_records +
			 (p->tm.goal == TAPAS_THREAT_MODEL_MIA && !p->tm.replace_target))
		*reason = "the raw generator cannot return more records than its training dataset";
	else if (p->generator != TAPAS_GEN_RAW && p->generator != TAPAS_GEN_MARGINALS &&
			 p->generator != TAPAS_GEN_EXTERNAL)
		*reason = "unrecognized generator";
	else if (p->tm.goal == TAPAS_THREAT_MODEL_AIA &&
			 (p->sensitive < 0 || (size_t) p->sensitive >= schema->m ||
			  p->tm.n_values < 2 || p->tm.n_values > TAPAS_THREAT_MODEL_MAX_VALUES))
		*reason = "attribute inference needs a sensitive column and 2 to 64 values";
	else if (p->tm.goal == TAPAS_THREAT_MODEL_AIA && p->n_items > 0 && p->tm.n_values != 2)
		*reason = "shadow modelling classifies two sensitive values";
	else
		return TAPAS_OK;
	return TAPAS_EINVAL;
}

/*
 * Several targets with query features: the query items alone, with target
 * t, for every t >= 1 (target 0's are in ev->fs), and their matrices.
 */
static tapas_status
create_query_extractors(tapas_shadow_eval_t *ev, const tapas_shadow_params_t *p,
						const double *target, size_t n_max, const char **reason)
{
	size_t		T = p->tm.n_targets,
				nq = 0,
				i,
				t;
	tapas_setfeat_item_t *q;
	tapas_status st = TAPAS_OK;

	q = tapas_malloc(p->n_items * sizeof(*q));
	if (q == NULL)
		return TAPAS_ENOMEM;
	for (i = 0; i < p->n_items; i++)
		if (p->items[i].type == TAPAS_SETFEAT_QUERIES)
			q[nq++] = p->items[i];
	if (nq > 0)
	{
		ev->fsq = tapas_calloc(T - 1, sizeof(*ev->fsq));
		st = ev->fsq == NULL ? TAPAS_ENOMEM : TAPAS_OK;
		for (t = 1; t < T && st == TAPAS_OK; t++)
			st = tapas_setfeat_create(&ev->fsq[t - 1], ev->schema, q, nq,
									  target + t * ev->schema->m, n_max, reason);
		if (st == TAPAS_OK)
		{
			ev->dq = ev->fsq[0]->dim;
			ev->Fq = tapas_malloc(((T - 1) * ev->tm->n_datasets * ev->dq + 1) * sizeof(double));
			ev->Ft = tapas_malloc((ev->tm->n_datasets * ev->dim + 1) * sizeof(double));
			if (ev->Fq == NULL || ev->Ft == NULL)
				st = TAPAS_ENOMEM;
		}
	}
	tapas_free(q);
	return st;
}

tapas_status
tapas_shadow_eval_create(tapas_shadow_eval_t **out,
						 const tapas_coded_schema_t *schema,
						 const double *pool, size_t n_pool,
						 const double *target, const tapas_shadow_params_t *p,
						 const char **reason)
{
	tapas_shadow_eval_t *ev;
	tapas_status st;
	const char *dummy;
	size_t		m = schema->m,
				T = p->tm.n_targets > 1 ? p->tm.n_targets : 1,
				n_real = p->tm.num_training_records + T,
				n_max,
				k,
				t;

	if (reason == NULL)
		reason = &dummy;
	*reason = NULL;
	*out = NULL;
	st = check_params(schema, p, reason);
	if (st != TAPAS_OK)
		return st;
	ev = tapas_calloc(1, sizeof(*ev));
	if (ev == NULL)
		return TAPAS_ENOMEM;
	ev->p = *p;
	ev->p.tm.n_pool = n_pool;
	ev->p.items = NULL;
	ev->schema = schema;
	ev->pool = pool;
	ev->m = m;
	st = tapas_threat_model_sample(&ev->tm, &ev->p.tm, reason);
	if (st != TAPAS_OK)
		goto fail;
	n_max = p->num_synthetic_records > n_real ? p->num_synthetic_records : n_real;
	if (p->n_items > 0)
	{
		/* no feature sets: the caller scores datasets itself (score_eval.h) */
		st = tapas_setfeat_create(&ev->fs, schema, p->items, p->n_items, target,
								  n_max, reason);
		if (st != TAPAS_OK)
			goto fail;
		ev->dim = ev->fs->dim;
	}
	if (p->n_items > 0 && T > 1)
	{
		st = create_query_extractors(ev, p, target, n_max, reason);
		if (st != TAPAS_OK)
			goto fail;
	}
	st = TAPAS_ENOMEM;
	ev->target = tapas_malloc(T * m * sizeof(double));
	ev->target_k = tapas_malloc(T * m * sizeof(double));
	ev->real = tapas_malloc(n_real * m * sizeof(double));
	ev->syn = tapas_malloc(p->num_synthetic_records * m * sizeof(double));
	ev->scratch = tapas_malloc(n_real * sizeof(size_t));
	/* filled a dataset at a time: no huge pages (util/memory.h) */
	if (ev->fs != NULL && T == 1 && p->clf.type == TAPAS_CLF_RANDOM_FOREST)
	{
		ev->Ff = tapas_malloc_small_pages((ev->tm->n_datasets * ev->dim + 1) * sizeof(float));
		ev->row = tapas_malloc((ev->dim + 1) * sizeof(double));
	}
	else
		ev->F = tapas_malloc_small_pages((ev->tm->n_datasets * ev->dim + 1) * sizeof(double));
	ev->y = tapas_malloc(T * ev->tm->n_datasets * sizeof(int));
	ev->scores = tapas_calloc(T * p->tm.n_test, sizeof(double));
	if (!ev->target || !ev->target_k || !ev->real || !ev->syn || !ev->scratch ||
		!(ev->F || (ev->Ff && ev->row)) || !ev->y || !ev->scores)
		goto fail;
	memcpy(ev->target, target, T * m * sizeof(double));
	for (t = 0; t < T; t++)
		for (k = 0; k < ev->tm->n_datasets; k++)
			ev->y[t * ev->tm->n_datasets + k] = ev->tm->ds[k].labels[t];
	*out = ev;
	return TAPAS_OK;
fail:
	tapas_shadow_eval_free(ev);
	return st;
}

const double *
tapas_shadow_eval_real(tapas_shadow_eval_t *ev, size_t k, size_t *n_rows)
{
	const tapas_threat_model_dataset_t *d = &ev->tm->ds[k];
	size_t		t;

	memcpy(ev->target_k, ev->target, ev->tm->n_targets * ev->m * sizeof(double));
	if (ev->p.tm.goal == TAPAS_THREAT_MODEL_AIA)
		for (t = 0; t < ev->tm->n_targets; t++)
			ev->target_k[t * ev->m + ev->p.sensitive] = ev->p.values[d->labels[t]];
	tapas_gen_materialise(ev->pool, ev->m, ev->target_k, d->rows, d->n_rows, ev->real);
	ev->syn_cur = ev->syn;
	*n_rows = d->n_rows;
	return ev->real;
}

tapas_status
tapas_shadow_eval_generate(tapas_shadow_eval_t *ev, size_t k, size_t *n_syn)
{
	tapas_rng_t rng;
	size_t		n_rows;

	tapas_shadow_eval_real(ev, k, &n_rows);
	/* per-dataset stream: independent of the evaluation order */
	tapas_rng_seed(&rng, ev->p.gen_seed ^ (UINT64_C(0x9E3779B97F4A7C15) * (k + 1)));
	*n_syn = ev->p.num_synthetic_records;
	if (ev->p.generator == TAPAS_GEN_RAW && *n_syn == n_rows && n_rows > 0 && ev->m > 0)
	{
		/* raw keeping every record: the dataset as it is (no draw either) */
		ev->syn_cur = ev->real;
		return TAPAS_OK;
	}
	return tapas_gen_run(ev->p.generator, ev->real, n_rows, ev->m, *n_syn, &rng,
						 ev->scratch, ev->syn);
}

tapas_status
tapas_shadow_eval_featurise(tapas_shadow_eval_t *ev, size_t k, size_t n_syn)
{
	tapas_status st;
	size_t		t;

	if (ev->fs == NULL)
		return TAPAS_EINVAL;
	st = tapas_setfeat_extract(ev->fs, ev->syn_cur, n_syn,
							   ev->Ff != NULL ? ev->row : ev->F + k * ev->dim);
	if (st == TAPAS_OK && ev->Ff != NULL)
	{
		float	   *dst = ev->Ff + k * ev->dim;
		size_t		j;

		for (j = 0; j < ev->dim; j++)
			dst[j] = (float) ev->row[j];
	}
	for (t = 1; ev->fsq != NULL && t < ev->tm->n_targets && st == TAPAS_OK; t++)
		st = tapas_setfeat_extract(ev->fsq[t - 1], ev->syn_cur, n_syn,
								   ev->Fq + ((t - 1) * ev->tm->n_datasets + k) * ev->dq);
	if (st == TAPAS_OK)
		ev->n_done++;
	return st;
}

/*
 * Target t's feature rows: target 0's (ev->F) with every query item's
 * features replaced by target t's, in the items' order, as a single-target
 * extractor lays them out.
 */
static const double *
target_features(tapas_shadow_eval_t *ev, size_t t)
{
	size_t		nd = ev->tm->n_datasets,
				k,
				i;

	if (t == 0 || ev->fsq == NULL)
		return ev->F;
	for (k = 0; k < nd; k++)
	{
		const double *src = ev->F + k * ev->dim,
				   *q = ev->Fq + ((t - 1) * nd + k) * ev->dq;
		double	   *dst = ev->Ft + k * ev->dim;

		for (i = 0; i < ev->fs->n_items; i++)
		{
			size_t		d = ev->fs->items[i].dim;

			if (ev->fs->items[i].type == TAPAS_SETFEAT_QUERIES)
			{
				memcpy(dst, q, d * sizeof(double));
				q += d;
			}
			else
				memcpy(dst, src, d * sizeof(double));
			src += d;
			dst += d;
		}
	}
	return ev->Ft;
}

tapas_status
tapas_shadow_eval_fit(tapas_shadow_eval_t *ev, const tapas_progress_t *progress)
{
	tapas_clf_t *clf;
	tapas_status st;
	size_t		n_train = ev->p.tm.n_train,
				n_test = ev->p.tm.n_test,
				i,
				t;

	if (ev->fs == NULL)
		return TAPAS_EINVAL;
	if (ev->Ff != NULL)
	{
		/* one target, random forest: the float matrix */
		st = tapas_clf_fit_float(&clf, ev->Ff, ev->y, n_train, ev->dim, &ev->p.clf,
								 progress);
		if (st != TAPAS_OK)
			return st;
		for (i = 0; i < n_test; i++)
			ev->scores[i] = tapas_clf_predict_proba_float(clf, ev->Ff + (n_train + i) * ev->dim);
		tapas_clf_free(clf);
		return TAPAS_OK;
	}
	for (t = 0; t < ev->tm->n_targets; t++)
	{
		const double *X = target_features(ev, t);

		st = tapas_clf_fit(&clf, X, ev->y + t * ev->tm->n_datasets, n_train, ev->dim,
						   &ev->p.clf, progress);
		if (st != TAPAS_OK)
			return st;
		for (i = 0; i < n_test; i++)
			ev->scores[t * n_test + i] =
				tapas_clf_predict_proba(clf, X + (n_train + i) * ev->dim);
		tapas_clf_free(clf);
	}
	return TAPAS_OK;
}

tapas_status
tapas_shadow_eval_run(tapas_shadow_eval_t *ev, const tapas_progress_t *progress)
{
	size_t		k,
				n_syn;
	tapas_status st;

	if (ev->p.generator == TAPAS_GEN_EXTERNAL)
		return TAPAS_EINVAL;
	for (k = 0; k < ev->tm->n_datasets; k++)
	{
		if (tapas_progress_poll(progress, (double) k / ev->tm->n_datasets))
			return TAPAS_ECANCELED;
		st = tapas_shadow_eval_generate(ev, k, &n_syn);
		if (st == TAPAS_OK)
			st = tapas_shadow_eval_featurise(ev, k, n_syn);
		if (st != TAPAS_OK)
			return st;
	}
	return tapas_shadow_eval_fit(ev, progress);
}

void
tapas_shadow_eval_free(tapas_shadow_eval_t *ev)
{
	if (ev == NULL)
		return;
	if (ev->fsq != NULL)
	{
		size_t		t;

		for (t = 1; t < ev->p.tm.n_targets; t++)
			tapas_setfeat_free(ev->fsq[t - 1]);
		tapas_free(ev->fsq);
	}
	tapas_threat_model_free(ev->tm);
	tapas_setfeat_free(ev->fs);
	tapas_free(ev->Fq);
	tapas_free(ev->Ft);
	tapas_free(ev->target);
	tapas_free(ev->target_k);
	tapas_free(ev->real);
	tapas_free(ev->syn);
	tapas_free(ev->scratch);
	tapas_free(ev->F);
	tapas_free(ev->Ff);
	tapas_free(ev->row);
	tapas_free(ev->y);
	tapas_free(ev->scores);
	tapas_free(ev);
}
