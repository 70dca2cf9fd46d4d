/*-------------------------------------------------------------------------
 *
 * set_classifier.h
 *	  The classifier half of a feature-based set classifier (TAPAS'
 *	  FeatureBasedSetClassifier): random forest or logistic regression over
 *	  the feature vectors of labelled datasets.
 *
 * random_forest:		random_forest.h (scikit-learn defaults).
 * logistic_regression: L2-regularised logistic regression (logistic.h:
 *						liblinear's L2R_LR objective, cost C, no intercept,
 *						tolerance 1e-4, cancellable within a pass over the rows)
 *						on features standardised with the training means and
 *						standard deviations (constant features get weight
 *						0); scikit-learn's LogisticRegression does not scale,
 *						but count features of size ~n make it ill-conditioned.
 * Labels are binary (0/1); the score is the probability of label 1 and the
 * decision is "1 iff score > 1/2" (scikit-learn's argmax, ties to 0).
 *
 * IDENTIFICATION
 *	  src/attacks/set_classifier.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SET_CLASSIFIER_H
#define TAPAS_SET_CLASSIFIER_H

#include <stddef.h>
#include <stdint.h>

#include "attacks/random_forest.h"
#include "util/progress.h"
#include "util/status.h"

#define TAPAS_CLF_RANDOM_FOREST		0
#define TAPAS_CLF_LOGISTIC			1

/* stopping tolerance of the logistic fit (scikit-learn's default tol) */
#define TAPAS_CLF_LOGISTIC_TOL		1e-4

typedef struct tapas_clf_params
{
	int			type;			/* TAPAS_CLF_* */
	tapas_rf_params_t rf;		/* random forest parameters */
	double		C;				/* logistic: inverse regularisation, > 0 */
	uint64_t	seed;			/* random forest seed */
} tapas_clf_params_t;

typedef struct tapas_clf
{
	int			type;
	size_t		d;
	tapas_rf_t *rf;
	int			only;			/* logistic: the one label of the data, or -1 */
	double	   *w;				/* logistic: d weights of the standardised features */
	double	   *mu;				/* logistic: feature means */
	double	   *inv_sd;			/* logistic: 1/sd, 0 for constant features */
} tapas_clf_t;

/* Defaults: random forest with its defaults, C = 1, seed 0. */
extern void tapas_clf_params_default(tapas_clf_params_t *p);

/*
 * Fits on X (n x d row-major) with labels y in {0, 1}.  Returns TAPAS_OK
 * (free *out with tapas_clf_free), TAPAS_EINVAL, TAPAS_ENOMEM or
 * TAPAS_ECANCELED.
 */
extern tapas_status tapas_clf_fit(tapas_clf_t **out, const double *X, const int *y,
								  size_t n, size_t d, const tapas_clf_params_t *p,
								  const tapas_progress_t *progress);

/*
 * tapas_clf_fit on X as floats, for the random forest only (it sees every
 * value as a float: the same forest as from the doubles); TAPAS_EINVAL
 * for another classifier.
 */
extern tapas_status tapas_clf_fit_float(tapas_clf_t **out, const float *X, const int *y,
										size_t n, size_t d,
										const tapas_clf_params_t *p,
										const tapas_progress_t *progress);

/* Probability of label 1 for x[d]. */
extern double tapas_clf_predict_proba(tapas_clf_t *clf, const double *x);

/* The same for a classifier fitted by tapas_clf_fit_float. */
extern double tapas_clf_predict_proba_float(tapas_clf_t *clf, const float *x);

extern void tapas_clf_free(tapas_clf_t *clf);

#endif							/* TAPAS_SET_CLASSIFIER_H */
