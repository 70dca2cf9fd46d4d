/*-------------------------------------------------------------------------
 *
 * gf2m.h
 *	  Arithmetic in GF(2^q), 2 <= q <= 24, over log and antilog tables.
 *
 * An element is a uint32_t whose bit b is the coefficient of alpha^b in the
 * polynomial basis {1, alpha, ..., alpha^(q-1)}, where alpha is a root of
 * the primitive polynomial poly (bit q set).  Addition is XOR.  Products go
 * through the tables: a*b = exp[log a + log b mod N] with N = 2^q - 1 the
 * order of alpha.  The inline operations below assume their arguments are
 * field elements (< 2^q) and, for inv/div, a nonzero divisor: assumed, not
 * checked.  Tables take 8 * 2^q bytes (128 MB at q = 24).
 *
 * IDENTIFICATION
 *	  src/recon/gf2m.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_GF2M_H
#define TAPAS_GF2M_H

#include <stdint.h>

#include "util/status.h"

#define TAPAS_GF2M_MIN_Q	2
#define TAPAS_GF2M_MAX_Q	24

typedef struct tapas_gf2m
{
	int			q;				/* degree of the field over GF(2) */
	uint32_t	poly;			/* primitive polynomial, bit q set */
	uint32_t	N;				/* 2^q - 1, the multiplicative order */
	uint32_t   *exp;			/* exp[i] = alpha^i, 0 <= i < N; exp[N] = 1 */
	uint32_t   *log;			/* log[a] for 1 <= a <= N; log[0] = N */
} tapas_gf2m_t;

/*
 * The built-in primitive polynomial of degree q (Linux lib/bch.c's table for
 * q = 5..15, trinomials or pentanomials elsewhere), 0 if q is out of range.
 */
extern uint32_t tapas_gf2m_default_poly(int q);

/*
 * Builds the tables of GF(2^q) for poly (0 selects the default).  Returns
 * NULL with *status = TAPAS_EINVAL when q is out of range, poly does not
 * have degree q or is not primitive (alpha^i = 1 for some 0 < i < N), and
 * TAPAS_ENOMEM when allocation fails.  Free with tapas_gf2m_free.
 */
extern tapas_gf2m_t *tapas_gf2m_create(int q, uint32_t poly,
									   tapas_status *status);

/* Frees the field; accepts NULL and half-built fields. */
extern void tapas_gf2m_free(tapas_gf2m_t *gf);

/* Product by shift-and-add with reduction (no tables): the test oracle. */
extern uint32_t tapas_gf2m_mul_slow(const tapas_gf2m_t *gf, uint32_t a,
									uint32_t b);

/* alpha^e for any e >= 0 */
static inline uint32_t
tapas_gf2m_pow_alpha(const tapas_gf2m_t *gf, uint64_t e)
{
	return gf->exp[e % gf->N];
}

/* a * b */
static inline uint32_t
tapas_gf2m_mul(const tapas_gf2m_t *gf, uint32_t a, uint32_t b)
{
	uint32_t	e;

	if (a == 0 || b == 0)
		return 0;
	e = gf->log[a] + gf->log[b];
	return gf->exp[e >= gf->N ? e - gf->N : e];
}

/* a * alpha^l, with l = log of the other factor (0 <= l < N) */
static inline uint32_t
tapas_gf2m_mul_log(const tapas_gf2m_t *gf, uint32_t a, uint32_t l)
{
	uint32_t	e;

	if (a == 0)
		return 0;
	e = gf->log[a] + l;
	return gf->exp[e >= gf->N ? e - gf->N : e];
}

/* a^2 */
static inline uint32_t
tapas_gf2m_sqr(const tapas_gf2m_t *gf, uint32_t a)
{
	return tapas_gf2m_mul(gf, a, a);
}

/* a / b, b != 0 */
static inline uint32_t
tapas_gf2m_div(const tapas_gf2m_t *gf, uint32_t a, uint32_t b)
{
	uint32_t	e;

	if (a == 0)
		return 0;
	e = gf->log[a] + gf->N - gf->log[b];
	return gf->exp[e >= gf->N ? e - gf->N : e];
}

/* 1 / a, a != 0 */
static inline uint32_t
tapas_gf2m_inv(const tapas_gf2m_t *gf, uint32_t a)
{
	return gf->exp[gf->log[a] == 0 ? 0 : gf->N - gf->log[a]];
}

#endif							/* TAPAS_GF2M_H */
