/*-------------------------------------------------------------------------
 *
 * binmat_families.h
 *	  A binary matrix as runs of consecutive disjoint rows (the groups of a
 *	  GROUP BY), for fast products A^T r and column updates.
 *
 * A family is a run of consecutive rows of A whose supports are pairwise
 * disjoint; rows are split greedily (a row that meets the current
 * family's union starts the next).  Column j's rows are then one per
 * family at most, recorded as idx[f][j] = 1 + (its row - the family's
 * first), 0 if none; so A^T r is z_j = sum_f T_f[idx[f][j]] with
 * T_f = (0, r of the family's rows): F n sequential 16-bit reads instead
 * of the patterns' m n / 8 bytes (binmat.h), and a column's update F
 * reads instead of m / 8.  The audit's GROUP BY crossings have one family
 * per statement (1,000 zip groups are one), so F is m / 25 there; Bernoulli
 * rows have F = m, where the patterns are the better form
 * (tapas_binmat_families_create declines).  With integer r every partial
 * sum is an integer below 2^53: the product is exact, equal bit for bit
 * to the patterns'.
 *
 * IDENTIFICATION
 *	  src/recon/binmat_families.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_BINMAT_FAMILIES_H
#define TAPAS_BINMAT_FAMILIES_H

#include "recon/binmat.h"

#define TAPAS_FAMILY_MAX_ROWS	65535	/* rows per family: 16-bit indices */

typedef struct tapas_binmat_families
{
	size_t		m;				/* rows of A */
	size_t		n;				/* columns of A */
	size_t		F;				/* families */
	size_t	   *start;			/* [F + 1]: family f is rows start[f] .. start[f + 1] - 1 */
	uint16_t  **idx;			/* [F][n] */
	double	   *table;			/* scratch: m + F entries */
} tapas_binmat_families_t;

/*
 * The families of A, or NULL when they would not pay: more than
 * max_families of them (the products then cost more than the patterns';
 * callers pass m / 16, 2-byte indices against the patterns' m / 8 bytes
 * per column), or memory short.  One pass over A's words.
 */
extern tapas_binmat_families_t *tapas_binmat_families_create(const tapas_binmat_t *A,
															 size_t max_families);

/* z = A^T r (r has m entries, z has n; no aliasing; not thread-safe on one FA). */
extern void tapas_binmat_families_mul_t(tapas_binmat_families_t *FA,
										const double *r, double *z);

/* r += sign a_j (column j of A, m entries) */
extern void tapas_binmat_families_add_column(const tapas_binmat_families_t *FA,
											 size_t j, double sign, double *r);

/* Frees FA; FA may be NULL. */
extern void tapas_binmat_families_free(tapas_binmat_families_t *FA);

#endif							/* TAPAS_BINMAT_FAMILIES_H */
