/*-------------------------------------------------------------------------
 *
 * cellparts.h
 *	  The candidate sets one consistent answer to a statement's cells can
 *	  leave an attacker who assumes a single positive.
 *
 * Under the one-positive prior (audit/candidates.c) the positive lies in
 * a candidate set C, and a statement's cells Q_0..Q_{m-1} are answered 1
 * exactly when they hold it.  So the attacker who sees the answers learns
 * the positive's signature {t : p in Q_t} and keeps the part of C with
 * that signature: the parts of C under the cells' membership.  Trying
 * each cell alone (C and Q_t) misses parts cut by two cells at once (Q_1
 * answered 1 and Q_2, almost all of Q_1, answered 0 in one statement).
 *
 * IDENTIFICATION
 *	  src/recon/cellparts.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_CELLPARTS_H
#define TAPAS_CELLPARTS_H

#include <stdint.h>

#include <roaring/roaring.h>

/*
 * The records of the smallest part of c whose signature over q[0..nq) is
 * not empty and that holds 1 .. floor - 1 records, or NULL when no part
 * does (also when nq = 0).  Ids are records when cap_n is 0, else
 * unknowns (region r, record j) = r * cap_n + j, counted and returned as
 * their records j.  Signatures are compared by a 64-bit hash of the cell
 * indices (a collision merges two parts: probability below M^2 / 2^64
 * for M incidences).  *err is set to 1 when memory runs out (then NULL).
 */
extern roaring_bitmap_t *tapas_cellparts_small(const roaring_bitmap_t *c,
											   const roaring_bitmap_t *const *q, int nq,
											   uint32_t cap_n, uint64_t floor, int *err);

#endif							/* TAPAS_CELLPARTS_H */
