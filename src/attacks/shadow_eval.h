/*-------------------------------------------------------------------------
 *
 * shadow_eval.h
 *	  One shadow-modelling evaluation: threat-model datasets through a
 *	  generator, set features, a set classifier trained on the training
 *	  datasets and scored on the test datasets.
 *
 * The whole evaluation runs on row numbers into one coded matrix (the
 * auxiliary table, read once): datasets are index arrays
 * (threat_model.h), a real dataset is materialised into one buffer, the
 * synthetic one into another, and only its feature vector is kept
 * (n_datasets x dim).  Built-in generators (generators.h) run here;
 * a caller with its own generator (the SQL wrapper's user functions) fills
 * the synthetic buffer itself between tapas_shadow_eval_real() and
 * tapas_shadow_eval_featurise().
 *
 * AIA: the target's copy in dataset k has its sensitive column set to
 * values[label_k]; for the set classifier labels are binary (two candidate
 * values), label 1 is values[1]; score-based attacks take up to
 * TAPAS_THREAT_MODEL_MAX_VALUES candidates.  The query features use the target as stored, as the
 * reference does (its sensitive value carries no information about the
 * randomised label).
 *
 * Several targets (tm.n_targets = T > 1, the reference's multiple-target
 * mode): the datasets, their generation and the target-free features
 * (naive, hist, corr) are shared; only the query features, which count
 * records equal to the target, are extracted per target, and each target
 * gets its own classifier on its own labels, fitted with the same clf
 * params (seed included).  Target t's scores are thus exactly those of a
 * single-target fit on the same datasets with its labels and features.
 *
 * Randomness: the threat model draws from tm.seed; the generator of
 * dataset k from a generator seeded with mix(gen_seed, k), so a dataset's
 * synthetic copy does not depend on the order of evaluation; the
 * classifier from clf.seed.
 *
 * IDENTIFICATION
 *	  src/attacks/shadow_eval.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SHADOW_EVAL_H
#define TAPAS_SHADOW_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "attacks/set_classifier.h"
#include "attacks/set_features.h"
#include "attacks/threat_model.h"
#include "util/progress.h"
#include "util/status.h"

#define TAPAS_GEN_EXTERNAL	(-1)	/* the caller fills the synthetic buffer */

typedef struct tapas_shadow_params
{
	tapas_threat_model_params_t tm;		/* threat model; tm.n_pool is set by create */
	int			generator;		/* TAPAS_GEN_* or TAPAS_GEN_EXTERNAL */
	size_t		num_synthetic_records;	/* >= 1 */
	uint64_t	gen_seed;
	const tapas_setfeat_item_t *items;	/* feature sets (copied); none for
										 * score-based attacks (then only
										 * real/generate work) */
	size_t		n_items;
	tapas_clf_params_t clf;
	int			sensitive;		/* AIA: sensitive column */
	double		values[TAPAS_THREAT_MODEL_MAX_VALUES];	/* AIA: the tm.n_values
														 * candidate codes (two
														 * for shadow modelling) */
} tapas_shadow_params_t;

typedef struct tapas_shadow_eval
{
	tapas_shadow_params_t p;
	const tapas_coded_schema_t *schema; /* borrowed */
	const double *pool;			/* borrowed, n_pool x m */
	size_t		m;
	double	   *target;			/* T x m, the stored targets (T = tm.n_targets) */
	double	   *target_k;		/* T x m, the targets of the current dataset */
	tapas_threat_model_t *tm;
	tapas_setfeat_t *fs;
	size_t		dim;			/* features per dataset */
	double	   *real;			/* (num_training_records + T) x m */
	double	   *syn;			/* num_synthetic_records x m */
	/*
	 * The current synthetic dataset: syn, or real itself when the raw
	 * generator keeps every record (its output is a copy of its input,
	 * which is not made).  Set by tapas_shadow_eval_real (syn) and
	 * tapas_shadow_eval_generate; read it, not syn, after generating.
	 */
	const double *syn_cur;
	size_t	   *scratch;		/* generator scratch */
	double	   *F;				/* n_datasets x dim (target 0's) ... */
	/*
	 * ... or, for the random forest of one target, which sees every value
	 * as a float, the same as floats (half the memory to fill and rank);
	 * row holds a dataset's features before they are stored there.
	 */
	float	   *Ff;
	double	   *row;
	int		   *y;				/* T x n_datasets binary labels, target-major */
	double	   *scores;			/* T x n_test: probability of label 1 */
	/* T > 1 with query features only (else NULL / 0) */
	tapas_setfeat_t **fsq;		/* T - 1: the query items, target t = 1.. */
	size_t		dq;				/* query features per dataset */
	double	   *Fq;				/* (T - 1) x n_datasets x dq */
	double	   *Ft;				/* n_datasets x dim: target t's rows, assembled */
	size_t		n_done;			/* datasets featurised so far */
} tapas_shadow_eval_t;

/*
 * Samples the threat model and prepares the buffers.  pool: n_pool coded
 * records (m = schema->m columns), target: the targets' coded records
 * (p->tm.n_targets of them, 0 meaning 1, none in the pool).  Returns TAPAS_OK (free with tapas_shadow_eval_free),
 * TAPAS_EINVAL with *reason, or TAPAS_ENOMEM.
 */
extern tapas_status tapas_shadow_eval_create(tapas_shadow_eval_t **out,
											 const tapas_coded_schema_t *schema,
											 const double *pool, size_t n_pool,
											 const double *target,
											 const tapas_shadow_params_t *p,
											 const char **reason);

/* Materialises real dataset k (its targets' copies included); returns rows. */
extern const double *tapas_shadow_eval_real(tapas_shadow_eval_t *ev, size_t k,
											size_t *n_rows);

/* Runs the built-in generator on real dataset k into ev->syn_cur. */
extern tapas_status tapas_shadow_eval_generate(tapas_shadow_eval_t *ev, size_t k,
											   size_t *n_syn);

/*
 * Features of the n_syn records in ev->syn_cur as dataset k's (an external
 * generator fills ev->syn after tapas_shadow_eval_real, which points
 * syn_cur there).
 */
extern tapas_status tapas_shadow_eval_featurise(tapas_shadow_eval_t *ev, size_t k,
												size_t n_syn);

/*
 * Trains on the training datasets and scores the test ones (ev->scores),
 * one classifier per target.
 */
extern tapas_status tapas_shadow_eval_fit(tapas_shadow_eval_t *ev,
										  const tapas_progress_t *progress);

/*
 * Everything with a built-in generator: real -> generate -> featurise for
 * every dataset (progress polled per dataset), then fit.
 */
extern tapas_status tapas_shadow_eval_run(tapas_shadow_eval_t *ev,
										  const tapas_progress_t *progress);

extern void tapas_shadow_eval_free(tapas_shadow_eval_t *ev);

#endif							/* TAPAS_SHADOW_EVAL_H */
