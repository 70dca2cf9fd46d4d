/*
 * t-rng.c
 *	  Unit tests for src/util/rng.c.
 *
 * Oracles: the published xoshiro256** reference output for a known state,
 * and distribution moments with tolerances of several standard errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "tapas_test.h"

/* the reference implementation's first outputs from state {1, 2, 3, 4} */
static void
test_rng_reference_stream(void)
{
	tapas_rng_t rng = {{1, 2, 3, 4}};
	uint64_t	expect[3] = {UINT64_C(11520), UINT64_C(0), UINT64_C(1509978240)};
	int			i;

	for (i = 0; i < 3; i++)
	{
		uint64_t	got = tapas_rng_u64(&rng);

		TAPAS_CHECK_MSG(got == expect[i], "output %d: got %llu", i,
						(unsigned long long) got);
	}
}

static void
test_rng_seed_deterministic(void)
{
	tapas_rng_t a,
				b;
	int			i,
				same = 1;

	tapas_rng_seed(&a, 42);
	tapas_rng_seed(&b, 42);
	for (i = 0; i < 1000; i++)
		same &= tapas_rng_u64(&a) == tapas_rng_u64(&b);
	TAPAS_CHECK(same);
	tapas_rng_seed(&b, 43);
	TAPAS_CHECK(tapas_rng_u64(&a) != tapas_rng_u64(&b));
}

static void
test_rng_below_uniform(void)
{
	tapas_rng_t rng;
	long		counts[7] = {0};
	long		n = tapas_test_iters(700000);
	long		i;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < n; i++)
	{
		uint64_t	v = tapas_rng_below(&rng, 7);

		TAPAS_CHECK(v < 7);
		counts[v]++;
	}
	for (i = 0; i < 7; i++)
	{
		double		expect = n / 7.0;

		/* 6 standard deviations of a binomial count */
		TAPAS_CHECK_MSG(fabs(counts[i] - expect) < 6 * sqrt(expect),
						"bucket %ld has %ld", i, counts[i]);
	}
	TAPAS_CHECK(tapas_rng_below(&rng, 1) == 0);
}

static void
test_rng_moments(void)
{
	tapas_rng_t rng;
	long		n = tapas_test_iters(400000);
	long		i;
	double		su = 0,
				sn = 0,
				sn2 = 0,
				sl = 0,
				sla = 0;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < n; i++)
	{
		double		u = tapas_rng_uniform(&rng);
		double		z = tapas_rng_normal(&rng);
		double		l = tapas_rng_laplace(&rng, 2.0);

		TAPAS_CHECK(u >= 0.0 && u < 1.0);
		su += u;
		sn += z;
		sn2 += z * z;
		sl += l;
		sla += fabs(l);
	}
	TAPAS_CHECK_MSG(fabs(su / n - 0.5) < 0.005, "uniform mean %g", su / n);
	TAPAS_CHECK_MSG(fabs(sn / n) < 0.01, "normal mean %g", sn / n);
	TAPAS_CHECK_MSG(fabs(sn2 / n - 1.0) < 0.02, "normal variance %g", sn2 / n);
	TAPAS_CHECK_MSG(fabs(sl / n) < 0.03, "laplace mean %g", sl / n);
	/* E|X| = b for Laplace(0, b) */
	TAPAS_CHECK_MSG(fabs(sla / n - 2.0) < 0.03, "laplace E|x| %g", sla / n);
}

static void
test_rng_shuffle_permutes(void)
{
	tapas_rng_t rng;
	int64_t		v[100];
	int			seen[100];
	int			i,
				moved = 0;

	for (i = 0; i < 100; i++)
		v[i] = i;
	tapas_rng_seed(&rng, tapas_test_seed());
	tapas_rng_shuffle_i64(&rng, v, 100);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 100; i++)
	{
		TAPAS_CHECK(v[i] >= 0 && v[i] < 100);
		if (v[i] >= 0 && v[i] < 100)
			seen[v[i]]++;
		moved += v[i] != i;
	}
	for (i = 0; i < 100; i++)
		TAPAS_CHECK(seen[i] == 1);
	TAPAS_CHECK(moved > 50);
}

/*
 * tapas_rng_below_fill against n calls of tapas_rng_below from the same
 * state (the oracle): the same values, the same state after, and their
 * sum mod bound recomputed with 128-bit arithmetic; bounds where Lemire's
 * rejection fires often (just above 2^63) and the row space's primes
 * near 2^62, lengths 0, 1 and odd.
 */
static void
test_rng_below_fill_same(void)
{
	uint64_t	bounds[5] = {1, 7, (UINT64_C(1) << 62) - 57,
	(UINT64_C(1) << 63) + 1, UINT64_MAX};
	size_t		lens[4] = {0, 1, 1001, 65536};
	uint64_t	seed = tapas_test_seed();
	uint64_t   *out = malloc(sizeof(uint64_t) * 65536);

	for (int b = 0; b < 5; b++)
		for (int l = 0; l < 4; l++)
		{
			tapas_rng_t x,
						y;
			unsigned __int128 sum = 0;
			uint64_t	got;
			int			same = 1;

			tapas_rng_seed(&x, seed + (uint64_t) (b * 4 + l));
			y = x;
			got = tapas_rng_below_fill(&x, bounds[b], out, lens[l]);
			for (size_t i = 0; i < lens[l]; i++)
			{
				uint64_t	v = tapas_rng_below(&y, bounds[b]);

				same &= v == out[i];
				sum += v;
			}
			TAPAS_CHECK_MSG(same, "bound %d length %zu: other values", b, lens[l]);
			TAPAS_CHECK_MSG(memcmp(x.s, y.s, sizeof(x.s)) == 0,
							"bound %d length %zu: other state after", b, lens[l]);
			TAPAS_CHECK_MSG(got == (uint64_t) (sum % bounds[b]),
							"bound %d length %zu: sum %llu", b, lens[l], (unsigned long long) got);
		}
	free(out);
}

/*
 * tapas_rng_below_inline and tapas_rng_step: the draws and states of
 * tapas_rng_below and tapas_rng_u64, bounds that reject often included
 */
static void
test_rng_below_inline_same(void)
{
	uint64_t	bounds[6] = {1, 2, 6099, (UINT64_C(1) << 63) + 1, UINT64_MAX,
	(UINT64_C(3) << 62) + 5};
	uint64_t	seed = tapas_test_seed();

	for (int b = 0; b < 6; b++)
	{
		tapas_rng_t x,
					y;
		int			same = 1;

		tapas_rng_seed(&x, seed + (uint64_t) b);
		y = x;
		for (int i = 0; i < 10000; i++)
		{
			/* bounds shrinking by one per draw, as the forest's draws do */
			uint64_t	bound = bounds[b] > (uint64_t) i ? bounds[b] - (uint64_t) i : bounds[b];

			same &= tapas_rng_below_inline(&x, bound) == tapas_rng_below(&y, bound);
			same &= tapas_rng_step(x.s) == tapas_rng_u64(&y);
		}
		TAPAS_CHECK_MSG(same, "bound %d: other values", b);
		TAPAS_CHECK_MSG(memcmp(x.s, y.s, sizeof(x.s)) == 0, "bound %d: other state after", b);
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_rng_reference_stream);
	TAPAS_TEST_RUN(test_rng_seed_deterministic);
	TAPAS_TEST_RUN(test_rng_below_uniform);
	TAPAS_TEST_RUN(test_rng_moments);
	TAPAS_TEST_RUN(test_rng_shuffle_permutes);
	TAPAS_TEST_RUN(test_rng_below_fill_same);
	TAPAS_TEST_RUN(test_rng_below_inline_same);
	TAPAS_TEST_DONE();
}
