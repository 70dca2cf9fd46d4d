/*-------------------------------------------------------------------------
 *
 * memory.h
 *	  The one allocator of the pure-C kernels.
 *
 * Kernels allocate only through these functions, so that unit tests can
 * count allocations and inject failures (tapas_memory_fail_after), and the
 * server could route them elsewhere.  They follow malloc semantics: NULL on
 * failure, tapas_free(NULL) is a no-op.  Kernel memory never holds palloc'd
 * data and must be freed before an ereport() can longjmp past it.
 *
 * IDENTIFICATION
 *	  src/util/memory.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_MEMORY_H
#define TAPAS_MEMORY_H

#include <stddef.h>

extern void *tapas_malloc(size_t size);
extern void *tapas_calloc(size_t count, size_t size);
extern void *tapas_realloc(void *ptr, size_t size);
extern void tapas_free(void *ptr);

/*
 * tapas_malloc without the huge-page advice, for a large block filled in
 * order over a long phase (the shadow evaluation's feature matrix, one
 * dataset's row at a time): its 4 kB pages are zeroed by the kernel as
 * they are first written, each still in cache when it is filled, where a
 * huge page's 2 MB are zeroed at once ahead of use and evicted again
 * before they are written (on the Groundhog call, 1,000-record datasets,
 * the feature matrix's page faults took 7% of the call's CPU time under
 * load with huge pages, 3% without).
 */
extern void *tapas_malloc_small_pages(size_t size);

/* Aligned to 64 bytes (a cache line); free with tapas_free. */
extern void *tapas_malloc_aligned(size_t size);

/*
 * Test support: make the (n+1)-th allocation from now on fail (n < 0 turns
 * injection off), and read the number of live allocations.
 */
extern void tapas_memory_fail_after(long n);
extern long tapas_memory_live(void);

#endif							/* TAPAS_MEMORY_H */
