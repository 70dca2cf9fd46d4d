/*-------------------------------------------------------------------------
 *
 * closest_distance.c
 *	  ClosestDistanceMIA and ClosestDistanceAIA scores.
 *
 * MIA: s(D, x) = -min_{y in D} d(x, y) (Houssiau et al. 2022, "Closest-
 * distance attacks"); with the fixed threshold 0 this is the direct lookup
 * "is x itself in the synthetic data".
 *
 * AIA: for each value v of the categorical sensitive column s, the target
 * x|v (x with column s set to v) gets d_v = min_y d(x|v, y); the scores are
 * normalised as in the seed, score_v = -d_v / sum_u d_u, with the uniform
 * -1/k when every d_u is (numerically) 0.  Larger is more likely; for two
 * values, tau = -0.5 picks the value with the smaller distance.
 *
 * IDENTIFICATION
 *	  src/attacks/closest_distance.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/score_attacks.h"
#include "util/memory.h"

tapas_status
tapas_closest_distance_mia(const tapas_distance_t *d,
						   const tapas_dataset_t *syn, const double *xraw,
						   const double *xenc, double *score)
{
	tapas_status st = tapas_distance_check(d, syn);

	if (st != TAPAS_OK)
		return st;
	if (syn->n == 0)
		return TAPAS_EINVAL;
	/* + 0.0 turns -0 into 0 */
	*score = -tapas_distance_min(d, syn, xraw, xenc) + 0.0;
	return TAPAS_OK;
}

tapas_status
tapas_closest_distance_aia(const tapas_distance_t *d,
						   const tapas_dataset_t *syn, const double *xraw,
						   size_t s, double *scores)
{
	tapas_status st = tapas_distance_check(d, syn);
	double	   *xv,
			   *enc;
	double		total = 0;
	size_t		k,
				v;

	if (st != TAPAS_OK)
		return st;
	if (syn->n == 0 || s >= syn->c ||
		syn->cols[s].kind != TAPAS_COLUMN_CATEGORICAL)
		return TAPAS_EINVAL;
	k = syn->cols[s].cardinality;
	xv = tapas_malloc(syn->c * sizeof(double));
	enc = tapas_malloc((syn->encoded_dim + 1) * sizeof(double));
	if (xv == NULL || enc == NULL)
	{
		tapas_free(xv);
		tapas_free(enc);
		return TAPAS_ENOMEM;
	}
	memcpy(xv, xraw, syn->c * sizeof(double));
	for (v = 0; v < k; v++)
	{
		/* d_v = min_y d(x|v, y) */
		xv[s] = (double) v;
		if (tapas_distance_needs_encoding(d))
			tapas_dataset_encode_record(syn, xv, enc);
		scores[v] = tapas_distance_min(d, syn, xv, enc);
		total += scores[v];
	}
	for (v = 0; v < k; v++)
		scores[v] = total <= 1e-16 ? -1.0 / (double) k : -scores[v] / total + 0.0;
	tapas_free(xv);
	tapas_free(enc);
	return TAPAS_OK;
}
