/*-------------------------------------------------------------------------
 *
 * rowspace_resolved.c
 *	  Resolved blocks: unions of atoms whose indicator already lies in the
 *	  row space, kept outside the basis, so that a GROUP BY of many
 *	  disjoint groups costs no basis row, nor does a GROUP BY whose groups
 *	  cross those groups.
 *
 * Facts over atoms.  Every row is a union of atoms, so rowspace(A) = V
 * lies in the functions constant on atoms, and e_j in V needs j's atom
 * X = {j}: record j is determined iff its atom is a singleton whose
 * indicator lies in V.  For two partitions P, Q of the same records,
 * span{1_X, 1_Y} is the set of functions alpha_X + beta_Y on the meet
 * atoms X n Y, i.e. the image of the incidence map of the bipartite graph
 * G (a vertex per block, an edge per nonempty X n Y): its dimension is
 * |P| + |Q| - (components of G), and 1_{X n Y} lies in it iff the edge is
 * a bridge of G (on a cycle, the alternating sum of +-1 around it is 1 for
 * the indicator and 0 for every alpha_X + beta_Y; a bridge splits its
 * component in two, and alpha = 1 on the P side of one part, beta = -1 on
 * its Q side gives the indicator).  The incidence matrix is totally
 * unimodular, so this holds over every F_p.  So crossing partitions
 * determine no meet atom except on a cycle-free part of G, yet their span
 * has |P| + |Q| - c dimensions: holding each cut block as its own basis
 * row (as the kernel did) fills the basis with P.
 *
 * Blocks.  A block B is a union of atoms with 1_B in V; blocks are
 * disjoint and each has a base atom x_B.  With R = span{1_B} (dim = the
 * number of blocks, nres) and the projection
 *		pi(v) = v - sum_B v(x_B) 1_B,
 * pi maps V into V (1_B lies in V), v - pi(v) lies in R, and pi(V)
 * vanishes on every base atom while a nonzero element of R does not, so
 *		V = R (+) pi(V),	rank = nres + rank(pi(V)).
 * The kernel (rowspace.c) holds a basis of pi(V).  For an atom c that is
 * not a base, e_c in V iff e_c = pi(e_c) lies in pi(V): the kernel's own
 * criterion.  A base atom x is determined iff it is a singleton and
 * pi(e_x) = e_x - 1_B lies in pi(V), i.e. 1_{B \ x} does: always for a
 * block of one atom, and for a block of several atoms a membership test
 * of the kernel (base_determined, the projection test of rowspace_span.c,
 * O(|B|)), run after every trial that added basis rows.
 *
 * Blocks start as one atom and only ever split inside: the atom keeping
 * the old id after a split is the part outside the row (atoms.h), so a
 * block's records stay the contiguous range of atoms.order its one atom
 * had at the start, and its base keeps its id while it shrinks.  A vector
 * of pi(V) vanishes on the whole old base, so on every part of it: pi is
 * the same map before and after.
 *
 * A new row a, after the split of the atoms it cuts, touches blocks
 * wholly or partly, the kernel's atoms, and records no row covered
 * before (the uncovered atom unc, or its inside part U).  pi(a) is a on
 * the kernel's atoms and U; 0 on a block wholly inside a; a n B on a block
 * B cut with its base outside a; and -1_{B \ a} on a block cut with its
 * base inside a (so basis rows are signed, rowspace_update.c).  Then:
 *	- only whole blocks and U: 1_U = a - (the rest) lies in V, so U is a
 *	  new block (the cells of one GROUP BY over fresh records);
 *	- only whole blocks and one half X n a of a block of one atom X:
 *	  both halves are blocks of one atom (a GROUP BY refined by a WHERE or
 *	  another column);
 *	- anything else: pi(a) goes to the kernel and the cut blocks stay
 *	  blocks: a GROUP BY crossing the groups of an earlier one costs at
 *	  most one basis row per group, not one per cut block.
 * Every atom the row's split made differs from its parent in pi(a) (1
 * against 0, or 0 against -1), so such a row is independent.  Records
 * never move from the kernel into a block, so no basis row ever has to be
 * removed, and a trial is undone by restoring the block fields it changed
 * (rlog) besides the kernel's own rollback.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_resolved.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

/* the kinds of a row's atoms after its split (see the banner) */
typedef struct row_kinds
{
	size_t		nkernel;		/* atoms of the kernel (no block) */
	size_t		nblocks;		/* blocks touched, in rs->blist */
	size_t		npartial;		/* blocks cut */
	uint32_t	half;			/* the half of a one-atom block it cut, or NONE */
	uint32_t	fresh;			/* the uncovered part, or NONE */
} row_kinds;

/* notes atom a's block fields before the trial changes them */
static tapas_status
log_atom(tapas_rowspace_t *rs, uint32_t a)
{
	rowspace_rlog *e;

	if (rs->nrlog == rs->rlogcap)
	{
		size_t		cap = rs->rlogcap ? 2 * rs->rlogcap : 256;
		rowspace_rlog *p = tapas_realloc(rs->rlog, cap * sizeof(rowspace_rlog));

		if (p == NULL)
			return TAPAS_ENOMEM;
		rs->rlog = p;
		rs->rlogcap = cap;
	}
	e = &rs->rlog[rs->nrlog++];
	e->a = a;
	e->resolved = rs->resolved[a];
	e->blockof = rs->blockof[a];
	e->bstart = rs->bstart[a];
	e->bsize = rs->bsize[a];
	return TAPAS_OK;
}

/* makes the whole atom a, in no block, a block of its own */
static tapas_status
new_block(tapas_rowspace_t *rs, uint32_t a)
{
	tapas_status st = log_atom(rs, a);

	if (st != TAPAS_OK)
		return st;
	rs->resolved[a] = 1;
	rs->blockof[a] = a;
	rs->bstart[a] = rs->atoms.start[a];
	rs->bsize[a] = rs->atoms.size[a];
	rs->nres++;
	return TAPAS_OK;
}

/* puts the atoms the row's split made into their parents' blocks */
static tapas_status
inherit_blocks(tapas_rowspace_t *rs, uint32_t natoms0)
{
	uint32_t	b;
	tapas_status st;

	for (b = natoms0; b < rs->atoms.natoms; b++)
	{
		uint32_t	x = rs->atoms.parent[b];

		if (!rs->resolved[x])
			continue;			/* resolved[b] is 0: flags beyond the atoms are */
		if ((st = log_atom(rs, b)) != TAPAS_OK)
			return st;
		rs->resolved[b] = 1;
		rs->blockof[b] = rs->blockof[x];
	}
	return TAPAS_OK;
}

/*
 * Sorts the row's atoms inside2[0..ninside) (flagged in inrow) by kind;
 * lists the blocks touched in blist with their records inside in bacc.
 */
static void
classify(tapas_rowspace_t *rs, size_t ninside, uint32_t natoms0, row_kinds *k)
{
	size_t		i;

	memset(k, 0, sizeof(*k));
	k->fresh = TAPAS_ROWSPACE_NONE;
	k->half = TAPAS_ROWSPACE_NONE;
	for (i = 0; i < ninside; i++)
	{
		uint32_t	a = rs->inside2[i];
		uint32_t	from = a >= natoms0 ? rs->atoms.parent[a] : a;
		uint32_t	x;

		if (from == rs->unc)
			k->fresh = a;
		else if (!rs->resolved[a])
			k->nkernel++;
		else
		{
			x = rs->blockof[a];
			if (rs->bacc[x] == 0)
				rs->blist[k->nblocks++] = x;
			rs->bacc[x] += rs->atoms.size[a];
			/* the inside half of a block of one atom: block = {a, x} */
			if (a >= natoms0 && from == x &&
				rs->atoms.size[a] + rs->atoms.size[x] == rs->bsize[x])
				k->half = a;
		}
	}
	for (i = 0; i < k->nblocks; i++)
		k->npartial += rs->bacc[rs->blist[i]] < rs->bsize[rs->blist[i]];
}

/* the uncovered part became covered: the rest is still unc, or none is */
static void
cover_fresh(tapas_rowspace_t *rs, uint32_t fresh)
{
	if (fresh == rs->unc)
		rs->unc = TAPAS_ROWSPACE_NONE;
}

/* the cases that need no kernel work; 1 if the row was one of them */
static int
resolve_outside(tapas_rowspace_t *rs, const row_kinds *k, tapas_status *st)
{
	uint32_t	x;

	*st = TAPAS_OK;
	if (k->nkernel > 0 || k->npartial > 1 ||
		(k->npartial == 1 && (k->fresh != TAPAS_ROWSPACE_NONE ||
							  k->half == TAPAS_ROWSPACE_NONE)))
		return 0;
	if (k->fresh != TAPAS_ROWSPACE_NONE)
	{
		*st = new_block(rs, k->fresh);
		cover_fresh(rs, k->fresh);
	}
	else if (k->npartial == 1)
	{
		/* X n a is a block of its own; X keeps the outside part */
		x = rs->atoms.parent[k->half];
		rs->resolved[k->half] = 0;	/* logged by inherit_blocks */
		if ((*st = new_block(rs, k->half)) == TAPAS_OK &&
			(*st = log_atom(rs, x)) == TAPAS_OK)
		{
			rs->bstart[x] = rs->atoms.start[x];
			rs->bsize[x] = rs->atoms.size[x];
		}
	}
	return 1;
}

/*
 * The baseline of the benchmarks (tapas_rowspace_set_basis_only(rs, 2),
 * the kernel before blocks kept crossings): gives the cut block x, one
 * atom before the row, back to the kernel as the row 1_B.  Its atoms have
 * a residual of 1 (pi(V) vanished on the old atom), so the sampled pivot
 * search finds one at once; no new-atom search (natoms0 = natoms).
 */
static tapas_status
unresolve(tapas_rowspace_t *rs, uint32_t x)
{
	const uint32_t *rec = rs->atoms.order + rs->bstart[x];
	size_t		len = rs->bsize[x],
				na = 0,
				i;
	tapas_status st;

	for (i = 0; i < len; i++)
	{
		uint32_t	a = rs->atoms.atom_of[rec[i]];

		if (rs->atoms.order[rs->atoms.start[a]] != rec[i])
			continue;			/* one record per atom: its first */
		if ((st = log_atom(rs, a)) != TAPAS_OK)
			return st;
		rs->resolved[a] = 0;
		rs->inside[na++] = a;
	}
	rs->nres--;
	memcpy(rs->qbuf, rec, len * sizeof(uint32_t));
	return tapas_rowspace_add_kernel_row(rs, rs->qbuf, len, NULL, 0, na, 0,
										 rs->atoms.natoms, 1);
}

/* 1 if pi(a) is 0 on block x: held wholly, or cut with its base inside */
static inline int
held(const tapas_rowspace_t *rs, uint32_t x)
{
	return rs->bacc[x] == rs->bsize[x] || rs->inrow[x];
}

/*
 * pi(a) into the kernel (see the banner): +1 on the row's records outside
 * the blocks it holds, -1 on the records outside the row of the cut blocks
 * whose base it holds.  The row's atoms inside2[0..ninside) are flagged in
 * inrow.
 */
static tapas_status
kernel_part(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
			size_t ninside, uint32_t natoms0, const row_kinds *k)
{
	size_t		npos = 0,
				nneg = 0,
				nq = 0,
				nn = 0,
				i,
				l;

	for (i = 0; i < ninside; i++)
	{
		uint32_t	a = rs->inside2[i];

		if (!rs->resolved[a] || !held(rs, rs->blockof[a]))
			rs->inside[npos++] = a;
	}
	for (i = 0; i < len; i++)
	{
		uint32_t	a = rs->atoms.atom_of[q[i]];

		if (!rs->resolved[a] || !held(rs, rs->blockof[a]))
			rs->qbuf[nq++] = q[i];
	}
	for (i = 0; i < k->nblocks; i++)
	{
		uint32_t	x = rs->blist[i];
		const uint32_t *rec = rs->atoms.order + rs->bstart[x];

		if (!rs->resolved[x] || rs->bacc[x] == rs->bsize[x] || !rs->inrow[x])
			continue;			/* given back, whole, or base outside */
		for (l = 0; l < rs->bsize[x]; l++)
		{
			uint32_t	a = rs->atoms.atom_of[rec[l]];

			if (rs->inrow[a])
				continue;
			rs->qneg[nn++] = rec[l];
			if (rs->atoms.order[rs->atoms.start[a]] == rec[l])
				rs->inside[npos + nneg++] = a;	/* one record per atom: its first */
		}
	}
	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside2[i]] = 0;
	for (i = 0; i < k->nblocks; i++)
		rs->bacc[rs->blist[i]] = 0;
	if (k->fresh != TAPAS_ROWSPACE_NONE)
		cover_fresh(rs, k->fresh);
	return tapas_rowspace_add_kernel_row(rs, rs->qbuf, nq, rs->qneg, nn, npos,
										 nneg, natoms0,
										 rs->atoms.natoms - natoms0);
}

/* clears the scratch classify and kernel_part leave set */
static void
clear_scratch(tapas_rowspace_t *rs, size_t ninside, const row_kinds *k)
{
	size_t		i;

	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside2[i]] = 0;
	for (i = 0; i < k->nblocks; i++)
		rs->bacc[rs->blist[i]] = 0;
}

/* adds one validated row inside an open savepoint (see rowspace_int.h) */
tapas_status
tapas_rowspace_add_row(tapas_rowspace_t *rs, const uint32_t *q, size_t len)
{
	uint32_t	natoms0 = rs->atoms.natoms;
	size_t		ninside,
				nnew,
				i;
	row_kinds	k;
	tapas_status st;

	rs->stats.rows++;
	tapas_rowspace_split_row(rs, q, len, &ninside, &nnew);
	if (rs->basis_only == 1)
	{
		/* the baseline: the whole row to the kernel; unc is kept all the same */
		for (i = 0; i < ninside; i++)
			if ((rs->inside[i] >= natoms0 ? rs->atoms.parent[rs->inside[i]]
				 : rs->inside[i]) == rs->unc)
				cover_fresh(rs, rs->inside[i]);
		return tapas_rowspace_add_kernel_row(rs, q, len, NULL, 0, ninside, 0,
											 natoms0, nnew);
	}
	if ((st = inherit_blocks(rs, natoms0)) != TAPAS_OK)
		return st;
	memcpy(rs->inside2, rs->inside, ninside * sizeof(uint32_t));
	for (i = 0; i < ninside; i++)
		rs->inrow[rs->inside2[i]] = 1;
	classify(rs, ninside, natoms0, &k);
	if (resolve_outside(rs, &k, &st))
	{
		clear_scratch(rs, ninside, &k);
		return st;
	}
	if (rs->basis_only == 2)
	{
		/* the baseline: every cut block back to the kernel (unresolve) */
		for (i = 0; i < ninside; i++)
			rs->inrow[rs->inside2[i]] = 0;
		for (i = 0; i < k.nblocks && st == TAPAS_OK; i++)
			if (rs->bacc[rs->blist[i]] < rs->bsize[rs->blist[i]])
				st = unresolve(rs, rs->blist[i]);
		if (st != TAPAS_OK)
		{
			clear_scratch(rs, 0, &k);
			return st;
		}
		for (i = 0; i < ninside; i++)
			rs->inrow[rs->inside2[i]] = 1;
	}
	return kernel_part(rs, q, len, ninside, natoms0, &k);
}

tapas_status
tapas_rowspace_set_basis_only(tapas_rowspace_t *rs, int on)
{
	if (rs == NULL || rs->in_trial || rs->stats.rows > 0)
		return TAPAS_EINVAL;
	if (on < 0 || on > 2)
		return TAPAS_EINVAL;
	rs->basis_only = on;
	return TAPAS_OK;
}

void
tapas_rowspace_resolved_undo(tapas_rowspace_t *rs)
{
	while (rs->nrlog > 0)
	{
		const rowspace_rlog *e = &rs->rlog[--rs->nrlog];

		rs->resolved[e->a] = e->resolved;
		rs->blockof[e->a] = e->blockof;
		rs->bstart[e->a] = e->bstart;
		rs->bsize[e->a] = e->bsize;
	}
	rs->nres = rs->save_nres;
	rs->unc = rs->save_unc;
}

/*
 * 1 if the base x of a block B of several atoms is determined: e_x in V iff
 * pi(e_x) = e_x - 1_B lies in pi(V), i.e. iff y = 1_{B \ x} does, tested
 * with the projections as in rowspace_span.c (y . za = sum y[p_k] t_k;
 * x is never a pivot).  O(|B|).
 */
static int
base_determined(const tapas_rowspace_t *rs, uint32_t x)
{
	const uint32_t *rec = rs->atoms.order + rs->bstart[x];
	uint64_t	p = rs->mod.n;
	int			e;

	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	lhs = 0,
					rhs = 0;
		uint32_t	l;

		for (l = 0; l < rs->bsize[x]; l++)
		{
			uint32_t	a = rs->atoms.atom_of[rec[l]];

			if (a == x || rs->atoms.order[rs->atoms.start[a]] != rec[l])
				continue;		/* the base, or not an atom's first record */
			lhs = n_addmod(lhs, rs->za[e][a], p);
			if (rs->pivot_of[a] >= 0)
				rhs = n_addmod(rhs, rs->t[e][rs->pivot_of[a]], p);
		}
		if (lhs != rhs)
			return 0;
	}
	return 1;
}

/* marks the record of the singleton base x determined if it is */
static void
scan_base(tapas_rowspace_t *rs, uint32_t x)
{
	uint32_t	j;

	if (!rs->resolved[x] || rs->blockof[x] != x || rs->atoms.size[x] != 1)
		return;
	j = tapas_atoms_rep(&rs->atoms, x);
	/* a block of one atom: its indicator is e_j */
	if (rs->det[j] || (rs->bsize[x] > 1 && !base_determined(rs, x)))
		return;
	rs->det[j] = 1;
	rs->detlist[rs->ndet++] = j;
}

/*
 * The blocks the trial changed, and when it added basis rows (t moved)
 * every block: O(atoms + records of the blocks with a singleton base).
 */
void
tapas_rowspace_resolved_scan(tapas_rowspace_t *rs)
{
	size_t		i,
				nb = 0;
	uint32_t	a;

	if (rs->r > rs->save_r)
	{
		for (a = 0; a < rs->atoms.natoms; a++)
			scan_base(rs, a);
		return;
	}
	/* each block once (bacc as a mark): a block may have many logged atoms */
	for (i = 0; i < rs->nrlog; i++)
	{
		a = rs->rlog[i].a;
		if (rs->resolved[a] && rs->bacc[rs->blockof[a]] == 0)
		{
			rs->bacc[rs->blockof[a]] = 1;
			rs->blist[nb++] = rs->blockof[a];
		}
	}
	for (i = 0; i < nb; i++)
	{
		scan_base(rs, rs->blist[i]);
		rs->bacc[rs->blist[i]] = 0;
	}
}
