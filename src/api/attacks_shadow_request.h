/*-------------------------------------------------------------------------
 *
 * attacks_shadow_request.h
 *	  The arguments and params of tapas.evaluate, parsed and checked.
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow_request.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_PG_ATTACKS_SHADOW_REQUEST_H
#define TAPAS_PG_ATTACKS_SHADOW_REQUEST_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "attacks/metrics.h"
#include "attacks/score_eval.h"
#include "attacks/shadow_eval.h"

#define SHADOW_MAX_ITEMS 32

typedef enum ShadowAttackKind
{
	ATTACK_GROUNDHOG,			/* naive + hist + corr, random forest */
	ATTACK_SHADOW,				/* shadow_modelling: chosen features/classifier */
	ATTACK_SCORE				/* a score-based attack (score_eval.h) */
} ShadowAttackKind;

typedef struct EvalRequest
{
	int			goal;			/* TAPAS_THREAT_MODEL_MIA or TAPAS_THREAT_MODEL_AIA */
	ShadowAttackKind attack;
	const char *attack_name;
	Oid			auxiliary;
	char	   *target_key;		/* the first target */
	char	  **target_keys;	/* n_targets keys (evaluate_targets) */
	int			n_targets;
	Jsonb	   *params;			/* never NULL */
	tapas_shadow_params_t sp;	/* threat model, generator, features, classifier */
	tapas_setfeat_item_t items[SHADOW_MAX_ITEMS];
	tapas_score_attack_t score; /* ATTACK_SCORE */
	List	   *distance_columns;	/* names of a distance column subset */
	tapas_criterion criterion;	/* ATTACK_SCORE threshold selection */
	double		criterion_value;
	char	   *user_gen;		/* a SQL generator function, or NULL */
	char	   *sensitive;		/* AIA column */
	char	   *values[TAPAS_THREAT_MODEL_MAX_VALUES];	/* AIA candidate labels */
	int			n_values;		/* 0: every value of the column */
	double		distribution[TAPAS_THREAT_MODEL_MAX_VALUES];	/* AIA value weights */
	int			n_distribution; /* 0: uniform */
	bool		default_records;	/* exact knowledge, no num_training_records:
									 * the whole auxiliary table */
	bool		default_synthetic;	/* num_synthetic_records not given */
	double		confidence;		/* level of the epsilon lower bound and of
								 * the bootstrap intervals */
	size_t		n_boot;			/* bootstrap resamples of the metrics, 0 none */
} EvalRequest;

/*
 * attacks_shadow_request.c: reads and checks every argument and param;
 * many: argument 3 is an array of target keys (tapas.evaluate_targets),
 * else one key.
 */
extern void tapas_shadow_request_parse(FunctionCallInfo fcinfo, EvalRequest *req,
									   bool many);

/* the auxiliary table, read once */
typedef struct EvalData
{
	TapasAttackSchema *schema;
	double	   *pool;			/* (n - T) x c, the targets taken out */
	double	   *target;			/* T x c, in the order of the keys */
	size_t		n_pool;
	size_t		c;
} EvalData;

/* attacks_shadow_data.c: the auxiliary table, read and resolved (cxt: its memory) */
extern void tapas_shadow_read_auxiliary(EvalRequest *req, EvalData *d, MemoryContext cxt);
extern void tapas_shadow_resolve_sensitive(EvalRequest *req, EvalData *d);
extern void tapas_shadow_resolve_distance(EvalRequest *req, EvalData *d);
extern void tapas_shadow_check_sizes(EvalRequest *req, EvalData *d);

/* attacks_shadow_params.c: the sections of req->params into req */
extern void tapas_shadow_parse_threat_model(EvalRequest *req);
extern void tapas_shadow_parse_features(EvalRequest *req);
extern void tapas_shadow_parse_score_attack(EvalRequest *req,
											tapas_score_attack_kind score);

#endif							/* TAPAS_PG_ATTACKS_SHADOW_REQUEST_H */
