/*-------------------------------------------------------------------------
 *
 * cs_omp.c
 *	  Orthogonal matching pursuit on a packed binary query matrix, with an
 *	  incremental QR factorisation of the chosen columns.
 *
 * OMP (Tropp and Gilbert, IEEE TIT 53(12), 2007) grows a support S one
 * column at a time: the column most correlated with the residual r,
 * argmax_j |a_j^T r| / ||a_j||, joins S, and r becomes b minus its
 * least-squares projection onto the columns of S.
 *
 * Centring.  Bernoulli(1/2) 0/1 columns have pairwise correlation 1/2,
 * which blinds the correlation step.  When the design is dense (mean
 * density in [0.2, 0.8], m >= 8) the constant vector 1 is made the first
 * column of the factorisation, i.e. an intercept is fitted: every later
 * column is orthogonalised against it, so the selection sees the centred
 * columns a_j - mean(a_j) 1 (+-1/2 entries, nearly orthogonal) and the
 * centred answers, as centring by the total count would, but without
 * needing an exact total.  Since r is then
 * orthogonal to 1, a_j^T r equals the centred column's product, and the
 * selection divides by the centred norm sqrt(c_j - c_j^2 / m) (c_j = the
 * column's count).  The fitted intercept is dropped from x.
 *
 * Incremental QR.  Q (m x k, orthonormal columns) and R (k x k, upper
 * triangular) factor the chosen columns.  A new column v is
 * orthogonalised by classical Gram-Schmidt run twice (h = Q^T v,
 * v -= Q h, twice; "twice is enough", Giraud et al., Numer. Math. 2005),
 * two dgemv calls each, O(m k); R gains the column (h, ||v||), and the
 * residual is updated by r -= q (q^T r).  A column whose orthogonal part
 * is below 1e-10 of its norm is linearly dependent on S and is skipped.
 * The coefficients come from R x = Q^T b (dtrsv) once, at the end.
 * Correlations A^T r use the column patterns of binmat.c (groups * n
 * table additions).  Total cost O(m n / 8 per step + m s^2).
 *
 * Stopping.  After s columns; for exact answers (lambda = 0) as soon as
 * ||r|| <= 1e-9 (1 + ||b||); for noisy answers (per-answer variance
 * sigma^2 = 2 lambda^2) when no column's normalised correlation stands
 * above the noise: max_j (a_j^T r)^2 / ||a_j||^2 < sigma^2 2 ln n, the
 * typical size of the largest of n noise-only correlations (the expected
 * maximum of n Gaussians is about sigma sqrt(2 ln n)).  The rule errs on
 * the side of going on: a column chosen from noise alone gets a small
 * coefficient, which rounding removes for binary x, whereas stopping
 * early loses a record.
 *
 * tapas_cs_omp_resolve is the textbook variant that re-solves the whole
 * least-squares problem (LAPACK dgels on the dense m x k matrix) at every
 * step, O(m k^2) per step; the benchmark measures it as the baseline.
 *
 * IDENTIFICATION
 *	  src/recon/cs_omp.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "util/memory.h"
#include "recon/cs.h"

typedef struct omp_work
{
	const tapas_binmat_t *A;
	tapas_binmat_colbytes_t *P; /* column patterns for A^T r */
	int			own_P;			/* P was built here (else the caller's) */
	size_t		m;
	size_t		n;
	int			kmax;			/* s, plus one for the intercept */
	int			k;				/* columns factored so far */
	int			centre;			/* 1 if the intercept is column 0 */
	double	   *Q;				/* m x kmax, column-major */
	double	   *R;				/* kmax x kmax, upper triangular */
	double	   *qtb;			/* Q^T b, kmax */
	double	   *r;				/* residual, m */
	double	   *z;				/* correlations A^T r, n */
	double	   *norm;			/* selection norm per column, 0 = excluded */
	double	   *v;				/* scratch column, m */
	double	   *h;				/* scratch coefficients, kmax */
	long	   *cols;			/* column of A per factor column, -1 = 1 */
} omp_work;

static void
omp_free(omp_work *w)
{
	if (w->own_P)
		tapas_binmat_colbytes_free(w->P);
	tapas_free(w->Q);
	tapas_free(w->R);
	tapas_free(w->qtb);
	tapas_free(w->r);
	tapas_free(w->z);
	tapas_free(w->norm);
	tapas_free(w->v);
	tapas_free(w->h);
	tapas_free(w->cols);
}

/* Allocates the work space and the selection norms; decides centring. */
static tapas_status
omp_init(omp_work *w, const tapas_binmat_t *A, tapas_binmat_colbytes_t *P,
		 int s, const double *b)
{
	size_t	   *counts;
	size_t		j;
	double		total = 0.0,
				mm = (double) A->m;

	memset(w, 0, sizeof(*w));
	w->A = A;
	w->m = A->m;
	w->n = A->n;
	w->kmax = s + 1;
	w->own_P = P == NULL;
	w->P = P != NULL ? P : tapas_binmat_colbytes_create(A);
	w->Q = tapas_calloc(w->m * (size_t) w->kmax, sizeof(double));
	w->R = tapas_calloc((size_t) w->kmax * w->kmax, sizeof(double));
	w->qtb = tapas_calloc(w->kmax, sizeof(double));
	w->r = tapas_malloc(w->m * sizeof(double));
	w->z = tapas_malloc(w->n * sizeof(double));
	w->norm = tapas_malloc(w->n * sizeof(double));
	w->v = tapas_malloc(w->m * sizeof(double));
	w->h = tapas_malloc(w->kmax * sizeof(double));
	w->cols = tapas_malloc(w->kmax * sizeof(long));
	counts = tapas_malloc(w->n * sizeof(size_t));
	if (!w->P || !w->Q || !w->R || !w->qtb || !w->r || !w->z || !w->norm ||
		!w->v || !w->h || !w->cols || !counts)
	{
		tapas_free(counts);
		omp_free(w);
		return TAPAS_ENOMEM;
	}
	tapas_binmat_colbytes_weights(w->P, counts);
	for (j = 0; j < w->n; j++)
		total += (double) counts[j];
	total /= mm * (double) w->n;
	w->centre = w->m >= 8 && total >= 0.2 && total <= 0.8;
	for (j = 0; j < w->n; j++)
	{
		double		c = (double) counts[j];
		double		nn = w->centre ? c - c * c / mm : c;

		/* a column equal to 0 (or to 1 when centred) cannot be chosen */
		w->norm[j] = nn > 1e-9 ? sqrt(nn) : 0.0;
	}
	tapas_free(counts);
	memcpy(w->r, b, w->m * sizeof(double));
	return TAPAS_OK;
}

/*
 * Appends column v (overwritten) to Q R by Gram-Schmidt twice; returns 0
 * (and changes nothing) if v depends on the current columns.
 */
static int
omp_append(omp_work *w, double *v, long col, const double *b)
{
	int			m = (int) w->m,
				k = w->k,
				pass,
				i;
	double		vnorm = cblas_dnrm2(m, v, 1),
				nrm,
				proj;
	double	   *q = w->Q + (size_t) k * w->m;
	double	   *Rk = w->R + (size_t) k * w->kmax;

	for (i = 0; i < k; i++)
		Rk[i] = 0.0;
	for (pass = 0; pass < 2 && k > 0; pass++)
	{
		cblas_dgemv(CblasColMajor, CblasTrans, m, k, 1.0, w->Q, m, v, 1,
					0.0, w->h, 1);
		cblas_dgemv(CblasColMajor, CblasNoTrans, m, k, -1.0, w->Q, m, w->h, 1,
					1.0, v, 1);
		cblas_daxpy(k, 1.0, w->h, 1, Rk, 1);
	}
	nrm = cblas_dnrm2(m, v, 1);
	if (!(nrm > 1e-10 * vnorm))
		return 0;
	for (i = 0; i < m; i++)
		q[i] = v[i] / nrm;
	Rk[k] = nrm;
	w->qtb[k] = cblas_ddot(m, q, 1, b, 1);
	proj = cblas_ddot(m, q, 1, w->r, 1);
	cblas_daxpy(m, -proj, q, 1, w->r, 1);
	w->cols[k] = col;
	w->k++;
	return 1;
}

/*
 * The next column to add, or -1 when none qualifies (all excluded, or no
 * correlation above the noise level thr2 = threshold on the squared
 * normalised correlation).
 */
static long
omp_select(omp_work *w, double thr2)
{
	size_t		j;
	long		best = -1;
	double		bestv = 0.0;

	tapas_binmat_colbytes_mul_t(w->P, w->r, w->z);
	for (j = 0; j < w->n; j++)
	{
		double		c;

		if (w->norm[j] == 0.0)
			continue;
		c = fabs(w->z[j]) / w->norm[j];
		if (c > bestv)
		{
			bestv = c;
			best = (long) j;
		}
	}
	if (best >= 0 && bestv * bestv < thr2)
		return -1;
	return best;
}

/* squared-correlation threshold of the stopping rule (see the banner) */
static double
omp_threshold(const omp_work *w, double lambda, const double *b)
{
	double		bn = cblas_dnrm2((int) w->m, b, 1);

	if (lambda > 0.0)
		return 2.0 * lambda * lambda * 2.0 * log(w->n > 2 ? (double) w->n : 2.0);
	/* exact answers: anything above rounding noise */
	return 1e-24 * (1.0 + bn * bn);
}

static int
omp_residual_small(const omp_work *w, double lambda, double bnorm)
{
	return lambda == 0.0 &&
		cblas_dnrm2((int) w->m, w->r, 1) <= 1e-9 * (1.0 + bnorm);
}

/* x_out from R c = Q^T b; the intercept (cols = -1) is dropped */
static void
omp_coefficients(omp_work *w, double *x_out)
{
	int			t;

	memset(x_out, 0, w->n * sizeof(double));
	if (w->k == 0)
		return;
	memcpy(w->h, w->qtb, (size_t) w->k * sizeof(double));
	cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, w->k,
				w->R, w->kmax, w->h, 1);
	for (t = 0; t < w->k; t++)
		if (w->cols[t] >= 0)
			x_out[w->cols[t]] = w->h[t];
}

/* Re-solves min ||[1] A_S c - b|| by dgels; r = b - fit.  Baseline. */
static tapas_status
omp_resolve_step(omp_work *w, const double *b, long col)
{
	int			m = (int) w->m,
				k = w->k + 1,
				t,
				info;
	double	   *M = tapas_malloc((size_t) m * k * sizeof(double));
	double	   *M2 = tapas_malloc((size_t) m * k * sizeof(double));
	double	   *rhs = tapas_malloc((size_t) m * sizeof(double));

	if (!M || !M2 || !rhs)
	{
		tapas_free(M);
		tapas_free(M2);
		tapas_free(rhs);
		return TAPAS_ENOMEM;
	}
	w->cols[w->k] = col;
	for (t = 0; t < k; t++)
	{
		if (w->cols[t] < 0)
		{
			int			i;

			for (i = 0; i < m; i++)
				M[(size_t) t * m + i] = 1.0;
		}
		else
			tapas_binmat_column(w->A, (size_t) w->cols[t], M + (size_t) t * m);
	}
	memcpy(M2, M, (size_t) m * k * sizeof(double));
	memcpy(rhs, b, (size_t) m * sizeof(double));
	info = k <= m ? LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, k, 1, M2, m, rhs, m) : 1;
	if (info == 0)
	{
		/* r = b - M c; keep c in h (solution of the last step) */
		memcpy(w->r, b, (size_t) m * sizeof(double));
		cblas_dgemv(CblasColMajor, CblasNoTrans, m, k, -1.0, M, m, rhs, 1,
					1.0, w->r, 1);
		memcpy(w->h, rhs, (size_t) k * sizeof(double));
		w->k = k;
	}
	tapas_free(M);
	tapas_free(M2);
	tapas_free(rhs);
	return info < 0 ? TAPAS_ENUMERIC : TAPAS_OK;
}

/* The shared driver: incremental QR (resolve = 0) or full re-solve. */
static tapas_status
omp_run(const tapas_binmat_t *A, tapas_binmat_colbytes_t *P, const double *b,
		int s, double lambda, double *x_out, int *iterations,
		const tapas_progress_t *progress, int resolve)
{
	omp_work	w;
	tapas_status st;
	double		thr2,
				bnorm;
	int			steps = 0;

	if (A->m == 0 || A->n == 0 || s < 1 || !(lambda >= 0.0) || isinf(lambda) ||
		A->m > (size_t) 1 << 30)
		return TAPAS_EINVAL;
	memset(x_out, 0, A->n * sizeof(double));
	if (P != NULL && (P->m != A->m || P->n != A->n))
		return TAPAS_EINVAL;
	if ((st = omp_init(&w, A, P, s, b)) != TAPAS_OK)
		return st;
	thr2 = omp_threshold(&w, lambda, b);
	bnorm = cblas_dnrm2((int) w.m, b, 1);
	if (w.centre)
	{
		size_t		i;

		for (i = 0; i < w.m; i++)
			w.v[i] = 1.0;
		if (resolve)
			st = omp_resolve_step(&w, b, -1);
		else
			omp_append(&w, w.v, -1, b);
	}
	while (st == TAPAS_OK && steps < s && !omp_residual_small(&w, lambda, bnorm))
	{
		long		j;
		int			before = w.k;

		if (tapas_progress_poll(progress, (double) steps / s))
		{
			st = TAPAS_ECANCELED;
			break;
		}
		if ((j = omp_select(&w, thr2)) < 0)
			break;
		w.norm[j] = 0.0;		/* never again, chosen or dependent */
		if (resolve)
			st = omp_resolve_step(&w, b, j);
		else
		{
			tapas_binmat_column(A, (size_t) j, w.v);
			omp_append(&w, w.v, j, b);
		}
		if (w.k > before)
			steps++;
	}
	if (st == TAPAS_OK)
	{
		if (resolve)
		{
			int			t;

			memset(x_out, 0, w.n * sizeof(double));
			for (t = 0; t < w.k; t++)
				if (w.cols[t] >= 0)
					x_out[w.cols[t]] = w.h[t];
		}
		else
			omp_coefficients(&w, x_out);
	}
	if (iterations)
		*iterations = steps;
	omp_free(&w);
	return st;
}

tapas_status
tapas_cs_omp(const tapas_binmat_t *A, const double *b, int s,
			 double noise_scale, double *x_out, int *iterations,
			 const tapas_progress_t *progress)
{
	return omp_run(A, NULL, b, s, noise_scale, x_out, iterations, progress, 0);
}

tapas_status
tapas_cs_omp_patterns(const tapas_binmat_t *A, tapas_binmat_colbytes_t *P,
					  const double *b, int s, double noise_scale,
					  double *x_out, int *iterations,
					  const tapas_progress_t *progress)
{
	return omp_run(A, P, b, s, noise_scale, x_out, iterations, progress, 0);
}

tapas_status
tapas_cs_omp_resolve(const tapas_binmat_t *A, const double *b, int s,
					 double noise_scale, double *x_out, int *iterations,
					 const tapas_progress_t *progress)
{
	return omp_run(A, NULL, b, s, noise_scale, x_out, iterations, progress, 1);
}
