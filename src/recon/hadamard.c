/*-------------------------------------------------------------------------
 *
 * hadamard.c
 *	  Sylvester-Hadamard design: coverage and the FWHT decoders.
 *
 * The Hadamard reconstruction attack (Dwork and Yekhanin, "New efficient
 * attacks on statistical disclosure control mechanisms", CRYPTO 2008): the
 * binary queries H' = (H + J) / 2 each cover half of the records (the
 * total excepted), yet n of them give away every value.  The
 * decoder turns binary answers into +-1 answers, b = 2 b' - b'_0, and
 * applies one in-place FWHT (fwht.c): x = H b / N.  In int64 the result is
 * exact, and the division by N doubles as a consistency check: answers
 * that no integer x explains leave a remainder.
 *
 * Coverage of a shortened row r (columns 0..n-1) in closed form: split
 * [0, n) into the aligned blocks given by the binary digits of n; a block
 * of size 2^t whose columns share the high bits h covers 2^(t-1) of its
 * columns when r has a bit below t (those bits take every value equally
 * often), else all 2^t or none depending on the parity of r & h.
 *
 * IDENTIFICATION
 *	  src/recon/hadamard.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/memory.h"
#include "recon/fwht.h"
#include "recon/hadamard.h"

int64_t
tapas_hadamard_order(int64_t n)
{
	int64_t		N = 1;

	if (n < 1 || n > ((int64_t) 1 << TAPAS_HADAMARD_MAX_LOG2))
		return 0;
	while (N < n)
		N *= 2;
	return N;
}

int64_t
tapas_hadamard_row_coverage(int64_t n, int64_t r)
{
	int64_t		count = 0,
				high = 0;
	int			t;

	if (n < 1 || r < 0)
		return 0;
	for (t = 62; t >= 0; t--)
	{
		int64_t		size = (int64_t) 1 << t;

		if (!(n & size))
			continue;
		/* block [high, high + size): columns high + (anything below t) */
		if (r & (size - 1))
			count += size / 2;
		else if ((__builtin_popcountll((unsigned long long) (r & high)) & 1) == 0)
			count += size;
		high |= size;
	}
	return count;
}

/* b = 2 b' - b'_0 into a (N entries), with the overflow bound checked */
static tapas_status
hadamard_signed_answers(const int64_t *answers, int64_t N, int64_t *b)
{
	int64_t		bound = ((int64_t) 1 << 61) / N,
				r;

	for (r = 0; r < N; r++)
		if (answers[r] > bound || answers[r] < -bound)
			return TAPAS_ELIMIT;
	for (r = 0; r < N; r++)
		b[r] = 2 * answers[r] - answers[0];
	return TAPAS_OK;
}

tapas_status
tapas_hadamard_decode_int64(int64_t n, const int64_t *answers, int64_t *x,
							const tapas_progress_t *progress)
{
	int64_t		N = tapas_hadamard_order(n),
				j;
	int64_t    *b;
	tapas_status st;

	if (N == 0 || answers == NULL || x == NULL)
		return TAPAS_EINVAL;
	b = tapas_malloc_aligned(N * sizeof(int64_t));
	if (b == NULL)
		return TAPAS_ENOMEM;
	st = hadamard_signed_answers(answers, N, b);
	if (st == TAPAS_OK)
		st = tapas_fwht_int64(b, N, progress);
	/* H b = N x exactly when the answers come from an integer x */
	for (j = 0; st == TAPAS_OK && j < N; j++)
	{
		if (b[j] % N != 0 || (j >= n && b[j] != 0))
			st = TAPAS_EINCONSISTENT;
		else if (j < n)
			x[j] = b[j] / N;
	}
	tapas_free(b);
	return st;
}

tapas_status
tapas_hadamard_decode_double(int64_t n, const double *answers, double *x,
							 const tapas_progress_t *progress)
{
	int64_t		N = tapas_hadamard_order(n),
				r;
	double	   *b;
	tapas_status st;

	if (N == 0 || answers == NULL || x == NULL)
		return TAPAS_EINVAL;
	b = tapas_malloc_aligned(N * sizeof(double));
	if (b == NULL)
		return TAPAS_ENOMEM;
	for (r = 0; r < N; r++)
		b[r] = 2 * answers[r] - answers[0];
	st = tapas_fwht_double(b, N, progress);
	if (st == TAPAS_OK)
		for (r = 0; r < n; r++)
			x[r] = b[r] / (double) N;
	tapas_free(b);
	return st;
}
