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
#include <stdlib.h>

#include "util/memory.h"

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
