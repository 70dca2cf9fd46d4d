/*-------------------------------------------------------------------------
 *
 * rowspace.c
 *	  Incremental "is e_j in rowspace(A)?" for all records j, over atoms,
 *	  with a bordered inverse and random projections instead of a dense
 *	  RREF, and trial/commit/rollback.
 *
 * Notation (research/reconstruction.md section 2).  A is the m x N binary
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
 * Adding a row a (after splitting the atoms it cuts).  Its residual against
 * the basis is rho = a - u A[I,:] with u = a[P] M; rho[P] = 0 and rho = 0 iff
 * a is in the row space.  Its projection costs O(|a|):
 *		rho . z = a . z - u . s = a . z - sum_{p_k in a} t_k.
 * Zero for both vectors (and no atom split, which always means independent)
 * => dependent: nothing changes.  Otherwise pick a non-pivot column c with
 * sigma = rho[c] != 0 (the Schur complement of the bordered matrix) and
 * border the inverse, with g = M A[I,c]:
 *		M' = [ M + g u / sigma   -g / sigma ]      t' = [ t - g t_r ]
 *		     [ -u / sigma          1 / sigma ]           [ t_r = (rho.z)/sigma ]
 * which is O(r^2) with Shoup multiplication (one precomputation per
 * nonzero entry of g, which is often sparse).
 * Pivot search: rho[c] = [c in a] - sum_{i: c in row i} u_i costs O(r) per
 * column; try the atoms a split (one of the two halves always works), some
 * non-pivot atoms of a, some random atoms, then, if all were zero (rho very
 * sparse, e.g. a difference attack), a block search: each basis row keeps
 * its z sums over blocks of ~sqrt(n) records, so rho . z splits into block
 * shares a . z_b - sum_i u_i s_ib; a block with a nonzero share holds a
 * record with rho_j != 0, found by computing rho on that block only.  That
 * is O(|a| + r sqrt(n)) instead of O(r n) for the whole residual.
 * An atom split duplicates a column: the inside half is a new non-pivot
 * column with the same entries over I, so B, M, s and t are unchanged and
 * only the atoms' z sums move.
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

#include "common/memory.h"
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
		GROW(rs->bsum[e], rs->nblocks * sizeof(uint64_t));
	}
	GROW(rs->rows, rs->nwords * sizeof(uint64_t));
#undef GROW
	for (k = 0; k < rs->r; k++)
		memcpy(M2 + (size_t) k * cap, rs->M + (size_t) k * rs->rcap,
			   rs->r * sizeof(uint64_t));
	tapas_free(rs->M);
	rs->M = M2;
	rs->rcap = cap;
	return TAPAS_OK;
}

tapas_rowspace_t *
tapas_rowspace_create(uint32_t n, uint64_t prime, uint32_t rank_limit,
					  tapas_rng_t *rng, const char **reason)
{
	tapas_rowspace_t *rs;
	uint32_t	j;
	int			e;

#define FAIL(msg) do { if (reason) *reason = (msg); goto fail; } while (0)
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
	if (!rs->pivot_of || !rs->inrow || !rs->det || !rs->detlist ||
		!rs->inside || !rs->seen || !rs->blkval || !rs->blkacc)
		FAIL("out of memory");
	if (tapas_rowspace_grow(rs, rs->rank_limit < INITIAL_RCAP ?
				   rs->rank_limit : INITIAL_RCAP) != TAPAS_OK)
		FAIL("out of memory");
	/* the secret projections; atom 0 holds every record */
	for (e = 0; e < NPROJ; e++)
		for (j = 0; j < n; j++)
		{
			rs->z[e][j] = tapas_rng_below(rng, prime);
			rs->za[e][0] = n_addmod(rs->za[e][0], rs->z[e][j], prime);
		}
	for (j = 0; j < n; j++)
		rs->pivot_of[j] = -1;
	tapas_rng_seed(&rs->rng, tapas_rng_u64(rng));
	if (reason)
		*reason = NULL;
	return rs;
fail:
	tapas_rowspace_free(rs);
	return NULL;
#undef FAIL
}

void
tapas_rowspace_free(tapas_rowspace_t *rs)
{
	int			e;

	if (rs == NULL)
		return;
	tapas_atoms_clear(&rs->atoms);
	for (e = 0; e < NPROJ; e++)
	{
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
	tapas_free(rs->piv);
	tapas_free(rs->M);
	tapas_free(rs->rows);
	tapas_free(rs->u);
	tapas_free(rs->g);
	tapas_free(rs->bidx);
	tapas_free(rs);
}

/* ---------------------------------------------------------------------
 * Pivot search
 * ---------------------------------------------------------------------
 */

/* rho[c] = [c in row] - sum of u_i over basis rows i containing atom c;
 * lists those rows in bidx[0 .. *nb) */
static uint64_t
residual_at(tapas_rowspace_t *rs, uint32_t c, size_t *nb)
{
	uint32_t	rep = tapas_atoms_rep(&rs->atoms, c);
	const uint64_t *w = rs->rows + rep / 64;
	uint64_t	bit = UINT64_C(1) << (rep % 64);
	uint64_t	p = rs->mod.n;
	uint64_t	acc = 0;
	uint32_t	i;

	*nb = 0;
	for (i = 0; i < rs->r; i++, w += rs->nwords)
		if (*w & bit)
		{
			acc = n_addmod(acc, rs->u[i], p);
			rs->bidx[(*nb)++] = i;
		}
	return n_submod(rs->inrow[c] ? 1 : 0, acc, p);
}

/* try atom c as the new pivot: nonzero sigma (and bidx) if it works */
static uint64_t
try_pivot(tapas_rowspace_t *rs, uint32_t c, size_t *nb)
{
	if (rs->pivot_of[c] >= 0)
		return 0;
	return residual_at(rs, c, nb);
}

/*
 * rho . z restricted to each block of records: a . z_b - sum_i u_i s_ib,
 * into rs->blkval.  O(|q| + r nblocks).
 */
static void
block_projections(tapas_rowspace_t *rs, int e, const uint32_t *q, size_t len)
{
	uint64_t	p = rs->mod.n;
	uint64_t   *val = rs->blkval;
	uint32_t	i,
				b;
	size_t		l;

	memset(val, 0, rs->nblocks * sizeof(uint64_t));
	for (l = 0; l < len; l++)
		val[q[l] / rs->blk] = n_addmod(val[q[l] / rs->blk], rs->z[e][q[l]], p);
	for (i = 0; i < rs->r; i++)
	{
		const uint64_t *sb = rs->bsum[e] + (size_t) i * rs->nblocks;
		uint64_t	ui = rs->u[i];

		if (ui == 0)
			continue;
		for (b = 0; b < rs->nblocks; b++)
			if (sb[b] != 0)
				val[b] = n_submod(val[b],
								  n_mulmod2_preinv(ui, sb[b], p, rs->mod.ninv), p);
	}
}

/*
 * The residual at every record of block b: rho_j = [j in q] - sum of u_i
 * over basis rows i containing j.  Returns the atom of the first record
 * with rho_j != 0, or UINT32_MAX if there is none.  O(|q| + r blk).
 */
static uint32_t
block_residual(tapas_rowspace_t *rs, uint32_t b, const uint32_t *q, size_t len)
{
	uint64_t	p = rs->mod.n;
	uint32_t	start = b * rs->blk;
	uint32_t	end = start + rs->blk < rs->n ? start + rs->blk : rs->n;
	uint64_t   *acc = rs->blkacc;
	uint32_t	i,
				j;
	size_t		l,
				w;

	memset(acc, 0, rs->blk * sizeof(uint64_t));
	/* acc = -[j in q], so that rho_j = -(acc_j + sum u_i) below */
	for (l = 0; l < len; l++)
		if (q[l] >= start && q[l] < end)
			acc[q[l] - start] = p - 1;
	for (i = 0; i < rs->r; i++)
	{
		const uint64_t *row = rs->rows + (size_t) i * rs->nwords;
		uint64_t	ui = rs->u[i];

		if (ui == 0)
			continue;
		for (w = start / 64; w < (end + 63) / 64; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				j = (uint32_t) (w * 64 + __builtin_ctzll(bits));
				acc[j - start] = n_addmod(acc[j - start], ui, p);
				bits &= bits - 1;
			}
		}
	}
	for (j = start; j < end; j++)
		if (acc[j - start] != 0 && rs->pivot_of[rs->atoms.atom_of[j]] < 0)
			return rs->atoms.atom_of[j];
	return UINT32_MAX;
}

/*
 * Finds a non-pivot atom where rho != 0 when rho . z_e != 0 (w.h.p. rho is
 * sparse here, e.g. e_j after a difference): some block b has a nonzero
 * share of rho . z_e, hence a record with rho_j != 0.  O(|q| + r (n / blk
 * + blk)) = O(|q| + r sqrt(n)) instead of O(r n) for the whole residual.
 */
static uint32_t
block_search(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
			 const uint64_t *rz)
{
	int			e = rz[0] != 0 ? 0 : 1;
	uint32_t	b;

	block_projections(rs, e, q, len);
	for (b = 0; b < rs->nblocks; b++)
		if (rs->blkval[b] != 0)
			return block_residual(rs, b, q, len);
	return UINT32_MAX;
}

/*
 * Chooses the new pivot atom for an independent row q whose atoms inside[]
 * (the new ones have ids >= natoms0) are flagged in inrow; rz = rho . z.  Sets *c, the
 * Schur complement *sigma != 0 and bidx and *nb for c.
 */
static tapas_status
choose_pivot(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
			 const uint64_t *rz, size_t ninside, uint32_t natoms0,
			 uint32_t *c, uint64_t *sigma, size_t *nb)
{
	size_t		i;

	/* a split atom: one of its halves has a nonzero residual */
	for (i = 0; i < ninside; i++)
	{
		uint32_t	b = rs->inside[i];

		if (b < natoms0)
			continue;
		*c = b;
		if ((*sigma = try_pivot(rs, b, nb)) != 0)
			return TAPAS_OK;
		*c = rs->atoms.parent[b];
		if ((*sigma = try_pivot(rs, *c, nb)) != 0)
			return TAPAS_OK;
	}
	/* sampled atoms of the row, then sampled atoms anywhere */
	for (i = 0; ninside > 0 && i < NCANDIDATES; i++)
	{
		*c = rs->inside[tapas_rng_below(&rs->rng, ninside)];
		if ((*sigma = try_pivot(rs, *c, nb)) != 0)
			return TAPAS_OK;
	}
	for (i = 0; i < NCANDIDATES; i++)
	{
		*c = rs->atoms.atom_of[tapas_rng_below(&rs->rng, rs->n)];
		if ((*sigma = try_pivot(rs, *c, nb)) != 0)
			return TAPAS_OK;
	}
	/* no split here, so rho . z != 0 for some projection */
	rs->stats.block_searches++;
	*c = block_search(rs, q, len, rz);
	if (*c == UINT32_MAX)
		return TAPAS_EINCONSISTENT;
	*sigma = try_pivot(rs, *c, nb);
	return *sigma != 0 ? TAPAS_OK : TAPAS_EINCONSISTENT;
}

/* ---------------------------------------------------------------------
 * Adding one row
 * ---------------------------------------------------------------------
 */

/* row[0..len) += c vec[0..len) mod p, with c fixed (Shoup's method: one
 * precomputation, then two multiplications per entry); c < p */
static inline void
axpy_shoup(uint64_t *row, const uint64_t *vec, uint32_t len, uint64_t c,
		   uint64_t p)
{
	uint64_t	cpre = n_mulmod_precomp_shoup(c, p);
	uint32_t	j;

	for (j = 0; j < len; j++)
		row[j] = n_addmod(row[j], n_mulmod_shoup(c, vec[j], cpre, p), p);
}

/* u = a[P] M: the sum of the rows of M of the pivots inside the row */
static void
compute_u(tapas_rowspace_t *rs, size_t ninside)
{
	uint64_t	p = rs->mod.n;
	size_t		i;
	uint32_t	j;

	memset(rs->u, 0, (size_t) rs->r * sizeof(uint64_t));
	for (i = 0; i < ninside; i++)
	{
		int32_t		k = rs->pivot_of[rs->inside[i]];
		const uint64_t *row;

		if (k < 0)
			continue;
		row = rs->M + (size_t) k * rs->rcap;
		for (j = 0; j < rs->r; j++)
			rs->u[j] = n_addmod(rs->u[j], row[j], p);
	}
}

/*
 * Borders M = B^-1 with the new row (u = a[P] M already computed) and pivot
 * column c (rows bidx[0..nb) contain c), and updates t; see the banner.
 */
static void
border_inverse(tapas_rowspace_t *rs, uint64_t sigma, size_t nb,
			   const uint64_t *rz)
{
	uint64_t	p = rs->mod.n;
	uint32_t	r = rs->r;
	size_t		ld = rs->rcap;
	uint64_t	sinv = n_invmod(sigma, p);
	uint64_t   *newrow = rs->M + (size_t) r * ld;
	uint32_t	j,
				k;
	size_t		l;
	int			e;

	/* g = M A[I,c]: sum of the columns of M at the rows containing c */
	for (k = 0; k < r; k++)
	{
		const uint64_t *row = rs->M + (size_t) k * ld;
		uint64_t	acc = 0;

		for (l = 0; l < nb; l++)
			acc = n_addmod(acc, row[rs->bidx[l]], p);
		rs->g[k] = acc;
	}
	/* M += (g / sigma) u, new column -g / sigma */
	for (k = 0; k < r; k++)
	{
		uint64_t   *row = rs->M + (size_t) k * ld;
		uint64_t	coef = n_mulmod2_preinv(rs->g[k], sinv, p, rs->mod.ninv);

		row[r] = n_negmod(coef, p);
		if (coef != 0)
			axpy_shoup(row, rs->u, r, coef, p);
	}
	/* new row -u / sigma, corner 1 / sigma */
	for (j = 0; j < r; j++)
		newrow[j] = n_negmod(n_mulmod2_preinv(rs->u[j], sinv, p, rs->mod.ninv),
							 p);
	newrow[r] = sinv;
	/* t' = [t - g t_r; t_r] with t_r = (rho . z) / sigma */
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	tr = n_mulmod2_preinv(rz[e], sinv, p, rs->mod.ninv);

		for (k = 0; k < r; k++)
			rs->t[e][k] = n_submod(rs->t[e][k],
								   n_mulmod2_preinv(rs->g[k], tr, p,
													rs->mod.ninv), p);
		rs->t[e][r] = tr;
	}
}

/*
 * Removes the last basis row and pivot k = r - 1 from M (the inverse of
 * border_inverse): with the bordered blocks of the banner,
 *		M_old = M11 - M12 M21 / M22		(M12 M21 / M22 = g u / sigma),
 * exact over F_p, so a rollback restores M word for word.  O(r^2).
 */
void
tapas_rowspace_downdate(tapas_rowspace_t *rs)
{
	uint64_t	p = rs->mod.n;
	uint32_t	k = rs->r - 1;
	size_t		ld = rs->rcap;
	const uint64_t *last = rs->M + (size_t) k * ld;
	uint64_t	sigma = n_invmod(last[k], p);	/* M22 = 1 / sigma */
	uint32_t	i,
				j;

	/* v = M21 / M22 = -u, kept in the u scratch */
	for (j = 0; j < k; j++)
		rs->u[j] = n_mulmod2_preinv(last[j], sigma, p, rs->mod.ninv);
	/* row_i -= M12[i] v, M12[i] = -g_i / sigma: the exact reverse of the
	 * update of border_inverse, since both products are reduced mod p */
	for (i = 0; i < k; i++)
	{
		uint64_t   *row = rs->M + (size_t) i * ld;

		if (row[k] != 0)
			axpy_shoup(row, rs->u, k, n_negmod(row[k], p), p);
	}
	rs->pivot_of[rs->piv[k]] = -1;
	rs->r = k;
}

/* a new atom b split from parent: move its share of the z sums */
static void
account_new_atom(tapas_rowspace_t *rs, uint32_t b)
{
	uint64_t	p = rs->mod.n;
	uint32_t	a = rs->atoms.parent[b];
	uint32_t	k;
	int			e;

	rs->pivot_of[b] = -1;
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	sum = 0;

		for (k = rs->atoms.start[b]; k < rs->atoms.start[b] + rs->atoms.size[b]; k++)
			sum = n_addmod(sum, rs->z[e][rs->atoms.order[k]], p);
		rs->za[e][b] = sum;
		rs->za[e][a] = n_submod(rs->za[e][a], sum, p);
	}
}

/* makes room for one more basis row */
static tapas_status
reserve_row(tapas_rowspace_t *rs)
{
	uint32_t	cap;

	if (rs->r >= rs->rank_limit)
		return TAPAS_ELIMIT;
	if (rs->r < rs->rcap)
		return TAPAS_OK;
	cap = rs->rcap * 2 > rs->rank_limit ? rs->rank_limit : rs->rcap * 2;
	return tapas_rowspace_grow(rs, cap);
}

/* appends the row q as basis row r with pivot c */
static void
append_basis_row(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
				 uint32_t c, const uint64_t *az)
{
	uint64_t   *bits = rs->rows + (size_t) rs->r * rs->nwords;
	size_t		i;
	int			e;

	memset(bits, 0, rs->nwords * sizeof(uint64_t));
	for (i = 0; i < len; i++)
		bits[q[i] / 64] |= UINT64_C(1) << (q[i] % 64);
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t   *sb = rs->bsum[e] + (size_t) rs->r * rs->nblocks;

		memset(sb, 0, rs->nblocks * sizeof(uint64_t));
		for (i = 0; i < len; i++)
			sb[q[i] / rs->blk] = n_addmod(sb[q[i] / rs->blk], rs->z[e][q[i]],
										  rs->mod.n);
		rs->s[e][rs->r] = az[e];
	}
	rs->piv[rs->r] = c;
	rs->pivot_of[c] = (int32_t) rs->r;
	rs->r++;
}

/* the row's projections a.z and rho.z (see the banner) */
static void
row_projections(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
				size_t ninside, uint64_t *az, uint64_t *rz)
{
	uint64_t	p = rs->mod.n;
	size_t		i;
	int			e;

	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	sum = 0,
					ts = 0;

		for (i = 0; i < len; i++)
			sum = n_addmod(sum, rs->z[e][q[i]], p);
		for (i = 0; i < ninside; i++)
		{
			int32_t		k = rs->pivot_of[rs->inside[i]];

			if (k >= 0)
				ts = n_addmod(ts, rs->t[e][k], p);
		}
		az[e] = sum;
		rz[e] = n_submod(sum, ts, p);
	}
}

/* adds one validated row inside an open savepoint (see rowspace_int.h) */
tapas_status
tapas_rowspace_add_row(tapas_rowspace_t *rs, const uint32_t *q, size_t len)
{
	uint32_t	natoms0 = rs->atoms.natoms;
	uint64_t	az[NPROJ],
				rz[NPROJ],
				sigma = 0;
	size_t		ninside,
				nnew,
				nb = 0,
				i;
	uint32_t	c = 0;
	tapas_status st;

	rs->stats.rows++;
	tapas_atoms_split(&rs->atoms, q, len, rs->inside, &ninside, &nnew);
	for (i = 0; i < ninside; i++)
		if (rs->inside[i] >= natoms0)
			account_new_atom(rs, rs->inside[i]);
	row_projections(rs, q, len, ninside, az, rz);
	/* a row that splits no atom and projects to 0 twice is implied */
	if (nnew == 0 && rz[0] == 0 && rz[1] == 0)
		return TAPAS_OK;
	if ((st = reserve_row(rs)) != TAPAS_OK)
		return st;
	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside[i]] = 1;
	compute_u(rs, ninside);
	st = choose_pivot(rs, q, len, rz, ninside, natoms0, &c, &sigma, &nb);
	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside[i]] = 0;
	if (st != TAPAS_OK)
		return st;
	border_inverse(rs, sigma, nb, rz);
	rs->stats.independent++;
	append_basis_row(rs, q, len, c, az);
	return TAPAS_OK;
}
