/*-------------------------------------------------------------------------
 *
 * cs.h
 *	  Compressed sensing: sparse recovery of x in R^n from answers
 *	  b = A x + e to the 0/1 queries of an m x n binary matrix A.
 *
 * Notation: n records, m queries,
 * A in {0,1}^{m x n}, x the sensitive values (often binary and s-sparse),
 * e the noise on the answers (zero for exact COUNT/SUM answers, Laplace or
 * Gaussian otherwise), lambda = noise_scale.
 *
 * Decoders:
 *	OMP		orthogonal matching pursuit (Tropp and Gilbert, IEEE TIT 53(12),
 *			2007) on the centred design: the constant vector 1 is projected
 *			out of every column and of b (equivalently, an intercept is
 *			fitted), which turns Bernoulli(1/2) 0/1 columns, mutually
 *			correlated at 1/2, into nearly orthogonal +-1/2 columns as the
 *			total-count centring of research section 4.1 does, and also
 *			absorbs noise on a total query.  The least-squares fit is kept
 *			by an incremental QR (classical Gram-Schmidt with one
 *			re-orthogonalisation, BLAS dgemv), O(m k) per added column.
 *			Stops after s columns; for exact answers when the residual
 *			vanishes; for noisy answers (variance 2 lambda^2 each) when no
 *			column's normalised correlation with the residual stands above
 *			the noise, max_j (a_j^T r)^2 / ||a_j||^2 < 4 lambda^2 ln n.
 *	NNLS	non-negative least squares, Lawson and Hanson's active-set
 *			method ("Solving least squares problems", 1974, ch. 23), the
 *			passive-set least squares by LAPACK dgels.  Recovers sparse
 *			non-negative x below the simplex threshold when A's row span
 *			contains a positive vector (Slawski and Hein 2013).
 *	LP		l1 decoding with a box (Dwork, McSherry and Talwar, STOC 2007):
 *			minimise ||A x - b||_1 + mu 1^T x over 0 <= x <= 1 (binary) or
 *			x >= 0, by GLPK's simplex (mu = 1e-3 for exact answers, a
 *			tie-break; sqrt(m ln n) for noisy ones, see cs_lp.c); robust to Laplace noise and to a
 *			fraction of arbitrarily wrong answers; needs fewer queries than
 *			OMP for sparse binary x.
 *	BHTP	binary hard-thresholding pursuit (cs_bhtp.c): iterative hard
 *			thresholding onto s-sparse 0/1 vectors, one product A^T r per
 *			step whatever s, for exact answers and binary x; the decoder
 *			for hundreds of positives among 10^5 records, where OMP's s
 *			steps are too slow.  Not part of AUTO.
 *	AUTO	OMP, then the LP if OMP's result is inconsistent with b and the
 *			problem is small enough for the simplex (m * n <=
 *			TAPAS_CS_LP_AUTO_LIMIT); the LP's result replaces OMP's only if
 *			it is consistent.  OMP goes first for noisy answers too: it is
 *			the more reliable of the two for sparse binary x under noise
 *			(test/bench/b-cs.c: 20/20 against 18/20 at n = 2000, s = 5,
 *			m = 400, lambda = 1).
 *
 * With binary != 0, x is known to be 0/1: the estimate is rounded at 1/2.
 * Consistency (report->consistent): for exact answers (noise_scale == 0)
 * x_out must reproduce every answer, max_i |(A x_out)_i - b_i| <= 1e-6
 * (after rounding when binary, so it is then an exact integer check); for
 * noisy answers the mean squared residual must be within what the noise
 * allows: mean r_i^2 <= 2 lambda^2 (1 + 5 sqrt(5 / m)), a bound exceeded
 * with probability below 1e-6 for Laplace or Gaussian noise of that
 * variance (it is 5 standard errors of the mean of e_i^2).
 *
 * IDENTIFICATION
 *	  src/recon/cs.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_CS_H
#define TAPAS_CS_H

#include "util/progress.h"
#include "util/status.h"
#include "recon/binmat.h"

/* m * n above which AUTO does not fall back to the LP */
#define TAPAS_CS_LP_AUTO_LIMIT	4000000.0

typedef enum tapas_cs_method
{
	TAPAS_CS_AUTO = 0,
	TAPAS_CS_OMP,
	TAPAS_CS_NNLS,
	TAPAS_CS_LP,
	TAPAS_CS_BHTP
} tapas_cs_method;

typedef struct tapas_cs_report
{
	tapas_cs_method method;		/* the decoder whose result is in x_out */
	int			iterations;		/* OMP columns added, NNLS outer steps, or
								 * simplex iterations */
	int			support;		/* number of nonzero x_out[j] */
	double		residual_norm;	/* ||A x_out - b||_2 */
	double		max_residual;	/* max_i |(A x_out - b)_i| */
	int			consistent;		/* 1 if x_out is consistent with b (above) */
} tapas_cs_report;

/*
 * Recovers x (n entries, caller's array) from b (m entries) = A x + e.
 *
 * s >= 1 is the sparsity bound: OMP adds at most s columns (NNLS and LP
 * ignore it, except that AUTO uses it); noise_scale >= 0 is lambda (0 for
 * exact answers; a Gaussian of standard deviation sigma corresponds to
 * lambda = sigma / sqrt(2)).  binary != 0 rounds x_out to 0/1.  report may
 * be NULL; progress may be NULL.
 *
 * Returns TAPAS_OK when x_out holds the estimate (even if inconsistent:
 * look at report->consistent); TAPAS_EINVAL for s < 1, negative or
 * non-finite noise_scale, non-finite b, an unknown method, or m or n = 0;
 * TAPAS_ENOMEM; TAPAS_ECANCELED; TAPAS_ENUMERIC when LAPACK or GLPK fail.
 * x_out is all zero on any error.
 */
extern tapas_status tapas_cs_recover(const tapas_binmat_t *A, const double *b,
									 int s, double noise_scale,
									 tapas_cs_method method, int binary,
									 double *x_out, tapas_cs_report *report,
									 const tapas_progress_t *progress);

/*
 * The individual decoders, same contract as tapas_cs_recover (without the
 * rounding and the consistency report, which tapas_cs_recover adds).
 * *iterations (may be NULL) receives the iteration count.
 */
extern tapas_status tapas_cs_omp(const tapas_binmat_t *A, const double *b,
								 int s, double noise_scale, double *x_out,
								 int *iterations,
								 const tapas_progress_t *progress);

/*
 * OMP with A's column patterns given (tapas_binmat_colbytes_create or a
 * cache kept up to date by tapas_binmat_colbytes_update; P->m and P->n
 * must be A's, else TAPAS_EINVAL): the same result as tapas_cs_omp
 * without building them.  P's scratch tables are used.
 */
extern tapas_status tapas_cs_omp_patterns(const tapas_binmat_t *A,
										  tapas_binmat_colbytes_t *P,
										  const double *b, int s,
										  double noise_scale, double *x_out,
										  int *iterations,
										  const tapas_progress_t *progress);

/* OMP that re-solves the full least squares (dgels) at each step: the
 * baseline of the benchmark; same results up to rounding. */
extern tapas_status tapas_cs_omp_resolve(const tapas_binmat_t *A,
										 const double *b, int s,
										 double noise_scale, double *x_out,
										 int *iterations,
										 const tapas_progress_t *progress);

extern tapas_status tapas_cs_nnls(const tapas_binmat_t *A, const double *b,
								  double *x_out, int *iterations,
								  const tapas_progress_t *progress);

extern tapas_status tapas_cs_lp(const tapas_binmat_t *A, const double *b,
								double noise_scale, int binary, double *x_out,
								int *iterations,
								const tapas_progress_t *progress);

/*
 * Binary hard-thresholding pursuit (cs_bhtp.c) for exact answers: x_out
 * is a 0/1 vector of weight s (at most s when fewer columns are usable);
 * look at tapas_cs_check for consistency.  The _patterns form takes A's
 * column patterns, so that several right-hand sides share them (P's
 * scratch tables are used: not thread-safe on one P).
 */
extern tapas_status tapas_cs_bhtp(const tapas_binmat_t *A, const double *b,
								  int s, double *x_out, int *iterations,
								  const tapas_progress_t *progress);
extern tapas_status tapas_cs_bhtp_patterns(tapas_binmat_colbytes_t *P,
										   const double *b, int s,
										   double *x_out, int *iterations,
										   const tapas_progress_t *progress);

/*
 * A simulated trial of BHTP (the audit's, audit/simulated.c): the decoder
 * on b = A target, stopped as soon as its support holds need positives of
 * target (0/1, n entries; *found then >= need), or after max_steps steps
 * (at most 100, the decoder's own bound), or when it converges; *found =
 * the positives of target in the final support.  target NULL: no early
 * stop (tapas_cs_bhtp_patterns is max_steps = 100).  TAPAS_EINVAL for
 * max_steps outside 0..100 or need < 1 with a target.
 */
#define TAPAS_CS_BHTP_MAX_STEPS	100
extern tapas_status tapas_cs_bhtp_trial(tapas_binmat_colbytes_t *P,
										const double *b, int s,
										const double *target, int need,
										int max_steps, double *x_out,
										int *iterations, int *found,
										const tapas_progress_t *progress);
/*
 * The same trial with the products and column updates from the families
 * of A's disjoint rows (binmat_families.h; built from the A that P was
 * built from, same m and n, else TAPAS_EINVAL): the same result for
 * integer b, faster for GROUP BY crossings.  FA NULL: tapas_cs_bhtp_trial.
 */
struct tapas_binmat_families;
extern tapas_status tapas_cs_bhtp_trial_families(tapas_binmat_colbytes_t *P,
												 struct tapas_binmat_families *FA,
												 const double *b, int s,
												 const double *target, int need,
												 int max_steps, double *x_out,
												 int *iterations, int *found,
												 const tapas_progress_t *progress);

/*
 * Fills report for a candidate x (rounding it first when binary) against
 * b with noise scale lambda: support, residuals and consistency as
 * defined above.  Returns TAPAS_ENOMEM or TAPAS_OK.
 */
extern tapas_status tapas_cs_check(const tapas_binmat_t *A, const double *b,
								   double noise_scale, int binary, double *x,
								   tapas_cs_report *report);

/*
 * tapas_cs_check from A's column patterns: A x over the nonzero entries of
 * x only (O(groups) each), for a sparse x far cheaper than the m n / 2 of
 * tapas_cs_check.  The same report.
 */
extern tapas_status tapas_cs_check_patterns(const tapas_binmat_colbytes_t *P,
											const double *b, double noise_scale,
											int binary, double *x,
											tapas_cs_report *report);

/* "omp", "nnls", "lp", "bhtp", "auto" -> method; returns -1 for other names. */
extern int	tapas_cs_method_from_name(const char *name);

#endif							/* TAPAS_CS_H */
