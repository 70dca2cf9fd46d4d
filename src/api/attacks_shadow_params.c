/*-------------------------------------------------------------------------
 *
 * attacks_shadow_params.c
 *	  The sections of a tapas.evaluate request (attacks_shadow_request.h):
 *	  the threat model, the AIA values, the classifier, the feature sets
 *	  and the score attacks' params, each typed and range-checked.
 *
 * attacks_shadow_request.c has already refused every key the attack does
 * not take; here a key that is present must have the right type and
 * range, and an absent one takes the TAPAS toolbox's default (see there).
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow_params.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "attacks/generators.h"
#include "api/attacks_pg.h"
#include "api/attacks_shadow_request.h"

/* ----------------------------------------------------------------
 *		Typed params
 * ----------------------------------------------------------------
 */
static int64
param_int(Jsonb *params, const char *key, int64 dflt, int64 lo, int64 hi)
{
	double		v = tapas_attack_param_float(params, key, (double) dflt);

	if (v != floor(v) || v < (double) lo || v > (double) hi)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be an integer between " INT64_FORMAT " and " INT64_FORMAT,
						key, lo, hi)));
	return (int64) v;
}

static bool
param_bool(Jsonb *params, const char *key, bool dflt)
{
	JsonbValue	v;

	if (!tapas_attack_param_find(&params->root, key, &v))
		return dflt;
	if (v.type != jbvBool)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be true or false", key)));
	return v.val.boolean;
}

/* a number or an array of numbers into out[max]; returns the count */
static int
param_numbers(Jsonb *params, const char *key, double *out, int max)
{
	JsonbValue	v,
				e;
	JsonbIterator *it;
	JsonbIteratorToken r;
	int			n = 0;

	if (!tapas_attack_param_find(&params->root, key, &v))
		return 0;
	if (v.type == jbvNumeric)
	{
		out[0] = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
													NumericGetDatum(v.val.numeric)));
		return 1;
	}
	if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" must be a number or an array of numbers", key)));
	it = JsonbIteratorInit(v.val.binary.data);
	while ((r = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (r != WJB_ELEM)
			continue;
		if (e.type != jbvNumeric || n >= max)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parameter \"%s\" must be a number or an array of at most %d numbers",
							key, max)));
		out[n++] = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
													  NumericGetDatum(e.val.numeric)));
	}
	return n;
}

/* ----------------------------------------------------------------
 *		Sections of the request
 * ----------------------------------------------------------------
 */

/*
 * AIA: the sensitive column, its candidate values (resolved to codes once
 * the table is read) and their distribution.
 */
static void
parse_aia(EvalRequest *req)
{
	Jsonb	   *p = req->params;
	List	   *vals = tapas_attack_param_name_list(p, "values");
	ListCell   *lc;
	JsonbValue	jv;
	double		total = 0;
	int			i;

	req->sensitive = tapas_attack_param_text(p, "sensitive", NULL);
	if (req->sensitive == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("targeted_aia needs the sensitive column"),
				 errhint("Pass params \"sensitive\": \"column\".")));
	if (vals != NIL &&
		(list_length(vals) < 2 || list_length(vals) > TAPAS_THREAT_MODEL_MAX_VALUES))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"values\" must list 2 to %d values",
						TAPAS_THREAT_MODEL_MAX_VALUES)));
	req->n_values = 0;
	foreach(lc, vals)
		req->values[req->n_values++] = lfirst(lc);
	req->n_distribution = param_numbers(p, "distribution", req->distribution,
										TAPAS_THREAT_MODEL_MAX_VALUES);
	if (tapas_attack_param_find(&p->root, "distribution", &jv) &&
		req->n_distribution < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"distribution\" must be an array of one weight per value")));
	for (i = 0; i < req->n_distribution; i++)
	{
		if (!(req->distribution[i] >= 0) || isinf(req->distribution[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the weights of parameter \"distribution\" must be non-negative numbers")));
		total += req->distribution[i];
	}
	if (req->n_distribution > 0 && !(total > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the weights of parameter \"distribution\" must not all be 0")));
}
void
tapas_shadow_parse_threat_model(EvalRequest *req)
{
	Jsonb	   *p = req->params;
	tapas_threat_model_params_t *tm = &req->sp.tm;
	char	   *gen,
			   *knowledge;
	JsonbValue	jv;
	int64		seed = param_int(p, "seed", 0, 0, INT64CONST(9007199254740992));

	tapas_threat_model_params_default(tm);
	tm->goal = req->goal;
	tm->seed = (uint64) seed;
	knowledge = tapas_attack_param_text(p, "knowledge", "auxiliary");
	if (strcmp(knowledge, "exact") == 0)
		tm->exact_knowledge = 1;
	else if (strcmp(knowledge, "auxiliary") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attacker knowledge \"%s\" does not exist", knowledge),
				 errhint("Valid knowledge: auxiliary (datasets drawn from a part of the auxiliary table), exact (the attacker knows the training dataset but the target).")));
	tm->num_training_records = param_int(p, "num_training_records", 1000, 1, 100000000);
	/* exact knowledge of the whole table unless told otherwise */
	req->default_records = tm->exact_knowledge &&
		!tapas_attack_param_find(&p->root, "num_training_records", &jv);
	req->default_synthetic = !tapas_attack_param_find(&p->root, "num_synthetic_records", &jv);
	tm->n_train = param_int(p, "num_training_datasets", 100, 2, 10000000);
	tm->n_test = param_int(p, "num_test_datasets", 100, 2, 10000000);
	tm->auxiliary_split = tapas_attack_param_float(p, "auxiliary_split", 0.5);
	if (!(tm->auxiliary_split > 0 && tm->auxiliary_split < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"auxiliary_split\" must be between 0 and 1 (exclusive)")));
	tm->replace_target = param_bool(p, "replace_target", true);
	tm->generate_pairs = param_bool(p, "generate_pairs", true);
	tm->n_values = 2;
	req->sp.num_synthetic_records = param_int(p, "num_synthetic_records",
											  (int64) tm->num_training_records, 1, 100000000);
	req->sp.gen_seed = (uint64) seed + 1;
	req->confidence = tapas_attack_param_float(p, "confidence", 0.95);
	if (!(req->confidence > 0 && req->confidence < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"confidence\" must be between 0 and 1 (exclusive)")));
	req->n_boot = (size_t) param_int(p, "bootstrap", 1000, 0, 1000000);
	gen = tapas_attack_param_text(p, "generator", "raw");
	req->user_gen = NULL;
	if (strcmp(gen, "raw") == 0)
		req->sp.generator = TAPAS_GEN_RAW;
	else if (strcmp(gen, "marginals") == 0)
		req->sp.generator = TAPAS_GEN_MARGINALS;
	else
	{
		req->sp.generator = TAPAS_GEN_EXTERNAL;
		req->user_gen = gen;
	}
	if (req->goal == TAPAS_THREAT_MODEL_AIA)
		parse_aia(req);
}

static void
parse_classifier(EvalRequest *req)
{
	Jsonb	   *p = req->params;
	tapas_clf_params_t *c = &req->sp.clf;
	char	   *name = tapas_attack_param_text(p, "classifier", "random_forest");

	tapas_clf_params_default(c);
	c->seed = req->sp.tm.seed + 2;
	if (strcmp(name, "random_forest") == 0)
		c->type = TAPAS_CLF_RANDOM_FOREST;
	else if (strcmp(name, "logistic_regression") == 0)
		c->type = TAPAS_CLF_LOGISTIC;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("classifier \"%s\" does not exist", name),
				 errhint("Valid classifiers: random_forest, logistic_regression.")));
	c->rf.n_trees = param_int(p, "n_estimators", 100, 1, 100000);
	c->rf.max_depth = param_int(p, "max_depth", 0, 0, 100000);
	c->rf.min_samples_split = param_int(p, "min_samples_split", 2, 2, 100000000);
	c->rf.min_samples_leaf = param_int(p, "min_samples_leaf", 1, 1, 100000000);
	c->rf.max_features = param_int(p, "max_features", 0, 0, 100000000);
	c->C = tapas_attack_param_float(p, "C", 1.0);
	if (!(c->C > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"C\" must be positive")));
}

/* appends one feature set */
static tapas_setfeat_item_t *
add_item(EvalRequest *req, int type)
{
	tapas_setfeat_item_t *it;

	if (req->sp.n_items >= SHADOW_MAX_ITEMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("at most %d feature sets", SHADOW_MAX_ITEMS)));
	it = &req->items[req->sp.n_items++];
	memset(it, 0, sizeof(*it));
	it->type = type;
	return it;
}

static void
add_hist(EvalRequest *req)
{
	tapas_setfeat_item_t *it = add_item(req, TAPAS_SETFEAT_HIST);
	double		b[2] = {0, 1};

	it->n_bins = param_int(req->params, "n_bins", 10, 1, 100000);
	if (param_numbers(req->params, "bounds", b, 2) == 1 || !(b[0] < b[1]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"bounds\" must be two numbers lo < hi")));
	it->lo = b[0];
	it->hi = b[1];
}

static void
add_queries(EvalRequest *req)
{
	double		order[SHADOW_MAX_ITEMS],
				number[SHADOW_MAX_ITEMS];
	int			no = param_numbers(req->params, "order", order, SHADOW_MAX_ITEMS),
				nn = param_numbers(req->params, "number", number, SHADOW_MAX_ITEMS),
				i;

	if (no == 0)
		order[no++] = 2;
	if (nn == 0)
		number[nn++] = 100;
	if (nn != no && nn != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameters \"order\" and \"number\" must have the same length")));
	for (i = 0; i < no; i++)
	{
		tapas_setfeat_item_t *it = add_item(req, TAPAS_SETFEAT_QUERIES);
		double		num = number[nn == 1 ? 0 : i];

		if (order[i] != floor(order[i]) || order[i] < 1 || order[i] > 64 ||
			num != floor(num) || num < 1 || num > 1000000)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("query order must be an integer in 1..64 and number in 1..1000000")));
		it->order = (int) order[i];
		it->number = (int) num;
		it->seed = req->sp.tm.seed + 3 + i;
	}
}

void
tapas_shadow_parse_features(EvalRequest *req)
{
	List	   *names;
	ListCell   *lc;

	req->sp.n_items = 0;
	if (req->attack == ATTACK_GROUNDHOG)
	{
		if (param_bool(req->params, "use_naive", true))
			add_item(req, TAPAS_SETFEAT_NAIVE);
		if (param_bool(req->params, "use_hist", true))
			add_hist(req);
		if (param_bool(req->params, "use_corr", true))
			add_item(req, TAPAS_SETFEAT_CORR);
	}
	else
	{
		names = tapas_attack_param_name_list(req->params, "features");
		if (names == NIL)
			names = list_make3("naive", "hist", "corr");
		foreach(lc, names)
		{
			char	   *f = lfirst(lc);

			if (strcmp(f, "naive") == 0)
				add_item(req, TAPAS_SETFEAT_NAIVE);
			else if (strcmp(f, "hist") == 0)
				add_hist(req);
			else if (strcmp(f, "corr") == 0)
				add_item(req, TAPAS_SETFEAT_CORR);
			else if (strcmp(f, "queries") == 0)
				add_queries(req);
			else
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("feature set \"%s\" does not exist", f),
						 errhint("Valid feature sets: naive, hist, corr, queries.")));
		}
	}
	if (req->sp.n_items == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the attack has no feature set")));
	req->sp.items = req->items;
	parse_classifier(req);
}

static void
parse_criterion(EvalRequest *req)
{
	char	   *c = tapas_attack_param_text(req->params, "criterion", "accuracy");

	req->criterion_value = tapas_attack_param_float(req->params, "criterion_value", NAN);
	if (strcmp(c, "accuracy") == 0)
		req->criterion = TAPAS_CRITERION_ACCURACY;
	else if (strcmp(c, "tpr") == 0 || strcmp(c, "tp") == 0)
		req->criterion = TAPAS_CRITERION_TPR;
	else if (strcmp(c, "fpr") == 0 || strcmp(c, "fp") == 0)
		req->criterion = TAPAS_CRITERION_FPR;
	else if (strcmp(c, "threshold") == 0)
		req->criterion = TAPAS_CRITERION_THRESHOLD;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("criterion \"%s\" does not exist", c),
				 errhint("Valid criteria: accuracy, tpr, fpr, threshold.")));
	if (req->criterion != TAPAS_CRITERION_ACCURACY && isnan(req->criterion_value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("criterion \"%s\" needs params \"criterion_value\"", c)));
}

/*
 * params "distance" (see tapas_attack_param_distance); the column names are
 * resolved once the auxiliary table is read (req->distance_columns).
 */
static void
parse_distance(EvalRequest *req)
{
	bool		has_columns;
	const char *bad;

	bad = tapas_attack_param_distance(req->params, &req->score.distance,
									  &req->distance_columns, &has_columns);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distance \"%s\" does not exist", bad),
				 errhint("Valid distances: hamming, l1, l2, lp (with \"p\").")));
}

void
tapas_shadow_parse_score_attack(EvalRequest *req, tapas_score_attack_kind score)
{
	tapas_score_attack_t *s = &req->score;
	Jsonb	   *p = req->params;
	char	   *est,
			   *bw;

	memset(s, 0, sizeof(*s));
	s->kind = score;
	parse_distance(req);
	s->radius = tapas_attack_param_float(p, "radius", 1.0);
	if (!(s->radius >= 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"radius\" must be non-negative")));
	est = tapas_attack_param_text(p, "estimator",
								  score == TAPAS_SCORE_SYNTHETIC_PREDICTOR ?
								  "logistic_regression" : "kde");
	s->estimator = strcmp(est, "kde") == 0 ? TAPAS_DENSITY_KDE :
		strcmp(est, "histogram") == 0 ? TAPAS_DENSITY_HISTOGRAM : TAPAS_DENSITY_INDEPENDENT;
	if (score == TAPAS_SCORE_SYNTHETIC_PREDICTOR)
	{
		if (strcmp(est, "logistic_regression") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("estimator \"%s\" does not exist", est),
					 errhint("Valid estimators: logistic_regression.")));
	}
	else if (s->estimator == TAPAS_DENSITY_INDEPENDENT && strcmp(est, "independent") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("estimator \"%s\" does not exist", est),
				 errhint("Valid estimators: kde, independent, histogram.")));
	bw = tapas_attack_param_text(p, "bandwidth", "scott");
	s->bw_rule = strcmp(bw, "scott") == 0 ? TAPAS_BANDWIDTH_SCOTT :
		strcmp(bw, "silverman") == 0 ? TAPAS_BANDWIDTH_SILVERMAN : TAPAS_BANDWIDTH_FIXED;
	if (s->bw_rule == TAPAS_BANDWIDTH_FIXED)
	{
		s->bandwidth = strtod(bw, NULL);
		if (!(s->bandwidth > 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parameter \"bandwidth\" must be a positive number, \"scott\" or \"silverman\"")));
	}
	s->bins = param_int(p, "bins", 10, 1, 100000);
	s->alpha = tapas_attack_param_float(p, "alpha", 1.0);
	s->C = tapas_attack_param_float(p, "C", 1.0);
	if (!(s->alpha >= 0) || !(s->C > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameters \"alpha\" must be non-negative and \"C\" positive")));
	parse_criterion(req);
	req->sp.n_items = 0;
	req->sp.items = NULL;
}
