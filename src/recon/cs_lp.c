/*-------------------------------------------------------------------------
 *
 * cs_lp.c
 *	  Noise-robust l1 (LP) decoding with a box, by GLPK's simplex.
 *
 * Dwork, McSherry and Talwar ("The price of privacy and the limits of LP
 * decoding", STOC 2007) decode noisy or partly corrupted subset-sum
 * answers by minimising the l1 norm of the residual over the box; for
 * binary x the box 0 <= x <= 1 is the relaxation of {0,1}^n and, below
 * the binary phase transition, the LP has the true x as its unique
 * optimum (Donoho and Tanner, DCG 2010; research note section 4.1).  The
 * LP solved here is
 *
 *		min   sum_i (ep_i + em_i) + mu sum_j x_j
 *		s.t.  sum_j A[i][j] x_j + c + ep_i - em_i = b_i	(i = 1..m)
 *			  0 <= x_j <= 1 (binary) or x_j >= 0,  ep, em >= 0,
 *			  c = 0 for exact answers, c free for noisy ones
 *
 * ep_i - em_i is the residual of answer i; l1 is the likelihood of
 * Laplace noise.  The weight mu of the sparsity term depends on the noise:
 *
 *	exact answers: mu = 1e-3, a tie-break towards sparse x among the exact
 *	fits (l1 minimisation, basis pursuit; the residual always dominates).
 *	noisy answers: with m << n there are many box points that fit the
 *	noise exactly, so the sparsity term must outweigh what fitting noise
 *	gains.  At the true x the subgradient of the l1 loss in direction j
 *	is a_j^T sign(e), a sum of random signs whose maximum over the n
 *	(centred) columns is about sqrt(m ln n / 2); mu = sqrt(m ln n) / 2
 *	keeps nearly every wrong column at 0 (the LP form of the
 *	l1-regularised least absolute deviations estimator, Wang, Li and
 *	Jiang, JBES 2007).  A free intercept c (one more column of ones)
 *	absorbs the common level, as the centring of cs_omp.c does; without
 *	it the LP spreads mass over many columns that each cover half the
 *	rows.  The penalty shrinks the true values (to about 0.5 at m = 300,
 *	n = 2000, lambda = 1, measured), so the LP is used as a support
 *	selector and the values are refitted by least squares with the
 *	intercept on that support (debiasing, "relaxed lasso").
 *
 * The start basis is primal feasible by construction (x = 0 non-basic at
 * its lower bound, ep_i basic for b_i >= 0, em_i basic otherwise, the
 * fixed row variables non-basic), so the primal simplex needs no phase 1.
 * It runs in chunks of 2,000 iterations or 250 ms between which the progress
 * callback may cancel.  GLPK's terminal output is switched off, and a
 * GLPK error (glp_error: a misuse, never expected with valid input) is
 * caught by glp_error_hook, which longjmps back here; GLPK's environment
 * is then freed (glp_free_env), as its manual requires, and
 * TAPAS_ENUMERIC is returned.
 *
 * IDENTIFICATION
 *	  src/recon/cs_lp.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <setjmp.h>
#include <string.h>

#include <glpk.h>
#include <lapacke.h>

#include "util/memory.h"
#include "recon/cs.h"

#define LP_MU_EXACT	1e-3
#define LP_CHUNK	2000
#define LP_CHUNK_MS	250		/* and at most this long, so a cancel acts within it */

static jmp_buf lp_jump;

static void
lp_error_hook(void *info)
{
	longjmp(lp_jump, 1);
}

/* Loads the LP above into a new problem; NULL when memory is short. */
static glp_prob *
lp_build(const tapas_binmat_t *A, const double *b, int binary, double mu)
{
	size_t		nnz = 0,
				i,
				w,
				k = 1;
	int		   *ia,
			   *ja;
	double	   *ar;
	glp_prob   *lp;
	int			m = (int) A->m,
				n = (int) A->n;

	for (i = 0; i < A->m; i++)
		nnz += tapas_binmat_row_weight(A, i);
	nnz += 3 * A->m;
	ia = tapas_malloc((nnz + 1) * sizeof(int));
	ja = tapas_malloc((nnz + 1) * sizeof(int));
	ar = tapas_malloc((nnz + 1) * sizeof(double));
	if (!ia || !ja || !ar)
	{
		tapas_free(ia);
		tapas_free(ja);
		tapas_free(ar);
		return NULL;
	}
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_rows(lp, m);
	glp_add_cols(lp, n + 2 * m + 1);
	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);

		glp_set_row_bnds(lp, (int) i + 1, GLP_FX, b[i], b[i]);
		for (w = 0; w < A->words; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				ia[k] = (int) i + 1;
				ja[k] = (int) (w * 64 + (size_t) __builtin_ctzll(bits)) + 1;
				ar[k++] = 1.0;
				bits &= bits - 1;
			}
		}
		ia[k] = (int) i + 1;	/* ep_i */
		ja[k] = n + 2 * (int) i + 1;
		ar[k++] = 1.0;
		ia[k] = (int) i + 1;	/* em_i */
		ja[k] = n + 2 * (int) i + 2;
		ar[k++] = -1.0;
		ia[k] = (int) i + 1;	/* intercept */
		ja[k] = n + 2 * m + 1;
		ar[k++] = 1.0;
	}
	glp_load_matrix(lp, (int) nnz, ia, ja, ar);
	tapas_free(ia);
	tapas_free(ja);
	tapas_free(ar);
	for (i = 1; i <= A->n; i++)
	{
		if (binary)
			glp_set_col_bnds(lp, (int) i, GLP_DB, 0.0, 1.0);
		else
			glp_set_col_bnds(lp, (int) i, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, (int) i, mu);
	}
	for (i = (size_t) n + 1; i <= (size_t) n + 2 * A->m; i++)
	{
		glp_set_col_bnds(lp, (int) i, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, (int) i, 1.0);
	}
	glp_set_col_bnds(lp, n + 2 * m + 1, GLP_FX, 0.0, 0.0);
	return lp;
}

/* The feasible start basis described in the banner. */
static void
lp_start_basis(glp_prob *lp, const tapas_binmat_t *A, const double *b)
{
	int			i,
				j,
				n = (int) A->n;

	for (i = 1; i <= (int) A->m; i++)
	{
		int			pos = b[i - 1] >= 0.0;

		glp_set_row_stat(lp, i, GLP_NS);
		glp_set_col_stat(lp, n + 2 * i - 1, pos ? GLP_BS : GLP_NL);
		glp_set_col_stat(lp, n + 2 * i, pos ? GLP_NL : GLP_BS);
	}
	for (j = 1; j <= n; j++)
		glp_set_col_stat(lp, j, GLP_NL);
	glp_set_col_stat(lp, n + 2 * (int) A->m + 1, GLP_NS);
}

/* Runs the simplex in chunks; TAPAS_OK when optimal. */
static tapas_status
lp_solve(glp_prob *lp, int *iterations, const tapas_progress_t *progress)
{
	glp_smcp	parm;
	int			ret,
				before;

	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.meth = GLP_PRIMAL;
	parm.presolve = GLP_OFF;
	for (;;)
	{
		before = glp_get_it_cnt(lp);
		parm.it_lim = LP_CHUNK;
		/* a chunk also ends after LP_CHUNK_MS: iterations of a big LP take ms each */
		parm.tm_lim = LP_CHUNK_MS;
		ret = glp_simplex(lp, &parm);
		*iterations = glp_get_it_cnt(lp);
		if (ret != GLP_EITLIM && ret != GLP_ETMLIM)
			break;
		if (ret == GLP_EITLIM && *iterations == before)
			return TAPAS_ENUMERIC;
		if (tapas_progress_poll(progress, -1.0))
			return TAPAS_ECANCELED;
	}
	if (ret != 0 || glp_get_status(lp) != GLP_OPT)
		return TAPAS_ENUMERIC;
	return TAPAS_OK;
}

/*
 * Debiasing for noisy answers: least squares with an intercept on the
 * support the LP found (x_j > 1e-6), clipped to the box; x is left alone
 * when that support has more than m / 2 columns.
 */
static tapas_status
lp_debias(const tapas_binmat_t *A, const double *b, int binary, double *x)
{
	int			m = (int) A->m,
				k = 1,
				t,
				info;
	size_t		j;
	long	   *cols;
	double	   *M,
			   *rhs;

	for (j = 0; j < A->n; j++)
		k += x[j] > 1e-6;
	if (k - 1 > m / 2)
		return TAPAS_OK;
	cols = tapas_malloc((size_t) k * sizeof(long));
	M = tapas_malloc((size_t) m * k * sizeof(double));
	rhs = tapas_malloc((size_t) m * sizeof(double));
	if (!cols || !M || !rhs)
	{
		tapas_free(cols);
		tapas_free(M);
		tapas_free(rhs);
		return TAPAS_ENOMEM;
	}
	for (t = 0; t < m; t++)
		M[t] = 1.0;
	for (j = 0, t = 1; j < A->n; j++)
		if (x[j] > 1e-6)
		{
			cols[t] = (long) j;
			tapas_binmat_column(A, j, M + (size_t) t++ * m);
		}
	memcpy(rhs, b, (size_t) m * sizeof(double));
	info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, k, 1, M, m, rhs, m);
	if (info == 0)
		for (t = 1; t < k; t++)
		{
			double		v = rhs[t] < 0.0 ? 0.0 : rhs[t];

			x[cols[t]] = binary && v > 1.0 ? 1.0 : v;
		}
	tapas_free(cols);
	tapas_free(M);
	tapas_free(rhs);
	return info < 0 ? TAPAS_ENUMERIC : TAPAS_OK;
}

tapas_status
tapas_cs_lp(const tapas_binmat_t *A, const double *b, double noise_scale,
			int binary, double *x_out, int *iterations,
			const tapas_progress_t *progress)
{
	glp_prob   *volatile lp = NULL;
	volatile tapas_status st = TAPAS_OK;
	int			its = 0;
	double		mu;
	size_t		i,
				j;

	if (A->m == 0 || A->n == 0 || A->m > 100000000 ||
		A->n + 2 * A->m > 100000000)
		return TAPAS_EINVAL;
	for (i = 0; i < A->m; i++)
		if (!isfinite(b[i]))
			return TAPAS_EINVAL;
	memset(x_out, 0, A->n * sizeof(double));
	glp_term_out(GLP_OFF);
	glp_error_hook(lp_error_hook, NULL);
	if (setjmp(lp_jump) != 0)
	{
		/* GLPK failed inside: its memory is gone with its environment */
		glp_error_hook(NULL, NULL);
		glp_free_env();
		memset(x_out, 0, A->n * sizeof(double));
		return TAPAS_ENUMERIC;
	}
	mu = noise_scale > 0.0 ?
		0.5 * sqrt((double) A->m * log(A->n > 2 ? (double) A->n : 2.0)) : LP_MU_EXACT;
	lp = lp_build(A, b, binary, mu);
	if (lp == NULL)
		st = TAPAS_ENOMEM;
	else
	{
		lp_start_basis(lp, A, b);
		if (noise_scale > 0.0)
		{
			/* the free intercept of the noisy form */
			glp_set_col_bnds(lp, (int) (A->n + 2 * A->m + 1), GLP_FR, 0.0, 0.0);
			glp_set_col_stat(lp, (int) (A->n + 2 * A->m + 1), GLP_NF);
		}
		st = lp_solve(lp, &its, progress);
		if (st == TAPAS_OK)
			for (j = 0; j < A->n; j++)
			{
				double		v = glp_get_col_prim(lp, (int) j + 1);

				x_out[j] = v > 0.0 ? v : 0.0;
			}
		glp_delete_prob(lp);
	}
	glp_error_hook(NULL, NULL);
	if (st == TAPAS_OK && noise_scale > 0.0)
		st = lp_debias(A, b, binary, x_out);
	if (iterations)
		*iterations = its;
	return st;
}
