/*-------------------------------------------------------------------------
 *
 * set_classifier.c
 *	  Random forest or logistic regression behind one interface.
 *
 * The logistic fit is attacks/logistic.c (tapas's own Newton-CG: it polls
 * the progress callback every 4,096 rows and returns TAPAS_ECANCELED within
 * one pass over the data; liblinear's train(), used before, could only be
 * stopped after it returned).  It minimises the objective liblinear's
 * L2R_LR minimised here, which had no intercept: set_classifier set
 * prob.bias = 1 but never appended the bias node to the rows (train() does
 * not, its command-line caller does), so the bias weight saw no data and
 * stayed 0.  The features are standardised, so an intercept would only
 * absorb a class imbalance; the balanced threat models train on equal
 * halves.  A model with one class only (all labels equal) predicts that
 * class with probability 1, as liblinear's did.
 *
 * IDENTIFICATION
 *	  src/attacks/set_classifier.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/logistic.h"
#include "attacks/set_classifier.h"
#include "util/memory.h"
#include "util/rng.h"

void
tapas_clf_params_default(tapas_clf_params_t *p)
{
	memset(p, 0, sizeof(*p));
	p->type = TAPAS_CLF_RANDOM_FOREST;
	tapas_rf_params_default(&p->rf);
	p->C = 1.0;
}

/*
 * Means and 1/sd of the columns of X; a column constant to rounding gets
 * 1/sd = 0, so its weight is 0 (its feature is 0 in every row).
 */
static void
standardise(tapas_clf_t *clf, const double *X, size_t n, size_t d)
{
	size_t		i,
				j;

	for (j = 0; j < d; j++)
	{
		double		s = 0,
					ss = 0;

		for (i = 0; i < n; i++)
			s += X[i * d + j];
		clf->mu[j] = s / (double) n;
		for (i = 0; i < n; i++)
			ss += (X[i * d + j] - clf->mu[j]) * (X[i * d + j] - clf->mu[j]);
		ss = sqrt(ss / (double) n);
		clf->inv_sd[j] = ss > 1e-12 * (1.0 + fabs(clf->mu[j])) ? 1.0 / ss : 0.0;
	}
}

static tapas_status
fit_logistic(tapas_clf_t *clf, const double *X, const int *y, size_t n,
			 size_t d, double C, const tapas_progress_t *progress)
{
	tapas_logit_data_t data;
	size_t		i;

	clf->only = y[0];
	for (i = 1; i < n; i++)
		if (y[i] != y[0])
			clf->only = -1;
	clf->mu = tapas_calloc(d, sizeof(double));
	clf->inv_sd = tapas_calloc(d, sizeof(double));
	clf->w = tapas_calloc(d, sizeof(double));
	if (!clf->mu || !clf->inv_sd || !clf->w)
		return TAPAS_ENOMEM;
	if (clf->only >= 0)
		return TAPAS_OK;		/* one class: predicted with probability 1 */
	standardise(clf, X, n, d);
	/* no bias feature: see the file header */
	memset(&data, 0, sizeof(data));
	data.n = n;
	data.d = d;
	data.X = X;
	data.shift = clf->mu;
	data.scale = clf->inv_sd;
	data.y = y;
	return tapas_logit_fit(clf->w, &data, C, TAPAS_CLF_LOGISTIC_TOL, NULL, progress);
}

tapas_status
tapas_clf_fit(tapas_clf_t **out, const double *X, const int *y, size_t n,
			  size_t d, const tapas_clf_params_t *p,
			  const tapas_progress_t *progress)
{
	tapas_clf_t *clf;
	tapas_status st;
	tapas_rng_t rng;
	size_t		i;

	*out = NULL;
	if (n < 1 || d < 1 || d > INT32_MAX - 2)
		return TAPAS_EINVAL;
	for (i = 0; i < n; i++)
		if (y[i] != 0 && y[i] != 1)
			return TAPAS_EINVAL;
	clf = tapas_calloc(1, sizeof(*clf));
	if (clf == NULL)
		return TAPAS_ENOMEM;
	clf->type = p->type;
	clf->d = d;
	if (p->type == TAPAS_CLF_RANDOM_FOREST)
	{
		tapas_rng_seed(&rng, p->seed);
		st = tapas_rf_fit(&clf->rf, X, y, n, d, &p->rf, &rng, progress);
	}
	else if (p->type == TAPAS_CLF_LOGISTIC && p->C > 0)
		st = fit_logistic(clf, X, y, n, d, p->C, progress);
	else
		st = TAPAS_EINVAL;
	if (st != TAPAS_OK)
	{
		tapas_clf_free(clf);
		return st;
	}
	*out = clf;
	return TAPAS_OK;
}

tapas_status
tapas_clf_fit_float(tapas_clf_t **out, const float *X, const int *y, size_t n,
					size_t d, const tapas_clf_params_t *p,
					const tapas_progress_t *progress)
{
	tapas_clf_t *clf;
	tapas_status st;
	tapas_rng_t rng;
	size_t		i;

	*out = NULL;
	if (n < 1 || d < 1 || d > INT32_MAX - 2 || p->type != TAPAS_CLF_RANDOM_FOREST)
		return TAPAS_EINVAL;
	for (i = 0; i < n; i++)
		if (y[i] != 0 && y[i] != 1)
			return TAPAS_EINVAL;
	clf = tapas_calloc(1, sizeof(*clf));
	if (clf == NULL)
		return TAPAS_ENOMEM;
	clf->type = p->type;
	clf->d = d;
	tapas_rng_seed(&rng, p->seed);
	st = tapas_rf_fit_float(&clf->rf, X, y, n, d, &p->rf, &rng, progress);
	if (st != TAPAS_OK)
	{
		tapas_clf_free(clf);
		return st;
	}
	*out = clf;
	return TAPAS_OK;
}

double
tapas_clf_predict_proba_float(tapas_clf_t *clf, const float *x)
{
	return tapas_rf_predict_proba_float(clf->rf, x);
}

double
tapas_clf_predict_proba(tapas_clf_t *clf, const double *x)
{
	double		z = 0;
	size_t		j;

	if (clf->type == TAPAS_CLF_RANDOM_FOREST)
		return tapas_rf_predict_proba(clf->rf, x);
	if (clf->only >= 0)
		return clf->only == 1 ? 1.0 : 0.0;
	for (j = 0; j < clf->d; j++)
		z += (x[j] - clf->mu[j]) * clf->inv_sd[j] * clf->w[j];
	return tapas_logit_sigmoid(z);
}

void
tapas_clf_free(tapas_clf_t *clf)
{
	if (clf == NULL)
		return;
	tapas_rf_free(clf->rf);
	tapas_free(clf->mu);
	tapas_free(clf->inv_sd);
	tapas_free(clf->w);
	tapas_free(clf);
}
