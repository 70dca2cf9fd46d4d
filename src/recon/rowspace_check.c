/*-------------------------------------------------------------------------
 *
 * rowspace_check.c
 *	  Invariant checker, state fingerprint and memory accounting of the
 *	  row-space kernel.
 *
 * tapas_rowspace_validate recomputes from the raw basis rows what the
 * incremental code maintains: the atoms' z sums, the row projections s, the
 * rows being constant on atoms, t = M s, and (for small ranks) the exact
 * identity M A[I,P] = 1 over F_p, and the per-block sums of s.  Unit
 * tests call it after every change.
 * tapas_rowspace_fingerprint hashes everything a rollback must restore.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_check.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

size_t
tapas_rowspace_memory(const tapas_rowspace_t *rs)
{
	size_t		n = rs->n;
	size_t		bytes = sizeof(*rs);

	/* atoms: 8 arrays of n words of 4 bytes */
	bytes += 8 * n * sizeof(uint32_t);
	/* z, za; pivot_of, detlist, inside, inside2, qbuf; inrow, det, resolved; seen */
	bytes += 2 * NPROJ * n * sizeof(uint64_t) + 5 * n * sizeof(uint32_t) +
		3 * n + rs->nwords * sizeof(uint64_t) + rs->rlogcap * sizeof(rowspace_rlog);
	/* blocks: blockof, bstart, bsize, bacc, qneg, blist */
	bytes += 6 * n * sizeof(uint32_t);
	bytes += (rs->nblocks + rs->blk) * sizeof(uint64_t);
	/* basis: M, rows, and per-row vectors */
	bytes += (size_t) rs->rcap * rs->rcap * sizeof(uint64_t);
	/*
	 * The row bitmaps, those read in place included: a bound on a state's
	 * memory (tapas.audit_memory) must not depend on where its rows are.
	 */
	bytes += 2 * (size_t) rs->rcap * rs->nwords * sizeof(uint64_t);
	bytes += (size_t) rs->rcap * NPROJ * rs->nblocks * sizeof(uint64_t);
	bytes += (size_t) rs->rcap * (3 * NPROJ + 2) * sizeof(uint64_t) +
		(size_t) rs->rcap * 2 * sizeof(uint32_t);
	return bytes;
}

/* FNV-1a style mixing of one word */
static inline uint64_t
mix(uint64_t h, uint64_t x)
{
	h ^= x;
	h *= UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

uint64_t
tapas_rowspace_fingerprint(const tapas_rowspace_t *rs)
{
	uint64_t	h = tapas_atoms_fingerprint(&rs->atoms);
	uint32_t	a,
				k,
				j;
	size_t		w,
				i;
	int			e;

	h = mix(h, rs->r);
	h = mix(h, rs->atoms.natoms);
	h = mix(mix(h, rs->nres), rs->unc);
	for (a = 0; a < rs->atoms.natoms; a++)
	{
		h = mix(h, (uint64_t) (int64_t) rs->pivot_of[a]);
		h = mix(h, rs->resolved[a]);
		if (rs->resolved[a])
			h = mix(h, rs->blockof[a]);
		if (rs->resolved[a] && rs->blockof[a] == a)
			h = mix(mix(h, rs->bstart[a]), rs->bsize[a]);
		for (e = 0; e < NPROJ; e++)
			h = mix(h, rs->za[e][a]);
	}
	for (j = 0; j < rs->n; j++)
		h = mix(h, rs->atoms.atom_of[j]);
	for (k = 0; k < rs->r; k++)
	{
		h = mix(h, rs->piv[k]);
		for (e = 0; e < NPROJ; e++)
			h = mix(mix(h, rs->s[e][k]), rs->t[e][k]);
		for (j = 0; j < rs->r; j++)
			h = mix(h, rs->M[(size_t) k * rs->rcap + j]);
		for (w = 0; w < rs->nwords; w++)
			h = mix(mix(h, rowspace_prow(rs, k)[w]), rowspace_nrow(rs, k)[w]);
	}
	h = mix(h, rs->ndet);
	for (i = 0; i < rs->ndet; i++)
		h = mix(h, rs->detlist[i]);
	return h;
}

/* entry j of basis row i: 1, -1 or 0 (rows and nrows) */
static inline int
row_bit(const tapas_rowspace_t *rs, uint32_t i, uint32_t j)
{
	int			pos = (rowspace_prow(rs, i)[j / 64] >> (j % 64)) & 1;
	int			neg = (rowspace_nrow(rs, i)[j / 64] >> (j % 64)) & 1;

	return pos && neg ? 2 : pos - neg;	/* 2: both bits, never valid */
}

int
tapas_rowspace_basis_entry(const tapas_rowspace_t *rs, uint32_t k, uint32_t j)
{
	return k < rs->r && j < rs->n ? row_bit(rs, k, j) : 0;
}

/* v mod p for an entry v of row_bit */
static inline uint64_t
entry_mod(int v, uint64_t p)
{
	return v == 1 ? 1 : v == -1 ? p - 1 : 0;
}

/* za = sums of z over atoms, s = z . rows, rows constant on atoms */
static const char *
check_sums(const tapas_rowspace_t *rs)
{
	uint64_t	p = rs->mod.n;
	uint32_t	a,
				k,
				j;
	int			e;

	for (a = 0; a < rs->atoms.natoms; a++)
		for (e = 0; e < NPROJ; e++)
		{
			uint64_t	sum = 0;

			for (k = rs->atoms.start[a]; k < rs->atoms.start[a] + rs->atoms.size[a]; k++)
				sum = n_addmod(sum, rs->z[e][rs->atoms.order[k]], p);
			if (sum != rs->za[e][a])
				return "atom z sum is stale";
		}
	for (k = 0; k < rs->r; k++)
	{
		uint64_t	sum[NPROJ] = {0};

		for (j = 0; j < rs->n; j++)
		{
			if (row_bit(rs, k, j) == 2)
				return "a basis row is both +1 and -1 at a record";
			if (row_bit(rs, k, j) !=
				row_bit(rs, k, tapas_atoms_rep(&rs->atoms, rs->atoms.atom_of[j])))
				return "a basis row cuts an atom";
			for (e = 0; e < NPROJ; e++)
				sum[e] = n_addmod(sum[e],
								  n_mulmod2_preinv(entry_mod(row_bit(rs, k, j), p),
												   rs->z[e][j], p, rs->mod.ninv), p);
		}
		for (e = 0; e < NPROJ; e++)
		{
			uint64_t	total = 0;
			uint32_t	b;

			if (sum[e] != rs->s[e][k])
				return "row projection s is stale";
			/* the block sums add up to s, and each is the block's sum */
			for (b = 0; b < rs->nblocks; b++)
			{
				uint64_t	bs = 0;

				for (j = b * rs->blk; j < (b + 1) * rs->blk && j < rs->n; j++)
					bs = n_addmod(bs, n_mulmod2_preinv(entry_mod(row_bit(rs, k, j), p),
													   rs->z[e][j], p, rs->mod.ninv), p);
				if (bs != rowspace_bsum(rs, e, k)[b])
					return "block sums are stale";
				total = n_addmod(total, bs, p);
			}
			if (total != sum[e])
				return "block sums do not add up";
		}
	}
	return NULL;
}

/*
 * Resolved blocks (rowspace_resolved.c): every resolved atom names a base
 * atom of its block; a block's records are its range of atoms.order, all
 * in its atoms; nres counts the blocks; a base is never a pivot and every
 * basis row vanishes on it; the uncovered atom is in no block, no pivot
 * and no basis row; flags beyond the atoms are clear (a rollback restores
 * them).
 */
static const char *
check_vanishes(const tapas_rowspace_t *rs, uint32_t a)
{
	uint32_t	k;

	if (rs->pivot_of[a] >= 0)
		return "a base or the uncovered atom is a pivot";
	for (k = 0; k < rs->r; k++)
		if (row_bit(rs, k, tapas_atoms_rep(&rs->atoms, a)) != 0)
			return "a basis row covers a base or the uncovered atom";
	return NULL;
}

static const char *
check_block(const tapas_rowspace_t *rs, uint32_t x)
{
	uint32_t	l;
	uint32_t	a;

	if ((size_t) rs->bstart[x] + rs->bsize[x] > rs->n || rs->bsize[x] == 0)
		return "a block's range is out of bounds";
	for (l = 0; l < rs->bsize[x]; l++)
	{
		a = rs->atoms.atom_of[rs->atoms.order[rs->bstart[x] + l]];
		if (!rs->resolved[a] || rs->blockof[a] != x)
			return "a block's range holds a record of another atom";
	}
	return check_vanishes(rs, x);
}

static const char *
check_resolved(const tapas_rowspace_t *rs)
{
	const char *msg;
	uint32_t	a,
				count = 0;
	size_t		inblocks = 0,
				ranges = 0;

	if (rs->unc != TAPAS_ROWSPACE_NONE &&
		(rs->unc >= rs->atoms.natoms || rs->resolved[rs->unc]))
		return "the uncovered atom is out of range or resolved";
	if (rs->unc != TAPAS_ROWSPACE_NONE && (msg = check_vanishes(rs, rs->unc)) != NULL)
		return msg;
	for (a = 0; a < rs->n; a++)
	{
		uint32_t	x = rs->blockof[a];

		if (a >= rs->atoms.natoms)
		{
			if (rs->resolved[a])
				return "a resolved flag is set beyond the atoms";
			continue;
		}
		if (!rs->resolved[a])
			continue;
		if (x >= rs->atoms.natoms || !rs->resolved[x] || rs->blockof[x] != x)
			return "a resolved atom names no base";
		inblocks += rs->atoms.size[a];
		if (x != a)
			continue;
		count++;
		ranges += rs->bsize[a];
		if ((msg = check_block(rs, a)) != NULL)
			return msg;
	}
	/* each range holds only its block's records: equal totals, equal sets */
	if (ranges != inblocks)
		return "a block's atoms lie outside its range";
	return count == rs->nres ? NULL : "nres differs from the blocks";
}

/* t = M s, and M B = 1 when r <= max_exact */
static const char *
check_inverse(const tapas_rowspace_t *rs, uint32_t max_exact)
{
	uint64_t	p = rs->mod.n;
	uint32_t	k,
				i,
				l;
	int			e;

	for (e = 0; e < NPROJ; e++)
		for (k = 0; k < rs->r; k++)
			if (_nmod_vec_dot(rs->M + (size_t) k * rs->rcap, rs->s[e], rs->r,
							  rs->mod, _nmod_vec_dot_bound_limbs(rs->r, rs->mod))
				!= rs->t[e][k])
				return "t differs from M s";
	if (rs->r > max_exact)
		return NULL;
	/* (M B)[k][l] = sum_i M[k][i] B[i][l], B[i][l] = bit of pivot l in row i */
	for (k = 0; k < rs->r; k++)
		for (l = 0; l < rs->r; l++)
		{
			uint32_t	rep = tapas_atoms_rep(&rs->atoms, rs->piv[l]);
			uint64_t	acc = 0;

			for (i = 0; i < rs->r; i++)
				if (row_bit(rs, i, rep) == 1)
					acc = n_addmod(acc, rs->M[(size_t) k * rs->rcap + i], p);
				else if (row_bit(rs, i, rep) == -1)
					acc = n_submod(acc, rs->M[(size_t) k * rs->rcap + i], p);
			if (acc != (k == l))
				return "M is not the inverse of A[I,P]";
		}
	return NULL;
}

int
tapas_rowspace_validate(const tapas_rowspace_t *rs, uint32_t max_rank_exact,
						const char **reason)
{
	const char *msg = NULL;
	uint32_t	a,
				k,
				npiv = 0;
	size_t		i,
				nflag = 0;

	if (!tapas_atoms_validate(&rs->atoms, &msg))
		goto fail;
	msg = "pivot map is inconsistent";
	for (k = 0; k < rs->r; k++)
		if (rs->piv[k] >= rs->atoms.natoms || rs->pivot_of[rs->piv[k]] != (int32_t) k)
			goto fail;
	for (a = 0; a < rs->atoms.natoms; a++)
		npiv += rs->pivot_of[a] >= 0;
	if (npiv != rs->r)
		goto fail;
	msg = "determined list is inconsistent";
	for (i = 0; i < rs->n; i++)
		nflag += rs->det[i] != 0;
	if (nflag != rs->ndet)
		goto fail;
	for (i = 0; i < rs->ndet; i++)
	{
		uint32_t	c = rs->atoms.atom_of[rs->detlist[i]];

		if (!rs->det[rs->detlist[i]] || rs->atoms.size[c] != 1 ||
			(rs->pivot_of[c] < 0 && !rs->resolved[c]))
			goto fail;
	}
	if ((msg = check_resolved(rs)) != NULL || (msg = check_sums(rs)) != NULL || (msg = check_inverse(rs, max_rank_exact)) != NULL)
		goto fail;
	if (reason)
		*reason = NULL;
	return 1;
fail:
	if (reason)
		*reason = msg;
	return 0;
}
