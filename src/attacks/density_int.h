/*-------------------------------------------------------------------------
 *
 * density_int.h
 *	  Internal layout of the density estimators (density.c, the KDE and
 *	  the independent model; density_histogram.c, the joint histogram).
 *
 * IDENTIFICATION
 *	  src/attacks/density_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DENSITY_INT_H
#define TAPAS_DENSITY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "attacks/density.h"

struct tapas_density
{
	tapas_density_kind kind;
	const tapas_dataset_t *syn; /* not owned */
	double		h;				/* KDE bandwidth */
	double		log_norm;		/* KDE: -log n - (e/2) log(2 pi h^2);
								 * histogram: log(n + alpha K) + sum of the
								 * log bin widths */
	double	   *scratch;		/* KDE: n exponents */
	size_t		bins;			/* independent, histogram: continuous bins */
	double	  **logp;			/* independent: c tables of log p_j */
	double		alpha;			/* histogram: smoothing per cell */
	uint32_t   *cells;			/* histogram: n_distinct x c cell tuples */
	size_t	   *counts;			/* histogram: rows in each distinct cell */
	size_t		n_distinct;
	size_t	   *slots;			/* histogram: hash table, 1 + index or 0 */
	size_t		n_slots;		/* a power of two > 2 n_distinct */
};

/*
 * Bin of value v in [lo, hi] with `bins` equal bins; the edge bins absorb
 * values outside the bounds (and NaN goes to bin 0).
 */
static inline size_t
tapas_density_bin(double v, double lo, double hi, size_t bins)
{
	double		t;

	if (!(hi > lo))
		return 0;
	t = (v - lo) / (hi - lo) * (double) bins;
	if (!(t >= 0))
		return 0;
	if (t >= (double) bins)
		return bins - 1;
	return (size_t) t;
}

/* density_histogram.c: log p(x) of a fitted histogram */
extern double tapas_density_histogram_log(const tapas_density_t *m,
										  const double *xraw);

#endif							/* TAPAS_DENSITY_INT_H */
