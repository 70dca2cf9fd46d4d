/*-------------------------------------------------------------------------
 *
 * regset.h
 *	  A set of regions (or of a component's members) of the relation
 *	  kernel: a fixed-capacity bitset of TAPAS_REGSET_MAX bits, with inline
 *	  helpers (recon/linrel.h, recon/maskspan.h, audit/joint.c).
 *
 * The capacity bounds the regions of one group of related classes: a
 * group with more has no coordinates and is audited as incomplete (the
 * caller fails closed).  128 bytes a set; every helper is O(capacity / 64).
 * Plain C, no PostgreSQL headers.
 *
 * IDENTIFICATION
 *	  src/recon/regset.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_REGSET_H
#define TAPAS_REGSET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* most regions (bits) of a set */
#define TAPAS_REGSET_MAX	1024
#define TAPAS_REGSET_WORDS	(TAPAS_REGSET_MAX / 64)

typedef struct tapas_regset
{
	uint64_t	w[TAPAS_REGSET_WORDS];
} tapas_regset_t;

static inline void
tapas_regset_clear(tapas_regset_t *s)
{
	memset(s->w, 0, sizeof(s->w));
}

/* the set {0, ..., n - 1} (n <= TAPAS_REGSET_MAX) */
static inline void
tapas_regset_first(tapas_regset_t *s, int n)
{
	for (int i = 0; i < TAPAS_REGSET_WORDS; i++)
	{
		int			lo = 64 * i;

		s->w[i] = n >= lo + 64 ? ~UINT64_C(0) : n <= lo ? 0 : (UINT64_C(1) << (n - lo)) - 1;
	}
}

/* adds r (0 <= r < TAPAS_REGSET_MAX) */
static inline void
tapas_regset_add(tapas_regset_t *s, int r)
{
	s->w[r >> 6] |= UINT64_C(1) << (r & 63);
}

static inline void
tapas_regset_del(tapas_regset_t *s, int r)
{
	s->w[r >> 6] &= ~(UINT64_C(1) << (r & 63));
}

static inline bool
tapas_regset_has(const tapas_regset_t *s, int r)
{
	return (s->w[r >> 6] >> (r & 63)) & 1;
}

static inline int
tapas_regset_count(const tapas_regset_t *s)
{
	int			n = 0;

	for (int i = 0; i < TAPAS_REGSET_WORDS; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

static inline bool
tapas_regset_empty(const tapas_regset_t *s)
{
	for (int i = 0; i < TAPAS_REGSET_WORDS; i++)
		if (s->w[i] != 0)
			return false;
	return true;
}

static inline bool
tapas_regset_equal(const tapas_regset_t *a, const tapas_regset_t *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

/* a is a subset of b */
static inline bool
tapas_regset_subset(const tapas_regset_t *a, const tapas_regset_t *b)
{
	for (int i = 0; i < TAPAS_REGSET_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

/* *d |= *s */
static inline void
tapas_regset_or(tapas_regset_t *d, const tapas_regset_t *s)
{
	for (int i = 0; i < TAPAS_REGSET_WORDS; i++)
		d->w[i] |= s->w[i];
}

/* *d = *a & ~*b */
static inline void
tapas_regset_minus(tapas_regset_t *d, const tapas_regset_t *a, const tapas_regset_t *b)
{
	for (int i = 0; i < TAPAS_REGSET_WORDS; i++)
		d->w[i] = a->w[i] & ~b->w[i];
}

/* the smallest member >= from, or -1 */
static inline int
tapas_regset_next(const tapas_regset_t *s, int from)
{
	int			i = from >> 6;
	uint64_t	x;

	if (from < 0 || from >= TAPAS_REGSET_MAX)
		return -1;
	x = s->w[i] & (~UINT64_C(0) << (from & 63));
	while (x == 0)
	{
		if (++i == TAPAS_REGSET_WORDS)
			return -1;
		x = s->w[i];
	}
	return 64 * i + __builtin_ctzll(x);
}

/* without r, the members above it moved down one */
static inline void
tapas_regset_drop(tapas_regset_t *s, int r)
{
	int			i = r >> 6;
	uint64_t	low = (r & 63) ? s->w[i] & ((UINT64_C(1) << (r & 63)) - 1) : 0;
	uint64_t	high = (s->w[i] >> 1) & (~UINT64_C(0) << (r & 63));

	s->w[i] = low | high;
	for (int k = i + 1; k < TAPAS_REGSET_WORDS; k++)
	{
		s->w[k - 1] |= s->w[k] << 63;
		s->w[k] >>= 1;
	}
}

/* iterates r over the members of s in ascending order */
#define TAPAS_REGSET_FOREACH(r, s) \
	for (int r = tapas_regset_next((s), 0); r >= 0; r = tapas_regset_next((s), r + 1))

#endif							/* TAPAS_REGSET_H */
