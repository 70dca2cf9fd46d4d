/*-------------------------------------------------------------------------
 *
 * maskspan.c
 *	  Real spans of 0/1 region sets (see maskspan.h).
 *
 * IDENTIFICATION
 *	  src/recon/maskspan.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "recon/maskspan.h"

#define MASKSPAN_EPS	1e-9

/*
 * Whether T lies in the span of masks[0..k-1] (0/1 vectors over npat
 * patterns), with the coefficients in lambda.  Each pattern p is the
 * equation sum_c [p in mask c] lambda_c = [p in T]; it is reduced by the
 * pivot equations so far (each zero in the earlier pivots' columns), and
 * becomes a pivot when something is left in the masks' columns; when only
 * its right-hand side is left, T is not in the span.  The pivots are then
 * triangular: back substitution, free coefficients 0.  Then an exact check
 * of the combination (the masks are 0/1, the coefficients small
 * rationals).
 */
bool
tapas_mask_span(const tapas_regset_t *const *masks, int k, const tapas_regset_t *T, int npat,
				double *lambda)
{
	double		a[TAPAS_MASKSPAN_MAX][TAPAS_MASKSPAN_MAX + 1];
	int			pivcol[TAPAS_MASKSPAN_MAX];
	int			rank = 0;
	tapas_regset_t any = *T;

	if (k < 0 || k > TAPAS_MASKSPAN_MAX || npat < 0 || npat > TAPAS_REGSET_MAX)
		return false;
	for (int i = 0; i < k; i++)
		if (tapas_regset_equal(masks[i], T))
		{
			memset(lambda, 0, sizeof(double) * k);
			lambda[i] = 1.0;
			return true;
		}
	for (int i = 0; i < k; i++)
		tapas_regset_or(&any, masks[i]);
	TAPAS_REGSET_FOREACH(p, &any)
	{
		double	   *row;
		int			best = -1;

		if (p >= npat)
			break;
		/* the equation of p in the next free row */
		row = a[rank < TAPAS_MASKSPAN_MAX ? rank : TAPAS_MASKSPAN_MAX - 1];
		{
			double		tmp[TAPAS_MASKSPAN_MAX + 1];

			for (int c = 0; c < k; c++)
				tmp[c] = tapas_regset_has(masks[c], p) ? 1.0 : 0.0;
			tmp[k] = tapas_regset_has(T, p) ? 1.0 : 0.0;
			for (int i = 0; i < rank; i++)
			{
				double		f = tmp[pivcol[i]];

				if (fabs(f) <= MASKSPAN_EPS)
					continue;
				f /= a[i][pivcol[i]];
				for (int x = 0; x <= k; x++)
					tmp[x] -= f * a[i][x];
				tmp[pivcol[i]] = 0;
			}
			for (int c = 0; c < k; c++)
				if (fabs(tmp[c]) > MASKSPAN_EPS && (best < 0 || fabs(tmp[c]) > fabs(tmp[best])))
					best = c;
			if (best < 0)
			{
				if (fabs(tmp[k]) > MASKSPAN_EPS)
					return false;	/* inconsistent: T is not in the span */
				continue;
			}
			/* rank < k <= TAPAS_MASKSPAN_MAX here: a new pivot column */
			memcpy(row, tmp, sizeof(double) * (k + 1));
		}
		pivcol[rank++] = best;
	}
	memset(lambda, 0, sizeof(double) * k);
	for (int i = rank - 1; i >= 0; i--)
	{
		double		v = a[i][k];

		for (int j = i + 1; j < rank; j++)
			v -= a[i][pivcol[j]] * lambda[pivcol[j]];
		lambda[pivcol[i]] = v / a[i][pivcol[i]];
	}
	/* exact check, on every coordinate of a mask or of T */
	TAPAS_REGSET_FOREACH(p, &any)
	{
		double		v = 0;

		if (p >= npat)
			break;
		for (int c = 0; c < k; c++)
			if (tapas_regset_has(masks[c], p))
				v += lambda[c];
		if (fabs(v - (tapas_regset_has(T, p) ? 1.0 : 0.0)) > 1e-6)
			return false;
	}
	return true;
}
