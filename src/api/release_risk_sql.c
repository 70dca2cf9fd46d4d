/*-------------------------------------------------------------------------
 *
 * release_risk_sql.c
 *	  tapas.release_risk() and tapas.release_risk_records(): the dataset-only
 *	  audit of a synthetic table against the real (training) table and a
 *	  holdout of real rows, without a generator.
 *
 * Both functions read the three tables through one schema (dictionaries and
 * bounds over their union, api/dataset_sql.c), run the kernel of
 * attacks/release_risk.c (the procedure, estimators and intervals are
 * documented in release_risk.h and release_stats.h) and return either one
 * row per risk or one row per (record, risk).  The kernel datasets are
 * freed in PG_FINALLY; the kernel polls for a pending cancel once per target.
 *
 * IDENTIFICATION
 *	  src/api/release_risk_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/attacks_pg.h"
#include "attacks/release_risk.h"
#include "policy/status_error.h"
#include "util/memory.h"
#include "util/status.h"

/* encoded matrices above this many cells are refused (8 bytes each) */
#define MAX_ENCODED_CELLS (INT64CONST(32) * 1024 * 1024)

static const char *const release_keys[] = {
	"key", "columns", "exclude", "schema", "max_categories", "distance",
	"sensitive", "link_columns", "targets", "predicates", "predicate_columns",
	"tolerance", "confidence", "bootstrap", "seed", NULL
};

/* the three tables read, and the kernel parameters */
typedef struct ReleaseJob
{
	TapasAttackSchema *schema;
	double	   *values[3];		/* real, synthetic, holdout raw matrices */
	size_t		n[3];
	char	  **keys[3];		/* keys of real and holdout */
	tapas_release_params_t p;
} ReleaseJob;

/* a non-negative integer parameter no larger than max */
static size_t
param_count(Jsonb *params, const char *key, double dflt, double min, double max)
{
	double		v = tapas_attack_param_float(params, key, dflt);

	if (!(v >= min && v <= max) || v != floor(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be an integer between %.0f and %.0f",
						key, min, max)));
	return (size_t) v;
}

/* the dataset column named name, or an error naming the parameter */
static size_t
param_column(TapasAttackSchema *schema, const char *name, const char *param)
{
	int			j = tapas_attack_schema_column(schema, name);

	if (j < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" in params %s is not a dataset column",
						name, param)));
	return (size_t) j;
}

/* params "sensitive" and "link_columns" (default: the first half) */
static void
parse_columns(ReleaseJob *job, Jsonb *params)
{
	TapasAttackSchema *schema = job->schema;
	char	   *sens = tapas_attack_param_text(params, "sensitive", NULL);
	List	   *link = tapas_attack_param_name_list(params, "link_columns");
	size_t		c = (size_t) schema->ncols,
				k = 0;
	size_t	   *a = palloc(sizeof(size_t) * c);
	bool	   *seen = palloc0(sizeof(bool) * c);
	ListCell   *lc;

	job->p.sensitive = -1;
	if (sens != NULL)
	{
		job->p.sensitive = (long) param_column(schema, sens, "sensitive");
		if (schema->cols[job->p.sensitive].kind == TAPAS_COLUMN_CONTINUOUS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sensitive column \"%s\" is continuous", sens),
					 errhint("Declare it categorical or ordinal in params schema.")));
	}
	foreach(lc, link)
	{
		size_t		j = param_column(schema, lfirst(lc), "link_columns");

		if (seen[j])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("column \"%s\" appears twice in params link_columns",
							(char *) lfirst(lc))));
		seen[j] = true;
		a[k++] = j;
	}
	if (link != NIL && (k == 0 || k >= c))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("params link_columns must name some but not all dataset columns")));
	if (link == NIL)
		for (k = 0; k < c / 2 + c % 2 && c > 1; k++)
			a[k] = k;
	job->p.link_a = a;
	job->p.n_link_a = c > 1 ? k : 0;
}

static void
parse_params(ReleaseJob *job, Jsonb *params)
{
	tapas_release_params_t *p = &job->p;
	List	   *names;
	bool		has_columns;
	const char *bad;

	bad = tapas_attack_param_distance(params, &p->distance, &names, &has_columns);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized distance \"%s\"", bad),
				 errhint("Valid distances are: hamming, l1, l2, lp (with \"p\").")));
	tapas_attack_distance_weights(job->schema, params, &p->distance);
	if (has_columns || p->distance.weights != NULL ||
		p->distance.kind == TAPAS_DISTANCE_SUM ||
		(p->distance.scale != 0 && p->distance.scale != 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the release audit measures unweighted, unscaled distances on every dataset column"),
				 errhint("Choose the columns with params columns or exclude, and drop distance weights, scale and sums.")));
	p->n_targets = param_count(params, "targets", 1000, 1, 1e7);
	p->n_predicates = param_count(params, "predicates", 1000, 1, 1e7);
	p->predicate_columns = param_count(params, "predicate_columns", 0, 0, 1e6);
	p->tolerance = tapas_attack_param_float(params, "tolerance", 0.01);
	if (!(p->tolerance >= 0 && p->tolerance <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"tolerance\" must be between 0 and 1")));
	p->confidence = tapas_attack_param_float(params, "confidence", 0.95);
	if (!(p->confidence > 0 && p->confidence < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"confidence\" must be between 0 and 1 (exclusive)")));
	p->n_bootstrap = param_count(params, "bootstrap", 200, 0, 100000);
	p->seed = (uint64_t) (int64) param_count(params, "seed", 0, 0, 9007199254740991.0);
	parse_columns(job, params);
}

/* reads the three tables and the parameters of function "what" */
static void
prepare(ReleaseJob *job, FunctionCallInfo fcinfo, const char *what)
{
	static const char *const argnames[3] = {"training", "synthetic", "holdout"};
	static const char *const roles[3] = {"real", "synthetic", "holdout"};
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *params;
	int			i;

	for (i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" must not be NULL", argnames[i])));
	/* a NULL params is an error like any NULL argument (22004), not '{}' */
	params = tapas_attack_params_arg(fcinfo, 3, what);
	tapas_attack_params_check(params, release_keys, "the release audit");
	memset(job, 0, sizeof(ReleaseJob));
	SPI_connect();
	job->schema = tapas_attack_schema_build_holdout(PG_GETARG_OID(1),
													PG_GETARG_OID(0),
													PG_GETARG_OID(2),
													params, cxt);
	for (i = 0; i < 3; i++)
		job->values[i] = tapas_attack_read_table(job->schema, PG_GETARG_OID(i),
												 roles[i], &job->n[i],
												 i == 1 ? NULL : &job->keys[i],
												 cxt);
	SPI_finish();
	parse_params(job, params);
}

/* raises the error of a kernel status through the one mapper */
static void
check_status(tapas_status st)
{
	if (st != TAPAS_OK)
		tapas_raise_status(st, "release audit failed", NULL);
}

/* progress callback: stop for a pending cancel or termination only */
static int
interrupt_pending(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

/*
 * Runs the kernel; the summaries go to out and the per-record results,
 * copied to palloc'd memory, to *records.
 */
static void
run(ReleaseJob *job, tapas_risk_summary_t *out, tapas_risk_record_t **records,
	size_t *nrecords)
{
	TapasAttackSchema *schema = job->schema;
	tapas_dataset_t *volatile ds[3] = {NULL, NULL, NULL};
	tapas_risk_record_t *volatile rec = NULL;
	tapas_progress_t progress = {interrupt_pending, NULL};
	size_t		c = (size_t) schema->ncols,
				nrec = 0;
	bool		lp = job->p.distance.kind == TAPAS_DISTANCE_LP;
	int			i;

	PG_TRY();
	{
		for (i = 0; i < 3; i++)
		{
			ds[i] = tapas_dataset_from_values(job->n[i], c, schema->specs,
											  job->values[i]);
			if (ds[i] == NULL)
				check_status(TAPAS_ENOMEM);
			if (lp && (double) job->n[i] * (double) ds[i]->encoded_dim >
				(double) MAX_ENCODED_CELLS)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("encoded dataset too large: %zu rows of %zu cells",
								job->n[i], ds[i]->encoded_dim),
						 errhint("Exclude high-cardinality columns with params exclude, or use the hamming distance.")));
			if (lp)
				check_status(tapas_dataset_encode(ds[i]));
		}
		check_status(tapas_release_risk(ds[0], ds[1], ds[2], &job->p, out,
										(tapas_risk_record_t **) &rec, &nrec,
										&progress));
		*records = palloc_extended(sizeof(tapas_risk_record_t) * (nrec + 1),
								   MCXT_ALLOC_HUGE);
		memcpy(*records, rec, sizeof(tapas_risk_record_t) * nrec);
		*nrecords = nrec;
	}
	PG_FINALLY();
	{
		tapas_free(rec);
		for (i = 0; i < 3; i++)
			tapas_dataset_free(ds[i]);
	}
	PG_END_TRY();
}

static void
put_estimate(Datum *values, bool *nulls, int at, const tapas_estimate_t *e,
			 bool present)
{
	int			k;

	for (k = 0; k < 3; k++)
	{
		double		v = k == 0 ? e->est : (k == 1 ? e->low : e->high);

		nulls[at + k] = !present || isnan(v);
		values[at + k] = Float8GetDatum(v);
	}
}

PG_FUNCTION_INFO_V1(tapas_sql_release_risk);

Datum
tapas_sql_release_risk(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ReleaseJob	job;
	tapas_risk_summary_t out[TAPAS_RISK_COUNT];
	tapas_risk_record_t *rec;
	size_t		nrec;
	int			k;

	prepare(&job, fcinfo, "tapas.release_risk");
	run(&job, out, &rec, &nrec);
	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < TAPAS_RISK_COUNT; k++)
	{
		Datum		values[15];
		bool		nulls[15];
		bool		on = out[k].computed != 0;

		values[0] = CStringGetTextDatum(tapas_risk_kind_name(k));
		nulls[0] = false;
		values[1] = Int64GetDatum((int64) out[k].n_real);
		values[2] = Int64GetDatum((int64) out[k].n_holdout);
		nulls[1] = nulls[2] = !on;
		put_estimate(values, nulls, 3, &out[k].real, on);
		put_estimate(values, nulls, 6, &out[k].holdout, on);
		put_estimate(values, nulls, 9, &out[k].baseline, on);
		put_estimate(values, nulls, 12, &out[k].residual, on);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(tapas_sql_release_risk_records);

Datum
tapas_sql_release_risk_records(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ReleaseJob	job;
	tapas_risk_summary_t out[TAPAS_RISK_COUNT];
	tapas_risk_record_t *rec;
	size_t		nrec,
				r;

	prepare(&job, fcinfo, "tapas.release_risk_records");
	run(&job, out, &rec, &nrec);
	InitMaterializedSRF(fcinfo, 0);
	for (r = 0; r < nrec; r++)
	{
		char	   *key = job.keys[rec[r].holdout ? 2 : 0][rec[r].row];
		Datum		values[4];
		bool		nulls[4] = {false, key == NULL, false, false};

		values[0] = CStringGetTextDatum(rec[r].holdout ? "holdout" : "real");
		values[1] = key == NULL ? (Datum) 0 : CStringGetTextDatum(key);
		values[2] = CStringGetTextDatum(tapas_risk_kind_name(rec[r].kind));
		values[3] = Float8GetDatum(rec[r].value);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
