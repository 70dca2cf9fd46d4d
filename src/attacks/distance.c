/*-------------------------------------------------------------------------
 *
 * distance.c
 *	  Hamming and L_p distances between a target and the rows of a dataset.
 *
 * Rows are stored row-major, so a scan of all rows is one sequential pass
 * through memory (c doubles per row for Hamming, encoded_dim for L_p); the
 * target stays in L1.  For the minimum, the scan stops as soon as a row at
 * distance 0 is found, and an L_p row is abandoned once its partial p-th
 * power sum reaches the best one so far (checked every 16 cells, where the
 * branch costs less than the arithmetic it saves).  The radius count
 * prunes the same way against radius^p.
 *
 * A sum of distances evaluates its terms one after the other for each row
 * (each term keeps its own subset, weights and scale).
 *
 * The all-pairs L2 matrix, used when many targets meet the same rows, is
 * ||x||^2 + ||y||^2 - 2 X Y^T with the product from one cblas_dgemm
 * (rounding can make the sum slightly negative; it is clamped to 0).
 *
 * IDENTIFICATION
 *	  src/attacks/distance.c
 *
 *-------------------------------------------------------------------------
 */
#include <cblas.h>
#include <math.h>

#include "attacks/distance.h"
#include "util/memory.h"

#define PRUNE_BLOCK 16

int
tapas_distance_needs_encoding(const tapas_distance_t *d)
{
	size_t		k;

	if (d->kind == TAPAS_DISTANCE_LP)
		return 1;
	if (d->kind == TAPAS_DISTANCE_SUM)
		for (k = 0; k < d->n_terms; k++)
			if (d->terms[k].kind == TAPAS_DISTANCE_LP)
				return 1;
	return 0;
}

tapas_status
tapas_distance_check(const tapas_distance_t *d, const tapas_dataset_t *ds)
{
	size_t		k;

	if (d->kind == TAPAS_DISTANCE_SUM)
	{
		if (d->terms == NULL || d->n_terms < 1 ||
			d->n_terms > TAPAS_DISTANCE_MAX_TERMS ||
			!(d->scale >= 0) || !isfinite(d->scale))
			return TAPAS_EINVAL;
		for (k = 0; k < d->n_terms; k++)
			if (d->terms[k].kind == TAPAS_DISTANCE_SUM ||
				tapas_distance_check(&d->terms[k], ds) != TAPAS_OK)
				return TAPAS_EINVAL;
		return TAPAS_OK;
	}
	if (d->kind != TAPAS_DISTANCE_HAMMING && d->kind != TAPAS_DISTANCE_LP)
		return TAPAS_EINVAL;

	if (d->columns != NULL)
		for (k = 0; k < d->ncolumns; k++)
			if (d->columns[k] >= ds->c)
				return TAPAS_EINVAL;
	if (d->weights != NULL)
		for (k = 0; k < ds->c; k++)
			if (!(d->weights[k] >= 0) || !isfinite(d->weights[k]))
				return TAPAS_EINVAL;
	if (!(d->scale >= 0) || !isfinite(d->scale))
		return TAPAS_EINVAL;
	if (d->kind == TAPAS_DISTANCE_LP)
	{
		if (!(d->p > 0) || !isfinite(d->p))
			return TAPAS_EINVAL;
		if (ds->encoded == NULL && ds->n > 0)
			return TAPAS_EINVAL;
	}
	return TAPAS_OK;
}

/* |t|^p with the common exponents done without pow() */
static inline double
abs_pow(double t, double p)
{
	t = fabs(t);
	if (p == 1.0)
		return t;
	if (p == 2.0)
		return t * t;
	return pow(t, p);
}

/* Hamming distance between two raw records */
static inline double
hamming(const tapas_distance_t *d, size_t c, const double *x, const double *y)
{
	size_t		j,
				count = 0;

	if (d->weights != NULL)
	{
		double		sum = 0;
		size_t		nc = d->columns ? d->ncolumns : c;

		for (j = 0; j < nc; j++)
		{
			size_t		col = d->columns ? d->columns[j] : j;

			sum += d->weights[col] * !(x[col] == y[col]);
		}
		return sum;
	}
	if (d->columns == NULL)
	{
		for (j = 0; j < c; j++)
			count += !(x[j] == y[j]);
	}
	else
	{
		for (j = 0; j < d->ncolumns; j++)
			count += !(x[d->columns[j]] == y[d->columns[j]]);
	}
	return (double) count;
}

/*
 * sum |x_i - y_i|^p over the encoded cells (of the subset), stopping early
 * (returning a value >= bound) once the partial sum reaches bound.
 */
static inline double
lp_sum(const tapas_distance_t *d, const tapas_dataset_t *ds, const double *x,
	   const double *y, double bound)
{
	double		sum = 0.0;
	size_t		i,
				k;

	if (d->weights != NULL)
	{
		size_t		nc = d->columns ? d->ncolumns : ds->c;

		for (k = 0; k < nc; k++)
		{
			size_t		col = d->columns ? d->columns[k] : k,
						o = ds->offset[col],
						w = ds->width[col];
			double		part = 0;

			for (i = o; i < o + w; i++)
				part += abs_pow(x[i] - y[i], d->p);
			sum += d->weights[col] * part;
			if (sum > bound)
				return sum;
		}
		return sum;
	}
	if (d->columns == NULL)
	{
		size_t		e = ds->encoded_dim;

		for (i = 0; i < e; i++)
		{
			sum += abs_pow(x[i] - y[i], d->p);
			if ((i % PRUNE_BLOCK) == PRUNE_BLOCK - 1 && sum > bound)
				return sum;
		}
		return sum;
	}
	for (k = 0; k < d->ncolumns; k++)
	{
		size_t		o = ds->offset[d->columns[k]],
					w = ds->width[d->columns[k]];

		for (i = o; i < o + w; i++)
			sum += abs_pow(x[i] - y[i], d->p);
		if (sum > bound)
			return sum;
	}
	return sum;
}

/* the p-th root, exact (sqrt) for p = 2 so that every path agrees */
static inline double
root_p(double s, double p)
{
	if (p == 1.0)
		return s;
	if (p == 2.0)
		return sqrt(s);
	return pow(s, 1.0 / p);
}

/* s d for the distance's scale s (0 = 1) */
static inline double
scaled(const tapas_distance_t *d, double v)
{
	return d->scale > 0 ? d->scale * v : v;
}

/* s sum_k d_k(x, y) for a sum of distances */
static double
sum_pair(const tapas_distance_t *d, const tapas_dataset_t *ds,
		 const double *xraw, const double *xenc,
		 const double *yraw, const double *yenc)
{
	double		total = 0;
	size_t		k;

	for (k = 0; k < d->n_terms; k++)
		total += tapas_distance_pair(&d->terms[k], ds, xraw, xenc, yraw, yenc);
	return scaled(d, total);
}

/* raw and encoded forms of row i (encoded NULL when ds is not encoded) */
static inline const double *
row_enc(const tapas_dataset_t *ds, size_t i)
{
	return ds->encoded ? ds->encoded + i * ds->encoded_dim : NULL;
}

double
tapas_distance_pair(const tapas_distance_t *d, const tapas_dataset_t *ds,
					const double *xraw, const double *xenc,
					const double *yraw, const double *yenc)
{
	if (d->kind == TAPAS_DISTANCE_SUM)
		return sum_pair(d, ds, xraw, xenc, yraw, yenc);
	if (d->kind == TAPAS_DISTANCE_HAMMING)
		return scaled(d, hamming(d, ds->c, xraw, yraw));
	return scaled(d, root_p(lp_sum(d, ds, xenc, yenc, INFINITY), d->p));
}

void
tapas_distance_to_rows(const tapas_distance_t *d, const tapas_dataset_t *ds,
					   const double *xraw, const double *xenc, double *out)
{
	size_t		i;

	if (d->kind == TAPAS_DISTANCE_SUM)
	{
		for (i = 0; i < ds->n; i++)
			out[i] = sum_pair(d, ds, xraw, xenc, ds->values + i * ds->c, row_enc(ds, i));
		return;
	}
	if (d->kind == TAPAS_DISTANCE_HAMMING)
	{
		for (i = 0; i < ds->n; i++)
			out[i] = scaled(d, hamming(d, ds->c, xraw, ds->values + i * ds->c));
		return;
	}
	for (i = 0; i < ds->n; i++)
		out[i] = scaled(d, root_p(lp_sum(d, ds, xenc, ds->encoded + i * ds->encoded_dim,
										 INFINITY), d->p));
}

double
tapas_distance_min(const tapas_distance_t *d, const tapas_dataset_t *ds,
				   const double *xraw, const double *xenc)
{
	size_t		i;
	double		best = INFINITY;

	if (d->kind == TAPAS_DISTANCE_SUM)
	{
		for (i = 0; i < ds->n && best > 0; i++)
		{
			double		s = sum_pair(d, ds, xraw, xenc, ds->values + i * ds->c,
									 row_enc(ds, i));

			if (s < best)
				best = s;
		}
		return best;
	}
	if (d->kind == TAPAS_DISTANCE_HAMMING)
	{
		for (i = 0; i < ds->n && best > 0; i++)
		{
			double		h = hamming(d, ds->c, xraw, ds->values + i * ds->c);

			if (h < best)
				best = h;
		}
		return scaled(d, best);
	}
	/* best is kept as a p-th power sum; rows reaching it are abandoned */
	for (i = 0; i < ds->n && best > 0; i++)
	{
		double		s = lp_sum(d, ds, xenc, ds->encoded + i * ds->encoded_dim,
							   best);

		if (s < best)
			best = s;
	}
	return isinf(best) ? best : scaled(d, root_p(best, d->p));
}

size_t
tapas_distance_count_within(const tapas_distance_t *d,
							const tapas_dataset_t *ds, const double *xraw,
							const double *xenc, double radius)
{
	size_t		i,
				count = 0;
	double		bound;

	if (radius < 0)
		return 0;
	if (d->kind == TAPAS_DISTANCE_SUM)
	{
		for (i = 0; i < ds->n; i++)
			count += sum_pair(d, ds, xraw, xenc, ds->values + i * ds->c,
							  row_enc(ds, i)) <= radius;
		return count;
	}
	/* s d <= r  <=>  d <= r / s */
	if (d->scale > 0)
		radius /= d->scale;
	if (d->kind == TAPAS_DISTANCE_HAMMING)
	{
		for (i = 0; i < ds->n; i++)
			count += hamming(d, ds->c, xraw, ds->values + i * ds->c) <= radius;
		return count;
	}
	/* compare p-th powers; the root is taken only for rows near the bound */
	bound = d->p == 2.0 ? radius * radius : pow(radius, d->p);
	for (i = 0; i < ds->n; i++)
	{
		double		s = lp_sum(d, ds, xenc, ds->encoded + i * ds->encoded_dim,
							   bound * (1 + 1e-9) + 1e-300);

		if (s <= bound || root_p(s, d->p) <= radius)
			count++;
	}
	return count;
}

/* squared norms of the n encoded rows of ds */
static void
row_norms(const tapas_dataset_t *ds, double *norms)
{
	size_t		i,
				k,
				e = ds->encoded_dim;

	for (i = 0; i < ds->n; i++)
	{
		const double *r = ds->encoded + i * e;
		double		s = 0;

		for (k = 0; k < e; k++)
			s += r[k] * r[k];
		norms[i] = s;
	}
}

tapas_status
tapas_distance_l2_matrix(const tapas_dataset_t *targets,
						 const tapas_dataset_t *ds, double *out)
{
	size_t		m = targets->n,
				n = ds->n,
				e = ds->encoded_dim,
				a,
				i;
	double	   *xn,
			   *yn;

	if (targets->encoded_dim != e ||
		(m > 0 && targets->encoded == NULL) || (n > 0 && ds->encoded == NULL))
		return TAPAS_EINVAL;
	if (m == 0 || n == 0)
		return TAPAS_OK;
	xn = tapas_malloc(m * sizeof(double));
	yn = tapas_malloc(n * sizeof(double));
	if (xn == NULL || yn == NULL)
	{
		tapas_free(xn);
		tapas_free(yn);
		return TAPAS_ENOMEM;
	}
	row_norms(targets, xn);
	row_norms(ds, yn);
	/* out = -2 X Y^T, then add the norms */
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) m, (int) n,
				(int) e, -2.0, targets->encoded, (int) e, ds->encoded, (int) e,
				0.0, out, (int) n);
	for (a = 0; a < m; a++)
		for (i = 0; i < n; i++)
		{
			double		s = out[a * n + i] + xn[a] + yn[i];

			out[a * n + i] = s > 0 ? sqrt(s) : 0.0;
		}
	tapas_free(xn);
	tapas_free(yn);
	return TAPAS_OK;
}
