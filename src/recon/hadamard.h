/*-------------------------------------------------------------------------
 *
 * hadamard.h
 *	  The Sylvester-Hadamard query design and its FWHT decoder: every value
 *	  of n records from N = 2^ceil(log2 n) binary queries.
 *
 * Records j = 1..n are columns c = j - 1 of the Sylvester matrix H_N,
 * H[r][c] = (-1)^popcount(r & c); columns n..N-1 are phantom records known
 * to be 0 (the design is shortened to n records).  Binary query r = 0..N-1
 * is row r of H' = (H + J) / 2: it covers record j iff popcount(r & (j-1))
 * is even.  Row 0 covers everyone (the total), every other row covers
 * about half.  With answers b'_r = H'_r x, H x = 2 b' - b'_0 (also for
 * r = 0), and x = H (2 b' - b'_0) / N since H H = N I.
 *
 * IDENTIFICATION
 *	  src/recon/hadamard.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_HADAMARD_H
#define TAPAS_HADAMARD_H

#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"

/* largest number of records: N <= 2^24 */
#define TAPAS_HADAMARD_MAX_LOG2	24

/* N = 2^ceil(log2 n), the number of queries, or 0 if n is out of range */
extern int64_t tapas_hadamard_order(int64_t n);

/* whether query r (0..N-1) covers record j; 0 when j is outside 1..n */
static inline int
tapas_hadamard_member(int64_t n, int64_t r, int64_t j)
{
	if (j < 1 || j > n || r < 0)
		return 0;
	return (__builtin_popcountll((unsigned long long) (r & (j - 1))) & 1) == 0;
}

/* number of records 1..n that query r covers, in O(log n) */
extern int64_t tapas_hadamard_row_coverage(int64_t n, int64_t r);

/*
 * Exact decoder: x[0..n-1] (records 1..n) from the N integer answers
 * b'[0..N-1].  Returns TAPAS_EINCONSISTENT when no integer x with zero
 * phantom records has these answers (H b not divisible by N, or a phantom
 * record nonzero), TAPAS_ELIMIT when some |b'_r| > 2^61 / N (the
 * transform could overflow), TAPAS_EINVAL for n out of range,
 * TAPAS_ENOMEM, TAPAS_ECANCELED.  x is caller's (n entries).
 */
extern tapas_status tapas_hadamard_decode_int64(int64_t n, const int64_t *answers,
												int64_t *x,
												const tapas_progress_t *progress);

/*
 * Least-squares decoder for noisy answers: x = H (2 b' - b'_0) / N in
 * double precision, without rounding or checks (phantom entries are
 * dropped).  Each estimate has noise variance 8 lambda^2 / N for i.i.d.
 * Laplace(lambda) answer noise.  Same errors as above, minus the
 * consistency ones.
 */
extern tapas_status tapas_hadamard_decode_double(int64_t n, const double *answers,
												 double *x,
												 const tapas_progress_t *progress);

#endif							/* TAPAS_HADAMARD_H */
