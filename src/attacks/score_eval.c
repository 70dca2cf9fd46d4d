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

/* AIA: the per-value scores s[0..card-1] of every code of the sensitive column */
static tapas_status
score_aia_values(const tapas_score_attack_t *a, const tapas_dataset_t *ds,
				 const double *x, const double *xenc, double *s)
{
	switch (a->kind)
	{
		case TAPAS_SCORE_CLOSEST_DISTANCE_AIA:
			return tapas_closest_distance_aia(&a->distance, ds, x, a->sensitive, s);
		case TAPAS_SCORE_LOCAL_NEIGHBOURHOOD_AIA:
			return tapas_local_neighbourhood_aia(&a->distance, ds, x, xenc,
												 a->sensitive, a->radius, s);
		case TAPAS_SCORE_SYNTHETIC_PREDICTOR:
			return tapas_synthetic_predictor_aia(ds, a->sensitive, a->C, xenc, 1, s,
												 a->progress);
		default:
			return TAPAS_EINVAL;
	}
}

/*
 * The attack on one synthetic dataset: MIA into *score; AIA into
 * card_scores (card of the sensitive column entries).
 */
static tapas_status
score_dataset(const tapas_score_attack_t *a, const tapas_column_spec_t *cols,
			  size_t c, const double *syn, size_t n, const double *target,
			  double *score, double *card_scores)
{
	tapas_dataset_t *ds;
	double	   *xenc = NULL;
	tapas_status st = TAPAS_ENOMEM;
	int			aia = tapas_score_attack_is_aia(a->kind);

	if (n == 0 || (aia && (a->sensitive >= c ||
						   cols[a->sensitive].kind == TAPAS_COLUMN_CONTINUOUS)))
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
	st = aia ? score_aia_values(a, ds, target, xenc, card_scores) :
		score_mia(a, ds, target, xenc, score);
done:
	tapas_free(xenc);
	tapas_dataset_free(ds);
	return st;
}

tapas_status
tapas_score_attack_run(const tapas_score_attack_t *a,
					   const tapas_column_spec_t *cols, size_t c,
					   const double *syn, size_t n, const double *target,
					   double *score)
{
	size_t		codes[2] = {a->v0, a->v1};
	double		s[2];
	tapas_status st;

	if (!tapas_score_attack_is_aia(a->kind))
		return score_dataset(a, cols, c, syn, n, target, score, NULL);
	st = tapas_score_attack_run_values(a, cols, c, syn, n, target, codes, 2, s);
	if (st == TAPAS_OK)
		*score = s[1] - s[0];
	return st;
}

tapas_status
tapas_score_attack_run_values(const tapas_score_attack_t *a,
							  const tapas_column_spec_t *cols, size_t c,
							  const double *syn, size_t n, const double *target,
							  const size_t *codes, size_t k, double *scores)
{
	size_t		card,
				i;
	double	   *s;
	tapas_status st;

	if (!tapas_score_attack_is_aia(a->kind) || a->sensitive >= c ||
		cols[a->sensitive].kind == TAPAS_COLUMN_CONTINUOUS)
		return TAPAS_EINVAL;
	card = cols[a->sensitive].cardinality;
	for (i = 0; i < k; i++)
		if (codes[i] >= card)
			return TAPAS_EINVAL;
	s = tapas_malloc(card * sizeof(double));
	if (s == NULL)
		return TAPAS_ENOMEM;
	st = score_dataset(a, cols, c, syn, n, target, NULL, s);
	if (st == TAPAS_OK)
		for (i = 0; i < k; i++)
			scores[i] = s[codes[i]];
	tapas_free(s);
	return st;
}
