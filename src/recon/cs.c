/*-------------------------------------------------------------------------
 *
 * cs.c
 *	  The compressed-sensing front end: method choice, rounding of binary
 *	  x, and the consistency check of a decoded x against the answers.
 *
 * tapas_cs_recover runs one decoder (cs_omp.c, cs_nnls.c, cs_lp.c) or,
 * for TAPAS_CS_AUTO, a short portfolio (cs.h), then tapas_cs_check.  The
 * check rounds binary estimates at 1/2, recomputes A x and compares with
 * b: exact answers must be reproduced to 1e-6 (exactly, for rounded 0/1
 * x and integer answers, since sums of at most 2^53 ones are exact in
 * double); noisy answers (variance sigma^2 = 2 lambda^2 each) must leave
 * a mean squared residual below 2 lambda^2 (1 + 5 sqrt(5 / m)): for
 * Laplace noise E e^2 = 2 lambda^2 and Var e^2 = 20 lambda^4, so this is
 * the mean plus five standard errors of a mean of m terms (a Gaussian of
 * the same variance has a smaller Var e^2 = 8 lambda^4).
 *
 * IDENTIFICATION
 *	  src/recon/cs.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "recon/cs.h"

int
tapas_cs_method_from_name(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return TAPAS_CS_AUTO;
	if (strcmp(name, "omp") == 0)
		return TAPAS_CS_OMP;
	if (strcmp(name, "nnls") == 0)
		return TAPAS_CS_NNLS;
	if (strcmp(name, "lp") == 0)
		return TAPAS_CS_LP;
	if (strcmp(name, "bhtp") == 0)
		return TAPAS_CS_BHTP;
	return -1;
}

/* rounds x when binary; its support */
static int
check_round(double *x, size_t n, int binary)
{
	int			support = 0;

	for (size_t j = 0; j < n; j++)
	{
		if (binary)
			x[j] = x[j] >= 0.5 ? 1.0 : 0.0;
		support += x[j] != 0.0;
	}
	return support;
}

/* the report for y = A x against b (m answers) */
static void
check_report(const double *y, const double *b, size_t m, double noise_scale,
			 int binary, int support, tapas_cs_report *report)
{
	double		ss = 0.0,
				mx = 0.0,
				bmax = 0.0;
	size_t		i;

	for (i = 0; i < m; i++)
	{
		double		r = y[i] - b[i];

		ss += r * r;
		if (fabs(r) > mx)
			mx = fabs(r);
		if (fabs(b[i]) > bmax)
			bmax = fabs(b[i]);
	}
	report->support = support;
	report->residual_norm = sqrt(ss);
	report->max_residual = mx;
	if (noise_scale == 0.0)
		report->consistent = binary ? mx == 0.0 : mx <= 1e-6 * (1.0 + bmax);
	else
	{
		double		var = 2.0 * noise_scale * noise_scale;
		double		mm = (double) (m ? m : 1);

		report->consistent = ss / mm <= var * (1.0 + 5.0 * sqrt(5.0 / mm));
	}
}

tapas_status
tapas_cs_check(const tapas_binmat_t *A, const double *b, double noise_scale,
			   int binary, double *x, tapas_cs_report *report)
{
	double	   *y = tapas_malloc((A->m ? A->m : 1) * sizeof(double));
	int			support;

	if (y == NULL)
		return TAPAS_ENOMEM;
	support = check_round(x, A->n, binary);
	tapas_binmat_mul(A, x, y);
	check_report(y, b, A->m, noise_scale, binary, support, report);
	tapas_free(y);
	return TAPAS_OK;
}

tapas_status
tapas_cs_check_patterns(const tapas_binmat_colbytes_t *P, const double *b,
						double noise_scale, int binary, double *x,
						tapas_cs_report *report)
{
	double	   *y = tapas_calloc(P->m ? P->m : 1, sizeof(double));
	int			support;

	if (y == NULL)
		return TAPAS_ENOMEM;
	support = check_round(x, P->n, binary);
	for (size_t j = 0; j < P->n; j++)
		if (x[j] != 0.0)
			tapas_binmat_colbytes_add_column(P, j, x[j], y);
	check_report(y, b, P->m, noise_scale, binary, support, report);
	tapas_free(y);
	return TAPAS_OK;
}

/* Runs one decoder and checks its result. */
static tapas_status
cs_run(const tapas_binmat_t *A, const double *b, int s, double lambda,
	   tapas_cs_method method, int binary, double *x_out,
	   tapas_cs_report *report, const tapas_progress_t *progress)
{
	tapas_status st;
	int			its = 0;

	switch (method)
	{
		case TAPAS_CS_OMP:
			st = tapas_cs_omp(A, b, s, lambda, x_out, &its, progress);
			break;
		case TAPAS_CS_NNLS:
			st = tapas_cs_nnls(A, b, x_out, &its, progress);
			break;
		case TAPAS_CS_LP:
			st = tapas_cs_lp(A, b, lambda, binary, x_out, &its, progress);
			break;
		case TAPAS_CS_BHTP:
			st = tapas_cs_bhtp(A, b, s, x_out, &its, progress);
			break;
		default:
			return TAPAS_EINVAL;
	}
	report->method = method;
	report->iterations = its;
	if (st != TAPAS_OK)
		return st;
	return tapas_cs_check(A, b, lambda, binary, x_out, report);
}

/* AUTO: the portfolio described in cs.h. */
static tapas_status
cs_auto(const tapas_binmat_t *A, const double *b, int s, double lambda,
		int binary, double *x_out, tapas_cs_report *report,
		const tapas_progress_t *progress)
{
	int			lp_ok = (double) A->m * (double) A->n <= TAPAS_CS_LP_AUTO_LIMIT;
	tapas_status st;
	double	   *x2;
	tapas_cs_report r2;

	st = cs_run(A, b, s, lambda, TAPAS_CS_OMP, binary, x_out, report, progress);
	if (st != TAPAS_OK || report->consistent || !lp_ok)
		return st;
	/* OMP's answer does not fit: try the LP, keep it if it fits */
	if ((x2 = tapas_malloc(A->n * sizeof(double))) == NULL)
		return TAPAS_ENOMEM;
	memset(&r2, 0, sizeof(r2));
	st = cs_run(A, b, s, lambda, TAPAS_CS_LP, binary, x2, &r2, progress);
	if (st == TAPAS_OK && r2.consistent)
	{
		memcpy(x_out, x2, A->n * sizeof(double));
		*report = r2;
	}
	tapas_free(x2);
	return st == TAPAS_ENUMERIC ? TAPAS_OK : st;
}

tapas_status
tapas_cs_recover(const tapas_binmat_t *A, const double *b, int s,
				 double noise_scale, tapas_cs_method method, int binary,
				 double *x_out, tapas_cs_report *report,
				 const tapas_progress_t *progress)
{
	tapas_cs_report local;
	tapas_status st;
	size_t		i;

	if (report == NULL)
		report = &local;
	memset(report, 0, sizeof(*report));
	if (A->n > 0)
		memset(x_out, 0, A->n * sizeof(double));
	if (A->m == 0 || A->n == 0 || s < 1 || !isfinite(noise_scale) ||
		noise_scale < 0.0 || (int) method < TAPAS_CS_AUTO ||
		(int) method > TAPAS_CS_BHTP)
		return TAPAS_EINVAL;
	for (i = 0; i < A->m; i++)
		if (!isfinite(b[i]))
			return TAPAS_EINVAL;
	if (method == TAPAS_CS_AUTO)
		st = cs_auto(A, b, s, noise_scale, binary, x_out, report, progress);
	else
		st = cs_run(A, b, s, noise_scale, method, binary, x_out, report,
					progress);
	if (st != TAPAS_OK)
	{
		memset(x_out, 0, A->n * sizeof(double));
		report->consistent = 0;
	}
	return st;
}
