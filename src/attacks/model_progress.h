/*-------------------------------------------------------------------------
 *
 * model_progress.h
 *	  Progress over several model fits (the one-vs-rest models of the
 *	  synthetic predictor, synthetic_predictor*.c): the fit of model c of
 *	  `models` polls an inner callback whose fraction f becomes
 *	  (c + f) / models for the caller's, so its NOTICEs rise from 0 to 100%
 *	  once over all the models instead of once per model.  A fraction
 *	  below 0 (no estimate) counts as 0.
 *
 * IDENTIFICATION
 *	  src/attacks/model_progress.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_MODEL_PROGRESS_H
#define TAPAS_MODEL_PROGRESS_H

#include <stddef.h>

#include "util/progress.h"

typedef struct tapas_model_progress
{
	const tapas_progress_t *outer;	/* the caller's (may be NULL) */
	size_t		c;				/* the model being fitted */
	size_t		models;			/* >= 1 */
} tapas_model_progress_t;

/* tapas_progress_t.fn of the inner callback, arg a tapas_model_progress_t */
static inline int
tapas_model_progress_poll(void *arg, double fraction)
{
	const tapas_model_progress_t *mp = (const tapas_model_progress_t *) arg;

	return tapas_progress_poll(mp->outer,
							   ((double) mp->c + (fraction < 0 ? 0 : fraction)) /
							   (double) mp->models);
}

#endif							/* TAPAS_MODEL_PROGRESS_H */
