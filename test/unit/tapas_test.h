/*-------------------------------------------------------------------------
 *
 * tapas_test.h
 *	  Minimal harness for the kernel unit tests (one binary per kernel file).
 *
 * Each test binary has a main() that calls TAPAS_TEST_RUN(fn) per test
 * function and ends with TAPAS_TEST_DONE().  A test function returns void
 * and records failures with TAPAS_CHECK / TAPAS_CHECK_MSG; the first failed
 * check of a test is printed with its file, line and the test seed.
 *
 * Seeds: tapas_test_seed() is TAPAS_TEST_SEED from the environment if set,
 * else a fixed default, and is printed on failure so a run can be replayed.
 * tapas_test_iters(n) scales n by TAPAS_TEST_MULT (default 1).
 *
 * Shared fixtures: tapas_test_cancel, a progress callback that cancels at
 * once, and tapas_test_random_row, a random subset of 0..n-1 in random
 * order (the shape of a query's record set).
 *
 * Output: "ok - name" / "not ok - name" lines, then "N passed, N failed";
 * the exit status is nonzero when any test failed.  test/run-unit adds up
 * the counts of every binary.
 *
 * IDENTIFICATION
 *	  test/unit/tapas_test.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_TEST_H
#define TAPAS_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/rng.h"

static int	tapas_test_passed = 0;
static int	tapas_test_failed = 0;
static int	tapas_test_current_failed = 0;

static inline uint64_t
tapas_test_seed(void)
{
	const char *s = getenv("TAPAS_TEST_SEED");

	return s ? strtoull(s, NULL, 0) : UINT64_C(20261130);
}

static inline long
tapas_test_iters(long n)
{
	const char *s = getenv("TAPAS_TEST_MULT");
	long		mult = s ? atol(s) : 1;

	return n * (mult > 0 ? mult : 1);
}

/* progress callback (tapas_progress_t.fn) that cancels at the first call */
static inline int
tapas_test_cancel(void *arg, double fraction)
{
	(void) arg;
	(void) fraction;
	return 1;
}

/*
 * Writes a random subset of 0..n-1 of random size in [lo, hi] (lo <= hi <=
 * n), in random order, to ids and returns its size.
 */
static inline size_t
tapas_test_random_row(tapas_rng_t *rng, uint32_t n, size_t lo, size_t hi,
					  uint32_t *ids)
{
	size_t		len = lo + tapas_rng_below(rng, hi - lo + 1);
	int64_t    *perm = malloc(((size_t) n + 1) * sizeof(int64_t));
	uint32_t	j;
	size_t		i;

	if (perm == NULL)
		abort();
	for (j = 0; j < n; j++)
		perm[j] = j;
	tapas_rng_shuffle_i64(rng, perm, n);
	for (i = 0; i < len; i++)
		ids[i] = (uint32_t) perm[i];
	free(perm);
	return len;
}

#define TAPAS_CHECK_MSG(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			if (!tapas_test_current_failed) \
			{ \
				fprintf(stderr, "  %s:%d: check failed: %s (seed %llu)\n    ", \
						__FILE__, __LINE__, #cond, \
						(unsigned long long) tapas_test_seed()); \
				fprintf(stderr, __VA_ARGS__); \
				fprintf(stderr, "\n"); \
			} \
			tapas_test_current_failed = 1; \
		} \
	} while (0)

#define TAPAS_CHECK(cond) TAPAS_CHECK_MSG(cond, "%s", "")

#define TAPAS_TEST_RUN(fn) \
	do { \
		tapas_test_current_failed = 0; \
		fn(); \
		if (tapas_test_current_failed) \
		{ \
			tapas_test_failed++; \
			printf("not ok - %s\n", #fn); \
		} \
		else \
		{ \
			tapas_test_passed++; \
			printf("ok - %s\n", #fn); \
		} \
		fflush(stdout); \
	} while (0)

#define TAPAS_TEST_DONE() \
	do { \
		printf("%d passed, %d failed\n", tapas_test_passed, tapas_test_failed); \
		return tapas_test_failed ? 1 : 0; \
	} while (0)

#endif							/* TAPAS_TEST_H */
