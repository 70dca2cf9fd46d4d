/*-------------------------------------------------------------------------
 *
 * memory.c
 *	  Counting allocator with failure injection for the kernels.
 *
 * The counters are plain (not atomic): kernels run in one backend thread,
 * and unit tests are single-threaded.  OpenBLAS threads never call into it.
 *
 * IDENTIFICATION
 *	  src/util/memory.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "util/memory.h"

/*
 * Blocks of at least this size are backed by transparent huge pages where
 * the system allows it on request (transparent_hugepage = madvise, the
 * Debian default): a row-space state of 10^6 records is hundreds of MB
 * written once (created, or copied from another backend), and 4 kB pages
 * cost a fault each, about a third of a copy's time.
 */
#define HUGE_ADVICE_MIN	((size_t) 16 << 20)
#define HUGE_PAGE		((uintptr_t) 2 << 20)

static void
advise_huge(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	uintptr_t	lo,
				hi;

	if (p == NULL || size < HUGE_ADVICE_MIN)
		return;
	lo = ((uintptr_t) p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi = ((uintptr_t) p + size) & ~(HUGE_PAGE - 1);
	if (hi > lo)
		(void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);	/* advice only */
#else
	(void) p;
	(void) size;
#endif
}

static long fail_countdown = -1;	/* < 0: no injection */
static long live_allocations = 0;

/* true when the injected failure is due now */
static int
injected_failure(void)
{
	if (fail_countdown < 0)
		return 0;
	if (fail_countdown == 0)
		return 1;
	fail_countdown--;
	return 0;
}

void *
tapas_malloc(size_t size)
{
	void	   *p;

	if (injected_failure())
		return NULL;
	p = malloc(size ? size : 1);
	if (p)
		live_allocations++;
	advise_huge(p, size);
	return p;
}

void *
tapas_malloc_small_pages(size_t size)
{
	void	   *p;

	if (injected_failure())
		return NULL;
	p = malloc(size ? size : 1);
	if (p)
		live_allocations++;
	return p;
}

void *
tapas_calloc(size_t count, size_t size)
{
	void	   *p;

	if (injected_failure())
		return NULL;
	p = calloc(count ? count : 1, size ? size : 1);
	if (p)
		live_allocations++;
	if (count > 0 && size <= SIZE_MAX / count)
		advise_huge(p, count * size);
	return p;
}

void *
tapas_realloc(void *ptr, size_t size)
{
	void	   *p;

	if (ptr == NULL)
		return tapas_malloc(size);
	if (injected_failure())
		return NULL;
	p = realloc(ptr, size ? size : 1);
	advise_huge(p, size);
	return p;
}

void *
tapas_malloc_aligned(size_t size)
{
	void	   *p = NULL;

	if (injected_failure())
		return NULL;
	/* posix_memalign wants a size that is a multiple of the alignment */
	size = (size + 63) & ~(size_t) 63;
	if (posix_memalign(&p, 64, size ? size : 64) != 0)
		return NULL;
	live_allocations++;
	advise_huge(p, size);
	return p;
}

void
tapas_free(void *ptr)
{
	if (ptr == NULL)
		return;
	live_allocations--;
	free(ptr);
}

void
tapas_memory_fail_after(long n)
{
	fail_countdown = n;
}

long
tapas_memory_live(void)
{
	return live_allocations;
}
