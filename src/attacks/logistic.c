/*-------------------------------------------------------------------------
 *
 * logistic.c
 *	  L2-regularised logistic regression by a line-search truncated Newton
 *	  method with Jacobi-preconditioned conjugate gradients.
 *
 * Notation (logistic.h): f(w) = 1/2 w'w + C sum_i l(y_i z_i) with
 * z = Xw, l(m) = log(1 + exp(-m)) and sigma the logistic function.  Then
 *
 *		grad f(w) = w + X'a,	a_i = C (sigma(y_i z_i) - 1) y_i
 *		Hess f(w) = I + X'DX,	D_ii = C sigma(z_i) (1 - sigma(z_i))
 *
 * Each Newton iteration solves Hess p = -grad approximately by conjugate
 * gradients (Nocedal and Wright 2006, Algorithm 7.1, Newton-CG), stopping
 * at ||r|| <= eta ||grad|| with the forcing term eta = min(1/2,
 * sqrt(||grad|| / ||grad f(0)||)), which gives superlinear convergence
 * (ibid., Theorem 7.2).  The preconditioner is diag(Hess) (liblinear 2.3
 * also preconditions its CG; Hsia, Chiang and Lin 2018).  The Hessian is
 * never formed: a product Hess v costs two passes over the rows, so one
 * code path serves a few features as well as the thousands of set features
 * or one-hot cells the call sites have.  Dense rows go through cblas_dgemv
 * a block of TAPAS_LOGIT_POLL_ROWS rows at a time; sparse rows are plain
 * loops over their nonzeros.  The step then backtracks
 * (Armijo, c = 1e-4, halving) along p; z + t Xp gives f at every trial
 * step in O(n), with Xp accumulated during the CG from the products it
 * already computes.  Hess >= I keeps every CG curvature positive, so p is a
 * descent direction and the method converges from w = 0 (liblinear's start).
 *
 * Every pass over the rows polls the progress callback every
 * TAPAS_LOGIT_POLL_ROWS rows; nothing here longjmps, so a cancel frees the
 * scratch and returns TAPAS_ECANCELED.
 *
 * IDENTIFICATION
 *	  src/attacks/logistic.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include <cblas.h>

#include "attacks/logistic.h"
#include "util/memory.h"

/* Armijo's sufficient-decrease constant and the number of step halvings */
#define ARMIJO_C	1e-4
#define MAX_HALVINGS 50

/* one fit: the data, its sizes, and the scratch vectors */
typedef struct LogitFit
{
	const tapas_logit_data_t *data;
	const tapas_progress_t *progress;
	size_t		n,
				d,
				dim;			/* d + (bias > 0) */
	double		C;
	/* per row */
	double	   *z;				/* Xw */
	double	   *xp;				/* Xp of the current step */
	double	   *xv;				/* X v of the current CG direction */
	double	   *a;				/* gradient coefficients, then D .* X v */
	double	   *D;				/* Hessian weights, C sigma (1 - sigma) */
	/* per weight */
	double	   *g,
			   *p,
			   *r,
			   *s,
			   *v,
			   *hv,
			   *M,				/* diag(Hess), the preconditioner */
			   *u;				/* dense standardisation scratch (d) */
} LogitFit;

double
tapas_logit_sigmoid(double z)
{
	double		e;

	if (z >= 0)
		return 1.0 / (1.0 + exp(-z));
	e = exp(z);
	return e / (1.0 + e);
}

/* l(m) = log(1 + exp(-m)), without overflow */
static double
logloss(double m)
{
	return m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m));
}

static double
dot(const double *a, const double *b, size_t n)
{
	double		s = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

/* the label of row i as -1 or +1 */
static inline double
sign_of(const LogitFit *F, size_t i)
{
	return F->data->y[i] ? 1.0 : -1.0;
}

/* the poll inside the row loops: nonzero to stop */
static inline int
poll_rows(const LogitFit *F, size_t i)
{
	return i % TAPAS_LOGIT_POLL_ROWS == 0 && tapas_progress_poll(F->progress, -1.0);
}

/* the number of rows of the block that starts at row i */
static inline size_t
block_rows(const LogitFit *F, size_t i)
{
	return F->n - i < TAPAS_LOGIT_POLL_ROWS ? F->n - i : TAPAS_LOGIT_POLL_ROWS;
}

/* ---------------------------------------------------------------------
 * Passes over the rows: out = X v, out = X'a, diag(X'DX).  Each returns
 * nonzero when the callback asked to stop.
 * ---------------------------------------------------------------------
 */

/* out[i] = x_i . v for every row (x_i with the bias feature) */
static int
pass_xv(const LogitFit *F, const double *v, double *out)
{
	const tapas_logit_data_t *X = F->data;
	double		c0 = F->dim > F->d ? X->bias * v[F->d] : 0.0;
	size_t		i,
				j,
				k;

	if (X->X != NULL)
	{
		/* (x - shift) .* scale . v = x . (scale .* v) - shift . (scale .* v) */
		for (j = 0; j < F->d; j++)
		{
			F->u[j] = X->scale ? X->scale[j] * v[j] : v[j];
			if (X->shift)
				c0 -= X->shift[j] * F->u[j];
		}
		for (i = 0; i < F->n; i += TAPAS_LOGIT_POLL_ROWS)
		{
			size_t		rows = block_rows(F, i);

			if (poll_rows(F, i))
				return 1;
			cblas_dgemv(CblasRowMajor, CblasNoTrans, (blasint) rows, (blasint) F->d, 1.0,
						X->X + i * F->d, (blasint) F->d, F->u, 1, 0.0, out + i, 1);
			for (j = i; j < i + rows; j++)
				out[j] += c0;
		}
		return 0;
	}
	for (i = 0; i < F->n; i++)
	{
		double		s = c0;

		if (poll_rows(F, i))
			return 1;
		for (k = X->row_start[i]; k < X->row_start[i + 1]; k++)
			s += X->val[k] * v[X->col[k]];
		out[i] = s;
	}
	return 0;
}

/* out = X'a (dim weights) */
static int
pass_xta(const LogitFit *F, const double *a, double *out)
{
	const tapas_logit_data_t *X = F->data;
	double		sa = 0;
	size_t		i,
				j,
				k;

	memset(out, 0, F->dim * sizeof(double));
	if (X->X != NULL)
	{
		/* a block at a time: out += X[i .. i + rows)' a[i .. i + rows) */
		for (i = 0; i < F->n; i += TAPAS_LOGIT_POLL_ROWS)
		{
			size_t		rows = block_rows(F, i);

			if (poll_rows(F, i))
				return 1;
			cblas_dgemv(CblasRowMajor, CblasTrans, (blasint) rows, (blasint) F->d, 1.0,
						X->X + i * F->d, (blasint) F->d, a + i, 1, 1.0, out, 1);
			for (k = i; k < i + rows; k++)
				sa += a[k];
		}
		/* sum_i a_i (x_ij - shift_j) scale_j */
		for (j = 0; j < F->d; j++)
		{
			if (X->shift)
				out[j] -= X->shift[j] * sa;
			if (X->scale)
				out[j] *= X->scale[j];
		}
	}
	else
		for (i = 0; i < F->n; i++)
		{
			if (poll_rows(F, i))
				return 1;
			sa += a[i];
			for (k = X->row_start[i]; k < X->row_start[i + 1]; k++)
				out[X->col[k]] += a[i] * X->val[k];
		}
	if (F->dim > F->d)
		out[F->d] = X->bias * sa;
	return 0;
}

/* F->M = diag(Hess) = 1 + sum_i D_i x_ij^2 */
static int
pass_diag(const LogitFit *F)
{
	const tapas_logit_data_t *X = F->data;
	double		sd = 0;
	size_t		i,
				j,
				k;

	memset(F->M, 0, F->dim * sizeof(double));
	for (i = 0; i < F->n; i++)
	{
		double		Di = F->D[i];

		if (poll_rows(F, i))
			return 1;
		sd += Di;
		if (X->X != NULL)
		{
			const double *row = X->X + i * F->d;

			for (j = 0; j < F->d; j++)
			{
				double		x = X->shift ? row[j] - X->shift[j] : row[j];

				F->M[j] += Di * x * x;
			}
		}
		else
			for (k = X->row_start[i]; k < X->row_start[i + 1]; k++)
				F->M[X->col[k]] += Di * X->val[k] * X->val[k];
	}
	for (j = 0; j < F->d; j++)
		F->M[j] = 1.0 + (X->X && X->scale ? X->scale[j] * X->scale[j] : 1.0) * F->M[j];
	if (F->dim > F->d)
		F->M[F->d] = 1.0 + X->bias * X->bias * sd;
	return 0;
}

/* ---------------------------------------------------------------------
 * The Newton iteration
 * ---------------------------------------------------------------------
 */

/* loss part of f at z + t xp: C sum_i l(y_i (z_i + t xp_i)) */
static double
loss_at(const LogitFit *F, double t)
{
	double		s = 0;
	size_t		i;

	for (i = 0; i < F->n; i++)
		s += logloss(sign_of(F, i) * (F->z[i] + t * F->xp[i]));
	return F->C * s;
}

/* F->g = grad f(w) and F->D at z = Xw; nonzero on a stop */
static int
gradient(LogitFit *F, const double *w)
{
	size_t		i;

	for (i = 0; i < F->n; i++)
	{
		double		y = sign_of(F, i),
					sg = tapas_logit_sigmoid(y * F->z[i]);

		F->a[i] = F->C * (sg - 1.0) * y;
		F->D[i] = F->C * sg * (1.0 - sg);
	}
	if (pass_xta(F, F->a, F->g))
		return 1;
	for (i = 0; i < F->dim; i++)
		F->g[i] += w[i];
	return 0;
}

/* F->hv = Hess v, leaving X v in F->xv; nonzero on a stop */
static int
hessian_times(LogitFit *F, const double *v)
{
	size_t		i;

	if (pass_xv(F, v, F->xv))
		return 1;
	for (i = 0; i < F->n; i++)
		F->a[i] = F->D[i] * F->xv[i];
	if (pass_xta(F, F->a, F->hv))
		return 1;
	for (i = 0; i < F->dim; i++)
		F->hv[i] += v[i];
	return 0;
}

/*
 * Preconditioned CG for Hess p = -g up to ||r|| <= eta ||g||, at most dim
 * steps; accumulates F->xp = X p.  Returns the number of CG steps, or -1
 * on a stop.
 */
static long
newton_direction(LogitFit *F, double gnorm, double eta)
{
	size_t		j,
				k,
				dim = F->dim;
	double		rs;

	memset(F->p, 0, dim * sizeof(double));
	memset(F->xp, 0, F->n * sizeof(double));
	for (j = 0; j < dim; j++)
	{
		F->r[j] = -F->g[j];
		F->s[j] = F->r[j] / F->M[j];
		F->v[j] = F->s[j];
	}
	rs = dot(F->r, F->s, dim);
	for (k = 0; k < dim; k++)
	{
		double		alpha,
					rs_next;

		if (hessian_times(F, F->v))
			return -1;
		/* v'Hv >= v'v > 0: Hess >= I */
		alpha = rs / dot(F->v, F->hv, dim);
		for (j = 0; j < dim; j++)
		{
			F->p[j] += alpha * F->v[j];
			F->r[j] -= alpha * F->hv[j];
		}
		for (j = 0; j < F->n; j++)
			F->xp[j] += alpha * F->xv[j];
		if (sqrt(dot(F->r, F->r, dim)) <= eta * gnorm)
			return (long) k + 1;
		for (j = 0; j < dim; j++)
			F->s[j] = F->r[j] / F->M[j];
		rs_next = dot(F->r, F->s, dim);
		for (j = 0; j < dim; j++)
			F->v[j] = F->s[j] + (rs_next / rs) * F->v[j];
		rs = rs_next;
	}
	return (long) dim;
}

/*
 * Backtracks from the full step along F->p: returns the accepted step t
 * (f(w + tp) <= f(w) + c t g'p) and its f in *fnew, or 0 when no halving
 * decreases f enough (w is then optimal to rounding).
 */
static double
line_search(const LogitFit *F, const double *w, double f, double *fnew)
{
	double		ww = dot(w, w, F->dim),
				wp = dot(w, F->p, F->dim),
				pp = dot(F->p, F->p, F->dim),
				gp = dot(F->g, F->p, F->dim),
				t = 1.0;
	int			h;

	for (h = 0; h < MAX_HALVINGS; h++, t *= 0.5)
	{
		*fnew = 0.5 * (ww + 2 * t * wp + t * t * pp) + loss_at(F, t);
		if (*fnew <= f + ARMIJO_C * t * gp)
			return t;
	}
	return 0.0;
}

/* ---------------------------------------------------------------------
 * Entry point
 * ---------------------------------------------------------------------
 */

/* the data's documented preconditions; counts the positive labels */
static tapas_status
check_data(const tapas_logit_data_t *X, double C, double tol, size_t *npos)
{
	size_t		i,
				k;

	if (X == NULL || X->n < 1 || X->d < 1 || X->y == NULL ||
		!(C > 0) || !isfinite(C) || !(tol > 0) || !isfinite(tol) ||
		!(X->bias >= 0) || !isfinite(X->bias))
		return TAPAS_EINVAL;
	*npos = 0;
	for (i = 0; i < X->n; i++)
	{
		if (X->y[i] != 0 && X->y[i] != 1)
			return TAPAS_EINVAL;
		*npos += (size_t) X->y[i];
	}
	if (X->X != NULL)
	{
		for (k = 0; k < X->n * X->d; k++)
			if (!isfinite(X->X[k]))
				return TAPAS_EINVAL;
		for (k = 0; k < X->d; k++)
			if ((X->shift && !isfinite(X->shift[k])) ||
				(X->scale && !isfinite(X->scale[k])))
				return TAPAS_EINVAL;
		return TAPAS_OK;
	}
	if (X->row_start == NULL || X->row_start[0] != 0 ||
		(X->row_start[X->n] > 0 && (X->col == NULL || X->val == NULL)))
		return TAPAS_EINVAL;
	for (i = 0; i < X->n; i++)
		if (X->row_start[i + 1] < X->row_start[i])
			return TAPAS_EINVAL;
	for (k = 0; k < X->row_start[X->n]; k++)
		if (X->col[k] >= X->d || !isfinite(X->val[k]))
			return TAPAS_EINVAL;
	return TAPAS_OK;
}

static void
fit_free(LogitFit *F)
{
	tapas_free(F->z);
	tapas_free(F->xp);
	tapas_free(F->xv);
	tapas_free(F->a);
	tapas_free(F->D);
	tapas_free(F->g);
	tapas_free(F->p);
	tapas_free(F->r);
	tapas_free(F->s);
	tapas_free(F->v);
	tapas_free(F->hv);
	tapas_free(F->M);
	tapas_free(F->u);
}

static int
fit_alloc(LogitFit *F)
{
	size_t		n = F->n,
				m = F->dim;

	F->z = tapas_calloc(n, sizeof(double));
	F->xp = tapas_malloc(n * sizeof(double));
	F->xv = tapas_malloc(n * sizeof(double));
	F->a = tapas_malloc(n * sizeof(double));
	F->D = tapas_malloc(n * sizeof(double));
	F->g = tapas_malloc(m * sizeof(double));
	F->p = tapas_malloc(m * sizeof(double));
	F->r = tapas_malloc(m * sizeof(double));
	F->s = tapas_malloc(m * sizeof(double));
	F->v = tapas_malloc(m * sizeof(double));
	F->hv = tapas_malloc(m * sizeof(double));
	F->M = tapas_malloc(m * sizeof(double));
	F->u = tapas_malloc(F->d * sizeof(double));
	return F->z && F->xp && F->xv && F->a && F->D && F->g && F->p && F->r &&
		F->s && F->v && F->hv && F->M && F->u;
}

tapas_status
tapas_logit_fit(double *w, const tapas_logit_data_t *data, double C,
				double tol, tapas_logit_info_t *info,
				const tapas_progress_t *progress)
{
	LogitFit	F;
	tapas_logit_info_t res;
	size_t		npos,
				small,
				j;
	double		f,
				goal;
	tapas_status st = check_data(data, C, tol, &npos);

	memset(&res, 0, sizeof(res));
	if (st != TAPAS_OK)
		return st;
	memset(&F, 0, sizeof(F));
	F.data = data;
	F.progress = progress;
	F.n = data->n;
	F.d = data->d;
	F.dim = data->d + (data->bias > 0 ? 1 : 0);
	F.C = C;
	if (!fit_alloc(&F))
	{
		fit_free(&F);
		return TAPAS_ENOMEM;
	}
	memset(w, 0, F.dim * sizeof(double));
	f = C * (double) F.n * log(2.0);	/* f(0) */
	small = npos < F.n - npos ? npos : F.n - npos;
	st = TAPAS_ECANCELED;
	if (tapas_progress_poll(progress, 0.0) || gradient(&F, w))
		goto done;
	res.gnorm0 = res.gnorm = sqrt(dot(F.g, F.g, F.dim));
	/* liblinear's L2R_LR rule (train_one, primal_solver_tol) */
	goal = tol * (double) (small > 1 ? small : 1) / (double) F.n * res.gnorm0;
	while (res.gnorm > goal && res.newton < TAPAS_LOGIT_MAX_NEWTON)
	{
		double		eta = fmin(0.5, sqrt(res.gnorm / res.gnorm0)),
					fnew = f,
					t;
		long		steps;

		if (tapas_progress_poll(progress, -1.0) || pass_diag(&F) ||
			(steps = newton_direction(&F, res.gnorm, eta)) < 0)
			goto done;
		res.cg += steps;
		res.newton++;
		if ((t = line_search(&F, w, f, &fnew)) == 0)
			break;				/* no decrease left: optimal to rounding */
		for (j = 0; j < F.dim; j++)
			w[j] += t * F.p[j];
		for (j = 0; j < F.n; j++)
			F.z[j] += t * F.xp[j];
		f = fnew;
		if (gradient(&F, w))
			goto done;
		res.gnorm = sqrt(dot(F.g, F.g, F.dim));
	}
	res.converged = res.gnorm <= goal;
	st = isfinite(res.gnorm) ? TAPAS_OK : TAPAS_ENUMERIC;
	if (st == TAPAS_OK && tapas_progress_poll(progress, 1.0))
		st = TAPAS_ECANCELED;
done:
	fit_free(&F);
	if (info)
		*info = res;
	return st;
}
