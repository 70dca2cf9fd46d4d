/*-------------------------------------------------------------------------
 *
 * fwht.c
 *	  Cache-blocked in-place fast Walsh-Hadamard transform.
 *
 * The transform has log2 n butterfly levels of n/2 additions each.  Done
 * naively, every level is one sweep over x; once x leaves the cache each
 * sweep costs a full read and write of memory.  We use the Kronecker split
 * H_n = (H_R (x) I_C)(I_R (x) H_C) with n = R * C (the "four-step" scheme):
 *
 *	1. view x as R rows of C contiguous elements (C <= 2^12 elements, so a
 *	   row stays in L1 while all its log2 C levels run: the first three
 *	   levels as an unrolled radix-8 on each group of eight, the rest as
 *	   radix-4 passes, two levels per sweep of the block);
 *	2. transform every column (length R): columns are processed in strips
 *	   of eight (one 64-byte line per row), gathered into a contiguous R x 8
 *	   scratch (at most 512 kB, so it stays in L2), transformed there with
 *	   the same radix-4 code and scattered back.
 *
 * Hence x crosses the memory bus twice (read and write in each step)
 * whatever n is, instead of log2 n times.  Inner loops work on eight
 * elements at a time through GCC vector extensions, which compile to SSE2
 * or AVX without intrinsics.  Both element types share one template,
 * fwht_impl.h, included twice below.  References: Fino and Algazi,
 * "Unified matrix treatment of the fast Walsh-Hadamard transform", IEEE
 * Trans. Computers 1976; FFHT (Andoni et al., NIPS 2015) for the in-cache
 * blocking.
 *
 * IDENTIFICATION
 *	  src/recon/fwht.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/memory.h"
#include "recon/fwht.h"

/*
 * Tuning (measured on the 2-core EPYC CI box, see test/bench/b-fwht.c):
 * rows of at least 2^12 and at most 2^15 elements (L1 to L2), and a column
 * strip of R x W elements of at most 2^16 elements (512 kB of doubles, L2).
 * Wider strips mean fewer TLB misses in the strided gather.
 */
#define FWHT_ROW_MIN_LOG2	12
#define FWHT_ROW_MAX_LOG2	15
#define FWHT_STRIP_LOG2		16
#define FWHT_W_MAX_LOG2		6

/* n = R * C with C the row length of step 1, and the strip width W */
static void
fwht_split(size_t n, size_t *R, size_t *C, size_t *W)
{
	int			p = 0;
	int			logC,
				logW;

	while (((size_t) 1 << p) < n)
		p++;
	if (p <= FWHT_ROW_MIN_LOG2)
		logC = p;
	else
	{
		/* the smallest row length that lets the strip be 32 wide */
		logC = p - (FWHT_STRIP_LOG2 - 5);
		if (logC < FWHT_ROW_MIN_LOG2)
			logC = FWHT_ROW_MIN_LOG2;
		if (logC > FWHT_ROW_MAX_LOG2)
			logC = p - (FWHT_STRIP_LOG2 - 3);
	}
	logW = FWHT_STRIP_LOG2 - (p - logC);
	if (logW > FWHT_W_MAX_LOG2)
		logW = FWHT_W_MAX_LOG2;
	if (logW > logC)
		logW = logC;
	*C = (size_t) 1 << logC;
	*R = n >> logC;
	*W = (size_t) 1 << logW;
}

/*
 * The two hot functions are compiled for AVX-512, AVX2 and the baseline
 * ISA; the dynamic loader picks one at load time (GNU ifunc).
 */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
#define FWHT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FWHT_CLONES
#endif
/* helpers are inlined into each clone, so they get its instruction set */
#define FWHT_INLINE static inline __attribute__((always_inline))

int
tapas_fwht_size_ok(size_t n)
{
	return n >= 1 && (n & (n - 1)) == 0 &&
		n <= ((size_t) 1 << TAPAS_FWHT_MAX_LOG2);
}

#define FWHT_T double
#define FWHT_NAME(x) fwht_##x##_double
#include "recon/fwht_impl.h"
#undef FWHT_T
#undef FWHT_NAME

#define FWHT_T int64_t
#define FWHT_NAME(x) fwht_##x##_int64
#include "recon/fwht_impl.h"
#undef FWHT_T
#undef FWHT_NAME

tapas_status
tapas_fwht_double(double *x, size_t n, const tapas_progress_t *progress)
{
	return fwht_transform_double(x, n, progress);
}

tapas_status
tapas_fwht_int64(int64_t *x, size_t n, const tapas_progress_t *progress)
{
	return fwht_transform_int64(x, n, progress);
}

tapas_status
tapas_fwht_double_radix2(double *x, size_t n)
{
	size_t		h,
				i,
				j;

	if (x == NULL || !tapas_fwht_size_ok(n))
		return TAPAS_EINVAL;
	for (h = 1; h < n; h *= 2)
		for (i = 0; i < n; i += 2 * h)
			for (j = i; j < i + h; j++)
			{
				double		a = x[j],
							b = x[j + h];

				x[j] = a + b;
				x[j + h] = a - b;
			}
	return TAPAS_OK;
}
