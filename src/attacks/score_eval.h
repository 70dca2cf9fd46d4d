/*-------------------------------------------------------------------------
 *
 * score_eval.h
 *	  The score-based attacks of score_attacks.h / density.h applied to one
 *	  synthetic dataset of a threat-model evaluation.
 *
 * tapas.evaluate runs these on the same generated datasets as the shadow
 * attacks: the score of every training dataset trains the threshold
 * (metrics.h criteria), the test scores give the metrics.  A score here is
 * one number per dataset, larger meaning "positive":
 *	MIA attacks:  the attack's score of the target (score_attacks.h).
 *	AIA attacks:  score[v1] - score[v0] for the two candidate values, so
 *				  0 separates "v1 scores higher" from "v0 scores higher";
 *				  with more candidates, one score per candidate
 *				  (tapas_score_attack_run_values) and the guess is the
 *				  largest.
 *
 * IDENTIFICATION
 *	  src/attacks/score_eval.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SCORE_EVAL_H
#define TAPAS_SCORE_EVAL_H

#include <stddef.h>

#include "attacks/dataset.h"
#include "attacks/density.h"
#include "attacks/distance.h"
#include "util/progress.h"
#include "util/status.h"

typedef enum tapas_score_attack_kind
{
	TAPAS_SCORE_CLOSEST_DISTANCE_MIA,
	TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_MIA,
	TAPAS_SCORE_PROBABILITY_ESTIMATION,
	TAPAS_SCORE_CLOSEST_DISTANCE_AIA,
	TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_AIA,
	TAPAS_SCORE_SYNTHETIC_PREDICTOR
} tapas_score_attack_kind;

typedef struct tapas_score_attack
{
	tapas_score_attack_kind kind;
	tapas_distance_t distance;	/* closest distance, local neighbourhood */
	double		radius;			/* local neighbourhood, >= 0 */
	tapas_density_kind estimator;	/* probability estimation */
	tapas_bandwidth_rule bw_rule;	/* KDE */
	double		bandwidth;		/* KDE with a fixed rule */
	size_t		bins;			/* independent model, histogram */
	double		alpha;			/* their smoothing */
	double		C;				/* synthetic predictor */
	const tapas_progress_t *progress;	/* polled by the synthetic
										 * predictor's fit (may be NULL) */
	size_t		sensitive;		/* AIA column (categorical or ordinal) */
	size_t		v0,
				v1;				/* AIA candidate codes */
} tapas_score_attack_t;

/* Nonzero for the AIA kinds. */
extern int	tapas_score_attack_is_aia(tapas_score_attack_kind kind);

/*
 * Score of the target (raw, c values) against the synthetic dataset syn
 * (n x c raw values of schema cols, n >= 1).  Returns TAPAS_OK,
 * TAPAS_EINVAL (bad parameters for this schema), TAPAS_ENOMEM, or
 * TAPAS_ECANCELED (a->progress stopped the synthetic predictor's fit).
 */
extern tapas_status tapas_score_attack_run(const tapas_score_attack_t *a,
										   const tapas_column_spec_t *cols,
										   size_t c, const double *syn,
										   size_t n, const double *target,
										   double *score);

/*
 * AIA over any number of candidates: scores[i] = the attack's score of
 * the sensitive code codes[i] (i < k; codes within the column's
 * cardinality), larger meaning "more likely this value"; the guess is the
 * candidate with the largest score.  a->v0 and a->v1 are not read.
 * TAPAS_EINVAL for an MIA attack or a bad code, TAPAS_ENOMEM,
 * TAPAS_ECANCELED.
 */
extern tapas_status tapas_score_attack_run_values(const tapas_score_attack_t *a,
												  const tapas_column_spec_t *cols,
												  size_t c, const double *syn,
												  size_t n, const double *target,
												  const size_t *codes, size_t k,
												  double *scores);

#endif							/* TAPAS_SCORE_EVAL_H */
