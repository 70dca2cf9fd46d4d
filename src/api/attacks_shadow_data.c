/*-------------------------------------------------------------------------
 *
 * attacks_shadow_data.c
 *	  The auxiliary table of a tapas.evaluate call (attacks_shadow.c):
 *	  read once into a coded matrix, the targets found by their keys and
 *	  taken out, and the request resolved against its columns (the AIA
 *	  sensitive column and its candidate values, the distance's columns,
 *	  weights and terms, the dataset sizes).
 *
 * The pool keeps every other record in table order, so the threat
 * model's row numbers mean the same records from one call to the next.
 * Every check names the column or key at fault; nothing here runs a
 * kernel.
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow_data.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/lsyscache.h"

#include "attacks/threat_model.h"
#include "api/attacks_pg.h"
#include "api/attacks_shadow.h"
#include "api/attacks_shadow_request.h"

/* ----------------------------------------------------------------
 *		Reading the auxiliary table
 * ----------------------------------------------------------------
 */

/* the code of label in column j, or an error naming what */
static double
label_code(TapasAttackSchema *schema, int j, const char *label, const char *what)
{
	TapasAttackColumn *col = &schema->cols[j];
	int			k;

	for (k = 0; k < col->ncat; k++)
		if (col->labels[k] != NULL && strcmp(col->labels[k], label) == 0)
			return (double) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s \"%s\" does not occur in column \"%s\"", what, label, col->name)));
	return 0;
}

/* position of the one record with key `key`, or an error */
static size_t
find_target(EvalRequest *req, EvalData *d, char **keys, size_t n, const char *key)
{
	size_t		i,
				found = 0,
				at = 0;
	char	   *relname = get_rel_name(req->auxiliary);

	for (i = 0; i < n; i++)
		if (keys[i] != NULL && strcmp(keys[i], key) == 0)
		{
			found++;
			at = i;
		}
	if (found == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target key \"%s\" does not occur in column \"%s\" of \"%s\"",
						key, d->schema->key, relname)));
	if (found > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target key \"%s\" occurs %zu times in column \"%s\" of \"%s\"",
						key, found, d->schema->key, relname),
				 errhint("The key column must identify one record; pass params \"key\".")));
	return at;
}

void
tapas_shadow_read_auxiliary(EvalRequest *req, EvalData *d, MemoryContext cxt)
{
	char	  **keys;
	double	   *values;
	bool	   *is_target;
	size_t		n,
				i,
				kept = 0;
	int			t;

	d->schema = tapas_attack_schema_build(req->auxiliary, req->auxiliary, req->params,
										  NULL, true, cxt);
	values = tapas_attack_read_table(d->schema, req->auxiliary, "auxiliary", &n,
									 &keys, cxt);
	d->c = d->schema->ncols;
	d->target = MemoryContextAlloc(cxt, req->n_targets * d->c * sizeof(double));
	is_target = palloc0(sizeof(bool) * n);
	for (t = 0; t < req->n_targets; t++)
	{
		size_t		at = find_target(req, d, keys, n, req->target_keys[t]);

		memcpy(d->target + t * d->c, values + at * d->c, d->c * sizeof(double));
		is_target[at] = true;
	}
	/* the pool: every other record, in table order */
	for (i = 0; i < n; i++)
		if (!is_target[i])
		{
			if (kept != i)
				memmove(values + kept * d->c, values + i * d->c, d->c * sizeof(double));
			kept++;
		}
	d->n_pool = kept;
	d->pool = values;
}

/*
 * AIA: the sensitive column, the codes of its candidate values (params
 * values, or every value of the column) and their weights (params
 * distribution, or uniform).
 */
void
tapas_shadow_resolve_sensitive(EvalRequest *req, EvalData *d)
{
	int			s = tapas_attack_schema_column(d->schema, req->sensitive);
	TapasAttackColumn *col;
	int			k,
				i;

	if (s < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" is not a column of the dataset",
						req->sensitive)));
	col = &d->schema->cols[s];
	if (col->kind != TAPAS_COLUMN_CATEGORICAL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" is not categorical", req->sensitive),
				 errhint("Declare it categorical with params \"schema\".")));
	req->sp.sensitive = s;
	req->score.sensitive = s;
	if (req->n_values == 0 && col->ncat > TAPAS_THREAT_MODEL_MAX_VALUES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" has %d values", req->sensitive, col->ncat),
				 errhint("Pass 2 to %d candidate values as params \"values\".",
						 TAPAS_THREAT_MODEL_MAX_VALUES)));
	k = req->n_values > 0 ? req->n_values : col->ncat;
	if (k < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" has only one value", req->sensitive)));
	for (i = 0; i < k; i++)
		req->sp.values[i] = req->n_values > 0 ?
			label_code(d->schema, s, req->values[i], "value") : (double) i;
	for (i = 0; i < k; i++)
	{
		int			j;

		for (j = 0; j < i; j++)
			if (req->sp.values[i] == req->sp.values[j])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the candidate values must differ")));
	}
	if (req->attack != ATTACK_SCORE && k != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attack \"%s\" infers one of two values, not %d", req->attack_name, k),
				 errhint("Pass two candidate values as params \"values\", or use a score-based attack (closest_distance_aia, local_neighbourhood_aia, synthetic_predictor_aia).")));
	if (req->n_distribution > 0 && req->n_distribution != k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"distribution\" has %d weights for %d values",
						req->n_distribution, k)));
	req->sp.tm.n_values = k;
	req->sp.tm.value_weights = req->n_distribution > 0 ? req->distribution : NULL;
	req->score.v0 = (size_t) req->sp.values[0];
	req->score.v1 = (size_t) req->sp.values[1];
}

/* the distance's column subset, by name (none = all columns) */
void
tapas_shadow_resolve_distance(EvalRequest *req, EvalData *d)
{
	if (req->distance_columns != NIL)
		tapas_attack_distance_columns(d->schema, req->distance_columns,
									  &req->score.distance);
	tapas_attack_distance_weights(d->schema, req->params, &req->score.distance);
	tapas_attack_distance_resolve_terms(d->schema, req->params, &req->score.distance);
}

/*
 * The sizes must fit the two parts of the auxiliary table, or the table
 * for exact knowledge (whose default dataset is the whole table).
 */
void
tapas_shadow_check_sizes(EvalRequest *req, EvalData *d)
{
	size_t		n_aux = (size_t) (req->sp.tm.auxiliary_split * (double) d->n_pool);
	size_t		n_rec;

	if (req->default_records)
		req->sp.tm.num_training_records = d->n_pool;
	if (req->default_synthetic)
		req->sp.num_synthetic_records = req->sp.tm.num_training_records;
	n_rec = req->sp.tm.num_training_records;
	if (req->sp.tm.exact_knowledge)
	{
		if (n_rec > d->n_pool)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("num_training_records %zu is larger than the auxiliary table", n_rec),
					 errdetail("Without the target, \"%s\" has %zu records.",
							   get_rel_name(req->auxiliary), d->n_pool)));
		return;
	}

	if (n_rec > n_aux || n_rec > d->n_pool - n_aux)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("num_training_records %zu is larger than a part of the auxiliary table",
						n_rec),
				 errdetail("Without the target, \"%s\" has %zu records: %zu for training datasets and %zu for test datasets (auxiliary_split %g).",
						   get_rel_name(req->auxiliary), d->n_pool, n_aux,
						   d->n_pool - n_aux, req->sp.tm.auxiliary_split)));
}
