/*-------------------------------------------------------------------------
 *
 * rng.h
 *	  The seeded pseudo-random generator every randomised kernel takes.
 *
 * xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 2021), seeded by expanding a 64-bit seed with
 * splitmix64.  The stream for a given seed is fixed forever: designs and
 * attacks documented as "seed s" are reproducible across versions and
 * machines.  Kernels never call rand() or time(); the caller owns the state.
 *
 * IDENTIFICATION
 *	  src/util/rng.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_RNG_H
#define TAPAS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct tapas_rng
{
	uint64_t	s[4];
} tapas_rng_t;

/* Seeds rng from a 64-bit seed (any value, including 0). */
extern void tapas_rng_seed(tapas_rng_t *rng, uint64_t seed);

/* Next 64 uniformly random bits. */
extern uint64_t tapas_rng_u64(tapas_rng_t *rng);

/* Uniform double in [0, 1), 53 random bits. */
extern double tapas_rng_uniform(tapas_rng_t *rng);

/* Uniform integer in [0, bound), unbiased (Lemire's method); bound > 0. */
extern uint64_t tapas_rng_below(tapas_rng_t *rng, uint64_t bound);

/* one step of xoshiro256** on the state s: tapas_rng_u64's */
static inline uint64_t
tapas_rng_step(uint64_t *s)
{
	uint64_t	x = s[1] * 5,
				result = ((x << 7) | (x >> 57)) * 9,
				t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

/*
 * tapas_rng_below inlined, for the loops that draw once per iteration (the
 * random forest's feature draws): the same draws, no call.
 */
static inline uint64_t
tapas_rng_below_inline(tapas_rng_t *rng, uint64_t bound)
{
	/* Lemire, "Fast random integer generation in an interval", 2019 */
	unsigned __int128 m = (unsigned __int128) tapas_rng_step(rng->s) * bound;

	if ((uint64_t) m < bound)
	{
		uint64_t	threshold = -bound % bound;

		while ((uint64_t) m < threshold)
			m = (unsigned __int128) tapas_rng_step(rng->s) * bound;
	}
	return (uint64_t) (m >> 64);
}

/*
 * out[0..n) = n successive tapas_rng_below(rng, bound) draws (the same
 * values, the generator left in the same state), faster; returns their sum
 * mod bound.  Assumed, not checked: bound > 0 and n * bound < 2^128 (the
 * sum is taken in 128 bits).
 */
extern uint64_t tapas_rng_below_fill(tapas_rng_t *rng, uint64_t bound, uint64_t *out, size_t n);

/* Standard normal deviate (Marsaglia polar method). */
extern double tapas_rng_normal(tapas_rng_t *rng);

/* Laplace deviate with location 0 and the given scale (inverse CDF). */
extern double tapas_rng_laplace(tapas_rng_t *rng, double scale);

/* Fisher-Yates shuffle of n 64-bit integers in place. */
extern void tapas_rng_shuffle_i64(tapas_rng_t *rng, int64_t *v, uint64_t n);

#endif							/* TAPAS_RNG_H */
