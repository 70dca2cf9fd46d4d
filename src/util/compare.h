/*-------------------------------------------------------------------------
 *
 * compare.h
 *	  qsort/bsearch comparators of plain integers, shared by every module.
 *
 * Each returns -1, 0 or 1 by comparing, never by subtracting (a - b
 * overflows for values of opposite sign near the ends of the range).
 *
 * IDENTIFICATION
 *	  src/util/compare.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_COMPARE_H
#define TAPAS_COMPARE_H

/* a and b point to int64_t (PostgreSQL's int64 is the same type) */
extern int	tapas_cmp_int64(const void *a, const void *b);

/* a and b point to int32_t */
extern int	tapas_cmp_int32(const void *a, const void *b);

/* a and b point to uint64_t */
extern int	tapas_cmp_uint64(const void *a, const void *b);

#endif							/* TAPAS_COMPARE_H */
