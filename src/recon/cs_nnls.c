/*-------------------------------------------------------------------------
 *
 * cs_nnls.c
 *	  Non-negative least squares by the Lawson-Hanson active-set method.
 *
 * Solves min ||A x - b||_2 subject to x >= 0 (C. L. Lawson and R. J.
 * Hanson, "Solving Least Squares Problems", Prentice-Hall 1974, chapter
 * 23, algorithm NNLS).  The passive set P holds the coordinates allowed
 * to be positive; the others are held at 0.
 *
 *	outer:	w = A^T (b - A x); stop when max_{j not in P} w_j <= tol (the
 *			KKT conditions hold); else move t = argmax w_j into P.
 *	inner:	z = the least-squares solution on the columns of P (LAPACK
 *			dgelsy, rank-revealing QR, so a dependent column does no
 *			harm); if z > 0 on P, x = z; else step from x towards z as far
 *			as feasibility allows, alpha = min x_j / (x_j - z_j) over
 *			z_j <= 0, drop the coordinates that reach 0, and repeat.
 *
 * Cycling guard: when the column just moved into P gets z_t <= 0 (it can
 * only happen through rounding), t is put back and excluded until the
 * next successful outer step.  With a positive vector in A's row span
 * (e.g. a total-count query), a sparse non-negative x is the unique
 * feasible point below the simplex phase transition, so NNLS recovers it
 * with no regularisation (Slawski and Hein, EJS 2013; research note
 * section 4.1).  w = A^T r uses binmat.c's column patterns.  At most
 * 3 min(m, n) + 30 outer steps.
 *
 * IDENTIFICATION
 *	  src/recon/cs_nnls.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "util/memory.h"
#include "recon/cs.h"

typedef struct nnls_work
{
	const tapas_binmat_t *A;
	tapas_binmat_colbytes_t *P;
	size_t		m;
	size_t		n;
	int			np;				/* size of the passive set */
	long	   *pass;			/* the passive columns, np of them */
	char	   *in;				/* in[j]: 1 passive, 2 excluded this step */
	double	   *x;				/* current iterate, n */
	double	   *z;				/* least-squares solution on P, np */
	double	   *r;				/* residual, m */
	double	   *w;				/* dual A^T r, n */
	double	   *M;				/* dense A_P, m x cap */
	double	   *rhs;			/* max(m, cap) */
	int		   *jpvt;			/* dgelsy pivots, cap */
	int			cap;			/* room in pass, M, jpvt */
} nnls_work;

static void
nnls_free(nnls_work *w)
{
	tapas_binmat_colbytes_free(w->P);
	tapas_free(w->pass);
	tapas_free(w->in);
	tapas_free(w->z);
	tapas_free(w->r);
	tapas_free(w->w);
	tapas_free(w->M);
	tapas_free(w->rhs);
	tapas_free(w->jpvt);
}

static tapas_status
nnls_init(nnls_work *w, const tapas_binmat_t *A, double *x_out)
{
	memset(w, 0, sizeof(*w));
	w->A = A;
	w->m = A->m;
	w->n = A->n;
	w->cap = (int) (A->n < 64 ? A->n : 64);
	w->x = x_out;
	w->P = tapas_binmat_colbytes_create(A);
	w->pass = tapas_malloc(A->n * sizeof(long));
	w->in = tapas_calloc(A->n, 1);
	w->z = tapas_malloc(A->n * sizeof(double));
	w->r = tapas_malloc(A->m * sizeof(double));
	w->w = tapas_malloc(A->n * sizeof(double));
	w->M = tapas_malloc(A->m * (size_t) w->cap * sizeof(double));
	w->rhs = tapas_malloc((A->m > A->n ? A->m : A->n) * sizeof(double));
	w->jpvt = tapas_malloc((size_t) w->cap * sizeof(int));
	if (!w->P || !w->pass || !w->in || !w->z || !w->r || !w->w || !w->M ||
		!w->rhs || !w->jpvt)
	{
		nnls_free(w);
		return TAPAS_ENOMEM;
	}
	memset(x_out, 0, A->n * sizeof(double));
	return TAPAS_OK;
}

/* Makes room for np columns in M and jpvt. */
static tapas_status
nnls_reserve(nnls_work *w, int np)
{
	int			cap = w->cap;
	double	   *M;
	int		   *jpvt;

	if (np <= cap)
		return TAPAS_OK;
	while (cap < np)
		cap *= 2;
	M = tapas_realloc(w->M, w->m * (size_t) cap * sizeof(double));
	if (M == NULL)
		return TAPAS_ENOMEM;
	w->M = M;
	jpvt = tapas_realloc(w->jpvt, (size_t) cap * sizeof(int));
	if (jpvt == NULL)
		return TAPAS_ENOMEM;
	w->jpvt = jpvt;
	w->cap = cap;
	return TAPAS_OK;
}

/* z = argmin ||A_P z - b|| over the passive columns (dgelsy). */
static tapas_status
nnls_solve_passive(nnls_work *w, const double *b)
{
	int			m = (int) w->m,
				np = w->np,
				ldb = m > np ? m : np,
				rank,
				t,
				info;
	tapas_status st = nnls_reserve(w, np);

	if (st != TAPAS_OK)
		return st;
	for (t = 0; t < np; t++)
	{
		tapas_binmat_column(w->A, (size_t) w->pass[t], w->M + (size_t) t * m);
		w->jpvt[t] = 0;
	}
	memset(w->rhs, 0, (size_t) ldb * sizeof(double));
	memcpy(w->rhs, b, (size_t) m * sizeof(double));
	info = LAPACKE_dgelsy(LAPACK_COL_MAJOR, m, np, 1, w->M, m, w->rhs, ldb,
						  w->jpvt, 1e-12, &rank);
	if (info != 0)
		return TAPAS_ENUMERIC;
	memcpy(w->z, w->rhs, (size_t) np * sizeof(double));
	return TAPAS_OK;
}

/* Drops the passive coordinates whose x reached 0 (x_j <= tol). */
static void
nnls_drop_zeros(nnls_work *w, double tol)
{
	int			t,
				kept = 0;

	for (t = 0; t < w->np; t++)
	{
		long		j = w->pass[t];

		if (w->x[j] <= tol)
		{
			w->x[j] = 0.0;
			w->in[j] = 0;
		}
		else
			w->pass[kept++] = j;
	}
	w->np = kept;
}

/*
 * The inner loop after column t joined P.  Returns TAPAS_OK, or
 * TAPAS_EDECODE when t itself got z_t <= 0 (the caller excludes t).
 */
static tapas_status
nnls_inner(nnls_work *w, const double *b, long t, double tol)
{
	tapas_status st;
	int			guard;

	for (guard = 0; guard < 3 * w->np + 10; guard++)
	{
		double		alpha = 1.0;
		int			i,
					feasible = 1;

		if ((st = nnls_solve_passive(w, b)) != TAPAS_OK)
			return st;
		for (i = 0; i < w->np; i++)
			if (w->z[i] <= tol)
			{
				long		j = w->pass[i];
				double		a;

				if (guard == 0 && j == t)
					return TAPAS_EDECODE;
				feasible = 0;
				a = w->x[j] / (w->x[j] - w->z[i]);
				if (a < alpha)
					alpha = a;
			}
		if (feasible)
		{
			for (i = 0; i < w->np; i++)
				w->x[w->pass[i]] = w->z[i];
			return TAPAS_OK;
		}
		for (i = 0; i < w->np; i++)
		{
			long		j = w->pass[i];

			w->x[j] += alpha * (w->z[i] - w->x[j]);
		}
		nnls_drop_zeros(w, tol);
	}
	return TAPAS_OK;
}

/* w = A^T (b - A x); returns the best column outside P, or -1 */
static long
nnls_dual(nnls_work *w, const double *b, double tol)
{
	size_t		i,
				j;
	long		best = -1;
	double		bestv = tol;

	tapas_binmat_mul(w->A, w->x, w->r);
	for (i = 0; i < w->m; i++)
		w->r[i] = b[i] - w->r[i];
	tapas_binmat_colbytes_mul_t(w->P, w->r, w->w);
	for (j = 0; j < w->n; j++)
		if (w->in[j] == 0 && w->w[j] > bestv)
		{
			bestv = w->w[j];
			best = (long) j;
		}
	return best;
}

tapas_status
tapas_cs_nnls(const tapas_binmat_t *A, const double *b, double *x_out,
			  int *iterations, const tapas_progress_t *progress)
{
	nnls_work	w;
	tapas_status st;
	double		bsum = 0.0,
				tol;
	size_t		i,
				j;
	int			it,
				maxit;

	if (A->m == 0 || A->n == 0 || A->m > (size_t) 1 << 30 ||
		A->n > (size_t) 1 << 40)
		return TAPAS_EINVAL;
	if ((st = nnls_init(&w, A, x_out)) != TAPAS_OK)
		return st;
	for (i = 0; i < A->m; i++)
		bsum += fabs(b[i]);
	tol = 1e-10 * (1.0 + bsum);
	maxit = 3 * (int) (A->m < A->n ? A->m : A->n) + 30;
	for (it = 0; it < maxit; it++)
	{
		long		t;

		if (tapas_progress_poll(progress, -1.0))
		{
			st = TAPAS_ECANCELED;
			break;
		}
		if ((t = nnls_dual(&w, b, tol)) < 0)
			break;
		w.in[t] = 1;
		w.pass[w.np++] = t;
		st = nnls_inner(&w, b, t, 1e-12 * (1.0 + bsum));
		if (st == TAPAS_EDECODE)
		{
			/* t cannot enter: exclude it until the next real step */
			w.np--;
			w.in[t] = 2;
			st = TAPAS_OK;
			continue;
		}
		if (st != TAPAS_OK)
			break;
		for (j = 0; j < A->n; j++)
			if (w.in[j] == 2)
				w.in[j] = 0;
	}
	if (iterations)
		*iterations = it;
	nnls_free(&w);
	if (st != TAPAS_OK)
		memset(x_out, 0, A->n * sizeof(double));
	return st;
}
