/*-------------------------------------------------------------------------
 *
 * rowspace_span.c
 *	  Is a given 0/1 vector in the row space?  The determined set answers
 *	  this for unit vectors e_j; the joint system of related classes
 *	  (audit/joint.c) asks it for sums of a few unit vectors.
 *
 * Over atoms (notation of rowspace.c).  The rows are constant on every
 * atom, so w lies in rowspace(A) iff w is constant on every atom (here: w
 * covers each atom it touches wholly, being 0/1) and its atom vector
 * y = sum of e_a over those atoms lies in rowspace(A[:, atoms]).  With the
 * RREF R = B^-1 A[I,:] (R[:,P] = 1), y is in the row space iff
 * y = sum_k y[p_k] R_k, and projecting on the secret z:
 *		y . za = sum_k y[p_k] t_k,		t = R za = M s.
 * Equality always holds for y in the row space; for y outside it the
 * difference is a nonzero linear form in the free z, zero with
 * probability 1/p, so two projections give a one-sided test with false
 * alarms below p^-2 (as for the determined set).
 *
 * Resolved blocks (rowspace_resolved.c): w lies in V = R (+) pi(V) iff
 * pi(w) lies in pi(V), the kernel's space, and pi(w) = w - sum of 1_B over
 * the blocks B whose base atom w covers: the test above runs on pi(w),
 * reading those blocks' atoms (O(|B|) each; a block of one atom cancels).
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_span.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include <flint/ulong_extras.h>

#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

/* subtracts 1_B's terms from lhs = y . za and rhs = sum y[p_k] t_k */
static void
block_terms(const tapas_rowspace_t *rs, int e, uint32_t x, uint64_t *lhs,
			uint64_t *rhs)
{
	const uint32_t *rec = rs->atoms.order + rs->bstart[x];
	uint64_t	p = rs->mod.n;
	uint32_t	l;

	for (l = 0; l < rs->bsize[x]; l++)
	{
		uint32_t	a = rs->atoms.atom_of[rec[l]];

		if (rs->atoms.order[rs->atoms.start[a]] != rec[l])
			continue;			/* one record per atom: its first */
		*lhs = n_submod(*lhs, rs->za[e][a], p);
		if (rs->pivot_of[a] >= 0)
			*rhs = n_submod(*rhs, rs->t[e][rs->pivot_of[a]], p);
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

int
tapas_rowspace_contains(const tapas_rowspace_t *rs, const uint32_t *ids,
						size_t len)
{
	uint32_t	atom[TAPAS_ROWSPACE_SPAN_MAX];
	uint32_t	count[TAPAS_ROWSPACE_SPAN_MAX];
	uint32_t	sorted[TAPAS_ROWSPACE_SPAN_MAX];
	size_t		na = 0,
				i,
				k;
	uint64_t	p;
	int			e;

	if (rs == NULL || (ids == NULL && len > 0) || len > TAPAS_ROWSPACE_SPAN_MAX)
		return -1;
	/* distinct ids below n (sorted: O(len log len)) */
	for (i = 0; i < len; i++)
	{
		if (ids[i] >= rs->n)
			return -1;
		sorted[i] = ids[i];
	}
	qsort(sorted, len, sizeof(uint32_t), cmp_u32);
	for (i = 1; i < len; i++)
		if (sorted[i] == sorted[i - 1])
			return -1;
	/* the atoms touched, and how many of their ids */
	for (i = 0; i < len; i++)
		sorted[i] = rs->atoms.atom_of[ids[i]];
	qsort(sorted, len, sizeof(uint32_t), cmp_u32);
	for (i = 0; i < len; i++)
	{
		if (na == 0 || atom[na - 1] != sorted[i])
		{
			atom[na] = sorted[i];
			count[na++] = 0;
		}
		count[na - 1]++;
	}
	/* w must cover each atom it touches wholly */
	for (k = 0; k < na; k++)
		if (count[k] != rs->atoms.size[atom[k]])
			return 0;
	p = rs->mod.n;
	for (e = 0; e < NPROJ; e++)
	{
		uint64_t	lhs = 0,
					rhs = 0;

		/* pi(w) = w - sum of 1_B over the blocks whose base w covers */
		for (k = 0; k < na; k++)
		{
			int32_t		piv = rs->pivot_of[atom[k]];

			lhs = n_addmod(lhs, rs->za[e][atom[k]], p);
			if (piv >= 0)
				rhs = n_addmod(rhs, rs->t[e][piv], p);
			if (rs->resolved[atom[k]] && rs->blockof[atom[k]] == atom[k])
				block_terms(rs, e, atom[k], &lhs, &rhs);
		}
		if (lhs != rhs)
			return 0;
	}
	return 1;
}

/* the members of atom a, if it has at most max_size */
static void
atom_members(const tapas_rowspace_t *rs, uint32_t a, uint32_t max_size,
			 void (*fn) (void *arg, uint32_t id), void *arg)
{
	uint32_t	size = rs->atoms.size[a];

	if (size > max_size)
		return;
	for (uint32_t i = 0; i < size; i++)
		fn(arg, rs->atoms.order[rs->atoms.start[a] + i]);
}

void
tapas_rowspace_anchors(const tapas_rowspace_t *rs, uint32_t max_size,
					   void (*fn) (void *arg, uint32_t id), void *arg)
{
	if (rs == NULL || fn == NULL)
		return;
	for (uint32_t k = 0; k < rs->r; k++)
		atom_members(rs, rs->piv[k], max_size, fn, arg);
	if (rs->nres == 0)
		return;
	for (uint32_t a = 0; a < rs->atoms.natoms; a++)
		if (rs->resolved[a])
			atom_members(rs, a, max_size, fn, arg);
}
