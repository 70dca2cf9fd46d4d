/*-------------------------------------------------------------------------
 *
 * release_linkability.c
 *	  Linkability in the release audit: the attacker holds the A-half and
 *	  the B-half of the targets as two unlinked lists; the synthetic row
 *	  nearest to a target's A-half proposes a B-half, and the target is
 *	  linked to the list's B-half nearest to it.  The scan that finds the
 *	  synthetic row is in release_scan.c; the linking step is here.
 *
 * IDENTIFICATION
 *	  src/attacks/release_linkability.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "attacks/release_risk.h"
#include "attacks/release_risk_int.h"
#include "util/rng.h"

/*
 * The distance sum between x and y over the columns outside the A-half;
 * stops once it exceeds bound (the result is then only known to be larger).
 */
static double
sum_b(const scan_ctx *cx, const double *x, const double *xe, const double *y,
	  const double *ye, double bound)
{
	double		s = 0;
	size_t		j;

	for (j = 0; j < cx->syn->c && s <= bound; j++)
		if (!cx->in_a[j])
			s += contrib(cx, j, x, xe, y, ye);
	return s;
}

/*
 * The linking step: the target list ds[rows[0..m-1]] whose B-half is
 * nearest to synthetic row s (ties at random); returns the list position.
 */
size_t
tapas_rr_link_to(scan_ctx *cx, const tapas_dataset_t *ds, const size_t *rows, size_t m,
		size_t s, tapas_rng_t *rng)
{
	const tapas_dataset_t *syn = cx->syn;
	const double *y = syn->values + s * syn->c,
			   *ye = syn->encoded ? syn->encoded + s * syn->encoded_dim : NULL;
	double		best = INFINITY;
	size_t		k,
				pick = 0,
				ties = 0;

	for (k = 0; k < m; k++)
	{
		const double *x = ds->values + rows[k] * ds->c,
				   *xe = ds->encoded ? ds->encoded + rows[k] * ds->encoded_dim : NULL;
		double		d = sum_b(cx, x, xe, y, ye, best);

		if (d < best)
		{
			best = d;
			pick = k;
			ties = 1;
		}
		else if (d == best && keep_tie(rng, &ties))
			pick = k;
	}
	return pick;
}
