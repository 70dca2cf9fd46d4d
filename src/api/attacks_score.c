/*-------------------------------------------------------------------------
 *
 * attacks_score.c
 *	  tapas.mia_scores() and tapas.aia_scores(): no-box scores of the
 *	  trainable-threshold attacks for every row of a targets table.
 *
 * Each call reads the synthetic table and the targets through one shared
 * schema (api/dataset_sql.c), builds the kernel dataset, and scores the targets
 * one by one with the kernels of src/attacks/.  Kernel objects are freed
 * in PG_FINALLY, because the loop checks for interrupts (cancellation) and
 * maps kernel statuses to errors while they are alive.
 *
 * Attack names are the seed's class names in snake_case; parameters are
 * the seed's (distance, radius, estimator) plus the dataset parameters of
 * api/dataset_sql.c (key, columns, exclude, schema, max_categories).
 *
 * IDENTIFICATION
 *	  src/api/attacks_score.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "attacks/density.h"
#include "attacks/random_forest.h"
#include "attacks/score_attacks.h"
#include "util/status.h"
#include "api/attacks_pg.h"
#include "policy/progress_pg.h"
#include "policy/policy.h"

/* encoded matrices above this many cells are refused (8 bytes each) */
#define MAX_ENCODED_CELLS (INT64CONST(32) * 1024 * 1024)

typedef enum AttackId
{
	ATTACK_CD_MIA,
	ATTACK_CD_AIA,
	ATTACK_LN_MIA,
	ATTACK_LN_AIA,
	ATTACK_PE_MIA,
	ATTACK_SP_AIA
} AttackId;

#define DATASET_KEYS "key", "columns", "exclude", "schema", "max_categories"

static const char *const keys_distance[] = {DATASET_KEYS, "distance", NULL};
static const char *const keys_radius[] = {DATASET_KEYS, "distance", "radius", NULL};
static const char *const keys_density[] = {DATASET_KEYS, "estimator", "bandwidth",
"bins", "alpha", NULL};
static const char *const keys_predictor[] = {DATASET_KEYS, "estimator", "C",
"n_estimators", "max_depth", "min_samples_leaf", "seed", NULL};

typedef struct AttackDef
{
	const char *name;
	AttackId	id;
	bool		aia;
	const char *const *keys;
} AttackDef;

static const AttackDef attack_defs[] = {
	{"closest_distance_mia", ATTACK_CD_MIA, false, keys_distance},
	{"closest_distance_aia", ATTACK_CD_AIA, true, keys_distance},
	{"local_neighbourhood_mia", ATTACK_LN_MIA, false, keys_radius},
	{"local_neighbourhood_aia", ATTACK_LN_AIA, true, keys_radius},
	{"probability_estimation_mia", ATTACK_PE_MIA, false, keys_density},
	{"synthetic_predictor_aia", ATTACK_SP_AIA, true, keys_predictor},
};

#define N_ATTACKS (sizeof(attack_defs) / sizeof(attack_defs[0]))

/* everything one scoring call needs, read and validated up front */
typedef struct ScoreJob
{
	const AttackDef *attack;
	Jsonb	   *params;
	TapasAttackSchema *schema;
	double	   *syn_values;
	size_t		n;				/* synthetic rows */
	double	   *tgt_values;
	char	  **keys;
	size_t		m;				/* targets */
	int			sensitive;		/* AIA: dataset column, else -1 */
	tapas_distance_t distance;
	bool		need_encoding;
} ScoreJob;

/* the attack named `name`, of the kind the caller serves */
static const AttackDef *
find_attack(const char *name, bool aia)
{
	StringInfoData names;
	size_t		i;

	initStringInfo(&names);
	for (i = 0; i < N_ATTACKS; i++)
	{
		if (strcmp(attack_defs[i].name, name) == 0)
		{
			if (attack_defs[i].aia != aia)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attack \"%s\" is %s attack", name,
								aia ? "a membership inference" : "an attribute inference"),
						 errhint("Use %s.", aia ? "tapas.mia_scores" : "tapas.aia_scores")));
			return &attack_defs[i];
		}
		if (attack_defs[i].aia == aia)
			appendStringInfo(&names, "%s%s", names.len ? ", " : "",
							 attack_defs[i].name);
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized %s attack \"%s\"",
					aia ? "attribute inference" : "membership inference", name),
			 errhint("Valid attacks are: %s.", names.data)));
	return NULL;				/* keep compiler quiet */
}

/* ----------------------------------------------------------------
 *		Parameters
 * ----------------------------------------------------------------
 */

/*
 * params "distance" (see tapas_attack_param_distance); column names map to
 * dataset columns.
 */
static void
parse_distance(ScoreJob *job)
{
	tapas_distance_t *d = &job->distance;
	List	   *names;
	bool		has_columns;
	const char *bad;

	bad = tapas_attack_param_distance(job->params, d, &names, &has_columns);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized distance \"%s\"", bad),
				 errhint("Valid distances are: hamming, l1, l2, lp (with \"p\").")));
	if (has_columns)
		tapas_attack_distance_columns(job->schema, names, d);
	tapas_attack_distance_weights(job->schema, job->params, d);
	tapas_attack_distance_resolve_terms(job->schema, job->params, d);
}

/* reads both tables and the attack's parameters into job */
static void
prepare_job(ScoreJob *job, Oid synthetic, Oid targets, const char *sensitive)
{
	MemoryContext cxt = CurrentMemoryContext;

	SPI_connect();
	job->schema = tapas_attack_schema_build(synthetic, targets, job->params,
											sensitive, true, cxt);
	job->sensitive = -1;
	if (sensitive != NULL)
	{
		job->sensitive = tapas_attack_schema_column(job->schema, sensitive);
		if (job->sensitive < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("sensitive column \"%s\" is not a dataset column", sensitive),
					 errhint("It must be a column of the synthetic table, not excluded.")));
		if (job->schema->cols[job->sensitive].kind != TAPAS_COLUMN_CATEGORICAL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sensitive column \"%s\" is not categorical", sensitive),
					 errhint("Declare it categorical in params schema.")));
	}
	job->syn_values = tapas_attack_read_table(job->schema, synthetic, "synthetic",
											  &job->n, NULL, cxt);
	job->tgt_values = tapas_attack_read_table(job->schema, targets, "targets",
											  &job->m, &job->keys, cxt);
	SPI_finish();
	parse_distance(job);
	job->need_encoding = tapas_distance_needs_encoding(&job->distance) ||
		job->attack->id == ATTACK_PE_MIA || job->attack->id == ATTACK_SP_AIA;
}

/* ----------------------------------------------------------------
 *		Scoring
 * ----------------------------------------------------------------
 */

/* raises the error matching a kernel status (TAPAS_OK returns) */
static void
check_status(tapas_status st, const char *what)
{
	if (st != TAPAS_OK)
		tapas_raise_status(st, psprintf("%s failed", what), NULL);
}

/* width of an encoded row under the schema */
static size_t
encoded_dim(const TapasAttackSchema *schema)
{
	size_t		e = 0;
	int			j;

	for (j = 0; j < schema->ncols; j++)
		e += schema->specs[j].kind == TAPAS_COLUMN_CATEGORICAL ?
			schema->specs[j].cardinality : 1;
	return e;
}

static double
param_nonneg(Jsonb *params, const char *key, double dflt)
{
	double		v = tapas_attack_param_float(params, key, dflt);

	if (!(v >= 0) || isinf(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be a non-negative number", key)));
	return v;
}

/* the fitted density of probability_estimation_mia (kernel object) */
static tapas_density_t *
fit_density(Jsonb *params, const tapas_dataset_t *syn)
{
	char	   *est = tapas_attack_param_text(params, "estimator", "kde");
	tapas_density_t *model;

	if (strcmp(est, "kde") == 0)
	{
		char	   *bw = tapas_attack_param_text(params, "bandwidth", "scott");
		tapas_bandwidth_rule rule = TAPAS_BANDWIDTH_FIXED;
		double		h = 0;

		if (strcmp(bw, "scott") == 0)
			rule = TAPAS_BANDWIDTH_SCOTT;
		else if (strcmp(bw, "silverman") == 0)
			rule = TAPAS_BANDWIDTH_SILVERMAN;
		else if (!(sscanf(bw, "%lf", &h) == 1 && h > 0 && isfinite(h)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid bandwidth \"%s\"", bw),
					 errhint("Use a positive number, \"scott\" or \"silverman\".")));
		model = tapas_density_fit_kde(syn, rule, h);
	}
	else if (strcmp(est, "independent") == 0 || strcmp(est, "histogram") == 0)
	{
		double		bins = tapas_attack_param_float(params, "bins", 10);
		double		alpha = param_nonneg(params, "alpha", 1.0);

		if (!(bins >= 1 && bins <= 1e6) || bins != floor(bins))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parameter \"bins\" must be an integer between 1 and 1000000")));
		model = est[0] == 'h' ?
			tapas_density_fit_histogram(syn, (size_t) bins, alpha) :
			tapas_density_fit_independent(syn, (size_t) bins, alpha);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized estimator \"%s\"", est),
				 errhint("Valid estimators are: kde, independent, histogram.")));
	if (model == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not fit the density estimator")));
	return model;
}

/* an integer parameter in [lo, hi] */
static int
param_int_range(Jsonb *params, const char *key, int dflt, int lo, int hi)
{
	double		v = tapas_attack_param_float(params, key, dflt);

	if (!(v >= lo && v <= hi) || v != floor(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be an integer between %d and %d",
						key, lo, hi)));
	return (int) v;
}

/*
 * Whether synthetic_predictor_aia uses the random forest (params estimator
 * random_forest; its parameters go to *rp and *seed) or logistic regression.
 */
static bool
predictor_forest(Jsonb *params, tapas_rf_params_t *rp, uint64_t *seed)
{
	char	   *est = tapas_attack_param_text(params, "estimator", "logistic_regression");

	if (strcmp(est, "random_forest") != 0)
		return false;
	tapas_rf_params_default(rp);
	rp->n_trees = param_int_range(params, "n_estimators", 100, 1, 100000);
	rp->max_depth = param_int_range(params, "max_depth", 0, 0, 100000);
	rp->min_samples_leaf = param_int_range(params, "min_samples_leaf", 1, 1, 1000000);
	*seed = (uint64_t) param_int_range(params, "seed", 0, 0, INT_MAX);
	return true;
}

/* C of synthetic_predictor_aia, after checking the estimator name */
static double
predictor_cost(Jsonb *params)
{
	char	   *est = tapas_attack_param_text(params, "estimator", "logistic_regression");
	double		C = tapas_attack_param_float(params, "C", 1.0);

	if (strcmp(est, "logistic_regression") != 0 && strcmp(est, "random_forest") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized estimator \"%s\"", est),
				 errhint("Valid estimators are: logistic_regression, random_forest.")));
	if (!(C > 0) || isinf(C))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"C\" must be a positive number")));
	return C;
}

/* score of target a into scores (1 value, or k for AIA) */
static void
score_one(ScoreJob *job, const tapas_dataset_t *syn, tapas_density_t *model,
		  double radius, const double *x, const double *xe, double *out)
{
	const tapas_distance_t *d = &job->distance;
	size_t		s = (size_t) job->sensitive;
	tapas_status st = TAPAS_OK;

	switch (job->attack->id)
	{
		case ATTACK_CD_MIA:
			st = tapas_closest_distance_mia(d, syn, x, xe, out);
			break;
		case ATTACK_CD_AIA:
			st = tapas_closest_distance_aia(d, syn, x, s, out);
			break;
		case ATTACK_LN_MIA:
			st = tapas_local_neighbourhood_mia(d, syn, x, xe, radius, out);
			break;
		case ATTACK_LN_AIA:
			st = tapas_local_neighbourhood_aia(d, syn, x, xe, s, radius, out);
			break;
		case ATTACK_PE_MIA:
			*out = tapas_density_log(model, x, xe);
			break;
		case ATTACK_SP_AIA:
			break;				/* all targets at once, see run_scores */
	}
	check_status(st, job->attack->name);
}

/* progress callback of the kernels: stop when an interrupt is pending */
static int
interrupt_pending(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

/*
 * Many targets, L2 on every column: one blocked BLAS scan for all of them
 * (distance_blas.c), with the same results as the per-target scans.
 */
static bool
use_blas_scan(const ScoreJob *job)
{
	return (job->attack->id == ATTACK_CD_MIA || job->attack->id == ATTACK_LN_MIA) &&
		job->distance.kind == TAPAS_DISTANCE_LP && job->distance.p == 2.0 &&
		job->distance.columns == NULL && job->distance.weights == NULL &&
		(job->distance.scale == 0 || job->distance.scale == 1) && job->m >= 8;
}

static void
blas_scores(ScoreJob *job, const tapas_dataset_t *syn, const double *xenc,
			double radius, double *scores)
{
	tapas_progress_t progress = {interrupt_pending, NULL};
	bool		ln = job->attack->id == ATTACK_LN_MIA;
	size_t	   *counts = ln ? palloc(sizeof(size_t) * job->m) : NULL;
	tapas_status st;
	size_t		a;

	st = tapas_distance_l2_scan(syn, xenc, job->m, radius, scores, counts,
								&progress);
	if (st == TAPAS_ECANCELED)
		CHECK_FOR_INTERRUPTS();
	check_status(st, job->attack->name);
	for (a = 0; a < job->m; a++)
		scores[a] = ln ? (double) counts[a] / (double) job->n : -scores[a] + 0.0;
}

/*
 * synthetic_predictor_aia: the classifier's fit reports a NOTICE every
 * tapas.progress_interval and stops on a cancel (the forest polls once per
 * tree, the logistic fit between its Newton iterations and inside its
 * passes over the rows), as tapas.evaluate's fits do.
 */
static void
predictor_scores(ScoreJob *job, const tapas_dataset_t *syn, bool forest,
				 const tapas_rf_params_t *rp, uint64_t seed, double C,
				 const double *xenc, double *scores)
{
	TapasProgressNotice pn;
	tapas_progress_t progress = {tapas_progress_notice_cb, &pn};
	tapas_status st;

	tapas_progress_notice_init(&pn, "tapas.aia_scores", forest ?
							   "fitting the random forest" :
							   "fitting the logistic regression");
	if (forest)
		st = tapas_synthetic_predictor_rf_aia(syn, (size_t) job->sensitive, rp, seed,
											  xenc, job->m, scores, &progress);
	else
		st = tapas_synthetic_predictor_aia(syn, (size_t) job->sensitive, C, xenc,
										   job->m, scores, &progress);
	if (st == TAPAS_ECANCELED)
		CHECK_FOR_INTERRUPTS();
	check_status(st, job->attack->name);
}

/*
 * Fills scores (m values, or m * k for AIA with k sensitive codes).  Kernel
 * objects live only inside the PG_TRY block and are freed in PG_FINALLY.
 */
static void
run_scores(ScoreJob *job, double *scores)
{
	TapasAttackSchema *schema = job->schema;
	size_t		c = (size_t) schema->ncols,
				e = encoded_dim(schema),
				k = job->sensitive >= 0 ? schema->specs[job->sensitive].cardinality : 1,
				a;
	double		radius = 1.0,
				C = 1.0;
	tapas_rf_params_t rp;
	uint64_t	seed = 0;
	bool		forest = false;
	double	   *xenc = NULL;
	tapas_dataset_t *volatile syn = NULL;
	tapas_density_t *volatile model = NULL;

	if (job->attack->id == ATTACK_LN_MIA || job->attack->id == ATTACK_LN_AIA)
		radius = param_nonneg(job->params, "radius", 1.0);
	if (job->attack->id == ATTACK_SP_AIA)
	{
		C = predictor_cost(job->params);
		forest = predictor_forest(job->params, &rp, &seed);
	}
	if (job->need_encoding)
	{
		if ((double) (job->n > job->m ? job->n : job->m) * (double) e >
			(double) MAX_ENCODED_CELLS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("encoded dataset too large: %zu rows of %zu cells",
							job->n > job->m ? job->n : job->m, e),
					 errhint("Exclude high-cardinality columns with params exclude, or use the hamming distance.")));
		xenc = palloc_extended(sizeof(double) * (job->m * e + 1), MCXT_ALLOC_HUGE);
	}
	syn = tapas_dataset_from_values(job->n, c, schema->specs, job->syn_values);
	if (syn == NULL)
		check_status(TAPAS_ENOMEM, "dataset");
	PG_TRY();
	{
		if (job->need_encoding)
		{
			check_status(tapas_dataset_encode(syn), "encoding");
			for (a = 0; a < job->m; a++)
				tapas_dataset_encode_record(syn, job->tgt_values + a * c, xenc + a * e);
		}
		if (job->attack->id == ATTACK_PE_MIA)
			model = fit_density(job->params, syn);
		if (use_blas_scan(job))
			blas_scores(job, syn, xenc, radius, scores);
		else if (job->attack->id == ATTACK_SP_AIA)
			predictor_scores(job, syn, forest, &rp, seed, C, xenc, scores);
		else
			for (a = 0; a < job->m; a++)
			{
				score_one(job, syn, model, radius, job->tgt_values + a * c,
						  xenc ? xenc + a * e : NULL, scores + a * k);
				CHECK_FOR_INTERRUPTS();
			}
	}
	PG_FINALLY();
	{
		tapas_density_free(model);
		tapas_dataset_free(syn);
	}
	PG_END_TRY();
}

/* parses the common arguments of both SQL functions into job */
static void
init_job(ScoreJob *job, FunctionCallInfo fcinfo, bool aia)
{
	int			nargs = aia ? 4 : 3,
				i;
	const char *argnames[4] = {"attack", "synthetic", "targets", "sensitive"};

	for (i = 0; i < nargs; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" must not be NULL", argnames[i])));
	memset(job, 0, sizeof(ScoreJob));
	job->attack = find_attack(text_to_cstring(PG_GETARG_TEXT_PP(0)), aia);
	job->params = tapas_attack_params_arg(fcinfo, nargs,
										  aia ? "tapas.aia_scores" : "tapas.mia_scores");
	tapas_attack_params_check(job->params, job->attack->keys,
							  psprintf("attack \"%s\"", job->attack->name));
}

PG_FUNCTION_INFO_V1(tapas_sql_mia_scores);

Datum
tapas_sql_mia_scores(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScoreJob	job;
	double	   *scores;
	size_t		a;

	init_job(&job, fcinfo, false);
	prepare_job(&job, PG_GETARG_OID(1), PG_GETARG_OID(2), NULL);
	scores = palloc(sizeof(double) * job.m);
	run_scores(&job, scores);

	InitMaterializedSRF(fcinfo, 0);
	for (a = 0; a < job.m; a++)
	{
		Datum		values[2];
		bool		nulls[2] = {job.keys[a] == NULL, false};

		values[0] = nulls[0] ? (Datum) 0 : CStringGetTextDatum(job.keys[a]);
		values[1] = Float8GetDatum(scores[a]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(tapas_sql_aia_scores);

Datum
tapas_sql_aia_scores(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScoreJob	job;
	double	   *scores;
	TapasAttackColumn *col;
	size_t		a,
				v;

	init_job(&job, fcinfo, true);
	prepare_job(&job, PG_GETARG_OID(1), PG_GETARG_OID(2),
				NameStr(*PG_GETARG_NAME(3)));
	col = &job.schema->cols[job.sensitive];
	scores = palloc(sizeof(double) * job.m * col->ncat);
	run_scores(&job, scores);

	InitMaterializedSRF(fcinfo, 0);
	for (a = 0; a < job.m; a++)
		for (v = 0; v < (size_t) col->ncat; v++)
		{
			Datum		values[3];
			bool		nulls[3] = {job.keys[a] == NULL, col->labels[v] == NULL, false};

			values[0] = nulls[0] ? (Datum) 0 : CStringGetTextDatum(job.keys[a]);
			values[1] = nulls[1] ? (Datum) 0 : CStringGetTextDatum(col->labels[v]);
			values[2] = Float8GetDatum(scores[a * col->ncat + v]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	return (Datum) 0;
}
