/*-------------------------------------------------------------------------
 *
 * bch.h
 *	  Binary BCH parity-check designs and their syndrome decoder: find the
 *	  support of a binary x of weight <= s from s * q parity queries.
 *
 * Records are numbered j = 1..n and record j has the code locator alpha^j
 * in GF(2^q), q = ceil(log2(n + 1)), so the n locators are distinct.  For
 * t = 0..s-1 and b = 0..q-1, design row r = t * q + b covers record j iff
 * bit b of alpha^((2t+1) j) is 1.  With x the 0/1 vector of the records
 * and a_r = sum of x over row r, the parities a_r mod 2 packed over b are
 * the odd syndromes S_(2t+1) = sum over x_j = 1 of alpha^((2t+1) j).  The
 * decoder (bch_decode.c) recovers the support from them.
 *
 * Calling sequence: tapas_bch_create(n, s), then any number of
 * tapas_bch_member / tapas_bch_coverage / tapas_bch_decode calls (decode
 * allocates nothing; one object must not decode in two threads at once),
 * then tapas_bch_free.
 *
 * IDENTIFICATION
 *	  src/recon/bch.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_BCH_H
#define TAPAS_BCH_H

#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"
#include "recon/gf2m.h"

/* largest sparsity accepted (BM is O(s^2), root finding O(q s^2)) */
#define TAPAS_BCH_MAX_S		4096

/* largest s for which the decoder keeps a squaring table (s^2 / 2 words) */
#define TAPAS_BCH_SQTAB_MAX_S	1024

typedef struct tapas_bch
{
	int64_t		n;				/* records 1..n, n <= 2^q - 1 */
	int			s;				/* correctable weight (designed distance 2s+1) */
	int			q;				/* field degree, ceil(log2(n + 1)) */
	int			m;				/* number of design rows, s * q */
	tapas_gf2m_t *gf;			/* field tables */
	/* private: decoder scratch, allocated once by tapas_bch_create */
	uint32_t   *syn;			/* 2s syndromes S_1 .. S_2s */
	uint32_t   *elp;			/* error locator Lambda and BM buffers */
	uint32_t   *frob;			/* z^(2^i) mod f, i = 0..q, s words each */
	uint32_t   *trace;			/* Tr(alpha^k z) mod f, k = 0..q-1 */
	uint8_t    *trace_done;		/* which trace rows are computed */
	uint32_t   *arena;			/* stack of factors being split */
	uint32_t   *work;			/* polynomial temporaries */
	int		   *stack;			/* factor stack: offset, degree, next k */
	uint32_t   *sqtab;			/* squaring table, s <= TAPAS_BCH_SQTAB_MAX_S */
} tapas_bch_t;

/*
 * Builds the design for n records and sparsity s.  Returns NULL with
 * *status = TAPAS_EINVAL unless 1 <= n <= 2^TAPAS_GF2M_MAX_Q - 1,
 * 1 <= s <= TAPAS_BCH_MAX_S and 2s <= 2^q - 1; TAPAS_ENOMEM on allocation
 * failure.  Free with tapas_bch_free.
 */
extern tapas_bch_t *tapas_bch_create(int64_t n, int s, tapas_status *status);

/* Frees the object; accepts NULL and half-built objects. */
extern void tapas_bch_free(tapas_bch_t *bch);

/* q = ceil(log2(n + 1)) for n >= 1 (the field degree the design uses) */
extern int	tapas_bch_degree(int64_t n);

/*
 * Whether row r (0 <= r < m) covers record j.  Records outside 1..n and
 * rows outside 0..m-1 are covered by nothing (returns 0).
 */
static inline int
tapas_bch_member(const tapas_bch_t *bch, int r, int64_t j)
{
	int			t,
				b;

	if (r < 0 || r >= bch->m || j < 1 || j > bch->n)
		return 0;
	t = r / bch->q;
	b = r % bch->q;
	return (tapas_gf2m_pow_alpha(bch->gf, (uint64_t) (2 * t + 1) * (uint64_t) j) >> b) & 1;
}

/*
 * Number of records each row covers: cover[r] for r = 0..m-1 (caller
 * allocates m entries).  O(s n) table lookups; polls progress and returns
 * TAPAS_ECANCELED when asked to stop.
 */
extern tapas_status tapas_bch_coverage(const tapas_bch_t *bch, int64_t *cover,
									   const tapas_progress_t *progress);

/*
 * Odd syndromes from the row parities: syn_odd[t] = S_(2t+1) packs
 * parity[t q + b] (0 or 1) into bit b.
 */
extern void tapas_bch_pack_syndromes(const tapas_bch_t *bch,
									 const uint8_t *parity, uint32_t *syn_odd);

/*
 * Decodes the support of x from its s odd syndromes: on success writes the
 * weight w <= s to *weight and the records (ascending, in 1..n) to
 * support[0..w-1] (caller allocates s entries).  Returns TAPAS_EDECODE when
 * no x of weight <= s has these syndromes: the locator has degree > s, it
 * does not split into distinct roots of GF(2^q), a root lies outside
 * 1..n, or the syndromes recomputed from the support differ.  A weight
 * > s is detected this way unless the syndromes happen to equal those of
 * some other x of weight <= s (then that x is returned, as for any
 * decoder; callers re-check integer answers to catch it).
 */
extern tapas_status tapas_bch_decode(tapas_bch_t *bch, const uint32_t *syn_odd,
									 int64_t *support, int *weight);

#endif							/* TAPAS_BCH_H */
