/*-------------------------------------------------------------------------
 *
 * release_inference.c
 *	  Attribute inference in the release audit: the synthetic rows nearest
 *	  to the target on every column but the sensitive one vote
 *	  (tapas_rr_vote, during the scans of release_scan.c); the guess is the
 *	  most voted code, ties at random; the baseline guesses the synthetic
 *	  mode of the sensitive column.
 *
 * IDENTIFICATION
 *	  src/attacks/release_inference.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/release_risk.h"
#include "attacks/release_risk_int.h"
#include "util/rng.h"

/* the most voted sensitive code of cx->votes, ties at random */
double
tapas_rr_vote_guess(scan_ctx *cx, tapas_rng_t *rng)
{
	size_t		j,
				ties_v = 0;
	double		top = -1,
				guess = 0;

	for (j = 0; j < cx->card; j++)
	{
		if (cx->votes[j] == 0)
			continue;
		if ((double) cx->votes[j] > top)
		{
			top = (double) cx->votes[j];
			guess = (double) j;
			ties_v = 1;
		}
		else if ((double) cx->votes[j] == top && keep_tie(rng, &ties_v))
			guess = (double) j;
	}
	return guess;
}

/*
 * The synthetic mode of the sensitive column (the smallest code among
 * ties); leaves the column's counts in cx->votes.
 */
size_t
tapas_rr_synthetic_mode(scan_ctx *cx)
{
	const tapas_dataset_t *syn = cx->syn;
	size_t		t,
				mode = 0;

	memset(cx->votes, 0, sizeof(size_t) * cx->card);
	for (t = 0; t < syn->n; t++)
		cx->votes[(size_t) syn->values[t * syn->c + cx->sens]]++;
	for (t = 1; t < cx->card; t++)
		if (cx->votes[t] > cx->votes[mode])
			mode = t;
	return mode;
}
