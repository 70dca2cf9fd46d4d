/*-------------------------------------------------------------------------
 *
 * release_singling_out.c
 *	  Singling out in the release audit: predicates built from the
 *	  synthetic rows ("column = value" over random columns, a tolerance for
 *	  continuous ones) that isolate exactly one row of the training or
 *	  holdout subsample, against the same predicates with each value from
 *	  an independent synthetic row (the baseline).
 *
 * IDENTIFICATION
 *	  src/attacks/release_singling_out.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/release_risk.h"
#include "attacks/release_risk_int.h"
#include "util/rng.h"

/* does raw row x satisfy the predicate? */
static int
satisfies(const tapas_dataset_t *ds, const predicate *pr, const double *x,
		  double tolerance)
{
	size_t		k;

	for (k = 0; k < pr->ncols; k++)
	{
		size_t		j = pr->cols[k];
		const tapas_column_spec_t *col = &ds->cols[j];

		if (col->kind == TAPAS_COLUMN_CONTINUOUS)
		{
			if (fabs(x[j] - pr->value[j]) > tolerance * (col->upper - col->lower))
				return 0;
		}
		else if (x[j] != pr->value[j])
			return 0;
	}
	return 1;
}

/*
 * The row of ds[rows[0..n-1]] the predicate isolates (position in rows),
 * or -1 when it matches none or several.
 */
long
tapas_rr_isolated(const tapas_dataset_t *ds, const size_t *rows, size_t n,
		 const predicate *pr, double tolerance)
{
	long		found = -1;
	size_t		k;

	for (k = 0; k < n; k++)
		if (satisfies(ds, pr, ds->values + rows[k] * ds->c, tolerance))
		{
			if (found >= 0)
				return -1;
			found = (long) k;
		}
	return found;
}

/* draws predicate columns: all, or k random distinct ones */
void
tapas_rr_draw_columns(predicate *pr, size_t c, size_t k, size_t *perm, tapas_rng_t *rng)
{
	size_t		j;

	if (k == 0 || k >= c)
	{
		for (j = 0; j < c; j++)
			pr->cols[j] = j;
		pr->ncols = c;
		return;
	}
	for (j = 0; j < c; j++)
		perm[j] = j;
	for (j = 0; j < k; j++)
	{
		size_t		r = j + tapas_rng_below(rng, c - j),
					t = perm[j];

		perm[j] = perm[r];
		perm[r] = t;
		pr->cols[j] = perm[j];
	}
	pr->ncols = k;
}

/*
 * Orders the predicate's columns by the synthetic frequency of their value,
 * rarest first, so that satisfies() rejects most rows at the first column.
 * Only the speed depends on the order.
 */
static void
order_by_rarity(const audit_mem *am, const tapas_dataset_t *syn, predicate *pr)
{
	double		freq[64];
	size_t		k,
				i;

	if (pr->ncols > 64)
		return;
	for (k = 0; k < pr->ncols; k++)
		freq[k] = (double) tapas_rr_count_equal(am->sorted + pr->cols[k] * syn->n, syn->n,
									   pr->value[pr->cols[k]]);
	for (k = 1; k < pr->ncols; k++)
	{
		double		f = freq[k];
		size_t		col = pr->cols[k];

		for (i = k; i > 0 && freq[i - 1] > f; i--)
		{
			freq[i] = freq[i - 1];
			pr->cols[i] = pr->cols[i - 1];
		}
		freq[i] = f;
		pr->cols[i] = col;
	}
}

/* singling out: successes of the release's and the baseline's predicates */
void
tapas_rr_singling_out(audit_mem *am, const tapas_dataset_t *real,
				 const tapas_dataset_t *syn, const tapas_dataset_t *hold,
				 size_t nso, const tapas_release_params_t *p,
				 tapas_rng_t *rng, double *kr, double *kh, double *kb)
{
	predicate  *pr = &am->pred;
	size_t		i,
				j;

	*kr = *kh = *kb = 0;
	/* distinct synthetic rows while they last, so predicates repeat less */
	for (i = 0; i < syn->n; i++)
		am->perm[i] = i;
	for (i = 0; i < p->n_predicates; i++)
	{
		size_t		at = i % syn->n,
					pick = at + tapas_rng_below(rng, syn->n - at),
					s = am->perm[pick];
		long		r,
					h;

		am->perm[pick] = am->perm[at];
		am->perm[at] = s;

		tapas_rr_draw_columns(pr, syn->c, p->predicate_columns, am->colperm, rng);
		memcpy(pr->value, syn->values + s * syn->c, sizeof(double) * syn->c);
		order_by_rarity(am, syn, pr);
		r = tapas_rr_isolated(real, am->so_r, nso, pr, p->tolerance);
		h = tapas_rr_isolated(hold, am->so_h, nso, pr, p->tolerance);
		if (r >= 0)
		{
			(*kr)++;
			am->iso_r[am->so_r[r]]++;
		}
		if (h >= 0)
		{
			(*kh)++;
			am->iso_h[am->so_h[h]]++;
		}
		/* the baseline: each value from its own random synthetic row */
		for (j = 0; j < pr->ncols; j++)
		{
			size_t		col = pr->cols[j];

			pr->value[col] = syn->values[tapas_rng_below(rng, syn->n) * syn->c + col];
		}
		order_by_rarity(am, syn, pr);
		if (tapas_rr_isolated(real, am->so_r, nso, pr, p->tolerance) >= 0)
			(*kb)++;
	}
}
