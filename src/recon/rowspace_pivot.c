/*-------------------------------------------------------------------------
 *
 * rowspace_pivot.c
 *	  Choosing the pivot of a new independent row of the row-space kernel:
 *	  a non-pivot atom c with residual sigma = rho[c] != 0.
 *
 * Notation (A, I, P, M = B^-1, z, u, rho) is defined in the banner of
 * rowspace.c; the bordering that follows is rowspace_update.c.
 *
 * Pivot search for a row a: rho[c] = [c in a] - sum_{i: c in row i} u_i costs O(r) per
 * column; try the atoms a split (one of the two halves always works), some
 * non-pivot atoms of a, some random atoms, then, if all were zero (rho very
 * sparse, e.g. a difference attack), a block search: each basis row keeps
 * its z sums over blocks of ~sqrt(n) records, so rho . z splits into block
 * shares a . z_b - sum_i u_i s_ib; a block with a nonzero share holds a
 * record with rho_j != 0, found by computing rho on that block only.  That
 * is O(|a| + r sqrt(n)) instead of O(r n) for the whole residual.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_pivot.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include <flint/flint.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

/* the row's entry at atom c (inrow: 1 for +1, 2 for -1) */
static inline uint64_t
row_entry(const tapas_rowspace_t *rs, uint32_t c)
{
	return rs->inrow[c] == 1 ? 1 : rs->inrow[c] == 2 ? rs->mod.n - 1 : 0;
}

/* rho[c] = a[c] - sum of u_i A[i,c] over basis rows i with A[i,c] != 0;
 * lists those rows in bidx[0 .. *nb) (BIDX_NEG for A[i,c] = -1) */
static uint64_t
residual_at(tapas_rowspace_t *rs, uint32_t c, size_t *nb)
{
	uint32_t	rep = tapas_atoms_rep(&rs->atoms, c);
	const uint64_t *w = (rs->r_ext > 0 ? rs->ext_rows : rs->rows) + rep / 64;
	const uint64_t *nw = (rs->r_ext > 0 ? rs->ext_nrows : rs->nrows) + rep / 64;
	uint64_t	bit = UINT64_C(1) << (rep % 64);
	uint64_t	p = rs->mod.n;
	uint64_t	acc = 0;
	uint32_t	i;

	*nb = 0;
	for (i = 0; i < rs->r; i++, w += rs->nwords, nw += rs->nwords)
	{
		if (i == rs->r_ext && i > 0)
		{
			/* from the rows in place to the private ones */
			w = rs->rows + rep / 64;
			nw = rs->nrows + rep / 64;
		}
		if (*w & bit)
		{
			acc = n_addmod(acc, rs->u[i], p);
			rs->bidx[(*nb)++] = i;
		}
		else if (*nw & bit)
		{
			acc = n_submod(acc, rs->u[i], p);
			rs->bidx[(*nb)++] = i | BIDX_NEG;
		}
	}
	return n_submod(row_entry(rs, c), acc, p);
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
block_projections(tapas_rowspace_t *rs, int e, const uint32_t *q, size_t len,
				  const uint32_t *qn, size_t nlen)
{
	uint64_t	p = rs->mod.n;
	uint64_t   *val = rs->blkval;
	uint32_t	i,
				b;
	size_t		l;

	memset(val, 0, rs->nblocks * sizeof(uint64_t));
	for (l = 0; l < len; l++)
		val[q[l] / rs->blk] = n_addmod(val[q[l] / rs->blk], rs->z[e][q[l]], p);
	for (l = 0; l < nlen; l++)
		val[qn[l] / rs->blk] = n_submod(val[qn[l] / rs->blk], rs->z[e][qn[l]], p);
	for (i = 0; i < rs->r; i++)
	{
		const uint64_t *sb = rowspace_bsum(rs, e, i);
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
block_residual(tapas_rowspace_t *rs, uint32_t b, const uint32_t *q, size_t len,
			   const uint32_t *qn, size_t nlen)
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
	/* acc = -a_j, so that rho_j = -(acc_j + sum u_i A[i,j]) below */
	for (l = 0; l < len; l++)
		if (q[l] >= start && q[l] < end)
			acc[q[l] - start] = p - 1;
	for (l = 0; l < nlen; l++)
		if (qn[l] >= start && qn[l] < end)
			acc[qn[l] - start] = 1;
	for (i = 0; i < rs->r; i++)
	{
		const uint64_t *row = rowspace_prow(rs, i);
		const uint64_t *nrow = rowspace_nrow(rs, i);
		uint64_t	ui = rs->u[i];

		if (ui == 0)
			continue;
		for (w = start / 64; w < (end + 63) / 64; w++)
		{
			uint64_t	bits = row[w],
						nbits = nrow[w];

			while (bits)
			{
				j = (uint32_t) (w * 64 + __builtin_ctzll(bits));
				acc[j - start] = n_addmod(acc[j - start], ui, p);
				bits &= bits - 1;
			}
			while (nbits)
			{
				j = (uint32_t) (w * 64 + __builtin_ctzll(nbits));
				acc[j - start] = n_submod(acc[j - start], ui, p);
				nbits &= nbits - 1;
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
			 const uint32_t *qn, size_t nlen, const uint64_t *rz)
{
	int			e = rz[0] != 0 ? 0 : 1;
	uint32_t	b;

	block_projections(rs, e, q, len, qn, nlen);
	for (b = 0; b < rs->nblocks; b++)
		if (rs->blkval[b] != 0)
			return block_residual(rs, b, q, len, qn, nlen);
	return UINT32_MAX;
}

/*
 * Chooses the new pivot atom for an independent row (+1 on q, -1 on qn)
 * whose atoms inside[0..ninside) are flagged in inrow; rz = rho . z.  The
 * atoms the row's split made have ids natoms0 .. natoms - 1.  Sets *c, the
 * Schur complement *sigma != 0 and bidx and *nb for c.
 */
tapas_status
tapas_rowspace_choose_pivot(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
							const uint32_t *qn, size_t nlen, const uint64_t *rz,
							size_t ninside, uint32_t natoms0, size_t nnew,
							uint32_t *c, uint64_t *sigma, size_t *nb)
{
	size_t		i;
	uint32_t	b;

	/*
	 * A split atom on which the row differs from the parent (nnew > 0 says
	 * there is one): one of its halves has a nonzero residual.
	 */
	for (b = natoms0; nnew > 0 && b < rs->atoms.natoms; b++)
	{
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
	*c = block_search(rs, q, len, qn, nlen, rz);
	if (*c == UINT32_MAX)
		return TAPAS_EINCONSISTENT;
	*sigma = try_pivot(rs, *c, nb);
	return *sigma != 0 ? TAPAS_OK : TAPAS_EINCONSISTENT;
}
