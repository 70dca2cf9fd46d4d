/*-------------------------------------------------------------------------
 *
 * linrel_plan.c
 *	  The plan of the relation kernel: the components of the classes in
 *	  the quotient by the all-ones class, and each component's region
 *	  coordinates (linrel.h).
 *
 * The all-ones class ONE.  count(*) over a covered set Q is public (|Q|
 * follows from the quasi-identifiers), so the attacker knows ONE's value
 * at every record: the rows e_j x ONE, for every j, are known.  Relations
 * that hold only modulo ONE (sum_v 1[health = v] = sum_u 1[religion = u]
 * = ONE) must then neither join components nor be missed: the components
 * are those of the contracted matroid M/ONE.  With ONE = sum_i lambda_i
 * v_gen(i) over the generator classes (when ONE lies in the span at all)
 * and a generator g* with lambda_g* != 0, B - g* is a basis of M/ONE, the
 * fundamental circuit of a dependent class d with coefficients c is
 * {d} + {i != g* : c_i - (c_g* / lambda_g*) lambda_i != 0}, and g*'s is
 * {g*} + {i != g* : lambda_i != 0} (Oxley, Matroid Theory, 3.1: circuits
 * of M/e are the minimal nonempty C - e).  A class whose circuit is
 * empty is a nonzero multiple of ONE: public (plan->is_one).  ONE lies in
 * the span of a component exactly when g* is in it or one of its
 * dependent classes has c_g* != 0 (otherwise the component's span is that
 * of its generators other than g*, independent of ONE).
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
 *	  src/recon/linrel_plan.c
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

/* ---------------------------------------------------------------------
 * Components
 * ---------------------------------------------------------------------
 */

static uint32_t
uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

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

/*
 * The union of the supports of the nonzero classes into *u when it holds
 * exactly nrecords keys (then ONE is 1 on u); 0 otherwise, -1 out of
 * memory.  O(K nrecords): one merge per class, stopping once full.
 */
static int
full_support(const tapas_linrel_t *lr, uint64_t nrecords, svec *u)
{
	svec		tmp;

	if (nrecords == 0 || !tapas_linrel_svec_alloc(u, (size_t) nrecords) ||
		!tapas_linrel_svec_alloc(&tmp, (size_t) nrecords))
	{
		tapas_linrel_svec_clear(u);
		return nrecords == 0 ? 0 : -1;
	}
	for (uint32_t b = 0; b < lr->K && u->nnz < nrecords; b++)
	{
		const svec *v = &lr->cls[b];
		size_t		i = 0,
					j = 0;

		tmp.nnz = 0;
		while (i < u->nnz || j < v->nnz)
		{
			int64_t		k;

			if (j == v->nnz || (i < u->nnz && u->key[i] < v->key[j]))
				k = u->key[i++];
			else if (i == u->nnz || v->key[j] < u->key[i])
				k = v->key[j++];
			else
			{
				k = u->key[i++];
				j++;
			}
			if (tmp.nnz == nrecords)
			{
				/* more keys than records: the classes disagree on the table */
				tapas_linrel_svec_clear(&tmp);
				tapas_linrel_svec_clear(u);
				return 0;
			}
			tmp.key[tmp.nnz++] = k;
		}
		{
			svec		x = *u;

			*u = tmp;
			tmp = x;
		}
	}
	tapas_linrel_svec_clear(&tmp);
	if (u->nnz != nrecords)
	{
		tapas_linrel_svec_clear(u);
		return 0;
	}
	for (size_t i = 0; i < u->nnz; i++)
		u->val[i] = 1;
	return 1;
}

/*
 * ONE over the generator classes: lambda[i] with ONE = sum_i lambda_i
 * v_gen(i), and ONE's vector in *one; 0 if ONE is not in the span (or
 * nrecords is 0: not modelled), -1 out of memory.
 */
static int
one_coefficients(tapas_linrel_t *lr, uint64_t nrecords, uint64_t *lambda, svec *one)
{
	uint64_t	c[MAXC];
	svec		w;
	int			r = full_support(lr, nrecords, one);

	memset(lambda, 0, MAXC * sizeof(uint64_t));
	if (r <= 0)
		return r;
	if (!tapas_linrel_svec_alloc(&w, one->nnz))
	{
		tapas_linrel_svec_clear(one);
		return -1;
	}
	memcpy(w.key, one->key, one->nnz * sizeof(int64_t));
	memcpy(w.val, one->val, one->nnz * sizeof(uint64_t));
	w.nnz = one->nnz;
	if (tapas_linrel_reduce(lr, &w, c) != TAPAS_OK)
	{
		tapas_linrel_svec_clear(&w);
		tapas_linrel_svec_clear(one);
		return -1;
	}
	r = w.nnz == 0;
	tapas_linrel_svec_clear(&w);
	if (!r)
	{
		tapas_linrel_svec_clear(one);
		return 0;
	}
	for (uint32_t k = 0; k < lr->G; k++)
		if (c[k] != 0)
			for (uint32_t i = 0; i <= k; i++)
				lambda[i] = nmod_add(lambda[i], nmod_mul(c[k], lr->T[(size_t) k * MAXC + i], lr->mod), lr->mod);
	return 1;
}

/*
 * The circuit of class b in M/ONE into cf[0..G) (over generator indices,
 * without b itself); returns 1 if b has one (dependent, or g*), and sets
 * *touch when ONE takes part in b's relation.  gstar < 0: ONE not in the
 * span, the circuits of M.
 */
static int
class_circuit(const tapas_linrel_t *lr, uint32_t b, const uint64_t *lambda,
			  int32_t gstar, uint64_t *cf, int *touch)
{
	nmod_t		mod = lr->mod;

	*touch = 0;
	if (lr->cls[b].nnz == 0)
		return 0;
	if (lr->gen_of[b] >= 0)
	{
		if (gstar < 0 || lr->gen_of[b] != gstar)
			return 0;
		memcpy(cf, lambda, lr->G * sizeof(uint64_t));
		cf[gstar] = 0;
		*touch = 1;
		return 1;
	}
	memcpy(cf, lr->coef + (size_t) b * MAXC, lr->G * sizeof(uint64_t));
	if (gstar >= 0 && cf[gstar] != 0)
	{
		uint64_t	mu = nmod_mul(cf[gstar], n_invmod(lambda[gstar], mod.n), mod);

		for (uint32_t i = 0; i < lr->G; i++)
			cf[i] = nmod_sub(cf[i], nmod_mul(mu, lambda[i], mod), mod);
		*touch = 1;
	}
	return 1;
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
 * nr - 1 regions other than rho0, written to rows[cl[m-1]], test[...].
 */
static void
quotient_by_one(const region_sig *sig, int32_t nr, int split, const uint32_t *cl,
				uint32_t nm, uint64_t *rows, uint64_t *test)
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
		test[cl[m - 1]] = drop_bit(t, r0);
		if (!split)
			rows[cl[m - 1]] = test[cl[m - 1]];
		else
			rows[cl[m - 1]] = drop_bit((mm & (UINT64_C(1) << r0)) ? all & ~(UINT64_C(1) << r0) : mm, r0);
	}
}

/*
 * Coordinates of component c (members cl[0..nm)), into the plan; with
 * one (ONE's vector) the quotient by ONE.
 */
static tapas_status
plan_component(tapas_linrel_t *lr, tapas_linrel_plan_t *plan, uint32_t c,
			   const uint32_t *cl, uint32_t nm, const svec *one)
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
			plan->patterns[cl[m]] = member_mask(sig, nr, m + (one != NULL));
		if (one == NULL)
		{
			plan->nregions[c] = nr;
			for (uint32_t m = 0; m < nm; m++)
				plan->regions[cl[m]] = plan->test[cl[m]] = plan->patterns[cl[m]];
		}
		else if (nr >= 2)
		{
			plan->nregions[c] = nr - 1;
			quotient_by_one(sig, nr, split, cl, nv, plan->regions, plan->test);
		}
	}
	tapas_free(sig);
	return st;
}

void
tapas_linrel_plan_clear(tapas_linrel_plan_t *plan)
{
	tapas_free(plan->comp);
	tapas_free(plan->is_one);
	tapas_free(plan->regions);
	tapas_free(plan->test);
	tapas_free(plan->patterns);
	tapas_free(plan->nregions);
	tapas_free(plan->npatterns);
	tapas_free(plan->nmembers);
	tapas_free(plan->split);
	tapas_free(plan->one);
	memset(plan, 0, sizeof(*plan));
}

static int
plan_alloc(tapas_linrel_plan_t *plan, uint32_t K)
{
	size_t		n = K ? K : 1;

	memset(plan, 0, sizeof(*plan));
	plan->nclasses = K;
	plan->comp = tapas_malloc(n * sizeof(int32_t));
	plan->is_one = tapas_calloc(n, sizeof(uint8_t));
	plan->regions = tapas_calloc(n, sizeof(uint64_t));
	plan->test = tapas_calloc(n, sizeof(uint64_t));
	plan->patterns = tapas_calloc(n, sizeof(uint64_t));
	plan->nregions = tapas_malloc(n * sizeof(int32_t));
	plan->npatterns = tapas_malloc(n * sizeof(int32_t));
	plan->nmembers = tapas_calloc(n, sizeof(uint32_t));
	plan->split = tapas_calloc(n, sizeof(uint8_t));
	plan->one = tapas_calloc(n, sizeof(uint8_t));
	if (!plan->comp || !plan->is_one || !plan->regions || !plan->test || !plan->patterns ||
		!plan->nregions || !plan->npatterns || !plan->nmembers || !plan->split || !plan->one)
	{
		tapas_linrel_plan_clear(plan);
		return 0;
	}
	return 1;
}

tapas_status
tapas_linrel_plan(tapas_linrel_t *lr, uint64_t nrecords, tapas_linrel_plan_t *plan)
{
	uint32_t	parent[MAXC],
				size[MAXC],
				root_comp[MAXC],
				members[MAXC];
	uint8_t		touch[MAXC];
	uint64_t	lambda[MAXC],
				cf[MAXC];
	uint32_t	K = lr->K;
	int32_t		gstar = -1;
	svec		one = {0, NULL, NULL};
	int			has_one;
	tapas_status st = TAPAS_OK;

	if (!plan_alloc(plan, K))
		return TAPAS_ENOMEM;
	has_one = one_coefficients(lr, nrecords, lambda, &one);
	if (has_one < 0)
	{
		tapas_linrel_plan_clear(plan);
		return TAPAS_ENOMEM;
	}
	for (uint32_t i = 0; has_one && i < lr->G; i++)
		if (lambda[i] != 0)
			gstar = (int32_t) i;
	for (uint32_t b = 0; b < K; b++)
	{
		parent[b] = b;
		size[b] = 1;
		touch[b] = 0;
	}
	/* each class with a circuit in M/ONE joins its generator classes */
	for (uint32_t b = 0; b < K; b++)
	{
		int			t,
					any = 0;

		if (!class_circuit(lr, b, lambda, gstar, cf, &t))
			continue;
		touch[b] = (uint8_t) t;
		for (uint32_t i = 0; i < lr->G; i++)
			if (cf[i] != 0)
			{
				uint32_t	x = uf_find(parent, b),
							y = uf_find(parent, lr->gen_class[i]);

				any = 1;
				if (x != y)
				{
					parent[x] = y;
					size[y] += size[x];
				}
			}
		/* an empty circuit: b is a nonzero multiple of ONE, public */
		plan->is_one[b] = (uint8_t) !any;
	}
	for (uint32_t b = 0; b < K; b++)
		root_comp[b] = UINT32_MAX;
	for (uint32_t b = 0; b < K; b++)
	{
		uint32_t	r = uf_find(parent, b);

		if (size[r] < 2 || plan->is_one[b])
		{
			plan->comp[b] = -1;
			continue;
		}
		if (root_comp[r] == UINT32_MAX)
			root_comp[r] = plan->ncomp++;
		plan->comp[b] = (int32_t) root_comp[r];
	}
	for (uint32_t c = 0; c < plan->ncomp && st == TAPAS_OK; c++)
	{
		uint32_t	nm = 0;
		int			with_one = 0;

		for (uint32_t b = 0; b < K; b++)
			if (plan->comp[b] == (int32_t) c)
			{
				members[nm++] = b;
				with_one |= touch[b];
			}
		st = plan_component(lr, plan, c, members, nm, with_one ? &one : NULL);
	}
	tapas_linrel_svec_clear(&one);
	if (st != TAPAS_OK)
		tapas_linrel_plan_clear(plan);
	return st;
}
