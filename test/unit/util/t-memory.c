/*
 * t-memory.c
 *	  Unit tests for src/util/memory.c: counting, alignment, injection.
 */
#include <stdint.h>

#include "util/memory.h"
#include "util/status.h"
#include "tapas_test.h"

static void
test_memory_counts_live(void)
{
	long		base = tapas_memory_live();
	void	   *a = tapas_malloc(10);
	void	   *b = tapas_calloc(3, 8);
	void	   *c = tapas_malloc_aligned(100);
	char	   *d = tapas_malloc_small_pages((size_t) 24 << 20);

	TAPAS_CHECK(a && b && c && d);
	TAPAS_CHECK(((uintptr_t) c & 63) == 0);
	TAPAS_CHECK(tapas_memory_live() == base + 4);
	d[0] = d[((size_t) 24 << 20) - 1] = 1;	/* all of it is there */
	b = tapas_realloc(b, 4096);
	TAPAS_CHECK(b != NULL);
	TAPAS_CHECK(tapas_memory_live() == base + 4);
	tapas_free(a);
	tapas_free(b);
	tapas_free(c);
	tapas_free(d);
	tapas_free(NULL);
	TAPAS_CHECK(tapas_memory_live() == base);
}

static void
test_memory_injection(void)
{
	void	   *a,
			   *b;

	tapas_memory_fail_after(1);
	a = tapas_malloc(8);
	b = tapas_malloc(8);
	TAPAS_CHECK(a != NULL);
	TAPAS_CHECK(b == NULL);
	tapas_free(a);
	tapas_memory_fail_after(0);
	a = tapas_malloc_small_pages(8);
	TAPAS_CHECK(a == NULL);
	tapas_memory_fail_after(1);
	a = tapas_malloc_small_pages(8);
	b = tapas_malloc_small_pages(8);
	TAPAS_CHECK(a != NULL);
	TAPAS_CHECK(b == NULL);
	tapas_memory_fail_after(-1);
	b = tapas_malloc(8);
	TAPAS_CHECK(b != NULL);
	tapas_free(a);
	tapas_free(b);
}

static void
test_status_messages(void)
{
	TAPAS_CHECK(tapas_status_message(TAPAS_EDECODE) != NULL);
	TAPAS_CHECK(tapas_status_message(-99) != NULL);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_memory_counts_live);
	TAPAS_TEST_RUN(test_memory_injection);
	TAPAS_TEST_RUN(test_status_messages);
	TAPAS_TEST_DONE();
}
