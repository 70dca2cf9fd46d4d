/*-------------------------------------------------------------------------
 *
 * maskspan.c
 *	  Real spans of 0/1 bit masks (see maskspan.h).
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
 * Whether T lies in the span of masks[0..k-1] (0/1 vectors over npat <=
 * 64 patterns), with the coefficients in lambda: Gaussian elimination
 * with partial pivoting on the npat x k system, then an exact check of
 * the combination (the masks are 0/1, the coefficients small rationals).
 */
bool
tapas_mask_span(const uint64_t *masks, int k, uint64_t T, int npat, double *lambda)
{
	double		a[64][TAPAS_MASKSPAN_MAX + 1];
	int			pivcol[64];
	int			rank = 0;

	for (int i = 0; i < k; i++)
		if (masks[i] == T)
		{
			memset(lambda, 0, sizeof(double) * k);
			lambda[i] = 1.0;
			return true;
		}
	for (int r = 0; r < npat; r++)
	{
		for (int c = 0; c < k; c++)
			a[r][c] = (masks[c] >> r) & 1 ? 1.0 : 0.0;
		a[r][k] = (T >> r) & 1 ? 1.0 : 0.0;
	}
	for (int c = 0; c < k && rank < npat; c++)
	{
		int			best = -1;

		for (int r = rank; r < npat; r++)
			if (fabs(a[r][c]) > MASKSPAN_EPS && (best < 0 || fabs(a[r][c]) > fabs(a[best][c])))
				best = r;
		if (best < 0)
			continue;
		for (int x = 0; x <= k; x++)
		{
			double		t = a[rank][x];

			a[rank][x] = a[best][x];
			a[best][x] = t;
		}
		for (int r = 0; r < npat; r++)
		{
			double		f;

			if (r == rank || fabs(a[r][c]) <= MASKSPAN_EPS)
				continue;
			f = a[r][c] / a[rank][c];
			for (int x = c; x <= k; x++)
				a[r][x] -= f * a[rank][x];
		}
		pivcol[rank++] = c;
	}
	for (int r = rank; r < npat; r++)
		if (fabs(a[r][k]) > MASKSPAN_EPS)
			return false;		/* inconsistent: T is not in the span */
	memset(lambda, 0, sizeof(double) * k);
	for (int r = 0; r < rank; r++)
		lambda[pivcol[r]] = a[r][k] / a[r][pivcol[r]];
	/* exact check */
	for (int p = 0; p < npat; p++)
	{
		double		v = 0;

		for (int c = 0; c < k; c++)
			if ((masks[c] >> p) & 1)
				v += lambda[c];
		if (fabs(v - (((T >> p) & 1) ? 1.0 : 0.0)) > 1e-6)
			return false;
	}
	return true;
}

