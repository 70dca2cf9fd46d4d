/*-------------------------------------------------------------------------
 *
 * local_neighbourhood.c
 *	  LocalNeighbourhoodAttack scores (membership and attribute inference).
 *
 * The ball B[x, r] = {y in D : d(x, y) <= r} around the target
 * (Houssiau et al. 2022, "LocalNeighbourhoodAttack").
 *
 * MIA: the score is |B[x, r]| / |D|.
 *
 * AIA: the score of value v is the fraction of the rows of B that have
 * value v in the sensitive column s, or 1/k when B is empty.  The ball is
 * measured on the other columns only (the subset of the distance minus s):
 * the reference measures it from the full stored target, i.e. it reads the
 * very value the attack is meant to infer.
 *
 * IDENTIFICATION
 *	  src/attacks/local_neighbourhood.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "attacks/score_attacks.h"
#include "util/memory.h"

tapas_status
tapas_local_neighbourhood_mia(const tapas_distance_t *d,
							  const tapas_dataset_t *syn, const double *xraw,
							  const double *xenc, double radius,
							  double *score)
{
	tapas_status st = tapas_distance_check(d, syn);

	if (st != TAPAS_OK)
		return st;
	if (syn->n == 0 || !(radius >= 0))
		return TAPAS_EINVAL;
	*score = (double) tapas_distance_count_within(d, syn, xraw, xenc, radius) /
		(double) syn->n;
	return TAPAS_OK;
}

/* the columns of d (all if none given) other than s into cols; the count */
static size_t
columns_without(const tapas_distance_t *d, size_t c, size_t s, size_t *cols)
{
	size_t		j,
				k = 0;

	if (d->columns == NULL)
	{
		for (j = 0; j < c; j++)
			if (j != s)
				cols[k++] = j;
	}
	else
	{
		for (j = 0; j < d->ncolumns; j++)
			if (d->columns[j] != s)
				cols[k++] = d->columns[j];
	}
	return k;
}

/*
 * *dx = d without column s: its subset (or, for a sum, every term's) drops
 * s.  terms (n_terms of d, for a sum) and cols ((n_terms or 1) * c) are the
 * caller's storage.
 */
static void
distance_without(const tapas_distance_t *d, size_t c, size_t s,
				 tapas_distance_t *dx, tapas_distance_t *terms, size_t *cols)
{
	size_t		k;

	*dx = *d;
	if (d->kind != TAPAS_DISTANCE_SUM)
	{
		dx->ncolumns = columns_without(d, c, s, cols);
		dx->columns = cols;
		return;
	}
	for (k = 0; k < d->n_terms; k++)
	{
		terms[k] = d->terms[k];
		terms[k].ncolumns = columns_without(&d->terms[k], c, s, cols + k * c);
		terms[k].columns = cols + k * c;
	}
	dx->terms = terms;
}

tapas_status
tapas_local_neighbourhood_aia(const tapas_distance_t *d,
							  const tapas_dataset_t *syn, const double *xraw,
							  const double *xenc, size_t s, double radius,
							  double *scores)
{
	tapas_status st = tapas_distance_check(d, syn);
	tapas_distance_t dx;
	tapas_distance_t *terms = NULL;
	size_t	   *cols;
	size_t		blocks = d->kind == TAPAS_DISTANCE_SUM ? d->n_terms : 1;
	double	   *dist;
	size_t		i,
				v,
				k,
				inside = 0;

	if (st != TAPAS_OK)
		return st;
	if (syn->n == 0 || !(radius >= 0) || s >= syn->c ||
		syn->cols[s].kind != TAPAS_COLUMN_CATEGORICAL)
		return TAPAS_EINVAL;
	k = syn->cols[s].cardinality;
	cols = tapas_malloc((blocks * syn->c + 1) * sizeof(size_t));
	terms = tapas_malloc(blocks * sizeof(tapas_distance_t));
	dist = tapas_malloc((syn->n + 1) * sizeof(double));
	if (cols == NULL || terms == NULL || dist == NULL)
	{
		tapas_free(cols);
		tapas_free(terms);
		tapas_free(dist);
		return TAPAS_ENOMEM;
	}
	distance_without(d, syn->c, s, &dx, terms, cols);
	tapas_distance_to_rows(&dx, syn, xraw, xenc, dist);
	for (v = 0; v < k; v++)
		scores[v] = 0;
	for (i = 0; i < syn->n; i++)
		if (dist[i] <= radius)
		{
			scores[(size_t) syn->values[i * syn->c + s]] += 1;
			inside++;
		}
	for (v = 0; v < k; v++)
		scores[v] = inside == 0 ? 1.0 / (double) k : scores[v] / (double) inside;
	tapas_free(cols);
	tapas_free(terms);
	tapas_free(dist);
	return TAPAS_OK;
}
