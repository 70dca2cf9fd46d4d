/*-------------------------------------------------------------------------
 *
 * linrel_regions.c
 *	  The regions of a component of the relation kernel, and its
 *	  coordinates over them, with or without the quotient by the all-ones
 *	  class ONE (linrel_plan.c says why ONE is public).
 *
 * Quotient coordinates.  For a component whose span holds ONE, ONE is
 * taken as member 0 of the region computation, so ratios are to ONE:
 * on each region rho every class b is the constant c_{b,rho} times the
 * indicator x_rho, and ONE = sum over all regions of x_rho.  The public
 * rows e_j x ONE let the attacker eliminate one region rho0:
 * x_rho0 = 1 - sum_{rho != rho0} x_rho, exactly.  In the remaining regions
 * the class's value at j is the vector e_j x {rho != rho0 : c_{b,rho} !=
 * c_{b,rho0}} (plan->test; for a 0/1 class its regions, or their
 * complement when it holds rho0), and a cell over Q is that row over Q
 * (0/1 components: exact).  In split coordinates a cell is one row per
 * region; its row Q x rho0 becomes -Q x (all others), taken as one row per
 * other region (more than the attacker knows: sound).  rho0 is chosen to
 * minimise that excess.
 *
 * Regions.  Scales are propagated record by record from one class of the
 * component (s = 1) to the others nonzero at the same record, then
 * checked at every record; a pattern is the set of the component's
 * classes nonzero at a record, and each distinct pattern is a region.
 *
 * IDENTIFICATION
 *	  src/recon/linrel_regions.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include <flint/flint.h>
#include <flint/nmod.h>
#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/linrel_int.h"

#define ALLBITS(n)	((n) >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << (n)) - 1)

/* one nonzero value of a component's class at a record */
typedef struct entry
{
	int64_t		key;
	uint32_t	member;			/* index in the component */
	uint64_t	val;
} entry;

static int
cmp_entry(const void *a, const void *b)
{
	const entry *x = a,
			   *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->member < y->member ? -1 : x->member > y->member;
}

/*
 * Scales s[m] with s[m] v_m(j) equal over the classes nonzero at each
 * record j, propagated from member 0; 0 if there are none.
 */
static int
find_scales(const entry *ent, size_t ne, uint32_t nm, uint64_t *s, nmod_t mod)
{
	uint32_t	known = 0,
				m;
	size_t		lo,
				hi,
				i;
	int			changed = 1;

	memset(s, 0, nm * sizeof(uint64_t));
	while (known < nm)
	{
		if (!changed)
		{
			/* not reached from the others (cannot happen in a circuit) */
			for (m = 0; s[m] != 0; m++)
				;
			s[m] = 1;
			known++;
		}
		changed = 0;
		for (lo = 0; lo < ne; lo = hi)
		{
			uint64_t	phi = 0;

			for (hi = lo; hi < ne && ent[hi].key == ent[lo].key; hi++)
				if (phi == 0 && s[ent[hi].member] != 0)
					phi = nmod_mul(s[ent[hi].member], ent[hi].val, mod);
			if (phi == 0 && known == 0)
			{
				s[ent[lo].member] = 1;
				known++;
				phi = ent[lo].val;
			}
			if (phi == 0)
				continue;
			for (i = lo; i < hi; i++)
				if (s[ent[i].member] == 0)
				{
					s[ent[i].member] = nmod_mul(phi, n_invmod(ent[i].val, mod.n), mod);
					known++;
					changed = 1;
				}
		}
	}
	for (lo = 0; lo < ne; lo = hi)
	{
		uint64_t	phi = nmod_mul(s[ent[lo].member], ent[lo].val, mod);

		for (hi = lo; hi < ne && ent[hi].key == ent[lo].key; hi++)
			if (nmod_mul(s[ent[hi].member], ent[hi].val, mod) != phi)
				return 0;
	}
	return 1;
}

/* a region's signature: the classes nonzero at its records, and their ratios to the first */
typedef struct region_sig
{
	uint64_t	mask;
	uint64_t	ratio[TAPAS_LINREL_MAX_REGIONS];	/* [member] v_m / v_first, members in mask */
} region_sig;

/*
 * The region of the record whose entries are ent[lo..hi), found or added
 * in sig[0..*nr); -1 past TAPAS_LINREL_MAX_REGIONS.  With by_ratio, two
 * records share a region only if their classes also have the same ratios
 * to the first class nonzero there (so that every class is a multiple of
 * one generator on each region); without it, the pattern alone decides.
 */
static int32_t
record_region(const entry *ent, size_t lo, size_t hi, int by_ratio, nmod_t mod,
			  region_sig *sig, int32_t *nr)
{
	region_sig	cur;
	uint64_t	inv = by_ratio ? n_invmod(ent[lo].val, mod.n) : 0;
	int32_t		r;

	cur.mask = 0;
	for (size_t i = lo; i < hi; i++)
	{
		cur.mask |= UINT64_C(1) << ent[i].member;
		cur.ratio[ent[i].member] = by_ratio ? nmod_mul(ent[i].val, inv, mod) : 0;
	}
	for (r = 0; r < *nr; r++)
	{
		size_t		i;

		if (sig[r].mask != cur.mask)
			continue;
		for (i = lo; i < hi && sig[r].ratio[ent[i].member] == cur.ratio[ent[i].member]; i++)
			;
		if (i == hi)
			return r;
	}
	if (*nr == TAPAS_LINREL_MAX_REGIONS)
		return -1;
	sig[(*nr)++] = cur;
	return r;
}

/* ---------------------------------------------------------------------
 * Regions
 * ---------------------------------------------------------------------
 */

/*
 * The regions of one component of nm vectors vec[] into sig[0..nr);
 * returns nr, or -1 past the limits (or out of memory: *st).  *split is
 * set when the vectors are not 0/1 sums of the regions (no scales:
 * sum(health) with count(*) FILTER (WHERE health = v) for each v): the
 * regions then refine the patterns by the ratios to the first vector
 * nonzero at the record, each class is a multiple of one generator on
 * each region, and the caller takes every cell as known region by region
 * (linrel.h).
 */
static int32_t
component_regions(const tapas_linrel_t *lr, const svec *const *vec, uint32_t nm,
				  region_sig *sig, int *split, tapas_status *st)
{
	size_t		ne = 0,
				lo,
				hi,
				i;
	uint32_t	m;
	entry	   *ent;
	uint64_t	s[TAPAS_LINREL_MAX_REGIONS];
	int32_t		nr = 0;

	*st = TAPAS_OK;
	*split = 0;
	if (nm > TAPAS_LINREL_MAX_REGIONS)
		return -1;
	for (m = 0; m < nm; m++)
		ne += vec[m]->nnz;
	ent = tapas_malloc((ne ? ne : 1) * sizeof(entry));
	if (ent == NULL)
	{
		*st = TAPAS_ENOMEM;
		return -1;
	}
	ne = 0;
	for (m = 0; m < nm; m++)
		for (i = 0; i < vec[m]->nnz; i++)
		{
			ent[ne].key = vec[m]->key[i];
			ent[ne].member = m;
			ent[ne++].val = vec[m]->val[i];
		}
	qsort(ent, ne, sizeof(entry), cmp_entry);
	*split = !find_scales(ent, ne, nm, s, lr->mod);
	for (lo = 0; lo < ne && nr >= 0; lo = hi)
	{
		for (hi = lo; hi < ne && ent[hi].key == ent[lo].key; hi++)
			;
		if (record_region(ent, lo, hi, *split, lr->mod, sig, &nr) < 0)
			nr = -1;
	}
	tapas_free(ent);
	return nr;
}

/* the regions of member m: bit rho set when the member is nonzero there */
static uint64_t
member_mask(const region_sig *sig, int32_t nr, uint32_t m)
{
	uint64_t	mask = 0;

	for (int32_t r = 0; r < nr; r++)
		if (sig[r].mask & (UINT64_C(1) << m))
			mask |= UINT64_C(1) << r;
	return mask;
}

/* mask without bit r0, the bits above it moved down one */
static uint64_t
drop_bit(uint64_t mask, int32_t r0)
{
	uint64_t	low = mask & ALLBITS(r0);

	return low | ((mask >> 1) & ~ALLBITS(r0));
}

/* c_{m,rho}: member m's value on region rho relative to ONE (member 0) */
static uint64_t
member_value(const region_sig *sig, int split, int32_t r, uint32_t m)
{
	if (!(sig[r].mask & (UINT64_C(1) << m)))
		return 0;
	return split ? sig[r].ratio[m] : 1;
}

/*
 * The quotient by ONE (member 0 of the nm members, every region holds
 * it; see the banner): rows and test masks of members 1..nm-1 over the
 * nr - 1 regions other than rho0, written to rows[m - 1], test[m - 1].
 */
static void
quotient_by_one(const region_sig *sig, int32_t nr, int split, uint32_t nm,
				uint64_t *rows, uint64_t *test)
{
	uint64_t	all = ALLBITS(nr);
	int32_t		r0 = 0;
	int			best = -1;

	/* rho0: the fewest regions added to cells by the elimination */
	for (int32_t r = 0; r < nr; r++)
	{
		int			cost = 0;

		for (uint32_t m = 1; m < nm; m++)
		{
			uint64_t	mm = member_mask(sig, nr, m);

			if (mm & (UINT64_C(1) << r))
				cost += __builtin_popcountll(all & ~mm);
		}
		if (best < 0 || cost < best)
		{
			best = cost;
			r0 = r;
		}
	}
	for (uint32_t m = 1; m < nm; m++)
	{
		uint64_t	mm = member_mask(sig, nr, m);
		uint64_t	c0 = member_value(sig, split, r0, m);
		uint64_t	t = 0;

		for (int32_t r = 0; r < nr; r++)
			if (r != r0 && member_value(sig, split, r, m) != c0)
				t |= UINT64_C(1) << r;
		test[m - 1] = drop_bit(t, r0);
		if (!split)
			rows[m - 1] = test[m - 1];
		else
			rows[m - 1] = drop_bit((mm & (UINT64_C(1) << r0)) ? all & ~(UINT64_C(1) << r0) : mm, r0);
	}
}

/* linrel_int.h */
tapas_status
tapas_linrel_plan_coordinates(tapas_linrel_t *lr, tapas_linrel_plan_t *plan, uint32_t c,
							  const uint32_t *cl, uint32_t nm, const svec *one,
							  uint64_t *rows, uint64_t *test, uint64_t *patterns)
{
	const svec *vec[TAPAS_LINREL_MAX_REGIONS];
	region_sig *sig;
	uint32_t	nv = 0;
	int			split = 0;
	int32_t		nr = -1;
	tapas_status st = TAPAS_OK;

	plan->nmembers[c] = nm;
	plan->nregions[c] = plan->npatterns[c] = -1;
	plan->one[c] = one != NULL;
	memset(rows, 0, nm * sizeof(uint64_t));
	memset(test, 0, nm * sizeof(uint64_t));
	memset(patterns, 0, nm * sizeof(uint64_t));
	if (nm + (one != NULL) > TAPAS_LINREL_MAX_REGIONS)
		return TAPAS_OK;
	sig = tapas_malloc(TAPAS_LINREL_MAX_REGIONS * sizeof(region_sig));
	if (sig == NULL)
		return TAPAS_ENOMEM;
	if (one)
		vec[nv++] = one;
	for (uint32_t m = 0; m < nm; m++)
		vec[nv++] = &lr->cls[cl[m]];
	nr = component_regions(lr, vec, nv, sig, &split, &st);
	plan->split[c] = (uint8_t) split;
	if (nr >= 0)
	{
		plan->npatterns[c] = nr;
		for (uint32_t m = 0; m < nm; m++)
			patterns[m] = member_mask(sig, nr, m + (one != NULL));
		if (one == NULL)
		{
			plan->nregions[c] = nr;
			memcpy(rows, patterns, nm * sizeof(uint64_t));
			memcpy(test, patterns, nm * sizeof(uint64_t));
		}
		else if (nr >= 2)
		{
			plan->nregions[c] = nr - 1;
			quotient_by_one(sig, nr, split, nv, rows, test);
		}
	}
	tapas_free(sig);
	return st;
}

