/*-------------------------------------------------------------------------
 *
 * sort_u32.c
 *	  LSD radix sort of uint32 arrays, 8 bits a pass.
 *
 * Each pass counts the values per byte (256 buckets), turns the counts
 * into starting offsets and scatters into the other buffer: stable, so
 * after the pass of the most significant byte the array is sorted
 * (Knuth, TAOCP vol. 3, 5.2.5).  A pass in which every value has the same
 * byte would move nothing and is skipped.
 *
 * IDENTIFICATION
 *	  src/util/sort_u32.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/sort_u32.h"

bool
tapas_u32_sorted(const uint32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (a[i] < a[i - 1])
			return false;
	return true;
}

/* one counting pass on the byte at shift; false if it would move nothing */
static bool
radix_pass(const uint32_t *src, uint32_t *dst, size_t n, int shift)
{
	size_t		count[256] = {0};
	size_t		pos = 0;

	for (size_t i = 0; i < n; i++)
		count[(src[i] >> shift) & 0xFF]++;
	if (count[(src[0] >> shift) & 0xFF] == n)
		return false;
	for (int b = 0; b < 256; b++)
	{
		size_t		c = count[b];

		count[b] = pos;
		pos += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
	return true;
}

void
tapas_sort_u32(uint32_t *a, uint32_t *scratch, size_t n)
{
	uint32_t   *src = a;
	uint32_t   *dst = scratch;

	if (n < 2)
		return;
	for (int shift = 0; shift < 32; shift += 8)
	{
		if (radix_pass(src, dst, n, shift))
		{
			uint32_t   *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * sizeof(uint32_t));
}
