/*-------------------------------------------------------------------------
 *
 * attacks_shadow_sql.c
 *	  The SQL entry points of the threat-model evaluation: tapas.evaluate
 *	  (one row of metrics), tapas.evaluate_targets (one row per target, the
 *	  targets sharing one set of datasets) and tapas.evaluate_scores (one
 *	  row per test dataset).  The evaluation itself is attacks_shadow.c.
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "api/attacks_shadow.h"

PG_FUNCTION_INFO_V1(tapas_sql_evaluate);
PG_FUNCTION_INFO_V1(tapas_sql_evaluate_targets);
PG_FUNCTION_INFO_V1(tapas_sql_evaluate_scores);

#define RESULT_COLUMNS 24

/* columns that have no meaning over more than two AIA values */
static const int binary_only[] = {1, 2, 4, 5, 6, 7, 8, 9, 12, 13};

/*
 * The RESULT_COLUMNS output columns of target t (the OUT parameters of
 * tapas.evaluate, in order) into values/nulls.
 */
static void
result_row(const EvalResult *res, size_t t, Datum *values, bool *nulls)
{
	const tapas_metrics_t *m = &res->m[t];
	const tapas_metrics_ci_t *ci = &res->ci[t];
	const tapas_interval_t *iv[4] = {&ci->accuracy, &ci->auc, &ci->tpr_at_fpr_01,
	&ci->tpr_at_fpr_001};
	int			k;

	memset(nulls, 0, sizeof(bool) * RESULT_COLUMNS);
	values[0] = Float8GetDatum(m->accuracy);
	values[1] = Float8GetDatum(m->tpr);
	values[2] = Float8GetDatum(m->fpr);
	values[3] = Float8GetDatum(m->advantage);
	values[4] = Float8GetDatum(m->auc);
	values[5] = Float8GetDatum(m->tpr_at_fpr_01);
	values[6] = Float8GetDatum(m->tpr_at_fpr_001);
	values[7] = Float8GetDatum(m->epsilon);
	values[8] = Float8GetDatum(m->epsilon_lower);
	values[9] = Float8GetDatum(m->threshold);
	values[10] = Int32GetDatum((int32) res->n_train);
	values[11] = Int32GetDatum((int32) res->n_test);
	values[12] = Int32GetDatum((int32) m->n_pos);
	values[13] = Int32GetDatum((int32) m->n_neg);
	values[14] = Int32GetDatum((int32) res->n_features);
	values[15] = Float8GetDatum(res->seconds);
	/* the bootstrap intervals, NULL without resamples */
	for (k = 0; k < 4; k++)
	{
		values[16 + 2 * k] = Float8GetDatum(iv[k]->low);
		values[17 + 2 * k] = Float8GetDatum(iv[k]->high);
		nulls[16 + 2 * k] = nulls[17 + 2 * k] = ci->n_boot == 0 ||
			(res->multivalue && k > 0);
	}
	/*
	 * More than two values: accuracy (with its interval) and the advantage
	 * over guessing the prior's most likely value; the binary metrics do
	 * not apply.
	 */
	if (res->multivalue)
	{
		values[3] = Float8GetDatum(m->accuracy - res->baseline);
		for (k = 0; k < (int) lengthof(binary_only); k++)
			nulls[binary_only[k]] = true;
	}
}

/*
 * tapas.evaluate(threat_model text, attack text, auxiliary regclass,
 *				  target_key text, params jsonb) -> one row of metrics
 */
Datum
tapas_sql_evaluate(PG_FUNCTION_ARGS)
{
	EvalResult	res;
	TupleDesc	desc;
	Datum		values[RESULT_COLUMNS];
	bool		nulls[RESULT_COLUMNS];

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(&res, 0, sizeof(res));
	tapas_shadow_evaluate(fcinfo, false, &res);
	result_row(&res, 0, values, nulls);
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * tapas.evaluate_targets(threat_model text, attack text, auxiliary
 * regclass, target_keys text[], params jsonb) -> TABLE(target_key text,
 * the columns of tapas.evaluate), one row per target in the keys' order
 */
Datum
tapas_sql_evaluate_targets(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EvalResult	res;
	size_t		t;

	InitMaterializedSRF(fcinfo, 0);
	memset(&res, 0, sizeof(res));
	tapas_shadow_evaluate(fcinfo, true, &res);
	for (t = 0; t < res.n_targets; t++)
	{
		Datum		values[RESULT_COLUMNS + 1];
		bool		nulls[RESULT_COLUMNS + 1];

		result_row(&res, t, values + 1, nulls + 1);
		values[0] = CStringGetTextDatum(res.target_keys[t]);
		nulls[0] = false;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * tapas.evaluate_scores(same arguments as tapas.evaluate) ->
 * TABLE(dataset_no integer, label boolean, score float8), one row per test
 * dataset
 */
Datum
tapas_sql_evaluate_scores(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EvalResult	res;
	size_t		i;

	InitMaterializedSRF(fcinfo, 0);
	memset(&res, 0, sizeof(res));
	tapas_shadow_evaluate(fcinfo, false, &res);
	if (res.multivalue)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tapas.evaluate_scores returns binary labels; this evaluation has more than two values"),
				 errhint("Use tapas.evaluate, or pass two candidate values as params \"values\".")));
	for (i = 0; i < res.n_test; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum((int32) i + 1);
		values[1] = BoolGetDatum(res.labels[i] != 0);
		values[2] = Float8GetDatum(res.scores[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
