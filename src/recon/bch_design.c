/*-------------------------------------------------------------------------
 *
 * bch_design.c
 *	  Binary BCH parity-check designs: construction, row coverage and the
 *	  packing of answer parities into syndromes.
 *
 * The narrow-sense binary BCH code of length N = 2^q - 1 and designed
 * distance 2s+1 has the parity-check matrix H[i][j] = alpha^(i j) for
 * i = 1..2s.  Only odd i are needed: for binary x, S_2i = S_i^2 (the
 * Frobenius map is additive in characteristic 2), so the s odd rows carry
 * all the information.  Each GF(2^q) row is expanded over the polynomial
 * basis into q binary rows; row (t, b) covers record j iff bit b of
 * alpha^((2t+1) j) is 1.  The code is shortened to n <= N records by
 * dropping locators alpha^j, j > n.  When alpha^(2t+1) is primitive and
 * n = N, a binary row covers exactly 2^(q-1) records (every nonzero
 * element is some alpha^((2t+1) j), and half of them have bit b set).
 * References: Peterson and Weldon, "Error-correcting codes" (1972), ch. 9;
 * Linux lib/bch.c (Djelic, 2011) for the decoder layout.
 *
 * Scratch for the decoder is allocated here once, so tapas_bch_decode
 * allocates nothing.
 *
 * IDENTIFICATION
 *	  src/recon/bch_design.c
 *
 *-------------------------------------------------------------------------
 */
#include "util/memory.h"
#include "recon/bch.h"

int
tapas_bch_degree(int64_t n)
{
	int			q = 1;

	while (q < 62 && (((int64_t) 1 << q) - 1) < n)
		q++;
	return q < TAPAS_GF2M_MIN_Q ? TAPAS_GF2M_MIN_Q : q;
}

/* allocates one scratch array of count 32-bit words, noting failure */
static uint32_t *
bch_alloc(size_t count, int *failed)
{
	uint32_t   *p = tapas_calloc(count, sizeof(uint32_t));

	if (p == NULL)
		*failed = 1;
	return p;
}

tapas_bch_t *
tapas_bch_create(int64_t n, int s, tapas_status *status)
{
	tapas_bch_t *bch;
	size_t		w;
	int			q,
				failed = 0;

	*status = TAPAS_EINVAL;
	if (n < 1 || n > ((int64_t) 1 << TAPAS_GF2M_MAX_Q) - 1 ||
		s < 1 || s > TAPAS_BCH_MAX_S)
		return NULL;
	q = tapas_bch_degree(n);
	if (2 * (int64_t) s > ((int64_t) 1 << q) - 1)
		return NULL;
	*status = TAPAS_ENOMEM;
	bch = tapas_calloc(1, sizeof(tapas_bch_t));
	if (bch == NULL)
		return NULL;
	bch->n = n;
	bch->s = s;
	bch->q = q;
	bch->m = s * q;
	bch->gf = tapas_gf2m_create(q, 0, status);
	if (bch->gf == NULL)
		goto fail;
	w = 2 * (size_t) s + 2;		/* one polynomial of degree <= 2s + 1 */
	bch->syn = bch_alloc(w, &failed);
	bch->elp = bch_alloc(3 * w, &failed);
	bch->frob = bch_alloc((size_t) (q + 1) * w, &failed);
	bch->trace = bch_alloc((size_t) q * w, &failed);
	bch->trace_done = tapas_calloc(q, 1);
	bch->arena = bch_alloc(2 * w, &failed);
	bch->work = bch_alloc(7 * w, &failed);
	bch->stack = tapas_calloc(3 * (size_t) (s + 1), sizeof(int));
	if (s <= TAPAS_BCH_SQTAB_MAX_S)
		bch->sqtab = bch_alloc(((size_t) s / 2 + 1) * s, &failed);
	if (failed || bch->trace_done == NULL || bch->stack == NULL)
	{
		*status = TAPAS_ENOMEM;
		goto fail;
	}
	*status = TAPAS_OK;
	return bch;

fail:
	tapas_bch_free(bch);
	return NULL;
}

void
tapas_bch_free(tapas_bch_t *bch)
{
	if (bch == NULL)
		return;
	tapas_gf2m_free(bch->gf);
	tapas_free(bch->syn);
	tapas_free(bch->elp);
	tapas_free(bch->frob);
	tapas_free(bch->trace);
	tapas_free(bch->trace_done);
	tapas_free(bch->arena);
	tapas_free(bch->work);
	tapas_free(bch->stack);
	tapas_free(bch->sqtab);
	tapas_free(bch);
}

tapas_status
tapas_bch_coverage(const tapas_bch_t *bch, int64_t *cover,
				   const tapas_progress_t *progress)
{
	const tapas_gf2m_t *gf = bch->gf;
	int			t,
				r;
	int64_t		j;

	for (r = 0; r < bch->m; r++)
		cover[r] = 0;
	for (t = 0; t < bch->s; t++)
	{
		/* e = (2t+1) j mod N, advanced incrementally */
		uint32_t	step = (uint32_t) ((2 * (uint64_t) t + 1) % gf->N),
					e = 0;
		int64_t    *row = cover + (size_t) t * bch->q;

		for (j = 1; j <= bch->n; j++)
		{
			uint32_t	v;

			if ((j & 0xffff) == 0 &&
				tapas_progress_poll(progress, (t + (double) j / bch->n) / bch->s))
				return TAPAS_ECANCELED;
			e += step;
			if (e >= gf->N)
				e -= gf->N;
			for (v = gf->exp[e]; v != 0; v &= v - 1)
				row[__builtin_ctz(v)]++;
		}
	}
	return TAPAS_OK;
}

void
tapas_bch_pack_syndromes(const tapas_bch_t *bch, const uint8_t *parity,
						 uint32_t *syn_odd)
{
	int			t,
				b;

	for (t = 0; t < bch->s; t++)
	{
		uint32_t	v = 0;

		for (b = 0; b < bch->q; b++)
			if (parity[t * bch->q + b] & 1)
				v |= (uint32_t) 1 << b;
		syn_odd[t] = v;
	}
}
