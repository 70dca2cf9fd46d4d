/*-------------------------------------------------------------------------
 *
 * rowspace_resolved.c
 *	  Atoms whose indicator already lies in the row space, kept outside the
 *	  basis, so that a GROUP BY of many disjoint groups costs no rank.
 *
 * An atom X is resolved when 1_X (its indicator over records) lies in
 * rowspace(A).  Let R be the span of the resolved atoms' indicators (they
 * are disjoint, so dim R = nres) and pi the projection that zeroes their
 * coordinates.  Every row a is a union of atoms, so a - pi(a) is a sum of
 * resolved indicators and lies in R; hence
 *		rowspace(A) = R (+) rowspace(pi(A)),	rank = nres + rank(pi(A)),
 * a direct sum because the two have disjoint supports.  The kernel
 * (rowspace.c) holds a basis of rowspace(pi(A)) only: no basis row touches
 * a resolved atom.  For a record c outside the resolved atoms, e_c lies in
 * rowspace(A) iff it lies in rowspace(pi(A)) (its R part must vanish), so
 * the kernel's criterion is unchanged there; a record of a resolved atom is
 * determined iff the atom is a singleton.
 *
 * A new row a, after the split of the atoms it cuts (atoms.h), is made of
 * whole atoms of four kinds: resolved atoms wholly inside a; halves X n a
 * of resolved atoms X it cuts; atoms the kernel has seen; and records no
 * row covered before (at most one atom, unc, or its inside half).  Then:
 *	- only whole resolved atoms: a lies in R, nothing changes;
 *	- whole resolved atoms and the uncovered part U: 1_U = a - (the rest)
 *	  lies in the row space, so U is a new resolved atom (the cells of one
 *	  GROUP BY over fresh records: rank + 1 each, no kernel work);
 *	- whole resolved atoms and one half X n a: 1_{X n a} and
 *	  1_{X \ a} = 1_X - 1_{X n a} lie in the row space: both resolved (a
 *	  GROUP BY refined by a WHERE or another column);
 *	- anything else: every cut resolved atom X goes back to the kernel as
 *	  the row 1_X (which lies in rowspace(A), so the span is unchanged),
 *	  then pi(a) goes to the kernel.
 * Records never move from the kernel to a resolved atom, so no basis row
 * ever has to be removed, and a trial is undone by restoring the flags it
 * changed (rlog) besides the kernel's own rollback.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_resolved.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/memory.h"
#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

#define RLOG_OLD	(UINT32_C(1) << 31)

/* the kinds of a row's atoms after its split (see the banner) */
typedef struct row_kinds
{
	size_t		nkernel;		/* atoms the kernel has seen */
	size_t		ncut;			/* halves of cut resolved atoms */
	uint32_t	cut;			/* the last such half */
	uint32_t	fresh;			/* the uncovered part, or NONE */
} row_kinds;

/* notes atom a's flag before the trial changes it or its size */
static tapas_status
log_atom(tapas_rowspace_t *rs, uint32_t a)
{
	if (rs->nrlog == rs->rlogcap)
	{
		size_t		cap = rs->rlogcap ? 2 * rs->rlogcap : 256;
		uint32_t   *p = tapas_realloc(rs->rlog, cap * sizeof(uint32_t));

		if (p == NULL)
			return TAPAS_ENOMEM;
		rs->rlog = p;
		rs->rlogcap = cap;
	}
	rs->rlog[rs->nrlog++] = a | (rs->resolved[a] ? RLOG_OLD : 0);
	return TAPAS_OK;
}

/* sets atom a's flag, logged, and keeps nres */
static tapas_status
set_resolved(tapas_rowspace_t *rs, uint32_t a, uint8_t flag)
{
	tapas_status st = log_atom(rs, a);

	if (st != TAPAS_OK)
		return st;
	rs->nres += (uint32_t) flag - rs->resolved[a];
	rs->resolved[a] = flag;
	return TAPAS_OK;
}

/* sorts the row's atoms rs->inside[0..ninside) by kind */
static void
classify(const tapas_rowspace_t *rs, size_t ninside, uint32_t natoms0,
		 row_kinds *k)
{
	size_t		i;

	memset(k, 0, sizeof(*k));
	k->fresh = TAPAS_ROWSPACE_NONE;
	for (i = 0; i < ninside; i++)
	{
		uint32_t	a = rs->inside[i];
		uint32_t	from = a >= natoms0 ? rs->atoms.parent[a] : a;

		if (from == rs->unc)
			k->fresh = a;
		else if (!rs->resolved[from])
			k->nkernel++;
		else if (a != from)
		{
			k->ncut++;
			k->cut = a;
		}
		/* else a resolved atom wholly inside: its part lies in R */
	}
}

/* the uncovered part became covered: the rest is still unc, or none is */
static void
cover_fresh(tapas_rowspace_t *rs, uint32_t fresh)
{
	if (fresh == rs->unc)
		rs->unc = TAPAS_ROWSPACE_NONE;
}

/* the three cases that need no kernel work; 1 if the row was one of them */
static int
resolve_outside(tapas_rowspace_t *rs, const row_kinds *k, tapas_status *st)
{
	*st = TAPAS_OK;
	if (k->nkernel > 0 || k->ncut > 1 ||
		(k->ncut == 1 && k->fresh != TAPAS_ROWSPACE_NONE))
		return 0;
	if (k->fresh != TAPAS_ROWSPACE_NONE)
	{
		*st = set_resolved(rs, k->fresh, 1);
		cover_fresh(rs, k->fresh);
	}
	else if (k->ncut == 1)
	{
		/* X n a is new and resolved; X keeps its flag but shrank */
		if ((*st = set_resolved(rs, k->cut, 1)) == TAPAS_OK)
			*st = log_atom(rs, rs->atoms.parent[k->cut]);
	}
	return 1;
}

/* gives the resolved atom X, cut by the row into half and X, back to the
 * kernel as the row 1_X (half and X are adjacent in atoms.order) */
static tapas_status
unresolve(tapas_rowspace_t *rs, uint32_t half, uint32_t natoms0)
{
	uint32_t	x = rs->atoms.parent[half];
	size_t		len = rs->atoms.size[half] + rs->atoms.size[x];
	tapas_status st = set_resolved(rs, x, 0);

	if (st != TAPAS_OK)
		return st;
	memcpy(rs->qbuf, rs->atoms.order + rs->atoms.start[half], len * sizeof(uint32_t));
	rs->inside[0] = half;
	rs->inside[1] = x;
	return tapas_rowspace_add_kernel_row(rs, rs->qbuf, len, 2, natoms0, 1);
}

/*
 * The general case: cut resolved atoms back to the kernel, then pi(a).
 * rs->inside holds the row's atoms on entry; it is saved in inside2 first,
 * since unresolve() reuses it.
 */
static tapas_status
kernel_part(tapas_rowspace_t *rs, const uint32_t *q, size_t len,
			size_t ninside, uint32_t natoms0, const row_kinds *k)
{
	size_t		nk = 0,
				nnew = 0,
				nq = 0,
				i;
	tapas_status st;

	for (i = 0; i < ninside; i++)
	{
		uint32_t	a = rs->inside[i];

		if (a < natoms0 && rs->resolved[a])
			continue;			/* wholly inside: its part lies in R */
		rs->inside2[nk++] = a;
		nnew += a >= natoms0;
	}
	for (i = 0; i < nk; i++)
	{
		uint32_t	a = rs->inside2[i];

		if (a >= natoms0 && rs->resolved[rs->atoms.parent[a]] &&
			(st = unresolve(rs, a, natoms0)) != TAPAS_OK)
			return st;
	}
	if (k->fresh != TAPAS_ROWSPACE_NONE)
		cover_fresh(rs, k->fresh);
	for (i = 0; i < nk; i++)
		rs->inrow[rs->inside2[i]] = 1;
	for (i = 0; i < len; i++)
		if (rs->inrow[rs->atoms.atom_of[q[i]]])
			rs->qbuf[nq++] = q[i];
	for (i = 0; i < nk; i++)
	{
		rs->inrow[rs->inside2[i]] = 0;
		rs->inside[i] = rs->inside2[i];
	}
	return tapas_rowspace_add_kernel_row(rs, rs->qbuf, nq, nk, natoms0, nnew);
}

/* adds one validated row inside an open savepoint (see rowspace_int.h) */
tapas_status
tapas_rowspace_add_row(tapas_rowspace_t *rs, const uint32_t *q, size_t len)
{
	uint32_t	natoms0 = rs->atoms.natoms;
	size_t		ninside,
				nnew;
	row_kinds	k;
	tapas_status st;

	rs->stats.rows++;
	tapas_rowspace_split_row(rs, q, len, &ninside, &nnew);
	classify(rs, ninside, natoms0, &k);
	if (!rs->basis_only && resolve_outside(rs, &k, &st))
		return st;
	return kernel_part(rs, q, len, ninside, natoms0, &k);
}

tapas_status
tapas_rowspace_set_basis_only(tapas_rowspace_t *rs, int on)
{
	if (rs == NULL || rs->in_trial || rs->stats.rows > 0)
		return TAPAS_EINVAL;
	rs->basis_only = on != 0;
	return TAPAS_OK;
}

void
tapas_rowspace_resolved_undo(tapas_rowspace_t *rs)
{
	while (rs->nrlog > 0)
	{
		uint32_t	e = rs->rlog[--rs->nrlog];

		rs->resolved[e & ~RLOG_OLD] = (e & RLOG_OLD) ? 1 : 0;
	}
	rs->nres = rs->save_nres;
	rs->unc = rs->save_unc;
}

void
tapas_rowspace_resolved_scan(tapas_rowspace_t *rs)
{
	size_t		i;

	for (i = 0; i < rs->nrlog; i++)
	{
		uint32_t	a = rs->rlog[i] & ~RLOG_OLD;
		uint32_t	j;

		if (!rs->resolved[a] || rs->atoms.size[a] != 1)
			continue;
		j = tapas_atoms_rep(&rs->atoms, a);
		if (!rs->det[j])
		{
			rs->det[j] = 1;
			rs->detlist[rs->ndet++] = j;
		}
	}
}
