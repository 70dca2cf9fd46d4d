/*-------------------------------------------------------------------------
 *
 * rowspace.c
 *	  Incremental "is e_j in rowspace(A)?" for all records j, over atoms,
 *	  with a bordered inverse and random projections instead of a dense
 *	  RREF, and trial/commit/rollback.
 *
 * Notation.  A is the m x N binary
 * matrix of logged rows over atom columns (records with identical columns
 * merged, see atoms.h; N = number of atoms).  I = the r rows kept as basis
 * (each new row independent of the earlier ones), P = their pivot columns,
 * chosen so that B = A[I,P] is invertible, F = the other columns.  Then
 * R = B^-1 A[I,:] is the RREF of A up to a column permutation: R[:,P] = 1
 * and its non-pivot block is C = B^-1 A[I,F].
 *
 * Criterion.  e_c is in rowspace(A) iff c = p_k is a pivot and row k of C is
 * zero (a non-pivot column has no coefficient to carry it; a pivot's only
 * candidate combination is R_k).  A record is determined iff its atom is a
 * singleton whose column satisfies this.  So the determined set is the
 * pivots with weight-1 rows, as in section 2.1, for any choice of basis.
 *
 * Random projections instead of row weights.  Keep two secret vectors
 * z, z' uniform in F_p^n over records; an atom's entry is the sum over its
 * members (sums of disjoint sets of independent uniforms are independent
 * uniforms).  With s = A[I,:] z (one number per basis row, fixed when the
 * row arrives) and t = M s where M = B^-1:
 *		t = z_P + C z_F,	so	 (C z_F)_k = t_k - z[p_k].
 * If row k of C is zero this is 0; otherwise it is a nonzero linear form in
 * z_F, zero with probability 1/p.  Testing t_k == z[p_k] for both vectors
 * gives a one-sided test: never misses a determined pivot, false alarm
 * with probability p^-2 per check.
 *
 * Adding a row (splitting the atoms it cuts, the bordering of the inverse,
 * and its exact downdate) is in rowspace_update.c, its pivot search in
 * rowspace_pivot.c.
 * Atoms whose indicator lies in the row space (a GROUP BY's groups) are
 * kept outside the basis (rowspace_resolved.c): A below is then the rows
 * with those atoms' columns zeroed, and the rank adds their number.
 *
 * Why not the dense RREF of section 2.2.  Under an attack design the atoms
 * become singletons after ~17 rows, and an r x N RREF over N = 10^5 columns
 * is 800 MB at r = 1000 and O(r N) per row.  Here memory is O(r^2 + r n/64
 * + n) words (at r = 1000, n = 10^5: 8 MB inverse + 12.5 MB row bitmaps +
 * 8 MB per-record arrays) and the time
 * per independent row is O(r^2 + |a|), plus O(r sqrt(n)) in the rare
 * block search.  In a benign GROUP BY workload the rank is
 * bounded by the few atoms and most rows are dependent: O(|a|).
 *
 * Soundness mod p.  All ranks are taken over F_p; rank_p <= rank_Q with
 * equality unless p divides the minors (section 2.3), and a dependence
 * found by the projections is wrong only with probability p^-2.  Both
 * errors can only hide a determined record; with a secret random p near
 * 2^62 they are about 1e-10 and 2^-120 respectively.
 *
 * Trial.  A trial records r, t (O(r)), the atom savepoint and the sampling
 * generator.  Rollback downdates M row by row, newest first
 * (M_old = M11 - M12 M21 / M22, the exact inverse of the bordering, so M is
 * restored word for word at the cost of the trial itself and with no
 * O(r^2) snapshot on the commit path), restores t, merges the split atoms
 * back (their z sums first) and returns basis capacity the trial took if
 * it exceeds 4r.
 * Basis row bitmaps beyond r are simply overwritten later.  Limit: the rank
 * may not exceed rank_limit (TAPAS_ELIMIT), which bounds the memory at
 * 8 (c^2 + c n / 64) bytes for capacity c <= rank_limit (and c <= 4r).
 *
 * IDENTIFICATION
 *	  src/recon/rowspace.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include <flint/flint.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

/* ---------------------------------------------------------------------
 * Creation and destruction
 * ---------------------------------------------------------------------
 */

uint64_t
tapas_rowspace_prime_draw(tapas_rng_t *rng)
{
	uint64_t	lo = UINT64_C(1) << 61;
	uint64_t	x = lo + tapas_rng_below(rng, lo - (UINT64_C(1) << 20));

	/* prime gaps below 2^62 are far smaller than the 2^20 left free */
	return n_nextprime(x, 1);
}

/*
 * (Re)allocates the basis arrays for capacity cap >= r, growing or
 * shrinking (see rowspace_int.h).  M is reallocated first; if that fails
 * nothing changes.  If a later enlargement fails, TAPAS_ENOMEM keeps the
 * old capacity (arrays already enlarged just stay larger); a failed shrink
 * keeps the larger buffer, which is harmless.
 */
tapas_status
tapas_rowspace_grow(tapas_rowspace_t *rs, uint32_t cap)
{
	uint64_t   *M2;
	void	   *p;
	uint32_t	k;
	int			e;

	M2 = tapas_malloc_aligned((size_t) cap * cap * sizeof(uint64_t));
	if (M2 == NULL)
		return TAPAS_ENOMEM;
#define GROW(field, elsize) \
	do { \
		p = tapas_realloc(field, (size_t) cap * (elsize)); \
		if (p != NULL) \
			field = p; \
		else if (cap > rs->rcap || field == NULL) \
		{ \
			tapas_free(M2); \
			return TAPAS_ENOMEM; \
		} \
	} while (0)
	GROW(rs->piv, sizeof(uint32_t));
	GROW(rs->u, sizeof(uint64_t));
	GROW(rs->g, sizeof(uint64_t));
	GROW(rs->bidx, sizeof(uint32_t));
	for (e = 0; e < NPROJ; e++)
	{
		GROW(rs->s[e], sizeof(uint64_t));
		GROW(rs->t[e], sizeof(uint64_t));
		GROW(rs->tsave[e], sizeof(uint64_t));
	}
#undef GROW
	/* the private bitmaps and block sums hold rows r_ext.. only (cap >= r >= r_ext) */
	for (e = 0; e < 2 + NPROJ; e++)
	{
		uint64_t  **field = e == 0 ? &rs->rows : e == 1 ? &rs->nrows : &rs->bsum[e - 2];
		size_t		nr = cap > rs->r_ext ? cap - rs->r_ext : 1;

		p = tapas_realloc(*field, nr * (e < 2 ? rs->nwords : rs->nblocks) * sizeof(uint64_t));
		if (p != NULL)
			*field = p;
		else if (cap > rs->rcap || *field == NULL)
		{
			tapas_free(M2);
			return TAPAS_ENOMEM;
		}
	}
	for (k = 0; k < rs->r; k++)
		memcpy(M2 + (size_t) k * cap, rs->M + (size_t) k * rs->rcap,
			   rs->r * sizeof(uint64_t));
	tapas_free(rs->M);
	rs->M = M2;
	rs->rcap = cap;
	return TAPAS_OK;
}

/*
 * Allocates a state for records 0..n-1 in one atom, with no rows, zero
 * projections and basis capacity cap (rowspace_int.h): everything but the
 * secret draws, shared by creation and deserialisation
 * (rowspace_serial.c).  NULL with a static message in *reason.
 */
tapas_rowspace_t *
tapas_rowspace_alloc(uint32_t n, uint64_t prime, uint32_t rank_limit,
					 uint32_t cap, tapas_status *status, const char **reason)
{
	tapas_rowspace_t *rs;
	int			e;

#define FAIL(msg) \
	do { \
		*status = strcmp((msg), "out of memory") == 0 ? TAPAS_ENOMEM : TAPAS_EINVAL; \
		if (reason) \
			*reason = (msg); \
		goto fail; \
	} while (0)
	rs = NULL;
	if (n == 0 || n >= (UINT32_C(1) << 31))
		FAIL("number of records must be between 1 and 2^31 - 1");
	if (prime < 3 || prime >= (UINT64_C(1) << 62) || !n_is_prime(prime))
		FAIL("modulus must be an odd prime below 2^62");
	if (rank_limit > TAPAS_ROWSPACE_RANK_MAX)
		FAIL("rank limit is above TAPAS_ROWSPACE_RANK_MAX");
	rs = tapas_calloc(1, sizeof(*rs));
	if (rs == NULL)
		FAIL("out of memory");
	rs->n = n;
	rs->rank_limit = rank_limit ? rank_limit : TAPAS_ROWSPACE_RANK_DEFAULT;
	nmod_init(&rs->mod, prime);
	rs->nwords = (n + 63) / 64;
	/* blocks of about sqrt(n) records, whole words */
	rs->blk = 64 * (uint32_t) (1 + sqrt((double) n) / 64);
	rs->nblocks = (n + rs->blk - 1) / rs->blk;
	if (tapas_atoms_init(&rs->atoms, n) != TAPAS_OK)
		FAIL("out of memory");
	for (e = 0; e < NPROJ; e++)
	{
		rs->z[e] = tapas_malloc((size_t) n * sizeof(uint64_t));
		rs->za[e] = tapas_calloc(n, sizeof(uint64_t));
		if (!rs->z[e] || !rs->za[e])
			FAIL("out of memory");
	}
	rs->pivot_of = tapas_malloc((size_t) n * sizeof(int32_t));
	rs->inrow = tapas_calloc(n, 1);
	rs->det = tapas_calloc(n, 1);
	rs->detlist = tapas_malloc((size_t) n * sizeof(uint32_t));
	rs->inside = tapas_malloc((size_t) n * sizeof(uint32_t));
	rs->seen = tapas_calloc(rs->nwords, sizeof(uint64_t));
	rs->blkval = tapas_malloc(rs->nblocks * sizeof(uint64_t));
	rs->blkacc = tapas_malloc(rs->blk * sizeof(uint64_t));
	rs->resolved = tapas_calloc(n, 1);
	rs->inside2 = tapas_malloc((size_t) n * sizeof(uint32_t));
	rs->qbuf = tapas_malloc((size_t) n * sizeof(uint32_t));
	rs->blockof = tapas_calloc(n, sizeof(uint32_t));
	rs->bstart = tapas_calloc(n, sizeof(uint32_t));
	rs->bsize = tapas_calloc(n, sizeof(uint32_t));
	rs->bacc = tapas_calloc(n, sizeof(uint32_t));
	rs->qneg = tapas_malloc((size_t) n * sizeof(uint32_t));
	rs->blist = tapas_malloc((size_t) n * sizeof(uint32_t));
	if (!rs->pivot_of || !rs->inrow || !rs->det || !rs->detlist ||
		!rs->inside || !rs->seen || !rs->blkval || !rs->blkacc ||
		!rs->resolved || !rs->inside2 || !rs->qbuf || !rs->blockof ||
		!rs->bstart || !rs->bsize || !rs->bacc || !rs->qneg || !rs->blist)
		FAIL("out of memory");
	rs->unc = 0;				/* atom 0: every record, no row yet */
	if (cap > rs->rank_limit)
		cap = rs->rank_limit;
	if (tapas_rowspace_grow(rs, cap) != TAPAS_OK)
		FAIL("out of memory");
	memset(rs->pivot_of, 0xff, (size_t) n * sizeof(int32_t));	/* -1 */
	*status = TAPAS_OK;
	if (reason)
		*reason = NULL;
	return rs;
fail:
	tapas_rowspace_free(rs);
	return NULL;
#undef FAIL
}

/* records between two polls of the progress callback in the draws */
#define CREATE_POLL_RECORDS	(UINT32_C(1) << 20)

/* the secret projections, shared read-only by the row spaces made from them */
struct tapas_rowspace_proj
{
	uint32_t	n;
	uint64_t	prime;
	uint64_t	refs;			/* the caller's and each row space's */
	uint64_t   *z[NPROJ];		/* [n] */
	uint64_t	sum[NPROJ];		/* of z over every record: atom 0's za */
};

tapas_rowspace_proj_t *
tapas_rowspace_proj_create(uint32_t n, uint64_t prime, tapas_rng_t *rng,
						   const tapas_progress_t *progress, tapas_status *status,
						   const char **reason)
{
	tapas_rowspace_proj_t *pj;
	int			e;

	*status = TAPAS_EINVAL;
	if (reason)
		*reason = "number of records must be between 1 and 2^31 - 1";
	if (n == 0 || n >= (UINT32_C(1) << 31))
		return NULL;
	if (reason)
		*reason = "modulus must be an odd prime below 2^62";
	if (prime < 3 || prime >= (UINT64_C(1) << 62) || !n_is_prime(prime))
		return NULL;
	*status = TAPAS_ENOMEM;
	if (reason)
		*reason = "out of memory";
	pj = tapas_calloc(1, sizeof(*pj));
	if (pj == NULL)
		return NULL;
	pj->n = n;
	pj->prime = prime;
	pj->refs = 1;

	/*
	 * Drawn in blocks between two polls, with the generator inlined (the
	 * same draws as one tapas_rng_below per record).
	 */
	for (e = 0; e < NPROJ; e++)
	{
		pj->z[e] = tapas_malloc((size_t) n * sizeof(uint64_t));
		if (pj->z[e] == NULL)
		{
			tapas_rowspace_proj_release(pj);
			return NULL;
		}
		for (uint32_t j = 0; j < n; j += CREATE_POLL_RECORDS)
		{
			uint32_t	len = n - j < CREATE_POLL_RECORDS ? n - j : CREATE_POLL_RECORDS;

			if (tapas_progress_poll(progress, (e + (double) j / n) / NPROJ))
			{
				tapas_rowspace_proj_release(pj);
				*status = TAPAS_ECANCELED;
				if (reason)
					*reason = "canceled";
				return NULL;
			}
			pj->sum[e] = n_addmod(pj->sum[e], tapas_rng_below_fill(rng, prime, pj->z[e] + j, len),
								  prime);
		}
	}
	*status = TAPAS_OK;
	if (reason)
		*reason = NULL;
	return pj;
}

void
tapas_rowspace_proj_release(tapas_rowspace_proj_t *pj)
{
	if (pj == NULL || --pj->refs > 0)
		return;
	for (int e = 0; e < NPROJ; e++)
		tapas_free(pj->z[e]);
	tapas_free(pj);
}

uint32_t
tapas_rowspace_proj_n(const tapas_rowspace_proj_t *pj)
{
	return pj->n;
}

uint64_t
tapas_rowspace_proj_prime(const tapas_rowspace_proj_t *pj)
{
	return pj->prime;
}

tapas_rowspace_t *
tapas_rowspace_create_from(tapas_rowspace_proj_t *pj, uint32_t rank_limit, tapas_rng_t *rng,
						   tapas_status *status, const char **reason)
{
	tapas_rowspace_t *rs = tapas_rowspace_alloc(pj->n, pj->prime, rank_limit, INITIAL_RCAP,
												status, reason);

	if (rs == NULL)
		return NULL;
	/* atom 0 holds every record, so its sum is all of them */
	for (int e = 0; e < NPROJ; e++)
	{
		tapas_free(rs->z[e]);
		rs->z[e] = pj->z[e];
		rs->za[e][0] = pj->sum[e];
	}
	rs->z_ext = 1;
	rs->proj = pj;
	pj->refs++;
	tapas_rng_seed(&rs->rng, tapas_rng_u64(rng));
	return rs;
}

tapas_rowspace_t *
tapas_rowspace_create_progress(uint32_t n, uint64_t prime, uint32_t rank_limit,
							   tapas_rng_t *rng, const tapas_progress_t *progress,
							   tapas_status *status, const char **reason)
{
	tapas_rowspace_proj_t *pj;
	tapas_rowspace_t *rs;

	if (rank_limit > TAPAS_ROWSPACE_RANK_MAX)
	{
		*status = TAPAS_EINVAL;
		if (reason)
			*reason = "rank limit is above TAPAS_ROWSPACE_RANK_MAX";
		return NULL;
	}
	pj = tapas_rowspace_proj_create(n, prime, rng, progress, status, reason);
	if (pj == NULL)
		return NULL;
	rs = tapas_rowspace_create_from(pj, rank_limit, rng, status, reason);
	tapas_rowspace_proj_release(pj);
	return rs;
}

tapas_rowspace_t *
tapas_rowspace_create(uint32_t n, uint64_t prime, uint32_t rank_limit,
					  tapas_rng_t *rng, const char **reason)
{
	tapas_status st;

	return tapas_rowspace_create_progress(n, prime, rank_limit, rng, NULL, &st, reason);
}

void
tapas_rowspace_free(tapas_rowspace_t *rs)
{
	int			e;

	if (rs == NULL)
		return;
	tapas_atoms_clear(&rs->atoms);
	tapas_rowspace_proj_release(rs->proj);
	for (e = 0; e < NPROJ; e++)
	{
		if (!rs->z_ext)
			tapas_free(rs->z[e]);
		tapas_free(rs->za[e]);
		tapas_free(rs->s[e]);
		tapas_free(rs->t[e]);
		tapas_free(rs->tsave[e]);
		tapas_free(rs->bsum[e]);
	}
	tapas_free(rs->pivot_of);
	tapas_free(rs->inrow);
	tapas_free(rs->det);
	tapas_free(rs->detlist);
	tapas_free(rs->inside);
	tapas_free(rs->seen);
	tapas_free(rs->blkval);
	tapas_free(rs->blkacc);
	tapas_free(rs->resolved);
	tapas_free(rs->inside2);
	tapas_free(rs->qbuf);
	tapas_free(rs->blockof);
	tapas_free(rs->bstart);
	tapas_free(rs->bsize);
	tapas_free(rs->bacc);
	tapas_free(rs->qneg);
	tapas_free(rs->blist);
	tapas_free(rs->rlog);
	tapas_free(rs->piv);
	tapas_free(rs->M);
	tapas_free(rs->rows);
	tapas_free(rs->nrows);
	tapas_free(rs->u);
	tapas_free(rs->g);
	tapas_free(rs->bidx);
	if (rs->ext_release != NULL)
		rs->ext_release(rs->ext_arg);	/* after the last read of the rows */
	tapas_free(rs);
}
