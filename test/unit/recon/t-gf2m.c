/*
 * t-gf2m.c
 *	  Unit tests for src/recon/gf2m.c.
 *
 * Oracles: FLINT's fq_nmod over the same modulus (primitivity of alpha,
 * products, inverses and powers) and the table-free shift-and-add
 * product.  Fields q = 2..24 are all built; products are compared on random
 * pairs, and exhaustively for q <= 6.
 */
#include "util/memory.h"
#include "util/rng.h"
#include "recon/gf2m.h"
#include "tapas_test.h"

#include <flint/fq_nmod.h>
#include <flint/nmod_poly.h>

/* element bits <-> fq_nmod */
static void
to_fq(fq_nmod_t r, uint32_t a, int q, const fq_nmod_ctx_t ctx)
{
	nmod_poly_t p;
	int			b;

	nmod_poly_init(p, 2);
	for (b = 0; b < q; b++)
		if ((a >> b) & 1)
			nmod_poly_set_coeff_ui(p, b, 1);
	fq_nmod_set_nmod_poly(r, p, ctx);
	nmod_poly_clear(p);
}

static uint32_t
from_fq(const fq_nmod_t a, const fq_nmod_ctx_t ctx)
{
	nmod_poly_t p;
	uint32_t	r = 0;
	slong		b;

	nmod_poly_init(p, 2);
	fq_nmod_get_nmod_poly(p, a, ctx);
	for (b = 0; b <= nmod_poly_degree(p); b++)
		if (nmod_poly_get_coeff_ui(p, b))
			r |= (uint32_t) 1 << b;
	nmod_poly_clear(p);
	return r;
}

static void
flint_ctx(fq_nmod_ctx_t ctx, uint32_t poly, int q)
{
	nmod_poly_t m;
	int			b;

	nmod_poly_init(m, 2);
	for (b = 0; b <= q; b++)
		if ((poly >> b) & 1)
			nmod_poly_set_coeff_ui(m, b, 1);
	fq_nmod_ctx_init_modulus(ctx, m, "a");
	nmod_poly_clear(m);
}

static void
check_field(int q, tapas_rng_t *rng)
{
	tapas_status st;
	tapas_gf2m_t *gf = tapas_gf2m_create(q, 0, &st);
	fq_nmod_ctx_t ctx;
	fq_nmod_t	fa,
				fb,
				fr,
				gen;
	long		i,
				iters = q <= 6 ? 0 : tapas_test_iters(2000);
	uint32_t	a = 0,
				b = 0,
				lim = (uint32_t) 1 << q;
	int			bad = 0;

	TAPAS_CHECK_MSG(gf != NULL && st == TAPAS_OK, "q = %d", q);
	if (gf == NULL)
		return;
	flint_ctx(ctx, gf->poly, q);
	fq_nmod_init(fa, ctx);
	fq_nmod_init(fb, ctx);
	fq_nmod_init(fr, ctx);
	fq_nmod_init(gen, ctx);
	fq_nmod_gen(gen, ctx);
	TAPAS_CHECK_MSG(fq_nmod_is_primitive(gen, ctx), "q = %d: FLINT says alpha is not primitive", q);

	/* exhaustive for small q, random pairs otherwise */
	for (i = 0; i < (q <= 6 ? (long) lim * lim : iters) && !bad; i++)
	{
		a = q <= 6 ? (uint32_t) (i / lim) : (uint32_t) tapas_rng_below(rng, lim);
		b = q <= 6 ? (uint32_t) (i % lim) : (uint32_t) tapas_rng_below(rng, lim);
		to_fq(fa, a, q, ctx);
		to_fq(fb, b, q, ctx);
		fq_nmod_mul(fr, fa, fb, ctx);
		if (tapas_gf2m_mul(gf, a, b) != from_fq(fr, ctx) ||
			tapas_gf2m_mul_slow(gf, a, b) != from_fq(fr, ctx))
			bad = 1;
		if (b != 0)
		{
			fq_nmod_inv(fr, fb, ctx);
			if (tapas_gf2m_inv(gf, b) != from_fq(fr, ctx) ||
				tapas_gf2m_mul(gf, tapas_gf2m_div(gf, a, b), b) != a)
				bad = 1;
		}
		/* alpha^e against FLINT's power of the generator */
		fq_nmod_pow_ui(fr, gen, (ulong) a * 7 + b, ctx);
		if (tapas_gf2m_pow_alpha(gf, (uint64_t) a * 7 + b) != from_fq(fr, ctx))
			bad = 1;
	}
	TAPAS_CHECK_MSG(!bad, "q = %d: a = %u, b = %u", q, a, b);
	fq_nmod_clear(fa, ctx);
	fq_nmod_clear(fb, ctx);
	fq_nmod_clear(fr, ctx);
	fq_nmod_clear(gen, ctx);
	fq_nmod_ctx_clear(ctx);
	tapas_gf2m_free(gf);
}

static void
test_gf2m_against_flint(void)
{
	tapas_rng_t rng;
	int			q;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (q = TAPAS_GF2M_MIN_Q; q <= TAPAS_GF2M_MAX_Q; q++)
		check_field(q, &rng);
}

static void
test_gf2m_errors(void)
{
	tapas_status st;
	long		live = tapas_memory_live();

	TAPAS_CHECK(tapas_gf2m_create(1, 0, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_gf2m_create(25, 0, &st) == NULL && st == TAPAS_EINVAL);
	/* wrong degree, divisible by x, and reducible x^4 + x^2 + 1 */
	TAPAS_CHECK(tapas_gf2m_create(4, 0x25, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_gf2m_create(4, 0x12, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_gf2m_create(4, 0x15, &st) == NULL && st == TAPAS_EINVAL);
	/* irreducible but not primitive: x^4 + x^3 + x^2 + x + 1 (order 5) */
	TAPAS_CHECK(tapas_gf2m_create(4, 0x1f, &st) == NULL && st == TAPAS_EINVAL);
	/* another primitive polynomial is accepted: x^4 + x^3 + 1 */
	{
		tapas_gf2m_t *gf = tapas_gf2m_create(4, 0x19, &st);

		TAPAS_CHECK(gf != NULL && st == TAPAS_OK);
		tapas_gf2m_free(gf);
	}
	tapas_memory_fail_after(1);
	TAPAS_CHECK(tapas_gf2m_create(8, 0, &st) == NULL && st == TAPAS_ENOMEM);
	tapas_memory_fail_after(-1);
	tapas_gf2m_free(NULL);
	TAPAS_CHECK(tapas_memory_live() == live);
	TAPAS_CHECK(tapas_gf2m_default_poly(0) == 0 && tapas_gf2m_default_poly(10) == 0x409);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_gf2m_against_flint);
	TAPAS_TEST_RUN(test_gf2m_errors);
	TAPAS_TEST_DONE();
}
