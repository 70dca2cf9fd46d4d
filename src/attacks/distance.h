/*-------------------------------------------------------------------------
 *
 * distance.h
 *	  Record distances for the closest-distance and neighbourhood attacks.
 *
 * Hamming: the number of columns (of the subset, if given) on which two raw
 * records differ; NaN differs from everything.  The reference ignores its
 * `columns` argument; here the subset is honoured.
 *
 * L_p (p > 0): (sum_i |x_i - y_i|^p)^(1/p) over the encoded cells (of the
 * subset's columns, if given): one categorical mismatch contributes 2 to
 * the sum (two one-hot cells), a continuous column at most 1 (it is
 * normalised to [0, 1]).
 *
 * Weights and scale: with weights w_j, Hamming is sum_j w_j [x_j != y_j]
 * and L_p is (sum_j w_j sum_{cells i of j} |x_i - y_i|^p)^(1/p) (one weight
 * per column, applied to each of its cells; the reference weights encoded
 * cells, which for a one-hot block is the same when its cells share a
 * weight).  The scale s multiplies every distance returned (s d(x, y), the
 * reference's `c * d`); the radius count compares s d with the radius.
 *
 * Sum of distances (the reference's d1 + d2, with c * d for scaled terms):
 * d(x, y) = s sum_k d_k(x, y) over terms d_k that are Hamming or L_p
 * distances, each with its own columns, weights and scale (for example
 * Hamming on the categorical columns plus a scaled L2 on the continuous
 * ones).  A sum is not nested.  Its scans evaluate every term per row (no
 * early abandoning inside a row); the minimum still stops at distance 0.
 *
 * A target is given both raw (c values, for Hamming) and encoded
 * (encoded_dim values, for L_p); the rows are ds->values and ds->encoded
 * (L_p needs tapas_dataset_encode(ds) first).  The scans run over rows in
 * storage order (one sequential pass); the minimum stops at distance 0 and
 * prunes L_p rows whose partial sum already exceeds the best, the ball
 * count prunes rows whose partial sum exceeds the radius.  The all-pairs
 * L2 matrix uses ||x||^2 + ||y||^2 - 2 x.y with one cblas_dgemm.
 *
 * IDENTIFICATION
 *	  src/attacks/distance.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DISTANCE_H
#define TAPAS_DISTANCE_H

#include <stddef.h>

#include "attacks/dataset.h"
#include "util/progress.h"
#include "util/status.h"

typedef enum tapas_distance_kind
{
	TAPAS_DISTANCE_HAMMING,
	TAPAS_DISTANCE_LP,
	TAPAS_DISTANCE_SUM			/* sum of the terms, times scale */
} tapas_distance_kind;

typedef struct tapas_distance tapas_distance_t;

struct tapas_distance
{
	tapas_distance_kind kind;
	double		p;				/* L_p exponent, > 0 (ignored for Hamming) */
	const size_t *columns;		/* column subset (indices < c), or NULL = all */
	size_t		ncolumns;		/* length of columns */
	const double *weights;		/* c per-column weights >= 0, or NULL = all 1 */
	double		scale;			/* distance multiplier > 0; 0 means 1 */
	const tapas_distance_t *terms;	/* SUM: n_terms Hamming or L_p terms */
	size_t		n_terms;		/* SUM: >= 1 */
};

/*
 * Checks d against ds: p > 0 and finite for L_p, subset indices in range,
 * weights finite and >= 0, scale finite and >= 0, ds encoded for L_p; a
 * sum has 1 to TAPAS_DISTANCE_MAX_TERMS terms, each valid and none a sum.
 * TAPAS_EINVAL otherwise.
 */
#define TAPAS_DISTANCE_MAX_TERMS 64
extern tapas_status tapas_distance_check(const tapas_distance_t *d,
										 const tapas_dataset_t *ds);

/* Nonzero when d reads the encoded rows (L_p, or a sum with an L_p term). */
extern int	tapas_distance_needs_encoding(const tapas_distance_t *d);

/* Distance between two records of ds's schema (raw and encoded forms). */
extern double tapas_distance_pair(const tapas_distance_t *d,
								  const tapas_dataset_t *ds,
								  const double *xraw, const double *xenc,
								  const double *yraw, const double *yenc);

/*
 * out[i] = distance(target, row i) for all n rows of ds.  d assumed valid
 * (tapas_distance_check).
 */
extern void tapas_distance_to_rows(const tapas_distance_t *d,
								   const tapas_dataset_t *ds,
								   const double *xraw, const double *xenc,
								   double *out);

/* Minimum distance from the target to the rows of ds (+inf if n = 0). */
extern double tapas_distance_min(const tapas_distance_t *d,
								 const tapas_dataset_t *ds,
								 const double *xraw, const double *xenc);

/* Number of rows of ds within distance <= radius of the target. */
extern size_t tapas_distance_count_within(const tapas_distance_t *d,
										  const tapas_dataset_t *ds,
										  const double *xraw,
										  const double *xenc, double radius);

/*
 * out[a * ds->n + i] = L2 distance between encoded row a of targets and
 * encoded row i of ds (both encoded, same encoded_dim), by one dgemm.  All
 * columns (no subset).  TAPAS_EINVAL if not encoded or dims differ.
 */
extern tapas_status tapas_distance_l2_matrix(const tapas_dataset_t *targets,
											 const tapas_dataset_t *ds,
											 double *out);

/*
 * Many targets against the same rows, L2 on all columns: for the m encoded
 * targets xenc (m * encoded_dim), mins[a] = min_i ||x_a - y_i|| and, when
 * counts is not NULL, counts[a] = #{i : ||x_a - y_i|| <= radius}.  Blocks
 * of targets and rows go through cblas_dgemm (||x||^2 + ||y||^2 - 2 x.y);
 * rows whose approximate squared distance is within rounding error of the
 * running minimum or of radius^2 are recomputed exactly, so the results
 * equal the one-target scans (a present target has minimum exactly 0).
 * ds must be encoded.  progress (may be NULL) is polled once per block;
 * TAPAS_ECANCELED if it asks to stop, TAPAS_ENOMEM, TAPAS_EINVAL.
 */
extern tapas_status tapas_distance_l2_scan(const tapas_dataset_t *ds,
										   const double *xenc, size_t m,
										   double radius, double *mins,
										   size_t *counts,
										   const tapas_progress_t *progress);

#endif							/* TAPAS_DISTANCE_H */
