/*-------------------------------------------------------------------------
 *
 * gf2m.c
 *	  Log and antilog tables of GF(2^q) over a primitive polynomial.
 *
 * build: exp[i] = alpha^i is obtained by repeated multiplication by alpha,
 * i.e. a shift left and, when bit q is set, XOR with poly; log is its
 * inverse permutation.  poly is primitive exactly when alpha^i != 1 for
 * 0 < i < N = 2^q - 1 (the multiplicative group is cyclic of order N), so
 * the build itself checks primitivity, as Linux lib/bch.c's
 * build_gf_tables does.  The default polynomials are those of lib/bch.c
 * (prim_poly_tab) for q = 5..15 and trinomials or pentanomials from the
 * standard tables elsewhere; the unit tests check each against FLINT's
 * fq_nmod_is_primitive and every table product against FLINT's fq_nmod
 * arithmetic.
 *
 * IDENTIFICATION
 *	  src/recon/gf2m.c
 *
 *-------------------------------------------------------------------------
 */
#include "util/memory.h"
#include "recon/gf2m.h"

/* index q: x^q + ... + 1, bit i = coefficient of x^i */
static const uint32_t gf2m_default_polys[TAPAS_GF2M_MAX_Q + 1] = {
	0, 0,
	0x7,						/* 2: x^2 + x + 1 */
	0xb,						/* 3: x^3 + x + 1 */
	0x13,						/* 4: x^4 + x + 1 */
	0x25,						/* 5: x^5 + x^2 + 1 */
	0x43,						/* 6: x^6 + x + 1 */
	0x83,						/* 7: x^7 + x + 1 */
	0x11d,						/* 8: x^8 + x^4 + x^3 + x^2 + 1 */
	0x211,						/* 9: x^9 + x^4 + 1 */
	0x409,						/* 10: x^10 + x^3 + 1 */
	0x805,						/* 11: x^11 + x^2 + 1 */
	0x1053,						/* 12: x^12 + x^6 + x^4 + x + 1 */
	0x201b,						/* 13: x^13 + x^4 + x^3 + x + 1 */
	0x402b,						/* 14: x^14 + x^5 + x^3 + x + 1 */
	0x8003,						/* 15: x^15 + x + 1 */
	0x1100b,					/* 16: x^16 + x^12 + x^3 + x + 1 */
	0x20009,					/* 17: x^17 + x^3 + 1 */
	0x40081,					/* 18: x^18 + x^7 + 1 */
	0x80027,					/* 19: x^19 + x^5 + x^2 + x + 1 */
	0x100009,					/* 20: x^20 + x^3 + 1 */
	0x200005,					/* 21: x^21 + x^2 + 1 */
	0x400003,					/* 22: x^22 + x + 1 */
	0x800021,					/* 23: x^23 + x^5 + 1 */
	0x100001b					/* 24: x^24 + x^4 + x^3 + x + 1 */
};

uint32_t
tapas_gf2m_default_poly(int q)
{
	if (q < TAPAS_GF2M_MIN_Q || q > TAPAS_GF2M_MAX_Q)
		return 0;
	return gf2m_default_polys[q];
}

/* fills exp and log; returns 0 when poly turns out not to be primitive */
static int
gf2m_build_tables(tapas_gf2m_t *gf)
{
	uint32_t	i,
				a = 1,
				top = (uint32_t) 1 << gf->q;

	gf->log[0] = gf->N;
	for (i = 0; i < gf->N; i++)
	{
		if (i > 0 && a == 1)
			return 0;			/* alpha has order i < N */
		gf->exp[i] = a;
		gf->log[a] = i;
		/* a <- a * alpha: shift, then reduce x^q by poly */
		a <<= 1;
		if (a & top)
			a ^= gf->poly;
	}
	gf->exp[gf->N] = 1;
	return a == 1;
}

tapas_gf2m_t *
tapas_gf2m_create(int q, uint32_t poly, tapas_status *status)
{
	tapas_gf2m_t *gf;
	size_t		size;

	*status = TAPAS_EINVAL;
	if (q < TAPAS_GF2M_MIN_Q || q > TAPAS_GF2M_MAX_Q)
		return NULL;
	if (poly == 0)
		poly = gf2m_default_polys[q];
	if ((poly >> q) != 1 || (poly & 1) == 0)
		return NULL;			/* degree != q, or divisible by x */
	*status = TAPAS_ENOMEM;
	gf = tapas_calloc(1, sizeof(tapas_gf2m_t));
	if (gf == NULL)
		return NULL;
	gf->q = q;
	gf->poly = poly;
	gf->N = ((uint32_t) 1 << q) - 1;
	size = ((size_t) gf->N + 1) * sizeof(uint32_t);
	gf->exp = tapas_malloc(size);
	gf->log = tapas_malloc(size);
	if (gf->exp == NULL || gf->log == NULL)
		goto fail;
	if (!gf2m_build_tables(gf))
	{
		*status = TAPAS_EINVAL;
		goto fail;
	}
	*status = TAPAS_OK;
	return gf;

fail:
	tapas_gf2m_free(gf);
	return NULL;
}

void
tapas_gf2m_free(tapas_gf2m_t *gf)
{
	if (gf == NULL)
		return;
	tapas_free(gf->exp);
	tapas_free(gf->log);
	tapas_free(gf);
}

uint32_t
tapas_gf2m_mul_slow(const tapas_gf2m_t *gf, uint32_t a, uint32_t b)
{
	uint32_t	r = 0,
				top = (uint32_t) 1 << gf->q;
	int			i;

	/* Horner over the bits of b: r <- r * x + b_i a, reducing each step */
	for (i = gf->q - 1; i >= 0; i--)
	{
		r <<= 1;
		if (r & top)
			r ^= gf->poly;
		if ((b >> i) & 1)
			r ^= a;
	}
	return r;
}
