/*-------------------------------------------------------------------------
 *
 * rowspace_update.c
 *	  Adding one row to the row-space kernel: atom splits, bordering of the
 *	  inverse B^-1, and its exact downdate.
 *
 * Notation (A, I, P, F, B, M = B^-1, C, z, s, t) and the determination
 * criterion are defined in the banner of rowspace.c.
 *
 * Signed rows.  A basis row has entries in {-1, 0, 1} (rows: the +1
 * records, nrows: the -1 records): the rows rowspace_resolved.c gives the
 * kernel are projections of logged rows, which are -1 on part of a
 * resolved block (see its banner).  Everything below is linear in the
 * rows, so only the reading of an entry changes.
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
 * The pivot search is rowspace_pivot.c.
 * An atom split duplicates a column: the inside half is a new non-pivot
 * column with the same entries over I, so B, M, s and t are unchanged and
 * only the atoms' z sums move.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_update.c
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

/*
 * sum of z[idx[i]] mod p over i < len.  The terms are below p < 2^62, so
 * 2^64 of them fit a 128-bit accumulator: one reduction per sum instead
 * of a conditional subtraction per term (a rebuild from the ledger sums
 * z over every id of every row, three times).
 */
static inline uint64_t
sum_z(const uint64_t *z, const uint32_t *idx, size_t len, uint64_t p)
{
	unsigned __int128 acc = 0;
	size_t		i;

	for (i = 0; i < len; i++)
		acc += z[idx[i]];
	return (uint64_t) (acc % p);
}

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

/* u = a[P] M: the signed sum of the rows of M of the pivots in the row
 * (inside[0..npos) +1, inside[npos..ninside) -1) */
static void
compute_u(tapas_rowspace_t *rs, size_t npos, size_t ninside)
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
		if (i < npos)
			for (j = 0; j < rs->r; j++)
				rs->u[j] = n_addmod(rs->u[j], row[j], p);
		else
			for (j = 0; j < rs->r; j++)
				rs->u[j] = n_submod(rs->u[j], row[j], p);
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
			if (rs->bidx[l] & BIDX_NEG)
				acc = n_submod(acc, row[rs->bidx[l] & ~BIDX_NEG], p);
			else
				acc = n_addmod(acc, row[rs->bidx[l]], p);
		rs->g[k] = acc;
	}
	/*
	 * M += (g / sigma) u, new column -g / sigma.  g and u are mostly zero
	 * when the new row overlaps few basis rows (a GROUP BY's disjoint
	 * cells: both are 0), so zero entries skip their multiplication: the
	 * bordering then costs O(r) word writes instead of O(r) mulmods.
	 */
	for (k = 0; k < r; k++)
	{
		uint64_t   *row = rs->M + (size_t) k * ld;
		uint64_t	coef = rs->g[k] == 0 ? 0
			: n_mulmod2_preinv(rs->g[k], sinv, p, rs->mod.ninv);

		row[r] = n_negmod(coef, p);
		if (coef != 0)
			axpy_shoup(row, rs->u, r, coef, p);
	}
	/* new row -u / sigma, corner 1 / sigma */
	for (j = 0; j < r; j++)
		newrow[j] = rs->u[j] == 0 ? 0
			: n_negmod(n_mulmod2_preinv(rs->u[j], sinv, p, rs->mod.ninv), p);
	newrow[r] = sinv;
	/* t' = [t - g t_r; t_r] with t_r = (rho . z) / sigma */
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	tr = n_mulmod2_preinv(rz[e], sinv, p, rs->mod.ninv);

		for (k = 0; k < r; k++)
			if (rs->g[k] != 0)
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
		rs->u[j] = last[j] == 0 ? 0 : n_mulmod2_preinv(last[j], sigma, p, rs->mod.ninv);
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
	int			e;

	rs->pivot_of[b] = -1;
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	sum = sum_z(rs->z[e], rs->atoms.order + rs->atoms.start[b],
								rs->atoms.size[b], p);

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

/* sb[block] += sign * (z over the records q[0..len) in the block) */
static void
add_block_sums(const tapas_rowspace_t *rs, uint64_t *sb, const uint64_t *z,
			   const uint32_t *q, size_t len, int negative)
{
	size_t		i;

	/* runs of ids in one block (all of a sorted row's) sum unreduced */
	for (i = 0; i < len;)
	{
		uint32_t	b = q[i] / rs->blk;
		unsigned __int128 acc = 0;
		uint64_t	v;

		for (; i < len && q[i] / rs->blk == b; i++)
			acc += z[q[i]];
		v = (uint64_t) (acc % rs->mod.n);
		sb[b] = negative ? n_submod(sb[b], v, rs->mod.n) : n_addmod(sb[b], v, rs->mod.n);
	}
}

/* appends the row (+1 on q, -1 on qn) as basis row r with pivot c */
static void
append_basis_row(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
				 const uint32_t *qn, size_t nlen, uint32_t c, const uint64_t *az)
{
	/* r >= r_ext: a new row is always private */
	uint64_t   *bits = rs->rows + (size_t) (rs->r - rs->r_ext) * rs->nwords;
	uint64_t   *nbits = rs->nrows + (size_t) (rs->r - rs->r_ext) * rs->nwords;
	size_t		i;
	int			e;

	memset(bits, 0, rs->nwords * sizeof(uint64_t));
	memset(nbits, 0, rs->nwords * sizeof(uint64_t));
	for (i = 0; i < len; i++)
		bits[q[i] / 64] |= UINT64_C(1) << (q[i] % 64);
	for (i = 0; i < nlen; i++)
		nbits[qn[i] / 64] |= UINT64_C(1) << (qn[i] % 64);
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t   *sb = rs->bsum[e] + (size_t) (rs->r - rs->r_ext) * rs->nblocks;

		memset(sb, 0, rs->nblocks * sizeof(uint64_t));
		add_block_sums(rs, sb, rs->z[e], q, len, 0);
		add_block_sums(rs, sb, rs->z[e], qn, nlen, 1);
		rs->s[e][rs->r] = az[e];
	}
	rs->piv[rs->r] = c;
	rs->pivot_of[c] = (int32_t) rs->r;
	rs->r++;
}

/* the row's projections a.z and rho.z (see the banner) */
static void
row_projections(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
				const uint32_t *qn, size_t nlen, size_t npos, size_t ninside,
				uint64_t *az, uint64_t *rz)
{
	uint64_t	p = rs->mod.n;
	size_t		i;
	int			e;

	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	sum = n_submod(sum_z(rs->z[e], q, len, p),
								   sum_z(rs->z[e], qn, nlen, p), p),
					ts = 0;

		for (i = 0; i < ninside; i++)
		{
			int32_t		k = rs->pivot_of[rs->inside[i]];

			if (k >= 0)
				ts = i < npos ? n_addmod(ts, rs->t[e][k], p)
					: n_submod(ts, rs->t[e][k], p);
		}
		az[e] = sum;
		rz[e] = n_submod(sum, ts, p);
	}
}

/* splits the atoms the row q cuts, moving their z sums (see rowspace_int.h) */
void
tapas_rowspace_split_row(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
						 size_t *ninside, size_t *nnew)
{
	uint32_t	natoms0 = rs->atoms.natoms;
	size_t		i;

	tapas_atoms_split(&rs->atoms, q, len, rs->inside, ninside, nnew);
	for (i = 0; i < *ninside; i++)
		if (rs->inside[i] >= natoms0)
			account_new_atom(rs, rs->inside[i]);
}

/* adds the kernel's part of a row (see rowspace_int.h) */
tapas_status
tapas_rowspace_add_kernel_row(tapas_rowspace_t *rs, const uint32_t *q,
							  size_t len, const uint32_t *qn, size_t nlen,
							  size_t npos, size_t nneg, uint32_t natoms0,
							  size_t nnew)
{
	uint64_t	az[NPROJ],
				rz[NPROJ],
				sigma = 0;
	size_t		nb = 0,
				ninside = npos + nneg,
				i;
	uint32_t	c = 0;
	tapas_status st;

	row_projections(rs, q, len, qn, nlen, npos, ninside, az, rz);
	/* a row not known independent that projects to 0 twice is implied */
	if (nnew == 0 && rz[0] == 0 && rz[1] == 0)
		return TAPAS_OK;
	if ((st = reserve_row(rs)) != TAPAS_OK)
		return st;
	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside[i]] = i < npos ? 1 : 2;
	compute_u(rs, npos, ninside);
	st = tapas_rowspace_choose_pivot(rs, q, len, qn, nlen, rz, ninside, natoms0,
									 nnew, &c, &sigma, &nb);
	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside[i]] = 0;
	if (st != TAPAS_OK)
		return st;
	border_inverse(rs, sigma, nb, rz);
	rs->stats.independent++;
	append_basis_row(rs, q, len, qn, nlen, c, az);
	return TAPAS_OK;
}
