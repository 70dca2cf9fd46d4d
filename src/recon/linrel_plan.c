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
 * The regions of a component and its coordinates over them, in the
 * quotient by ONE or not: linrel_regions.c.
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
	tapas_free(plan->cut);
	tapas_free(plan->extra);
	memset(plan, 0, sizeof(*plan));
}

static int
plan_alloc(tapas_linrel_plan_t *plan, uint32_t K)
{
	/* at most one system per class, and one more per cut part */
	size_t		n = K ? 2 * K : 1;

	memset(plan, 0, sizeof(*plan));
	plan->nclasses = K;
	plan->comp = tapas_malloc(n * sizeof(int32_t));
	plan->is_one = tapas_calloc(n, sizeof(uint8_t));
	plan->regions = tapas_calloc(n, sizeof(tapas_regset_t));
	plan->test = tapas_calloc(n, sizeof(tapas_regset_t));
	plan->patterns = tapas_calloc(n, sizeof(tapas_regset_t));
	plan->nregions = tapas_malloc(n * sizeof(int32_t));
	plan->npatterns = tapas_malloc(n * sizeof(int32_t));
	plan->nmembers = tapas_calloc(n, sizeof(uint32_t));
	plan->split = tapas_calloc(n, sizeof(uint8_t));
	plan->one = tapas_calloc(n, sizeof(uint8_t));
	plan->cut = tapas_malloc(n * sizeof(int32_t));
	if (!plan->comp || !plan->is_one || !plan->regions || !plan->test || !plan->patterns ||
		!plan->nregions || !plan->npatterns || !plan->nmembers || !plan->split || !plan->one ||
		!plan->cut)
	{
		tapas_linrel_plan_clear(plan);
		return 0;
	}
	return 1;
}

/*
 * Every class modulo ONE over the generators (r, [K * MAXC]; g* = gstar
 * has no coordinate): a generator is its unit vector, g* is
 * -lambda / lambda_g*, a dependent class its coefficients minus mu lambda
 * (linrel_plan.c banner).  Without ONE (gstar < 0), the classes of M.
 */
static void
classes_mod_one(const tapas_linrel_t *lr, const uint64_t *lambda, int32_t gstar, uint64_t *r)
{
	nmod_t		mod = lr->mod;

	memset(r, 0, (size_t) lr->K * MAXC * sizeof(uint64_t));
	for (uint32_t b = 0; b < lr->K; b++)
	{
		uint64_t   *rb = r + (size_t) b * MAXC;

		if (lr->cls[b].nnz == 0)
			continue;
		if (lr->gen_of[b] >= 0 && lr->gen_of[b] != gstar)
			rb[lr->gen_of[b]] = 1;
		else if (lr->gen_of[b] >= 0)
		{
			uint64_t	inv = nmod_neg(n_invmod(lambda[gstar], mod.n), mod);

			for (uint32_t i = 0; i < lr->G; i++)
				rb[i] = (int32_t) i == gstar ? 0 : nmod_mul(lambda[i], inv, mod);
		}
		else
		{
			const uint64_t *cf = lr->coef + (size_t) b * MAXC;
			uint64_t	mu = gstar >= 0 ? nmod_mul(cf[gstar], n_invmod(lambda[gstar], mod.n), mod) : 0;

			for (uint32_t i = 0; i < lr->G; i++)
				rb[i] = nmod_sub(cf[i], nmod_mul(mu, lambda[i], mod), mod);
		}
	}
}

/* does ONE lie in the span of the classes cl[0..nm)?  rank(S) = rank(S mod ONE) + 1 */
static int
span_holds_one(const tapas_linrel_t *lr, const uint64_t *r, const uint32_t *cl, uint32_t nm,
			   int32_t gstar, uint64_t *scratch)
{
	uint32_t	G = lr->G,
				rank_m,
				rank_q;

	if (gstar < 0)
		return 0;
	for (uint32_t m = 0; m < nm; m++)
	{
		uint64_t   *row = scratch + (size_t) m * G;
		uint32_t	b = cl[m];

		memset(row, 0, G * sizeof(uint64_t));
		if (lr->gen_of[b] >= 0)
			row[lr->gen_of[b]] = 1;
		else
			memcpy(row, lr->coef + (size_t) b * MAXC, G * sizeof(uint64_t));
	}
	rank_m = tapas_linrel_rank_rows(scratch, nm, G, lr->mod);
	for (uint32_t m = 0; m < nm; m++)
		memcpy(scratch + (size_t) m * G, r + (size_t) cl[m] * MAXC, G * sizeof(uint64_t));
	rank_q = tapas_linrel_rank_rows(scratch, nm, G, lr->mod);
	return rank_m == rank_q + 1;
}

/* appends an extra membership (class b in system c) */
static int
add_extra(tapas_linrel_plan_t *plan, uint32_t *cap, uint32_t c, uint32_t b,
		  const tapas_regset_t *rows, const tapas_regset_t *test,
		  const tapas_regset_t *patterns)
{
	if (plan->nextra == *cap)
	{
		uint32_t	ncap = *cap ? 2 * *cap : 16;
		tapas_linrel_extra_t *x = tapas_malloc(ncap * sizeof(tapas_linrel_extra_t));

		if (x == NULL)
			return 0;
		if (plan->extra)
			memcpy(x, plan->extra, plan->nextra * sizeof(tapas_linrel_extra_t));
		tapas_free(plan->extra);
		plan->extra = x;
		*cap = ncap;
	}
	plan->extra[plan->nextra].comp = c;
	plan->extra[plan->nextra].cls = b;
	plan->extra[plan->nextra].regions = *rows;
	if (test)
		plan->extra[plan->nextra].test = *test;
	else
		tapas_regset_clear(&plan->extra[plan->nextra].test);
	if (patterns)
		plan->extra[plan->nextra].patterns = *patterns;
	else
		tapas_regset_clear(&plan->extra[plan->nextra].patterns);
	plan->nextra++;
	return 1;
}

/* the state of one plan computation */
typedef struct planner
{
	tapas_linrel_t *lr;
	tapas_linrel_plan_t *plan;
	const uint64_t *r;			/* classes modulo ONE */
	int32_t		gstar;
	const svec *one;			/* ONE's vector, or NULL */
	uint64_t   *scratch;		/* [MAXC * MAXC] */
	uint32_t	extra_cap;
} planner;

/*
 * One system: its own classes home[0..nh) (plan->comp set to c), the
 * shared ones shared[0..ns) (X of a cut and its multiples: extra real
 * members) and the projected ones proj[0..np) (a row Q x X per cell,
 * X being member xpos of home + shared).
 */
static tapas_status
plan_system(planner *pl, uint32_t c, const uint32_t *home, uint32_t nh,
			const uint32_t *shared, uint32_t ns, const uint32_t *proj, uint32_t np,
			int32_t cut, uint32_t xpos)
{
	tapas_linrel_plan_t *plan = pl->plan;
	uint32_t	cl[MAXC],
				nm = 0;
	tapas_regset_t *rows = tapas_malloc(3 * MAXC * sizeof(tapas_regset_t));
	tapas_regset_t *test = rows + MAXC,
			   *pat = rows + 2 * MAXC;
	tapas_status st;
	int			with_one;

	if (rows == NULL)
		return TAPAS_ENOMEM;

	for (uint32_t i = 0; i < nh; i++)
		cl[nm++] = home[i];
	for (uint32_t i = 0; i < ns; i++)
		cl[nm++] = shared[i];
	with_one = pl->one != NULL && span_holds_one(pl->lr, pl->r, cl, nm, pl->gstar, pl->scratch);
	st = tapas_linrel_plan_coordinates(pl->lr, plan, c, cl, nm, with_one ? pl->one : NULL, rows, test, pat);
	if (st != TAPAS_OK)
	{
		tapas_free(rows);
		return st;
	}
	plan->cut[c] = cut;
	plan->nmembers[c] = nm + np;
	for (uint32_t m = 0; m < nh; m++)
	{
		plan->comp[home[m]] = (int32_t) c;
		plan->regions[home[m]] = rows[m];
		plan->test[home[m]] = test[m];
		plan->patterns[home[m]] = pat[m];
	}
	for (uint32_t m = nh; m < nm && st == TAPAS_OK; m++)
		if (!add_extra(plan, &pl->extra_cap, c, cl[m], &rows[m], &test[m], &pat[m]))
			st = TAPAS_ENOMEM;
	/* a projected cell is the row of a cell of X: no test, no pattern */
	for (uint32_t i = 0; i < np && st == TAPAS_OK; i++)
		if (!add_extra(plan, &pl->extra_cap, c, proj[i], &rows[xpos], NULL, NULL))
			st = TAPAS_ENOMEM;
	tapas_free(rows);
	return st;
}

/* a component of M/ONE: one system, or one per part of its cut */
static tapas_status
plan_component(planner *pl, const uint32_t *cl, uint32_t nm)
{
	tapas_linrel_plan_t *plan = pl->plan;
	uint32_t	K = pl->lr->K;
	int32_t    *part = tapas_malloc(K * sizeof(int32_t));
	uint8_t    *beta = tapas_malloc(K * sizeof(uint8_t));
	int			xi;
	tapas_status st = TAPAS_OK;

	if (part == NULL || beta == NULL)
	{
		tapas_free(part);
		tapas_free(beta);
		return TAPAS_ENOMEM;
	}
	xi = tapas_linrel_find_cut(pl->lr, pl->r, cl, nm, part, beta);
	if (xi == -2)
		st = TAPAS_ENOMEM;
	else if (xi < 0)
		st = plan_system(pl, plan->ncomp++, cl, nm, NULL, 0, NULL, 0, -1, 0);
	else
	{
		uint32_t	shared[MAXC],
					ns = 0,
					nparts = 0;

		/* X first: its rows are the projected cells' */
		shared[ns++] = cl[xi];
		for (uint32_t m = 0; m < nm; m++)
		{
			if (part[cl[m]] < 0 && (int) m != xi)
				shared[ns++] = cl[m];
			if (part[cl[m]] >= 0 && (uint32_t) part[cl[m]] + 1 > nparts)
				nparts = (uint32_t) part[cl[m]] + 1;
		}
		for (uint32_t k = 0; k < nparts && st == TAPAS_OK; k++)
		{
			uint32_t	home[MAXC],
						proj[MAXC],
						nh = 0,
						np = 0,
						c = plan->ncomp++;

			for (uint32_t m = 0; m < nm; m++)
			{
				int32_t		pb = part[cl[m]];

				if (pb == (int32_t) k)
					home[nh++] = cl[m];
				else if (pb >= 0 && beta[cl[m]])
					proj[np++] = cl[m];
			}
			/* the shared classes live in the first part, and are extra in the others */
			if (k == 0)
			{
				uint32_t	all[MAXC];

				memcpy(all, home, nh * sizeof(uint32_t));
				memcpy(all + nh, shared, ns * sizeof(uint32_t));
				st = plan_system(pl, c, all, nh + ns, NULL, 0, proj, np, (int32_t) cl[xi], nh);
			}
			else
				st = plan_system(pl, c, home, nh, shared, ns, proj, np, (int32_t) cl[xi], nh);
		}
	}
	tapas_free(part);
	tapas_free(beta);
	return st;
}

tapas_status
tapas_linrel_plan(tapas_linrel_t *lr, uint64_t nrecords, tapas_linrel_plan_t *plan)
{
	uint32_t	parent[MAXC],
				size[MAXC],
				members[MAXC];
	uint64_t	lambda[MAXC];
	uint32_t	K = lr->K;
	int32_t		gstar = -1;
	svec		one = {0, NULL, NULL};
	int			has_one;
	uint64_t   *r = NULL;
	planner		pl;
	tapas_status st = TAPAS_OK;

	if (!plan_alloc(plan, K))
		return TAPAS_ENOMEM;
	has_one = one_coefficients(lr, nrecords, lambda, &one);
	r = tapas_malloc(((size_t) (K ? K : 1) * MAXC + (size_t) MAXC * MAXC) * sizeof(uint64_t));
	if (has_one < 0 || r == NULL)
	{
		tapas_linrel_svec_clear(&one);
		tapas_free(r);
		tapas_linrel_plan_clear(plan);
		return TAPAS_ENOMEM;
	}
	for (uint32_t i = 0; has_one && i < lr->G; i++)
		if (lambda[i] != 0)
			gstar = (int32_t) i;
	classes_mod_one(lr, lambda, gstar, r);
	for (uint32_t b = 0; b < K; b++)
	{
		parent[b] = b;
		size[b] = 1;
	}
	/* each class joins the generator classes of its representation (its circuit) */
	for (uint32_t b = 0; b < K; b++)
	{
		const uint64_t *rb = r + (size_t) b * MAXC;
		int			any = 0;

		if (lr->cls[b].nnz == 0)
			continue;
		for (uint32_t i = 0; i < lr->G; i++)
			if (rb[i] != 0)
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
		/* zero modulo ONE: b is a nonzero multiple of ONE, public */
		plan->is_one[b] = (uint8_t) !any;
	}
	for (uint32_t b = 0; b < K; b++)
		plan->comp[b] = -1;
	pl.lr = lr;
	pl.plan = plan;
	pl.r = r;
	pl.gstar = gstar;
	pl.one = has_one ? &one : NULL;
	pl.scratch = r + (size_t) (K ? K : 1) * MAXC;
	pl.extra_cap = 0;
	for (uint32_t b = 0; b < K && st == TAPAS_OK; b++)
	{
		uint32_t	root = uf_find(parent, b),
					nm = 0;

		/* each component once, from its first class */
		if (size[root] < 2 || plan->is_one[b] || lr->cls[b].nnz == 0)
			continue;
		for (uint32_t x = 0; x < K; x++)
			if (uf_find(parent, x) == root && !plan->is_one[x] && lr->cls[x].nnz != 0)
				members[nm++] = x;
		if (members[0] != b || nm < 2)
			continue;
		st = plan_component(&pl, members, nm);
	}
	tapas_linrel_svec_clear(&one);
	tapas_free(r);
	if (st != TAPAS_OK)
		tapas_linrel_plan_clear(plan);
	return st;
}
