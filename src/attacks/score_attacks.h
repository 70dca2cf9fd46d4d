/*-------------------------------------------------------------------------
 *
 * score_attacks.h
 *	  No-box score functions of the trainable-threshold attacks of TAPAS
 *	  (Houssiau et al. 2022, "Library of Attacks").
 *
 * Each function scores one target record against one synthetic dataset
 * syn; a larger score means "more likely a member" (MIA) or "more likely
 * this sensitive value" (AIA).  Targets are given raw (c values of syn's
 * schema) and, where an encoding is needed, encoded (encoded_dim values;
 * tapas_dataset_encode_record).  AIA functions take the index s of a
 * categorical sensitive column and fill scores[v] for every code v in
 * 0 .. card(s)-1; they never read the target's own value of column s.
 *
 *	closest_distance_mia	 -min_y d(x, y)
 *	closest_distance_aia	 d_v = min_y d(x|v, y); score_v = -d_v / sum_u d_u
 *							 (-1/k when all d_u are 0); binary: tau = -0.5
 *							 means "the value with the smaller distance"
 *	local_neighbourhood_mia  |B(x, r)| / n, B = rows within distance r
 *	local_neighbourhood_aia  fraction of B(x_{-s}, r) with value v (1/k if
 *							 B is empty); the ball ignores column s (the
 *							 reference measures it from the full target,
 *							 i.e. from the value under attack)
 *	probability_estimation	 log p(x) under a density fit on syn (density.h)
 *	synthetic_predictor		 P(v | x_{-s}) from a classifier fit on syn
 *
 * All return TAPAS_OK, TAPAS_EINVAL (bad distance, radius < 0, s not
 * categorical) or TAPAS_ENOMEM; syn must be encoded for L_p distances.
 *
 * IDENTIFICATION
 *	  src/attacks/score_attacks.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SCORE_ATTACKS_H
#define TAPAS_SCORE_ATTACKS_H

#include <stddef.h>
#include <stdint.h>

#include "attacks/dataset.h"
#include "attacks/distance.h"
#include "util/progress.h"
#include "util/status.h"

/* closest_distance.c */
extern tapas_status tapas_closest_distance_mia(const tapas_distance_t *d,
											   const tapas_dataset_t *syn,
											   const double *xraw,
											   const double *xenc,
											   double *score);
extern tapas_status tapas_closest_distance_aia(const tapas_distance_t *d,
											   const tapas_dataset_t *syn,
											   const double *xraw, size_t s,
											   double *scores);

/* local_neighbourhood.c */
extern tapas_status tapas_local_neighbourhood_mia(const tapas_distance_t *d,
												  const tapas_dataset_t *syn,
												  const double *xraw,
												  const double *xenc,
												  double radius,
												  double *score);
extern tapas_status tapas_local_neighbourhood_aia(const tapas_distance_t *d,
												  const tapas_dataset_t *syn,
												  const double *xraw,
												  const double *xenc,
												  size_t s, double radius,
												  double *scores);

/* synthetic_predictor.c */

/*
 * L2-regularised logistic regression (logistic.h: liblinear's L2R_LR
 * objective, tolerance 1e-4; one-vs-rest for more than two classes, cost
 * C > 0, with a bias feature) fit on syn's
 * encoded rows without column s, predicting the code of s; then
 * scores[a * card + v] = P(v | target a) for the m encoded targets xenc
 * (m * encoded_dim, their s cells are ignored).  Codes absent from syn get
 * probability 0; if syn has one code only, it gets 1.  progress (may be
 * NULL) is polled by each model's fit (logistic.h: between its Newton
 * iterations and every TAPAS_LOGIT_POLL_ROWS rows of a pass), with the
 * fraction of the models done.  TAPAS_EINVAL, TAPAS_ENOMEM,
 * TAPAS_ECANCELED.
 */
extern tapas_status tapas_synthetic_predictor_aia(const tapas_dataset_t *syn,
												  size_t s, double C,
												  const double *xenc,
												  size_t m, double *scores,
												  const tapas_progress_t *progress);

/* synthetic_predictor_rf.c */

/*
 * The same attack with a random forest (random_forest.h, parameters rp,
 * seeded by seed) on the dense encoded cells of every column but s: with
 * two codes present in syn one forest predicts the larger (as scikit-
 * learn's RandomForestClassifier.predict_proba does for two classes); with
 * more, one forest per present code v predicts "v or not" and the k
 * probabilities are normalised to sum 1 (one-vs-rest; scikit-learn grows
 * multi-class trees instead).  Codes absent from syn get 0; one code only
 * gets 1.  progress (may be NULL) is polled once per tree, with the
 * fraction of the trees of all the forests done.  TAPAS_EINVAL,
 * TAPAS_ENOMEM, TAPAS_ECANCELED.
 */
struct tapas_rf_params;
extern tapas_status tapas_synthetic_predictor_rf_aia(const tapas_dataset_t *syn,
													 size_t s,
													 const struct tapas_rf_params *rp,
													 uint64_t seed,
													 const double *xenc,
													 size_t m, double *scores,
													 const tapas_progress_t *progress);

#endif							/* TAPAS_SCORE_ATTACKS_H */
