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

/*
 * A region's signature: the members nonzero at its records, and their
 * ratios to the first (members ascending, in the pool from at; 0 when
 * the pattern alone decides).  Regions are found through a hash of the
 * signature: O(members) per record, whatever the number of regions.
 */
typedef struct region_sig
{
	tapas_regset_t mask;		/* members */
	size_t		at;				/* ratios in pool[at .. at + |mask|) */
	uint64_t	hash;
	int32_t		next;			/* the next region in its bucket, or -1 */
} region_sig;

#define REGION_BUCKETS	(2 * TAPAS_LINREL_MAX_REGIONS)

typedef struct region_table
{
	region_sig *sig;			/* [TAPAS_LINREL_MAX_REGIONS] */
	int32_t		nr;
	uint64_t   *pool;			/* ratios */
	size_t		npool,
				cappool;
	int32_t		bucket[REGION_BUCKETS];
} region_table;

/* position of member m among the members of s below it */
static int
member_rank(const tapas_regset_t *s, uint32_t m)
{
	int			n = 0;
	uint32_t	i;

	for (i = 0; i < m / 64; i++)
		n += __builtin_popcountll(s->w[i]);
	if (m % 64)
		n += __builtin_popcountll(s->w[i] & ((UINT64_C(1) << (m % 64)) - 1));
	return n;
}

/*
 * The region of the record whose entries are ent[lo..hi) (members
 * ascending), found or added in t; -1 past TAPAS_LINREL_MAX_REGIONS, -2
 * out of memory.  With by_ratio, two records share a region only if their
 * classes also have the same ratios to the first class nonzero there (so
 * that every class is a multiple of one generator on each region);
 * without it, the pattern alone decides.
 */
static int32_t
record_region(const entry *ent, size_t lo, size_t hi, int by_ratio, nmod_t mod,
			  region_table *t)
{
	uint64_t	inv = by_ratio ? n_invmod(ent[lo].val, mod.n) : 0;
	uint64_t	h = UINT64_C(1469598103934665603);
	size_t		n = hi - lo;
	int32_t		r;

	if (t->npool + n > t->cappool)
	{
		size_t		ncap = 2 * (t->npool + n) + 64;
		uint64_t   *np = tapas_malloc(ncap * sizeof(uint64_t));

		if (np == NULL)
			return -2;
		if (t->npool)
			memcpy(np, t->pool, t->npool * sizeof(uint64_t));
		tapas_free(t->pool);
		t->pool = np;
		t->cappool = ncap;
	}
	/* the candidate's ratios at the end of the pool (kept if it is new) */
	for (size_t i = lo; i < hi; i++)
	{
		uint64_t	ratio = by_ratio ? nmod_mul(ent[i].val, inv, mod) : 0;

		t->pool[t->npool + (i - lo)] = ratio;
		h = (h ^ ent[i].member) * UINT64_C(1099511628211);
		h = (h ^ ratio) * UINT64_C(1099511628211);
	}
	for (r = t->bucket[h % REGION_BUCKETS]; r >= 0; r = t->sig[r].next)
	{
		const region_sig *g = &t->sig[r];
		size_t		i;

		if (g->hash != h || (size_t) tapas_regset_count(&g->mask) != n)
			continue;
		for (i = lo; i < hi && tapas_regset_has(&g->mask, (int) ent[i].member); i++)
			;
		if (i == hi &&
			memcmp(t->pool + g->at, t->pool + t->npool, n * sizeof(uint64_t)) == 0)
			return r;
	}
	if (t->nr == TAPAS_LINREL_MAX_REGIONS)
		return -1;
	r = t->nr++;
	tapas_regset_clear(&t->sig[r].mask);
	for (size_t i = lo; i < hi; i++)
		tapas_regset_add(&t->sig[r].mask, (int) ent[i].member);
	t->sig[r].at = t->npool;
	t->npool += n;
	t->sig[r].hash = h;
	t->sig[r].next = t->bucket[h % REGION_BUCKETS];
	t->bucket[h % REGION_BUCKETS] = r;
	return r;
}

/* ---------------------------------------------------------------------
 * Regions
 * ---------------------------------------------------------------------
 */

/*
 * The regions of one component of nm vectors vec[] into t; returns nr,
 * or -1 past the limits (or out of memory: *st).  *split is set when the
 * vectors are not 0/1 sums of the regions (no scales: sum(health) with
 * count(*) FILTER (WHERE health = v) for each v): the regions then refine
 * the patterns by the ratios to the first vector nonzero at the record,
 * each class is a multiple of one generator on each region, and the
 * caller takes every cell as known region by region (linrel.h).
 */
static int32_t
component_regions(const tapas_linrel_t *lr, const svec *const *vec, uint32_t nm,
				  region_table *t, int *split, tapas_status *st)
{
	size_t		ne = 0,
				lo,
				hi,
				i;
	uint32_t	m;
	entry	   *ent;
	uint64_t   *s;
	int32_t		nr = 0;

	*st = TAPAS_OK;
	*split = 0;
	if (nm > TAPAS_REGSET_MAX)
		return -1;
	for (m = 0; m < nm; m++)
		ne += vec[m]->nnz;
	ent = tapas_malloc((ne ? ne : 1) * sizeof(entry));
	s = tapas_malloc((nm ? nm : 1) * sizeof(uint64_t));
	if (ent == NULL || s == NULL)
	{
		tapas_free(ent);
		tapas_free(s);
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
		int32_t		r;

		for (hi = lo; hi < ne && ent[hi].key == ent[lo].key; hi++)
			;
		r = record_region(ent, lo, hi, *split, lr->mod, t);
		if (r == -2)
			*st = TAPAS_ENOMEM;
		if (r < 0)
			nr = -1;
	}
	if (nr >= 0)
		nr = t->nr;
	tapas_free(ent);
	tapas_free(s);
	return nr;
}

/* the regions of member m: rho in it when the member is nonzero there */
static void
member_mask(const region_table *t, uint32_t m, tapas_regset_t *out)
{
	tapas_regset_clear(out);
	for (int32_t r = 0; r < t->nr; r++)
		if (tapas_regset_has(&t->sig[r].mask, (int) m))
			tapas_regset_add(out, r);
}

/* c_{m,rho}: member m's value on region rho relative to ONE (member 0) */
static uint64_t
member_value(const region_table *t, int split, int32_t r, uint32_t m)
{
	const region_sig *g = &t->sig[r];

	if (!tapas_regset_has(&g->mask, (int) m))
		return 0;
	return split ? t->pool[g->at + member_rank(&g->mask, m)] : 1;
}

/*
 * The quotient by ONE (member 0 of the nm members, every region holds
 * it; see the banner): rows and test sets of members 1..nm-1 over the
 * nr - 1 regions other than rho0, written to rows[m - 1], test[m - 1].
 * mm[m]: member m's regions.  O(nr nm) set operations.
 */
static void
quotient_by_one(const region_table *t, int split, uint32_t nm, const tapas_regset_t *mm,
				tapas_regset_t *rows, tapas_regset_t *test)
{
	int32_t		nr = t->nr;
	int32_t		r0 = 0;
	long		best = -1;
	tapas_regset_t all;

	tapas_regset_first(&all, nr);
	/* rho0: the fewest regions added to cells by the elimination */
	for (int32_t r = 0; r < nr; r++)
	{
		long		cost = 0;

		for (uint32_t m = 1; m < nm; m++)
			if (tapas_regset_has(&mm[m], r))
				cost += nr - tapas_regset_count(&mm[m]);
		if (best < 0 || cost < best)
		{
			best = cost;
			r0 = r;
		}
	}
	for (uint32_t m = 1; m < nm; m++)
	{
		uint64_t	c0 = member_value(t, split, r0, m);
		tapas_regset_t *ts = &test[m - 1];

		tapas_regset_clear(ts);
		for (int32_t r = 0; r < nr; r++)
			if (r != r0 && member_value(t, split, r, m) != c0)
				tapas_regset_add(ts, r);
		tapas_regset_drop(ts, r0);
		if (!split)
			rows[m - 1] = *ts;
		else
		{
			rows[m - 1] = tapas_regset_has(&mm[m], r0) ? all : mm[m];
			tapas_regset_del(&rows[m - 1], r0);
			tapas_regset_drop(&rows[m - 1], r0);
		}
	}
}

/* linrel_int.h */
tapas_status
tapas_linrel_plan_coordinates(tapas_linrel_t *lr, tapas_linrel_plan_t *plan, uint32_t c,
							  const uint32_t *cl, uint32_t nm, const svec *one,
							  tapas_regset_t *rows, tapas_regset_t *test,
							  tapas_regset_t *patterns)
{
	const svec **vec;
	region_table *t;
	tapas_regset_t *mm;
	uint32_t	nv = 0;
	int			split = 0;
	int32_t		nr = -1;
	tapas_status st = TAPAS_OK;

	plan->nmembers[c] = nm;
	plan->nregions[c] = plan->npatterns[c] = -1;
	plan->one[c] = one != NULL;
	memset(rows, 0, nm * sizeof(tapas_regset_t));
	memset(test, 0, nm * sizeof(tapas_regset_t));
	memset(patterns, 0, nm * sizeof(tapas_regset_t));
	if (nm + (one != NULL) > TAPAS_REGSET_MAX)
		return TAPAS_OK;
	vec = tapas_malloc((nm + 1) * sizeof(const svec *));
	mm = tapas_malloc((nm + 1) * sizeof(tapas_regset_t));
	t = tapas_calloc(1, sizeof(region_table));
	if (t != NULL)
		t->sig = tapas_malloc(TAPAS_LINREL_MAX_REGIONS * sizeof(region_sig));
	if (vec == NULL || mm == NULL || t == NULL || t->sig == NULL)
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	for (int b = 0; b < REGION_BUCKETS; b++)
		t->bucket[b] = -1;
	if (one)
		vec[nv++] = one;
	for (uint32_t m = 0; m < nm; m++)
		vec[nv++] = &lr->cls[cl[m]];
	nr = component_regions(lr, vec, nv, t, &split, &st);
	plan->split[c] = (uint8_t) split;
	if (nr >= 0 && st == TAPAS_OK)
	{
		plan->npatterns[c] = nr;
		for (uint32_t m = 0; m < nv; m++)
			member_mask(t, m, &mm[m]);
		for (uint32_t m = 0; m < nm; m++)
			patterns[m] = mm[m + (one != NULL)];
		if (one == NULL)
		{
			plan->nregions[c] = nr;
			memcpy(rows, patterns, nm * sizeof(tapas_regset_t));
			memcpy(test, patterns, nm * sizeof(tapas_regset_t));
		}
		else if (nr >= 2)
		{
			plan->nregions[c] = nr - 1;
			quotient_by_one(t, split, nv, mm, rows, test);
		}
	}
done:
	if (t != NULL)
	{
		tapas_free(t->sig);
		tapas_free(t->pool);
	}
	tapas_free(t);
	tapas_free(mm);
	tapas_free(vec);
	return st;
}
