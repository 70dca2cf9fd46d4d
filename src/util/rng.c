/*-------------------------------------------------------------------------
 *
 * rng.c
 *	  xoshiro256** with splitmix64 seeding, and the deviates tapas needs.
 *
 * IDENTIFICATION
 *	  src/util/rng.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "util/rng.h"

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* splitmix64: the recommended way to fill xoshiro's state from one word */
static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void
tapas_rng_seed(tapas_rng_t *rng, uint64_t seed)
{
	int			i;

	for (i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

/* one step of xoshiro256** (rng.h), inlined here and in the bulk fill */
static inline uint64_t
next_u64(uint64_t *s)
{
	return tapas_rng_step(s);
}

uint64_t
tapas_rng_u64(tapas_rng_t *rng)
{
	return next_u64(rng->s);
}

double
tapas_rng_uniform(tapas_rng_t *rng)
{
	return (double) (tapas_rng_u64(rng) >> 11) * 0x1.0p-53;
}

uint64_t
tapas_rng_below(tapas_rng_t *rng, uint64_t bound)
{
	/* Lemire, "Fast random integer generation in an interval", 2019 */
	unsigned __int128 m = (unsigned __int128) tapas_rng_u64(rng) * bound;
	uint64_t	low = (uint64_t) m;

	if (low < bound)
	{
		uint64_t	threshold = -bound % bound;

		while (low < threshold)
		{
			m = (unsigned __int128) tapas_rng_u64(rng) * bound;
			low = (uint64_t) m;
		}
	}
	return (uint64_t) (m >> 64);
}

/*
 * The same draws as n calls of tapas_rng_below, in a loop with the
 * generator inlined and its state in registers (the row space's secret
 * projections: 2 n draws per class); returns their sum mod bound, which
 * the row space needs too (bound < 2^62, n < 2^31: the sum fits in 128
 * bits).
 */
uint64_t
tapas_rng_below_fill(tapas_rng_t *rng, uint64_t bound, uint64_t *out, size_t n)
{
	uint64_t	s[4] = {rng->s[0], rng->s[1], rng->s[2], rng->s[3]};
	uint64_t	threshold = -bound % bound;
	unsigned __int128 sum = 0;

	for (size_t i = 0; i < n; i++)
	{
		unsigned __int128 m = (unsigned __int128) next_u64(s) * bound;

		/* Lemire: (uint64_t) m < bound is the cheap test before the exact one */
		while ((uint64_t) m < bound && (uint64_t) m < threshold)
			m = (unsigned __int128) next_u64(s) * bound;
		out[i] = (uint64_t) (m >> 64);
		sum += out[i];
	}
	memcpy(rng->s, s, sizeof(s));
	return (uint64_t) (sum % bound);
}

double
tapas_rng_normal(tapas_rng_t *rng)
{
	double		u,
				v,
				s;

	do
	{
		u = 2.0 * tapas_rng_uniform(rng) - 1.0;
		v = 2.0 * tapas_rng_uniform(rng) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	return u * sqrt(-2.0 * log(s) / s);
}

double
tapas_rng_laplace(tapas_rng_t *rng, double scale)
{
	/* u uniform in (-1/2, 1/2): x = -b sgn(u) ln(1 - 2|u|) */
	double		u;

	do
		u = tapas_rng_uniform(rng) - 0.5;
	while (u == -0.5);
	return u < 0 ? scale * log(1.0 + 2.0 * u) : -scale * log(1.0 - 2.0 * u);
}

void
tapas_rng_shuffle_i64(tapas_rng_t *rng, int64_t *v, uint64_t n)
{
	uint64_t	i;

	for (i = n; i > 1; i--)
	{
		uint64_t	j = tapas_rng_below(rng, i);
		int64_t		t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}
