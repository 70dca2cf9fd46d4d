/*-------------------------------------------------------------------------
 *
 * attacks_metrics.c
 *	  SQL wrappers of the attack metrics: tapas.attack_metrics,
 *	  tapas.train_threshold, tapas.roc_curve, tapas.roc_svg and
 *	  tapas.effective_epsilon.
 *
 * Every function takes scores float8[] and labels boolean[] of the same
 * length (one-dimensional, no NULLs, no NaN scores), as produced by
 * array_agg over tapas.mia_scores() joined with the ground truth.  The
 * definitions are in src/attacks/metrics.h.
 *
 * IDENTIFICATION
 *	  src/api/attacks_metrics.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "attacks/metrics.h"
#include "attacks/report.h"
#include "util/memory.h"
#include "policy/policy.h"

/* scores and labels from the first two arguments, validated */
static size_t
get_samples(FunctionCallInfo fcinfo, double **s, unsigned char **y)
{
	ArrayType  *sa,
			   *la;
	Datum	   *sd,
			   *ld;
	bool	   *sn,
			   *ln;
	int			n,
				nl,
				i;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("scores and labels must not be NULL")));
	sa = PG_GETARG_ARRAYTYPE_P(0);
	la = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(sa) > 1 || ARR_NDIM(la) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("scores and labels must be one-dimensional arrays")));
	deconstruct_array(sa, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &sd, &sn, &n);
	deconstruct_array(la, BOOLOID, 1, true, TYPALIGN_CHAR, &ld, &ln, &nl);
	if (n != nl)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("scores has %d elements but labels has %d", n, nl)));
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("scores and labels must not be empty")));
	*s = palloc(sizeof(double) * n);
	*y = palloc(n);
	for (i = 0; i < n; i++)
	{
		if (sn[i] || ln[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("scores and labels must not contain NULL")));
		(*s)[i] = DatumGetFloat8(sd[i]);
		(*y)[i] = DatumGetBool(ld[i]) ? 1 : 0;
		if (isnan((*s)[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scores must not contain NaN")));
	}
	return (size_t) n;
}

/* a kernel status as an error (TAPAS_OK returns) */
static void
check_status(tapas_status st)
{
	tapas_raise_status(st, "could not compute the metrics", NULL);
}

static double
get_confidence(FunctionCallInfo fcinfo, int argno)
{
	double		c = PG_ARGISNULL(argno) ? 0.95 : PG_GETARG_FLOAT8(argno);

	if (!(c > 0 && c < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be between 0 and 1 (exclusive)")));
	return c;
}

PG_FUNCTION_INFO_V1(tapas_sql_attack_metrics);

Datum
tapas_sql_attack_metrics(PG_FUNCTION_ARGS)
{
	double	   *s;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y);
	double		tau = PG_ARGISNULL(2) ? NAN : PG_GETARG_FLOAT8(2);
	double		conf = get_confidence(fcinfo, 3);
	tapas_metrics_t m;
	TupleDesc	desc;
	Datum		values[14];
	bool		nulls[14] = {0};

	if (!PG_ARGISNULL(2) && isnan(tau))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must not be NaN")));
	check_status(tapas_metrics_compute(s, y, n, tau, conf, &m));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum((int64) m.n_pos);
	values[1] = Int64GetDatum((int64) m.n_neg);
	values[2] = Float8GetDatum(m.threshold);
	values[3] = Float8GetDatum(m.accuracy);
	values[4] = Float8GetDatum(m.tpr);
	values[5] = Float8GetDatum(m.fpr);
	values[6] = Float8GetDatum(m.advantage);
	values[7] = Float8GetDatum(1.0 - m.advantage);
	values[8] = Float8GetDatum(m.auc);
	values[9] = Float8GetDatum(m.tpr_at_fpr_01);
	values[10] = Float8GetDatum(m.tpr_at_fpr_001);
	values[11] = Float8GetDatum(m.epsilon);
	values[12] = Float8GetDatum(m.epsilon_lower);
	values[13] = Float8GetDatum(m.confidence);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc),
													  values, nulls)));
}

PG_FUNCTION_INFO_V1(tapas_sql_train_threshold);

Datum
tapas_sql_train_threshold(PG_FUNCTION_ARGS)
{
	double	   *s;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y);
	char	   *name;
	tapas_criterion crit;
	double		value = PG_ARGISNULL(3) ? NAN : PG_GETARG_FLOAT8(3),
				tau;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("criterion must not be NULL")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (strcmp(name, "accuracy") == 0)
		crit = TAPAS_CRITERION_ACCURACY;
	else if (strcmp(name, "tpr") == 0 || strcmp(name, "tp") == 0)
		crit = TAPAS_CRITERION_TPR;
	else if (strcmp(name, "fpr") == 0 || strcmp(name, "fp") == 0)
		crit = TAPAS_CRITERION_FPR;
	else if (strcmp(name, "threshold") == 0)
		crit = TAPAS_CRITERION_THRESHOLD;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized criterion \"%s\"", name),
				 errhint("Valid criteria are: accuracy, tpr (or tp), fpr (or fp), threshold.")));
	if (crit == TAPAS_CRITERION_ACCURACY && !isnan(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("criterion \"accuracy\" takes no value")));
	if (crit != TAPAS_CRITERION_ACCURACY && isnan(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("criterion \"%s\" needs a value", name)));
	if ((crit == TAPAS_CRITERION_TPR || crit == TAPAS_CRITERION_FPR) &&
		!(value >= 0 && value <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target rate %g of criterion \"%s\" is not between 0 and 1",
						value, name)));
	check_status(tapas_threshold_select(s, y, n, crit, value, &tau));
	PG_RETURN_FLOAT8(tau);
}

PG_FUNCTION_INFO_V1(tapas_sql_roc_curve);

Datum
tapas_sql_roc_curve(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double	   *s,
			   *f = NULL,
			   *t = NULL,
			   *h = NULL,
			   *copy;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y),
				np = 0,
				k;

	/* copy the kernel's arrays to palloc'd memory before anything can raise */
	check_status(tapas_metrics_roc(s, y, n, &f, &t, &h, &np));
	copy = palloc(sizeof(double) * 3 * np);
	memcpy(copy, f, sizeof(double) * np);
	memcpy(copy + np, t, sizeof(double) * np);
	memcpy(copy + 2 * np, h, sizeof(double) * np);
	tapas_free(f);
	tapas_free(t);
	tapas_free(h);

	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < np; k++)
	{
		Datum		values[3];
		bool		nulls[3] = {0};

		values[0] = Float8GetDatum(copy[k]);
		values[1] = Float8GetDatum(copy[np + k]);
		values[2] = Float8GetDatum(copy[2 * np + k]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(tapas_sql_roc_svg);

Datum
tapas_sql_roc_svg(PG_FUNCTION_ARGS)
{
	double	   *s,
			   *f = NULL,
			   *t = NULL,
			   *h = NULL,
				auc = 0.5;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y),
				np = 0;
	char	   *title = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	char	   *svg = NULL;
	text	   *result;
	tapas_status st;

	check_status(tapas_metrics_auc(s, y, n, &auc));
	check_status(tapas_metrics_roc(s, y, n, &f, &t, &h, &np));
	st = tapas_roc_svg(f, t, np, auc, title, &svg);
	tapas_free(f);
	tapas_free(t);
	tapas_free(h);
	check_status(st);
	result = cstring_to_text(svg);
	tapas_free(svg);
	PG_RETURN_TEXT_P(result);
}

PG_FUNCTION_INFO_V1(tapas_sql_effective_epsilon);

Datum
tapas_sql_effective_epsilon(PG_FUNCTION_ARGS)
{
	double	   *s;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y);
	double		conf = get_confidence(fcinfo, 2),
				frac = PG_ARGISNULL(3) ? 0.1 : PG_GETARG_FLOAT8(3),
				eps,
				tau;
	int			inverse;
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {0};

	if (!(frac > 0 && frac < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("validation fraction must be between 0 and 1 (exclusive)")));
	if ((size_t) ceil(frac * (double) n) >= n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%zu samples are too few to hold out a validation fraction of %g",
						n, frac)));
	check_status(tapas_metrics_epsilon_split(s, y, n, frac, conf, &eps, &tau,
											 &inverse));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Float8GetDatum(eps);
	values[1] = Float8GetDatum(tau);
	values[2] = BoolGetDatum(inverse != 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc),
													  values, nulls)));
}

/*
 * tapas.roc_compare_svg(scores, labels, attack, title, epsilon): the
 * samples are grouped by attack[i] (curves in order of first appearance);
 * each group gets its ROC and AUC, and all go on one plot.
 */
PG_FUNCTION_INFO_V1(tapas_sql_roc_compare_svg);

Datum
tapas_sql_roc_compare_svg(PG_FUNCTION_ARGS)
{
	double	   *s;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y),
				c,
				i,
				ncurves = 0;
	ArrayType  *aa;
	Datum	   *ad;
	bool	   *an;
	int			na;
	char	  **names,
			  **label;
	int		   *group;
	tapas_roc_curve_t *curves;
	double	  **tofree;
	char	   *title = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));
	double		epsilon = PG_ARGISNULL(4) ? -1 : PG_GETARG_FLOAT8(4);
	char	   *svg = NULL;
	text	   *result;
	tapas_status st = TAPAS_OK;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("attack names must not be NULL")));
	if (!PG_ARGISNULL(4) && !(epsilon >= 0 && isfinite(epsilon)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a non-negative finite number")));
	aa = PG_GETARG_ARRAYTYPE_P(2);
	deconstruct_array(aa, TEXTOID, -1, false, TYPALIGN_INT, &ad, &an, &na);
	if ((size_t) na != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("scores has %zu elements but attack has %d", n, na)));
	names = palloc(sizeof(char *) * n);
	label = palloc(sizeof(char *) * n);
	group = palloc(sizeof(int) * n);
	for (i = 0; i < n; i++)
	{
		if (an[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("attack names must not contain NULL")));
		names[i] = TextDatumGetCString(ad[i]);
		for (c = 0; c < ncurves && strcmp(label[c], names[i]) != 0; c++)
			;
		if (c == ncurves)
			label[ncurves++] = names[i];
		group[i] = (int) c;
	}
	curves = palloc0(sizeof(tapas_roc_curve_t) * ncurves);
	tofree = palloc0(sizeof(double *) * 3 * ncurves);
	for (c = 0; c < ncurves && st == TAPAS_OK; c++)
	{
		double	   *gs = palloc(sizeof(double) * n),
				   *h = NULL;
		unsigned char *gy = palloc(n);
		size_t		m = 0;

		for (i = 0; i < n; i++)
			if (group[i] == (int) c)
			{
				gs[m] = s[i];
				gy[m++] = y[i];
			}
		curves[c].label = label[c];
		st = tapas_metrics_auc(gs, gy, m, &curves[c].auc);
		if (st == TAPAS_OK)
			st = tapas_metrics_roc(gs, gy, m, (double **) &curves[c].fpr,
								   (double **) &curves[c].tpr, &h, &curves[c].np);
		tofree[3 * c] = (double *) curves[c].fpr;
		tofree[3 * c + 1] = (double *) curves[c].tpr;
		tofree[3 * c + 2] = h;
	}
	if (st == TAPAS_OK)
		st = tapas_roc_compare_svg(curves, ncurves, epsilon, title, &svg);
	for (i = 0; i < 3 * ncurves; i++)
		tapas_free(tofree[i]);
	check_status(st);
	result = cstring_to_text(svg);
	tapas_free(svg);
	PG_RETURN_TEXT_P(result);
}

/* progress callback of the bootstrap: stop on a pending cancel */
static int
cancel_pending(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

PG_FUNCTION_INFO_V1(tapas_sql_metrics_intervals);

/*
 * tapas.metrics_intervals(scores, labels, threshold, confidence, bootstrap,
 * seed) -> TABLE(metric, estimate, low, high): the stratified percentile
 * bootstrap intervals of metrics.h for accuracy (at the threshold, or at
 * the accuracy-criterion threshold of these same samples when NULL), AUC
 * and TPR at FPR 0.1 and 0.01.
 */
Datum
tapas_sql_metrics_intervals(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double	   *s;
	unsigned char *y;
	size_t		n = get_samples(fcinfo, &s, &y);
	double		tau = PG_ARGISNULL(2) ? NAN : PG_GETARG_FLOAT8(2);
	double		conf = get_confidence(fcinfo, 3);
	int32		n_boot = PG_ARGISNULL(4) ? 1000 : PG_GETARG_INT32(4);
	int64		seed = PG_ARGISNULL(5) ? 0 : PG_GETARG_INT64(5);
	tapas_progress_t progress = {cancel_pending, NULL};
	tapas_metrics_ci_t ci;
	static const char *const names[4] = {"accuracy", "auc", "tpr_at_fpr_01", "tpr_at_fpr_001"};
	const tapas_interval_t *iv[4];
	tapas_status st;
	int			k;

	if (!PG_ARGISNULL(2) && isnan(tau))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must not be NaN")));
	if (n_boot < 0 || n_boot > 1000000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bootstrap must be between 0 and 1000000 resamples")));
	if (isnan(tau))
		check_status(tapas_threshold_select(s, y, n, TAPAS_CRITERION_ACCURACY, 0, &tau));
	st = tapas_metrics_bootstrap(s, y, n, tau, (size_t) n_boot, conf, (uint64) seed,
								 &progress, &ci);
	if (st == TAPAS_ECANCELED)
		CHECK_FOR_INTERRUPTS();
	check_status(st);
	iv[0] = &ci.accuracy;
	iv[1] = &ci.auc;
	iv[2] = &ci.tpr_at_fpr_01;
	iv[3] = &ci.tpr_at_fpr_001;
	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < 4; k++)
	{
		Datum		values[4];
		bool		nulls[4] = {0};

		values[0] = CStringGetTextDatum(names[k]);
		values[1] = Float8GetDatum(iv[k]->est);
		values[2] = Float8GetDatum(iv[k]->low);
		values[3] = Float8GetDatum(iv[k]->high);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
