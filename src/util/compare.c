/*-------------------------------------------------------------------------
 *
 * compare.c
 *	  qsort/bsearch comparators of plain integers.
 *
 * IDENTIFICATION
 *	  src/util/compare.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>

#include "util/compare.h"

int
tapas_cmp_int64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

int
tapas_cmp_int32(const void *a, const void *b)
{
	int32_t		x = *(const int32_t *) a,
				y = *(const int32_t *) b;

	return (x > y) - (x < y);
}

int
tapas_cmp_uint64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}
