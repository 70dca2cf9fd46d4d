/*-------------------------------------------------------------------------
 *
 * distance_blas.c
 *	  L2 minimum distances and ball counts for many targets at once, with
 *	  the inner products done by BLAS.
 *
 * ||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y: for a block of TB targets and
 * RB rows, one cblas_dgemm gives every -2 x.y, so the cost is that of a
 * matrix product (cache-blocked and vectorised by OpenBLAS) instead of m
 * separate scans.  The expansion loses accuracy when x is close to y (an
 * identical pair may come out as 1e-16 instead of 0), so it is only used to
 * decide: a row whose approximate squared distance lies within the rounding
 * bound of the running minimum, or of radius^2, is recomputed exactly with
 * the same summation order as distance.c.  The results are therefore the
 * same as tapas_distance_min / tapas_distance_count_within on each target.
 *
 * Rounding bound: each dot product of e terms is off by at most
 * e u ||x|| ||y|| <= e u (||x||^2 + ||y||^2) / 2 (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 3.1), the norms by e u of themselves;
 * TOL_FACTOR (2e + 8) u (||x||^2 + ||y||^2) covers both with room.
 *
 * IDENTIFICATION
 *	  src/attacks/distance_blas.c
 *
 *-------------------------------------------------------------------------
 */
#include <cblas.h>
#include <float.h>
#include <math.h>

#include "attacks/distance.h"
#include "util/memory.h"

#define TB 64					/* targets per block */
#define RB 512					/* rows per block */

/* exact squared distance, summed in cell order as in distance.c */
static double
exact_sq(const double *x, const double *y, size_t e)
{
	double		s = 0;
	size_t		k;

	for (k = 0; k < e; k++)
		s += (x[k] - y[k]) * (x[k] - y[k]);
	return s;
}

static void
norms_sq(const double *v, size_t rows, size_t e, double *out)
{
	size_t		i;

	for (i = 0; i < rows; i++)
	{
		const double *r = v + i * e;
		double		s = 0;
		size_t		k;

		for (k = 0; k < e; k++)
			s += r[k] * r[k];
		out[i] = s;
	}
}

/* folds one dgemm block into the running minima and counts */
static void
fold_block(const tapas_dataset_t *ds, const double *xenc, size_t a0,
		   size_t ta, size_t i0, size_t ri, const double *buf,
		   const double *xn, const double *yn, double r2, double radius,
		   double *best, size_t *counts)
{
	size_t		e = ds->encoded_dim,
				a,
				i;
	double		u = (2.0 * (double) e + 8.0) * DBL_EPSILON;

	for (a = 0; a < ta; a++)
	{
		const double *x = xenc + (a0 + a) * e;

		for (i = 0; i < ri; i++)
		{
			const double *y = ds->encoded + (i0 + i) * e;
			double		d2 = buf[a * ri + i] + xn[a0 + a] + yn[i0 + i];
			double		tol = u * (xn[a0 + a] + yn[i0 + i]);

			if (d2 - tol <= best[a0 + a])
			{
				double		s = exact_sq(x, y, e);

				if (s < best[a0 + a])
					best[a0 + a] = s;
			}
			if (counts == NULL || radius < 0)
				continue;
			if (d2 + tol < r2)
				counts[a0 + a]++;
			else if (d2 - tol <= r2)
			{
				double		s = exact_sq(x, y, e);

				/* the same test as tapas_distance_count_within */
				if (s <= r2 || sqrt(s) <= radius)
					counts[a0 + a]++;
			}
		}
	}
}

tapas_status
tapas_distance_l2_scan(const tapas_dataset_t *ds, const double *xenc,
					   size_t m, double radius, double *mins, size_t *counts,
					   const tapas_progress_t *progress)
{
	size_t		n = ds->n,
				e = ds->encoded_dim,
				a,
				a0,
				i0;
	double	   *xn,
			   *yn,
			   *buf;
	double		r2 = radius * radius;
	tapas_status st = TAPAS_OK;

	if (n > 0 && ds->encoded == NULL)
		return TAPAS_EINVAL;
	for (a = 0; a < m; a++)
	{
		mins[a] = INFINITY;
		if (counts != NULL)
			counts[a] = 0;
	}
	if (n == 0 || m == 0)
		return TAPAS_OK;
	xn = tapas_malloc(m * sizeof(double));
	yn = tapas_malloc(n * sizeof(double));
	buf = tapas_malloc(TB * RB * sizeof(double));
	if (xn == NULL || yn == NULL || buf == NULL)
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	norms_sq(xenc, m, e, xn);
	norms_sq(ds->encoded, n, e, yn);
	for (a0 = 0; a0 < m; a0 += TB)
	{
		size_t		ta = m - a0 < TB ? m - a0 : TB;

		if (tapas_progress_poll(progress, (double) a0 / (double) m))
		{
			st = TAPAS_ECANCELED;
			goto done;
		}
		for (i0 = 0; i0 < n; i0 += RB)
		{
			size_t		ri = n - i0 < RB ? n - i0 : RB;

			/* buf = -2 X_block Y_block^T */
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) ta,
						(int) ri, (int) e, -2.0, xenc + a0 * e, (int) e,
						ds->encoded + i0 * e, (int) e, 0.0, buf, (int) ri);
			fold_block(ds, xenc, a0, ta, i0, ri, buf, xn, yn, r2, radius,
					   mins, counts);
		}
	}
	for (a = 0; a < m; a++)
		mins[a] = sqrt(mins[a]);

done:
	tapas_free(xn);
	tapas_free(yn);
	tapas_free(buf);
	return st;
}
