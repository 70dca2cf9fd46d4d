/*-------------------------------------------------------------------------
 *
 * score_eval.c
 *	  One score-based attack on one synthetic dataset (see score_eval.h).
 *
 * The synthetic rows are copied into a tapas_dataset_t (encoded when the
 * attack reads encodings: L_p distances, KDE, the synthetic predictor),
 * scored, and freed; nothing survives the call.
 *
 * IDENTIFICATION
 *	  src/attacks/score_eval.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "attacks/score_attacks.h"
#include "attacks/score_eval.h"
#include "util/memory.h"

int
tapas_score_attack_is_aia(tapas_score_attack_kind kind)
{
	return kind == TAPAS_SCORE_CLOSEST_DISTANCE_AIA ||
		kind == TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_AIA ||
		kind == TAPAS_SCORE_SYNTHETIC_PREDICTOR;
}

static int
needs_encoding(const tapas_score_attack_t *a)
{
	switch (a->kind)
	{
		case TAPAS_SCORE_PROBABILITY_ESTIMATION:
			return a->estimator == TAPAS_DENSITY_KDE;
		case TAPAS_SCORE_SYNTHETIC_PREDICTOR:
			return 1;
		default:
			return tapas_distance_needs_encoding(&a->distance);
	}
}

/* MIA score of the target */
static tapas_status
score_mia(const tapas_score_attack_t *a, const tapas_dataset_t *ds,
		  const double *x, const double *xenc, double *score)
{
	tapas_density_t *model;

	switch (a->kind)
	{
		case TAPAS_SCORE_CLOSEST_DISTANCE_MIA:
			return tapas_closest_distance_mia(&a->distance, ds, x, xenc, score);
		case TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_MIA:
			return tapas_local_neighbourhood_mia(&a->distance, ds, x, xenc,
												 a->radius, score);
		case TAPAS_SCORE_PROBABILITY_ESTIMATION:
			model = a->estimator == TAPAS_DENSITY_KDE ?
				tapas_density_fit_kde(ds, a->bw_rule, a->bandwidth) :
				a->estimator == TAPAS_DENSITY_HISTOGRAM ?
				tapas_density_fit_histogram(ds, a->bins, a->alpha) :
				tapas_density_fit_independent(ds, a->bins, a->alpha);
			if (model == NULL)
				return TAPAS_EINVAL;
			*score = tapas_density_log(model, x, xenc);
			tapas_density_free(model);
			return TAPAS_OK;
		default:
			return TAPAS_EINVAL;
	}
}

/* AIA score: per-value scores, then s[v1] - s[v0] */
static tapas_status
score_aia(const tapas_score_attack_t *a, const tapas_dataset_t *ds,
		  const double *x, const double *xenc, double *score)
{
	size_t		card = ds->cols[a->sensitive].cardinality;
	double	   *s = tapas_malloc(card * sizeof(double));
	tapas_status st;

	if (s == NULL)
		return TAPAS_ENOMEM;
	switch (a->kind)
	{
		case TAPAS_SCORE_CLOSEST_DISTANCE_AIA:
			st = tapas_closest_distance_aia(&a->distance, ds, x, a->sensitive, s);
			break;
		case TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_AIA:
			st = tapas_local_neighbourhood_aia(&a->distance, ds, x, xenc,
											   a->sensitive, a->radius, s);
			break;
		case TAPAS_SCORE_SYNTHETIC_PREDICTOR:
			st = tapas_synthetic_predictor_aia(ds, a->sensitive, a->C, xenc, 1, s);
			break;
		default:
			st = TAPAS_EINVAL;
	}
	if (st == TAPAS_OK)
		*score = s[a->v1] - s[a->v0];
	tapas_free(s);
	return st;
}

tapas_status
tapas_score_attack_run(const tapas_score_attack_t *a,
					   const tapas_column_spec_t *cols, size_t c,
					   const double *syn, size_t n, const double *target,
					   double *score)
{
	tapas_dataset_t *ds;
	double	   *xenc = NULL;
	tapas_status st = TAPAS_ENOMEM;
	int			aia = tapas_score_attack_is_aia(a->kind);

	if (n == 0 || (aia && (a->sensitive >= c ||
						   cols[a->sensitive].kind == TAPAS_COLUMN_CONTINUOUS ||
						   a->v0 >= cols[a->sensitive].cardinality ||
						   a->v1 >= cols[a->sensitive].cardinality)))
		return TAPAS_EINVAL;
	ds = tapas_dataset_from_values(n, c, cols, syn);
	if (ds == NULL)
		return TAPAS_ENOMEM;
	xenc = tapas_malloc(ds->encoded_dim * sizeof(double));
	if (xenc == NULL)
		goto done;
	tapas_dataset_encode_record(ds, target, xenc);
	if (needs_encoding(a) && tapas_dataset_encode(ds) != TAPAS_OK)
		goto done;
	if (!aia && tapas_distance_needs_encoding(&a->distance) && ds->encoded == NULL)
		goto done;
	if (a->kind != TAPAS_SCORE_PROBABILITY_ESTIMATION &&
		a->kind != TAPAS_SCORE_SYNTHETIC_PREDICTOR &&
		tapas_distance_check(&a->distance, ds) != TAPAS_OK)
	{
		st = TAPAS_EINVAL;
		goto done;
	}
	st = aia ? score_aia(a, ds, target, xenc, score) :
		score_mia(a, ds, target, xenc, score);
done:
	tapas_free(xenc);
	tapas_dataset_free(ds);
	return st;
}
