/*-------------------------------------------------------------------------
 *
 * candidates_int.h
 *	  The parts of the candidates test (candidates.c) that the test of a
 *	  group of related classes (candidates_joint.c) shares: over records
 *	  (cap_n 0) or over the unknowns r cap_n + j of a group.
 *
 * IDENTIFICATION
 *	  src/audit/candidates_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_CANDIDATES_INT_H
#define TAPAS_CANDIDATES_INT_H

#include "audit/audit_int.h"

extern bool tapas_cand_row_is_full(double answer, const roaring_bitmap_t *row);
extern uint64 tapas_cand_record_count(const roaring_bitmap_t *u, uint32 cap_n);
extern roaring_bitmap_t *tapas_cand_simulated_part(const roaring_bitmap_t *c, roaring_bitmap_t **qs,
												   int nq, uint32 cap_n, bool known);
extern roaring_bitmap_t *tapas_cand_answered_part(const roaring_bitmap_t *c, roaring_bitmap_t **qs,
												  const double *answers, int nq, uint32 cap_n,
												  bool known, bool binary, double value);
extern int	tapas_cand_narrowed_finding(TapasAuditBatch *batch, const roaring_bitmap_t *cand,
										bool simulate, TapasFinding **found);

extern int	tapas_cand_decide(TapasAuditBatch *batch, roaring_bitmap_t *c, roaring_bitmap_t **qs,
							  uint32 cap_n, bool known, bool simulate, bool binary, double value,
							  TapasFinding **found);

#endif							/* TAPAS_CANDIDATES_INT_H */
