/*-------------------------------------------------------------------------
 *
 * logistic.h
 *	  Binary L2-regularised logistic regression, fit by a truncated
 *	  (conjugate-gradient) Newton method that can be cancelled.
 *
 * The objective is liblinear's L2R_LR primal (Fan et al. 2008, JMLR 9;
 * Lin, Weng and Keerthi 2008, JMLR 9):
 *
 *		f(w) = 1/2 w'w + C sum_i log(1 + exp(-y_i w'x_i)),	y_i in {-1, +1}
 *
 * where x_i holds the d features of row i and, when bias > 0, one more
 * feature of constant value bias (liblinear's bias term, regularised like
 * every other weight: liblinear 2.3 has no unregularised intercept).  The
 * 0/1 labels of the interface map to -1/+1.
 *
 * Features come either dense (X, n x d row-major, optionally standardised
 * on the fly as (X_ij - shift_j) * scale_j, so the caller needs no copy) or
 * sparse (compressed rows: row_start[n + 1] offsets into col and val).
 *
 * Stopping rule: ||grad f(w)|| <= tol * max(min(n+, n-), 1) / n *
 * ||grad f(0)||, liblinear's own rule for L2R_LR with eps = tol (n+ and n-
 * count the two labels).  f is 1-strongly convex (its Hessian is I + C X'DX
 * >= I), so the coefficients then lie within ||grad f(w)|| of the exact
 * minimiser.
 *
 * The fit polls the progress callback between Newton iterations and every
 * TAPAS_LOGIT_POLL_ROWS rows of every pass over the data (a pass is one
 * gradient or one Hessian-vector product), so a cancel acts within one
 * such block; the fit then frees everything and returns TAPAS_ECANCELED.
 *
 * IDENTIFICATION
 *	  src/attacks/logistic.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LOGISTIC_H
#define TAPAS_LOGISTIC_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"

/* rows between two polls inside a pass over the data */
#define TAPAS_LOGIT_POLL_ROWS		4096

/* Newton iterations before the fit gives up (liblinear: 1000) */
#define TAPAS_LOGIT_MAX_NEWTON		200

typedef struct tapas_logit_data
{
	size_t		n;				/* rows, >= 1 */
	size_t		d;				/* features, bias excluded, >= 1 */
	/* dense features, or NULL for sparse ones */
	const double *X;			/* n x d row-major */
	const double *shift;		/* d, or NULL (0): dense only */
	const double *scale;		/* d, or NULL (1): dense only */
	/* sparse features (X == NULL): row i is col/val[row_start[i] .. row_start[i + 1]) */
	const size_t *row_start;	/* n + 1, nondecreasing, row_start[0] == 0 */
	const uint32_t *col;		/* feature numbers < d */
	const double *val;
	const int  *y;				/* n labels, 0 or 1 (1 is the positive class) */
	double		bias;			/* > 0: constant feature of this value; 0: none */
} tapas_logit_data_t;

typedef struct tapas_logit_info
{
	int			newton;			/* Newton iterations done */
	long		cg;				/* conjugate-gradient iterations, in all */
	double		gnorm0;			/* ||grad f(0)|| */
	double		gnorm;			/* ||grad f(w)|| at the returned w */
	int			converged;		/* the stopping rule held (else MAX_NEWTON was hit) */
} tapas_logit_info_t;

/*
 * Minimises f (above) with cost C > 0 and tolerance tol > 0 (tapas uses
 * 1e-4, scikit-learn's default tol) into w[d + (bias > 0)], the bias weight
 * last.  Returns TAPAS_OK (also when MAX_NEWTON iterations did not meet the
 * rule: see info->converged), TAPAS_EINVAL (no rows, no features, a label
 * other than 0/1, a non-finite value or parameter, a sparse feature number
 * >= d), TAPAS_ENOMEM or TAPAS_ECANCELED.  info may be NULL.  One class
 * only is allowed: the minimiser is still unique and finite.
 */
extern tapas_status tapas_logit_fit(double *w, const tapas_logit_data_t *data,
									double C, double tol,
									tapas_logit_info_t *info,
									const tapas_progress_t *progress);

/* The logistic function 1 / (1 + exp(-z)), without overflow. */
extern double tapas_logit_sigmoid(double z);

#endif							/* TAPAS_LOGISTIC_H */
