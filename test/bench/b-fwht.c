/*
 * b-fwht.c
 *	  Benchmark of the blocked FWHT (src/recon/fwht.c).
 *
 * For n = 2^20 and 2^26 doubles (and 2^24 int64): best-of-k time of
 * tapas_fwht_double against, in the same process, (a) the textbook radix-2
 * loop and (b) memcpy of the same buffer, the memory-bandwidth floor.
 * Targets: >= 2x faster than radix-2; at 2^26 <= 4x the time of
 * two memcpy passes.  TAPAS_BENCH_QUICK=1 skips 2^26.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/memory.h"
#include "recon/fwht.h"

static void
fill(double *x, size_t n)
{
	size_t		j;

	for (j = 0; j < n; j++)
		x[j] = (double) ((j * 2654435761u) % 7) - 3.0;
}

/* best of reps timings of one kind: 0 blocked, 1 radix-2, 2 memcpy */
static double
best(int kind, double *x, double *y, size_t n, int reps)
{
	double		b = 1e30;
	int			r;

	for (r = 0; r < reps; r++)
	{
		double		t;

		fill(x, n);
		t = bench_seconds();
		if (kind == 0)
			tapas_fwht_double(x, n, NULL);
		else if (kind == 1)
			tapas_fwht_double_radix2(x, n);
		else
			memcpy(y, x, n * sizeof(double));
		t = bench_seconds() - t;
		if (t < b)
			b = t;
	}
	return b;
}

static void
run(int p, int reps)
{
	size_t		n = (size_t) 1 << p;
	double	   *x = tapas_malloc_aligned(n * sizeof(double));
	double	   *y = tapas_malloc_aligned(n * sizeof(double));
	double		tb,
				tr,
				tm;

	if (x == NULL || y == NULL)
	{
		printf("fwht 2^%d: out of memory\n", p);
		exit(1);
	}
	memset(y, 0, n * sizeof(double));
	tb = best(0, x, y, n, reps);
	tr = best(1, x, y, n, reps);
	tm = best(2, x, y, n, reps);
	printf("fwht double 2^%d: blocked %.2f ms (%.3f ns/elem/level), radix-2 %.2f ms, "
		   "memcpy %.2f ms | speedup vs radix-2 %.2fx (target >= 2), "
		   "blocked / (2 x memcpy) %.2f (target <= 4 at 2^26)\n",
		   p, tb * 1e3, tb * 1e9 / ((double) n * p), tr * 1e3, tm * 1e3,
		   tr / tb, tb / (2 * tm));
	tapas_free(x);
	tapas_free(y);
}

static void
run_int64(int p, int reps)
{
	size_t		n = (size_t) 1 << p;
	int64_t    *x = tapas_malloc_aligned(n * sizeof(int64_t));
	double		b = 1e30;
	size_t		j;
	int			r;

	for (r = 0; r < reps; r++)
	{
		double		t;

		for (j = 0; j < n; j++)
			x[j] = (int64_t) (j % 3);
		t = bench_seconds();
		tapas_fwht_int64(x, n, NULL);
		t = bench_seconds() - t;
		if (t < b)
			b = t;
	}
	printf("fwht int64 2^%d: blocked %.2f ms\n", p, b * 1e3);
	tapas_free(x);
}

int
main(void)
{
	const char *quick = getenv("TAPAS_BENCH_QUICK");

	run(10, 200);
	run(20, 7);
	run(24, 3);
	run_int64(24, 3);
	if (quick == NULL || strcmp(quick, "1") != 0)
		run(26, 2);
	return 0;
}
