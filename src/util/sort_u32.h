/*-------------------------------------------------------------------------
 *
 * sort_u32.h
 *	  Sorting arrays of uint32 in linear time, for the capture aggregate.
 *
 * The capture aggregate (src/capture/cover.c) stages up to a few thousand
 * covered keys at a time and adds them to a Roaring bitmap.  Added in
 * sorted order they append; added in a table's physical order, which after
 * updates is close to random, each lands in the middle of a sorted array
 * container and moves half of it.  An LSD radix sort makes any order cost
 * a few ns a key (a comparison sort costs 15-35 ns a key at n = 4096).
 *
 * IDENTIFICATION
 *	  src/util/sort_u32.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SORT_U32_H
#define TAPAS_SORT_U32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether a[0..n) is in non-decreasing order. */
extern bool tapas_u32_sorted(const uint32_t *a, size_t n);

/*
 * Sorts a[0..n) ascending (stable); scratch must hold n values.  Passes
 * whose byte is the same in every value are skipped, so keys below 2^24
 * take three passes.
 */
extern void tapas_sort_u32(uint32_t *a, uint32_t *scratch, size_t n);

#endif							/* TAPAS_SORT_U32_H */
