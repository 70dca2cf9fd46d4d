/*-------------------------------------------------------------------------
 *
 * attacks_shadow_request.c
 *	  Parses and checks the arguments and params of tapas.evaluate: the
 *	  threat model and attack names, the valid params of each attack and
 *	  the target keys; the params themselves are parsed section by section
 *	  in attacks_shadow_params.c.
 *
 * Every attack has its list of valid params (the common ones, the dataset
 * ones read by api/dataset_sql.c, and its own); an unknown key is an error
 * whose hint lists the valid ones, as a misspelt parameter silently falling
 * back to its default would give a misleading privacy assessment.  Defaults
 * follow the TAPAS toolbox (Houssiau et al. 2022, arXiv 2211.06550):
 * auxiliary_split 0.5, MIA pairs with replacement, Groundhog = naive +
 * hist(10 bins over [0, 1]) + corr with a 100-tree random forest, criterion
 * "accuracy".  Seeds: the threat model uses seed, the generator seed + 1
 * (mixed with the dataset number), the classifier seed + 2 and the query
 * subsets seed + 3 + i, the bootstrap of the metrics seed mixed with a
 * constant of its own (it runs after every other draw).
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow_request.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api/attacks_pg.h"
#include "api/attacks_shadow_request.h"

static const char *const common_keys[] = {
	"seed", "num_training_records", "num_synthetic_records",
	"num_training_datasets", "num_test_datasets", "auxiliary_split",
	"generator", "replace_target", "generate_pairs", "confidence",
	"bootstrap", "knowledge", "key", "columns", "exclude", "schema",
	"max_categories", NULL
};
static const char *const aia_keys[] = {"sensitive", "values", "distribution", NULL};
static const char *const classifier_keys[] = {
	"classifier", "n_estimators", "max_depth", "min_samples_split",
	"min_samples_leaf", "max_features", "C", NULL
};
static const char *const groundhog_keys[] = {
	"use_naive", "use_hist", "use_corr", "n_bins", "bounds", NULL
};
static const char *const shadow_keys[] = {
	"features", "n_bins", "bounds", "order", "number", NULL
};
static const char *const criterion_keys[] = {"criterion", "criterion_value", NULL};
static const char *const distance_keys[] = {"distance", NULL};
static const char *const radius_keys[] = {"radius", NULL};
static const char *const density_keys[] = {"estimator", "bandwidth", "bins", "alpha", NULL};
static const char *const predictor_keys[] = {"estimator", "C", NULL};

/* attack names, their kind, goal (-1 = both) and score kind */
typedef struct AttackName
{
	const char *name;
	ShadowAttackKind kind;
	int			goal;
	tapas_score_attack_kind score;
} AttackName;

static const AttackName attack_names[] = {
	{"groundhog", ATTACK_GROUNDHOG, -1, 0},
	{"shadow_modelling", ATTACK_SHADOW, -1, 0},
	{"closest_distance_mia", ATTACK_SCORE, TAPAS_THREAT_MODEL_MIA, TAPAS_SCORE_CLOSEST_DISTANCE_MIA},
	{"local_neighbourhood_mia", ATTACK_SCORE, TAPAS_THREAT_MODEL_MIA, TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_MIA},
	{"probability_estimation_mia", ATTACK_SCORE, TAPAS_THREAT_MODEL_MIA, TAPAS_SCORE_PROBABILITY_ESTIMATION},
	{"probability_estimation", ATTACK_SCORE, TAPAS_THREAT_MODEL_MIA, TAPAS_SCORE_PROBABILITY_ESTIMATION},
	{"closest_distance_aia", ATTACK_SCORE, TAPAS_THREAT_MODEL_AIA, TAPAS_SCORE_CLOSEST_DISTANCE_AIA},
	{"local_neighbourhood_aia", ATTACK_SCORE, TAPAS_THREAT_MODEL_AIA, TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_AIA},
	{"synthetic_predictor_aia", ATTACK_SCORE, TAPAS_THREAT_MODEL_AIA, TAPAS_SCORE_SYNTHETIC_PREDICTOR},
	{"synthetic_predictor", ATTACK_SCORE, TAPAS_THREAT_MODEL_AIA, TAPAS_SCORE_SYNTHETIC_PREDICTOR},
	{NULL, 0, 0, 0}
};

/* valid keys of this request: common + goal + attack-specific */
static const char **
valid_keys(int goal, const AttackName *a)
{
	const char *const *lists[6];
	const char **out = palloc(sizeof(char *) * 64);
	int			nl = 0,
				n = 0,
				i,
				j;

	lists[nl++] = common_keys;
	if (goal == TAPAS_THREAT_MODEL_AIA)
		lists[nl++] = aia_keys;
	if (a->kind == ATTACK_GROUNDHOG || a->kind == ATTACK_SHADOW)
	{
		lists[nl++] = a->kind == ATTACK_GROUNDHOG ? groundhog_keys : shadow_keys;
		lists[nl++] = classifier_keys;
	}
	else
	{
		lists[nl++] = criterion_keys;
		if (a->score == TAPAS_SCORE_PROBABILITY_ESTIMATION)
			lists[nl++] = density_keys;
		else if (a->score == TAPAS_SCORE_SYNTHETIC_PREDICTOR)
			lists[nl++] = predictor_keys;
		else
		{
			lists[nl++] = distance_keys;
			if (a->score != TAPAS_SCORE_CLOSEST_DISTANCE_MIA &&
				a->score != TAPAS_SCORE_CLOSEST_DISTANCE_AIA)
				lists[nl++] = radius_keys;
		}
	}
	for (i = 0; i < nl; i++)
		for (j = 0; lists[i][j] != NULL; j++)
			out[n++] = lists[i][j];
	out[n] = NULL;
	return out;
}

/* ----------------------------------------------------------------
 *		Entry point
 * ----------------------------------------------------------------
 */
static const char *const arg_names[] = {
	"threat_model", "attack", "auxiliary", "target_key", "params"
};

/*
 * The target keys of tapas.evaluate_targets: a non-empty text array
 * without NULLs or repetitions, at most TAPAS_THREAT_MODEL_MAX_TARGETS.
 */
static void
parse_target_keys(ArrayType *arr, EvalRequest *req)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i,
				j;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	if (n < 1 || n > TAPAS_THREAT_MODEL_MAX_TARGETS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tapas.evaluate_targets takes 1 to %d target keys",
						TAPAS_THREAT_MODEL_MAX_TARGETS)));
	req->target_keys = palloc(sizeof(char *) * n);
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("target keys must not be null")));
		req->target_keys[i] = TextDatumGetCString(elems[i]);
		for (j = 0; j < i; j++)
			if (strcmp(req->target_keys[i], req->target_keys[j]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("target key \"%s\" is listed twice", req->target_keys[i])));
	}
	req->n_targets = n;
	req->target_key = req->target_keys[0];
}

void
tapas_shadow_request_parse(FunctionCallInfo fcinfo, EvalRequest *req, bool many)
{
	char	   *tm,
			   *atk;
	const AttackName *a;
	int			i;

	memset(req, 0, sizeof(*req));
	for (i = 0; i < 5; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" of %s must not be null",
							i == 3 && many ? "target_keys" : arg_names[i],
							many ? "tapas.evaluate_targets" : "tapas.evaluate")));
	tm = text_to_cstring(PG_GETARG_TEXT_PP(0));
	atk = text_to_cstring(PG_GETARG_TEXT_PP(1));
	req->auxiliary = PG_GETARG_OID(2);
	if (many)
		parse_target_keys(PG_GETARG_ARRAYTYPE_P(3), req);
	else
	{
		req->target_key = text_to_cstring(PG_GETARG_TEXT_PP(3));
		req->target_keys = &req->target_key;
		req->n_targets = 1;
	}
	req->params = PG_GETARG_JSONB_P(4);
	if (strcmp(tm, "targeted_mia") == 0)
		req->goal = TAPAS_THREAT_MODEL_MIA;
	else if (strcmp(tm, "targeted_aia") == 0)
		req->goal = TAPAS_THREAT_MODEL_AIA;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threat model \"%s\" does not exist", tm),
				 errhint("Valid threat models: targeted_mia, targeted_aia.")));
	for (a = attack_names; a->name != NULL; a++)
		if (strcmp(a->name, atk) == 0)
			break;
	if (a->name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attack \"%s\" does not exist", atk),
				 errhint("Valid attacks: groundhog, shadow_modelling, closest_distance_mia, local_neighbourhood_mia, probability_estimation_mia (targeted_mia); closest_distance_aia, local_neighbourhood_aia, synthetic_predictor_aia (targeted_aia); groundhog and shadow_modelling work for both.")));
	if (a->goal >= 0 && a->goal != req->goal)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attack \"%s\" does not apply to threat model \"%s\"", atk, tm)));
	req->attack = a->kind;
	req->attack_name = a->name;
	tapas_attack_params_check(req->params, valid_keys(req->goal, a),
							  psprintf("attack \"%s\"", a->name));
	tapas_shadow_parse_threat_model(req);
	req->sp.tm.n_targets = (size_t) req->n_targets;
	if (a->kind == ATTACK_SCORE)
		tapas_shadow_parse_score_attack(req, a->score);
	else
		tapas_shadow_parse_features(req);
}
