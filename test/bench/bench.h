/*-------------------------------------------------------------------------
 *
 * bench.h
 *	  Timing helpers shared by the kernel benchmarks (test/bench/b-*.c).
 *
 * All clocks are CLOCK_MONOTONIC, so a figure never goes backwards when the
 * wall clock is adjusted.  The machine is shared, so benchmarks report the
 * median (or the best) of repeated runs rather than one run; bench_median
 * sorts its argument in place and returns the middle element (the upper
 * one of the two for an even count).  Everything is static inline: each
 * benchmark is one translation unit.
 *
 * IDENTIFICATION
 *	  test/bench/bench.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_BENCH_H
#define TAPAS_BENCH_H

#include <stdlib.h>
#include <time.h>

/* monotonic time in seconds */
static inline double
bench_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * CPU time of this process in seconds: on a shared machine it measures the
 * work where wall time also measures the other processes' load.
 */
static inline double
bench_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* monotonic time in milliseconds */
static inline double
bench_ms(void)
{
	return bench_seconds() * 1e3;
}

/* monotonic time in microseconds */
static inline double
bench_us(void)
{
	return bench_seconds() * 1e6;
}

/* qsort comparator of doubles, ascending */
static inline int
bench_cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* sorts v[0..n-1] and returns its middle element (n > 0) */
static inline double
bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(double), bench_cmp_double);
	return v[n / 2];
}

/* median of reps (a constant) timings in seconds of one statement */
#define BENCH_TIME_MEDIAN(reps, out, call) \
	do { \
		double		t_[reps]; \
		int			r_; \
		for (r_ = 0; r_ < (reps); r_++) { \
			double		t0_ = bench_seconds(); \
			call; \
			t_[r_] = bench_seconds() - t0_; \
		} \
		(out) = bench_median(t_, (reps)); \
	} while (0)

#endif							/* TAPAS_BENCH_H */
