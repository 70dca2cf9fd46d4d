/*-------------------------------------------------------------------------
 *
 * maskspan.h
 *	  Whether a 0/1 vector over at most TAPAS_REGSET_MAX coordinates is a
 *	  real linear combination of given 0/1 vectors (region sets), and with
 *	  which coefficients: the combined rows of related classes
 *	  (audit/combined.c), where a class is a set of patterns and the cells
 *	  over one cover give a target set of patterns when its set is in
 *	  their span.
 *
 * IDENTIFICATION
 *	  src/recon/maskspan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_MASKSPAN_H
#define TAPAS_MASKSPAN_H

#include <stdbool.h>
#include <stdint.h>

#include "recon/regset.h"

/* most masks per system */
#define TAPAS_MASKSPAN_MAX	64

/*
 * True when target = sum_i lambda[i] masks[i] over the coordinates
 * 0..npat-1 (npat <= TAPAS_REGSET_MAX, k <= TAPAS_MASKSPAN_MAX), with the
 * coefficients in lambda[0..k-1] (a target equal to one mask gets that
 * mask alone).  Gaussian elimination in doubles, one coordinate (an
 * equation) at a time against the pivots so far, each pivot the largest
 * entry of its reduced equation, then an exact check of the combination
 * within 1e-6 per coordinate: a false "no" is possible only for
 * ill-conditioned systems, never a wrong "yes".  Coordinates in no mask
 * and not in the target are skipped.  O(npat k min(npat, k)) time,
 * O(k^2) memory.
 */
extern bool tapas_mask_span(const tapas_regset_t *const *masks, int k,
							const tapas_regset_t *target, int npat, double *lambda);

#endif							/* TAPAS_MASKSPAN_H */
