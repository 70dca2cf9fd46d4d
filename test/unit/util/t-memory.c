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

	TAPAS_CHECK(a && b && c);
	TAPAS_CHECK(((uintptr_t) c & 63) == 0);
	TAPAS_CHECK(tapas_memory_live() == base + 3);
	b = tapas_realloc(b, 4096);
	TAPAS_CHECK(b != NULL);
	TAPAS_CHECK(tapas_memory_live() == base + 3);
	tapas_free(a);
	tapas_free(b);
	tapas_free(c);
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
