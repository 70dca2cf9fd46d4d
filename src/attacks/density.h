/*-------------------------------------------------------------------------
 *
 * density.h
 *	  Density estimators fit on synthetic rows, for ProbabilityEstimation.
 *
 * Three estimators, all returning log densities (larger = more typical of
 * the synthetic data; the MIA score of ProbabilityEstimationAttack):
 *
 *	kde			Gaussian kernel density on the encoded rows y_1..y_n (dim e):
 *				log p(x) = log( (1/n) sum_i N(x; y_i, h^2 I) )
 *				         = logsumexp_i(-||x - y_i||^2 / (2 h^2)) - log n
 *				           - (e/2) log(2 pi h^2).
 *				Bandwidth h > 0 given, or by rule: "scott" h = sigma n^(-1/(e+4)),
 *				"silverman" h = sigma (n (e+2) / 4)^(-1/(e+4)), where sigma is
 *				the root mean per-cell variance of the encoded rows (1 if 0).
 *	independent	per-column product model (naive-Bayes-like): categorical and
 *				ordinal columns get Laplace-smoothed frequencies
 *				(count + alpha) / (n + alpha card); continuous columns a
 *				histogram of `bins` equal bins over the column bounds with
 *				the same smoothing, divided by the bin width (a density).
 *				log p(x) = sum_j log p_j(x_j); values outside the bounds
 *				fall in the nearest edge bin.
 *	histogram	the joint histogram over the coded schema (density_histogram.c):
 *				a cell is a code per categorical/ordinal column and a bin
 *				(`bins` equal bins over the bounds) per continuous one; with
 *				n_x the synthetic rows in x's cell and K the number of cells,
 *				p(x) = (n_x + alpha) / (n + alpha K) / prod_j w_j over the
 *				continuous columns' bin widths w_j.  Keeps the dependencies
 *				the independent model drops; alpha = 0 is the empirical
 *				cell distribution (an empty cell gets -inf).
 *
 * Ownership: fit functions return an estimator owning copies of what it
 * needs (the KDE and the histogram keep a pointer to syn: syn must outlive
 * them); free with tapas_density_free (NULL-safe).  NULL on bad parameters
 * or out of memory.
 *
 * IDENTIFICATION
 *	  src/attacks/density.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DENSITY_H
#define TAPAS_DENSITY_H

#include <stddef.h>

#include "attacks/dataset.h"
#include "util/status.h"

typedef struct tapas_density tapas_density_t;

/* which estimator (the probability_estimation "estimator" parameter) */
typedef enum tapas_density_kind
{
	TAPAS_DENSITY_KDE,
	TAPAS_DENSITY_INDEPENDENT,
	TAPAS_DENSITY_HISTOGRAM
} tapas_density_kind;

typedef enum tapas_bandwidth_rule
{
	TAPAS_BANDWIDTH_FIXED,
	TAPAS_BANDWIDTH_SCOTT,
	TAPAS_BANDWIDTH_SILVERMAN
} tapas_bandwidth_rule;

/* syn must be encoded and non-empty; h used only for FIXED (> 0). */
extern tapas_density_t *tapas_density_fit_kde(const tapas_dataset_t *syn,
											  tapas_bandwidth_rule rule,
											  double h);

/* syn non-empty, bins >= 1, alpha >= 0 (alpha = 0 allows log 0 = -inf). */
extern tapas_density_t *tapas_density_fit_independent(const tapas_dataset_t *syn,
													  size_t bins,
													  double alpha);

/* syn non-empty, bins >= 1, 0 <= alpha < inf; syn must outlive it. */
extern tapas_density_t *tapas_density_fit_histogram(const tapas_dataset_t *syn,
													size_t bins,
													double alpha);

/* The bandwidth of a KDE (NaN for the independent model). */
extern double tapas_density_bandwidth(const tapas_density_t *model);

/* log p(x) for a target given raw (c values) and encoded (encoded_dim). */
extern double tapas_density_log(const tapas_density_t *model,
								const double *xraw, const double *xenc);

extern void tapas_density_free(tapas_density_t *model);

#endif							/* TAPAS_DENSITY_H */
