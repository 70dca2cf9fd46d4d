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
 * The progress callback may cancel between rows of the loading and, from
 * GLPK's terminal hook (which prints nothing), every 100 ms of the simplex;
 * the longest stretch without a poll is GLPK's set-up of the simplex, 0.5 s
 * at 4 million entries.  A
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
#define LP_POLL_MS	100		/* the simplex reports (and polls) this often */

static jmp_buf lp_jump;
static const tapas_progress_t *lp_progress;	/* of the running tapas_cs_lp */

static void
lp_error_hook(void *info)
{
	longjmp(lp_jump, 1);
}

/*
 * Loads the LP above into lp a row at a time, so that a cancel acts
 * between rows of a big matrix (one glp_load_matrix of 4 million entries
 * takes 0.3 s, measured).  TAPAS_ENOMEM when memory is short,
 * TAPAS_ECANCELED.
 */
static tapas_status
lp_build(glp_prob *lp, const tapas_binmat_t *A, const double *b,
		 int binary, double mu, const tapas_progress_t *progress)
{
	size_t		i,
				w;
	int			m = (int) A->m,
				n = (int) A->n,
				k,
				j;
	int		   *ind = tapas_malloc(((size_t) n + 4) * sizeof(int));
	double	   *val = tapas_malloc(((size_t) n + 4) * sizeof(double));

	if (!ind || !val)
	{
		tapas_free(ind);
		tapas_free(val);
		return TAPAS_ENOMEM;
	}
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_rows(lp, m);
	glp_add_cols(lp, n + 2 * m + 1);
	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);

		if (tapas_progress_poll(progress, -1.0))
			break;
		k = 0;
		for (w = 0; w < A->words; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				ind[++k] = (int) (w * 64 + (size_t) __builtin_ctzll(bits)) + 1;
				val[k] = 1.0;
				bits &= bits - 1;
			}
		}
		ind[++k] = n + 2 * (int) i + 1;	/* ep_i */
		val[k] = 1.0;
		ind[++k] = n + 2 * (int) i + 2;	/* em_i */
		val[k] = -1.0;
		ind[++k] = n + 2 * m + 1;	/* intercept */
		val[k] = 1.0;
		glp_set_mat_row(lp, (int) i + 1, k, ind, val);
		glp_set_row_bnds(lp, (int) i + 1, GLP_FX, b[i], b[i]);
	}
	tapas_free(ind);
	tapas_free(val);
	if (i < A->m)
		return TAPAS_ECANCELED;
	for (j = 1; j <= n; j++)
	{
		if (binary)
			glp_set_col_bnds(lp, j, GLP_DB, 0.0, 1.0);
		else
			glp_set_col_bnds(lp, j, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, j, mu);
	}
	for (j = n + 1; j <= n + 2 * m; j++)
	{
		glp_set_col_bnds(lp, j, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, j, 1.0);
	}
	glp_set_col_bnds(lp, n + 2 * m + 1, GLP_FX, 0.0, 0.0);
	return TAPAS_OK;
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

/*
 * GLPK's terminal hook, called with every line the simplex prints: the
 * solver prints its progress every LP_POLL_MS, and the hook polls the
 * caller's progress callback there.  A cancel longjmps out of the solver
 * (as the error hook does); tapas_cs_lp then frees GLPK's environment.
 * (A simplex run in chunks of iterations, polled between them, repeats
 * GLPK's set-up each time: 0.5 s per chunk at 4 million entries.)
 */

static int
lp_term_hook(void *info, const char *s)
{
	if (tapas_progress_poll(lp_progress, -1.0))
		longjmp(lp_jump, 2);
	return 1;					/* nothing reaches the terminal */
}

/* Runs the simplex, polling for a cancel; TAPAS_OK when optimal. */
static tapas_status
lp_solve(glp_prob *lp, int *iterations)
{
	glp_smcp	parm;
	int			ret;

	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_ON;
	parm.out_frq = LP_POLL_MS;
	parm.out_dly = 0;
	parm.meth = GLP_PRIMAL;
	parm.presolve = GLP_OFF;
	glp_term_hook(lp_term_hook, NULL);
	glp_term_out(GLP_ON);
	ret = glp_simplex(lp, &parm);
	glp_term_out(GLP_OFF);
	glp_term_hook(NULL, NULL);
	*iterations = glp_get_it_cnt(lp);
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
	int			its = 0,
				jumped;
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
	if ((jumped = setjmp(lp_jump)) != 0)
	{
		/* GLPK failed or was cancelled inside: its memory goes with its environment */
		glp_term_out(GLP_OFF);
		glp_term_hook(NULL, NULL);
		glp_error_hook(NULL, NULL);
		glp_free_env();
		memset(x_out, 0, A->n * sizeof(double));
		return jumped == 2 ? TAPAS_ECANCELED : TAPAS_ENUMERIC;
	}
	mu = noise_scale > 0.0 ?
		0.5 * sqrt((double) A->m * log(A->n > 2 ? (double) A->n : 2.0)) : LP_MU_EXACT;
	lp_progress = progress;
	lp = glp_create_prob();
	st = lp_build(lp, A, b, binary, mu, progress);
	if (st == TAPAS_OK)
	{
		lp_start_basis(lp, A, b);
		if (noise_scale > 0.0)
		{
			/* the free intercept of the noisy form */
			glp_set_col_bnds(lp, (int) (A->n + 2 * A->m + 1), GLP_FR, 0.0, 0.0);
			glp_set_col_stat(lp, (int) (A->n + 2 * A->m + 1), GLP_NF);
		}
		st = lp_solve(lp, &its);
	}
	if (st == TAPAS_OK)
		for (j = 0; j < A->n; j++)
		{
			double		v = glp_get_col_prim(lp, (int) j + 1);

			x_out[j] = v > 0.0 ? v : 0.0;
		}
	glp_delete_prob(lp);
	glp_error_hook(NULL, NULL);
	if (st == TAPAS_OK && noise_scale > 0.0)
		st = lp_debias(A, b, binary, x_out);
	if (iterations)
		*iterations = its;
	return st;
}
