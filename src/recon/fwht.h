/*-------------------------------------------------------------------------
 *
 * fwht.h
 *	  In-place fast Walsh-Hadamard transform (Sylvester order) of double
 *	  and int64 vectors.
 *
 * y = H_n x with H_1 = [1], H_2n = [[H_n, H_n], [H_n, -H_n]], so that
 * H_n[i][j] = (-1)^popcount(i & j).  The transform is unnormalised and its
 * own inverse up to a factor n: H_n H_n = n I.  n must be a power of two,
 * 1 <= n <= 2^TAPAS_FWHT_MAX_LOG2.
 *
 * IDENTIFICATION
 *	  src/recon/fwht.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_FWHT_H
#define TAPAS_FWHT_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"

#define TAPAS_FWHT_MAX_LOG2 28

/*
 * Transforms x (length n) in place: x <- H_n x.  Returns TAPAS_EINVAL when
 * n is not a power of two in range or x is NULL, TAPAS_ENOMEM when the
 * scratch strip (at most 1 MB) cannot be allocated, TAPAS_ECANCELED when
 * progress asked to stop (x is then partially transformed).  progress may be
 * NULL.  Double results are exact while all intermediate values are
 * integers below 2^53; int64 overflow (|x| summed over n entries must stay
 * below 2^63) is assumed not to happen and not checked.
 */
extern tapas_status tapas_fwht_double(double *x, size_t n,
									  const tapas_progress_t *progress);
extern tapas_status tapas_fwht_int64(int64_t *x, size_t n,
									 const tapas_progress_t *progress);

/*
 * The textbook unblocked radix-2 transform (log2 n sweeps over x): the
 * baseline of the benchmark and a second oracle for the tests.  Same
 * contract as tapas_fwht_double, without scratch or progress.
 */
extern tapas_status tapas_fwht_double_radix2(double *x, size_t n);

/* Nonzero when n is a power of two in 1..2^TAPAS_FWHT_MAX_LOG2. */
extern int	tapas_fwht_size_ok(size_t n);

#endif							/* TAPAS_FWHT_H */
