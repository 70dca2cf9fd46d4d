/*-------------------------------------------------------------------------
 *
 * exact.h
 *	  Exact linear solve of A x = b for a binary query matrix A and
 *	  integer answers b: which coordinates of x the answers determine,
 *	  and their values.
 *
 * x_j is determined by the answers, whatever the other values, iff e_j
 * lies in the row space of A (Chin and Ozsoyoglu 1982; research note
 * section 2); its value then follows from b.  See exact.c for the
 * modular method and its one-sided error.
 *
 * IDENTIFICATION
 *	  src/recon/exact.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_EXACT_H
#define TAPAS_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/rng.h"
#include "util/status.h"
#include "recon/binmat.h"

/*
 * Size limits of tapas_exact_solve (TAPAS_ELIMIT beyond): entries
 * m (n + 1), and elimination work m (n + 1) min(m, n + 1), about 3.5 s
 * per prime at the limit on this machine (2.8 s for both primes at
 * m = n = 2000; FLINT's rref cannot be interrupted).
 */
#define TAPAS_EXACT_MAX_ENTRIES	50000000.0
#define TAPAS_EXACT_MAX_WORK	20000000000.0

typedef struct tapas_exact_result
{
	size_t		rank;			/* rank of A */
	int			consistent;		/* 1 if b lies in A's column space */
	size_t		determined;		/* coordinates determined by the answers */
	int			integral;		/* 1 if every determined value is an integer */
} tapas_exact_result;

/*
 * For every column j: determined[j] = 1 and x_out[j] = its value if e_j
 * is in the row space of A, else determined[j] = 0 and x_out[j] = NaN.
 * Values are rationals with numerator and denominator below about 2^30,
 * returned as doubles.  rng draws the two secret primes (near 2^62) of
 * the computation; two runs with different rng states agree except with
 * probability about (n / 2^62)^2.  If the answers are inconsistent
 * (res->consistent = 0) nothing is determined.
 *
 * Returns TAPAS_OK; TAPAS_EINVAL for m or n = 0; TAPAS_ELIMIT beyond
 * the size limits above; TAPAS_EDECODE when a determined
 * value does not reconstruct as a small rational (answers too large, or
 * the computation disagrees between the two primes).
 */
extern tapas_status tapas_exact_solve(const tapas_binmat_t *A,
									  const int64_t *b, tapas_rng_t *rng,
									  double *x_out, unsigned char *determined,
									  tapas_exact_result *res,
									  const tapas_progress_t *progress);

#endif							/* TAPAS_EXACT_H */
