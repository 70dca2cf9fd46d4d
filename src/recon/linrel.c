/*-------------------------------------------------------------------------
 *
 * linrel.c
 *	  Linear relations between class truth vectors over F_p, their
 *	  components and the 0/1 region coordinates of each component.
 *
 * Echelon basis.  Generator k is a sparse vector b_k with b_k[piv_k] = 1
 * and b_k[piv_k'] = 0 for every k' < k (it was reduced by them when it
 * arrived), so a new vector w is reduced in generator order, each step
 * w -= w[piv_k] b_k, without disturbing earlier pivots.  T tracks b_k as a
 * combination of the generator classes: b_k = sum_i T[k][i] v_gen(i), and
 * a class reduced to zero gets its coefficients over the generator classes
 * coef = sum_k c_k T[k].  Fill-in is bounded by the union of the supports.
 *
 * Components.  The fundamental circuit of a dependent class d is d plus
 * the generator classes with a nonzero coefficient; the connected
 * components of the union of these circuits are the matroid's components
 * (any basis gives the same ones), found with union-find.
 *
 * Regions (linrel.h).  Scales are propagated record by record from one
 * class of the component (s = 1) to the others nonzero at the same record,
 * then checked at every record; a pattern is the set of the component's
 * classes nonzero at a record, and each distinct pattern is a region.
 *
 * IDENTIFICATION
 *	  src/recon/linrel.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <flint/flint.h>
#include <flint/nmod.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/linrel.h"

#define MAXC	TAPAS_LINREL_MAX_CLASSES

typedef struct svec
{
	size_t		nnz;
	int64_t    *key;			/* ascending */
	uint64_t   *val;			/* nonzero, < p */
} svec;

struct tapas_linrel
{
	nmod_t		mod;
	uint32_t	K;				/* classes */
	svec		cls[MAXC];		/* class vectors mod p (empty: zero class) */
	uint32_t	G;				/* generators */
	svec		basis[MAXC];	/* b_k */
	int64_t		piv[MAXC];		/* pivot key of b_k */
	uint32_t	gen_class[MAXC];	/* class of generator k */
	int32_t		gen_of[MAXC];	/* generator index of class b, or -1 */
	uint64_t   *T;				/* [MAXC * MAXC] b_k over generator classes */
	uint64_t   *coef;			/* [MAXC * MAXC] dependent class over generator classes */
};

/* ---------------------------------------------------------------------
 * Sparse vectors mod p
 * ---------------------------------------------------------------------
 */

static void
svec_clear(svec *v)
{
	tapas_free(v->key);
	tapas_free(v->val);
	v->key = NULL;
	v->val = NULL;
	v->nnz = 0;
}

static int
svec_alloc(svec *v, size_t n)
{
	v->key = tapas_malloc((n ? n : 1) * sizeof(int64_t));
	v->val = tapas_malloc((n ? n : 1) * sizeof(uint64_t));
	v->nnz = 0;
	if (v->key == NULL || v->val == NULL)
	{
		svec_clear(v);
		return 0;
	}
	return 1;
}

/* v[key], 0 if absent (binary search) */
static uint64_t
svec_get(const svec *v, int64_t key)
{
	size_t		lo = 0,
				hi = v->nnz;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (v->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nnz && v->key[lo] == key ? v->val[lo] : 0;
}

/* *w -= c b (a merge of the two supports); 0 when out of memory */
static int
svec_submul(svec *w, uint64_t c, const svec *b, nmod_t mod)
{
	svec		out;
	size_t		i = 0,
				j = 0;

	if (!svec_alloc(&out, w->nnz + b->nnz))
		return 0;
	while (i < w->nnz || j < b->nnz)
	{
		int64_t		k;
		uint64_t	x;

		if (j == b->nnz || (i < w->nnz && w->key[i] < b->key[j]))
		{
			k = w->key[i];
			x = w->val[i++];
		}
		else if (i == w->nnz || b->key[j] < w->key[i])
		{
			k = b->key[j];
			x = nmod_neg(nmod_mul(c, b->val[j++], mod), mod);
		}
		else
		{
			k = w->key[i];
			x = nmod_sub(w->val[i++], nmod_mul(c, b->val[j++], mod), mod);
		}
		if (x != 0)
		{
			out.key[out.nnz] = k;
			out.val[out.nnz++] = x;
		}
	}
	svec_clear(w);
	*w = out;
	return 1;
}

/*
 * A finite double as an element of F_p: v = m 2^e with m an integer of at
 * most 53 bits, and Z[1/2] -> F_p is a ring map (p odd), so relations with
 * such coefficients hold mod p exactly.  0 if v is not finite.
 */
static int
double_mod(double v, nmod_t mod, uint64_t *out)
{
	int			e;
	double		f;
	int64_t		m;
	uint64_t	r,
				pw;

	if (!isfinite(v))
		return 0;
	if (v == 0.0)
	{
		*out = 0;
		return 1;
	}
	if (fabs(v) < 4.0e18 && v == trunc(v))
	{
		/* an integer: the common case */
		int64_t		iv = (int64_t) v;

		r = (uint64_t) (iv < 0 ? -iv : iv) % mod.n;
		*out = iv < 0 ? nmod_neg(r, mod) : r;
		return 1;
	}
	f = frexp(v, &e);
	m = (int64_t) ldexp(f, 53);
	e -= 53;
	/* strip trailing zero bits so that integers take the fast path */
	while ((m & 1) == 0)
	{
		m /= 2;
		e++;
	}
	r = (uint64_t) (m < 0 ? -m : m) % mod.n;
	if (m < 0)
		r = nmod_neg(r, mod);
	if (e > 0)
		pw = n_powmod2_ui_preinv(2, (ulong) e, mod.n, mod.ninv);
	else if (e < 0)
		pw = n_invmod(n_powmod2_ui_preinv(2, (ulong) -e, mod.n, mod.ninv), mod.n);
	else
		pw = 1;
	*out = nmod_mul(r, pw, mod);
	return 1;
}

/* ---------------------------------------------------------------------
 * Creation and the echelon basis
 * ---------------------------------------------------------------------
 */

tapas_linrel_t *
tapas_linrel_create(uint64_t prime)
{
	tapas_linrel_t *lr;

	if (prime < 3 || prime >= (UINT64_C(1) << 62) || !n_is_prime(prime))
		return NULL;
	lr = tapas_calloc(1, sizeof(*lr));
	if (lr == NULL)
		return NULL;
	nmod_init(&lr->mod, prime);
	lr->T = tapas_calloc((size_t) MAXC * MAXC, sizeof(uint64_t));
	lr->coef = tapas_calloc((size_t) MAXC * MAXC, sizeof(uint64_t));
	if (lr->T == NULL || lr->coef == NULL)
	{
		tapas_linrel_free(lr);
		return NULL;
	}
	return lr;
}

void
tapas_linrel_free(tapas_linrel_t *lr)
{
	uint32_t	i;

	if (lr == NULL)
		return;
	for (i = 0; i < lr->K; i++)
		svec_clear(&lr->cls[i]);
	for (i = 0; i < lr->G; i++)
		svec_clear(&lr->basis[i]);
	tapas_free(lr->T);
	tapas_free(lr->coef);
	tapas_free(lr);
}

uint32_t
tapas_linrel_count(const tapas_linrel_t *lr)
{
	return lr->K;
}

uint32_t
tapas_linrel_rank(const tapas_linrel_t *lr)
{
	return lr->G;
}

/* the class's vector mod p into *v; EINVAL (v empty) on bad input */
static tapas_status
class_vector(tapas_linrel_t *lr, const int64_t *keys, const double *val,
			 size_t nnz, svec *v)
{
	size_t		i;

	if (!svec_alloc(v, nnz))
		return TAPAS_ENOMEM;
	for (i = 0; i < nnz; i++)
	{
		uint64_t	x;

		if ((i > 0 && keys[i] <= keys[i - 1]) || !double_mod(val[i], lr->mod, &x))
		{
			v->nnz = 0;
			return TAPAS_EINVAL;
		}
		if (x == 0)
			continue;
		v->key[v->nnz] = keys[i];
		v->val[v->nnz++] = x;
	}
	return TAPAS_OK;
}

/* reduces w by the generators: c[k] = the multiple of b_k taken out */
static tapas_status
reduce(tapas_linrel_t *lr, svec *w, uint64_t *c)
{
	uint32_t	k;

	for (k = 0; k < lr->G; k++)
	{
		c[k] = svec_get(w, lr->piv[k]);
		if (c[k] != 0 && !svec_submul(w, c[k], &lr->basis[k], lr->mod))
			return TAPAS_ENOMEM;
	}
	return TAPAS_OK;
}

tapas_status
tapas_linrel_add(tapas_linrel_t *lr, const int64_t *keys, const double *val,
				 size_t nnz)
{
	uint32_t	b = lr->K,
				k,
				i;
	uint64_t	c[MAXC];
	svec		w;
	tapas_status st;
	nmod_t		mod = lr->mod;

	if (b >= MAXC)
		return TAPAS_ELIMIT;
	if (nnz > 0 && (keys == NULL || val == NULL))
		return TAPAS_EINVAL;
	st = class_vector(lr, keys, val, nnz, &lr->cls[b]);
	if (st == TAPAS_ENOMEM)
		return st;
	lr->gen_of[b] = -1;
	lr->K++;
	if (st != TAPAS_OK || lr->cls[b].nnz == 0)
		return st;				/* the zero class: in no relation */
	if (!svec_alloc(&w, lr->cls[b].nnz))
		return TAPAS_ENOMEM;
	memcpy(w.key, lr->cls[b].key, lr->cls[b].nnz * sizeof(int64_t));
	memcpy(w.val, lr->cls[b].val, lr->cls[b].nnz * sizeof(uint64_t));
	w.nnz = lr->cls[b].nnz;
	if ((st = reduce(lr, &w, c)) != TAPAS_OK)
	{
		svec_clear(&w);
		return st;
	}
	if (w.nnz == 0)
	{
		/* dependent: coef = sum_k c_k T[k] over the generator classes */
		uint64_t   *cf = lr->coef + (size_t) b * MAXC;

		for (k = 0; k < lr->G; k++)
			if (c[k] != 0)
				for (i = 0; i <= k; i++)
					cf[i] = nmod_add(cf[i], nmod_mul(c[k], lr->T[(size_t) k * MAXC + i], mod), mod);
		svec_clear(&w);
		return TAPAS_OK;
	}
	/* a new generator: b_G = w / w[first], T[G] = (e_G - sum c_k T[k]) / w[first] */
	{
		uint32_t	g = lr->G;
		uint64_t	sinv = n_invmod(w.val[0], mod.n);
		uint64_t   *tg = lr->T + (size_t) g * MAXC;

		for (i = 0; i < w.nnz; i++)
			w.val[i] = nmod_mul(w.val[i], sinv, mod);
		for (k = 0; k < g; k++)
			if (c[k] != 0)
				for (i = 0; i <= k; i++)
					tg[i] = nmod_sub(tg[i], nmod_mul(c[k], lr->T[(size_t) k * MAXC + i], mod), mod);
		tg[g] = 1;
		for (i = 0; i <= g; i++)
			tg[i] = nmod_mul(tg[i], sinv, mod);
		lr->piv[g] = w.key[0];
		lr->basis[g] = w;
		lr->gen_class[g] = b;
		lr->gen_of[b] = (int32_t) g;
		lr->G++;
	}
	return TAPAS_OK;
}

/* ---------------------------------------------------------------------
 * The plan: components and regions
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
 * The regions of one component of nm members (classes cl[]); -1: none
 * within the limits.  *split is set when the classes are not 0/1 sums of
 * the regions (no scales: sum(health) with count(*) FILTER (WHERE health
 * = v) for each v): the regions then refine the patterns by the classes'
 * ratios, each class is a multiple of one generator on each region, and
 * the caller takes every cell as known region by region (linrel.h).
 */
static int32_t
component_regions(tapas_linrel_t *lr, const uint32_t *cl, uint32_t nm,
				  uint64_t *regions, int *split, tapas_status *st)
{
	size_t		ne = 0,
				lo,
				hi,
				i;
	uint32_t	m;
	entry	   *ent;
	uint64_t	s[TAPAS_LINREL_MAX_REGIONS];
	region_sig *sig;
	int32_t		nr = 0;

	*st = TAPAS_OK;
	*split = 0;
	if (nm > TAPAS_LINREL_MAX_REGIONS)
		return -1;
	for (m = 0; m < nm; m++)
		ne += lr->cls[cl[m]].nnz;
	ent = tapas_malloc((ne ? ne : 1) * sizeof(entry));
	sig = tapas_malloc(TAPAS_LINREL_MAX_REGIONS * sizeof(region_sig));
	if (ent == NULL || sig == NULL)
	{
		tapas_free(ent);
		tapas_free(sig);
		*st = TAPAS_ENOMEM;
		return -1;
	}
	ne = 0;
	for (m = 0; m < nm; m++)
		for (i = 0; i < lr->cls[cl[m]].nnz; i++)
		{
			ent[ne].key = lr->cls[cl[m]].key[i];
			ent[ne].member = m;
			ent[ne++].val = lr->cls[cl[m]].val[i];
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
	if (nr >= 0)
		for (m = 0; m < nm; m++)
		{
			regions[cl[m]] = 0;
			for (int32_t r = 0; r < nr; r++)
				if (sig[r].mask & (UINT64_C(1) << m))
					regions[cl[m]] |= UINT64_C(1) << r;
		}
	tapas_free(sig);
	return nr;
}

void
tapas_linrel_plan_clear(tapas_linrel_plan_t *plan)
{
	tapas_free(plan->comp);
	tapas_free(plan->regions);
	tapas_free(plan->nregions);
	tapas_free(plan->nmembers);
	tapas_free(plan->split);
	memset(plan, 0, sizeof(*plan));
}

tapas_status
tapas_linrel_plan(tapas_linrel_t *lr, tapas_linrel_plan_t *plan)
{
	uint32_t	parent[MAXC],
				size[MAXC],
				root_comp[MAXC],
				members[MAXC];
	uint32_t	b,
				i,
				K = lr->K;
	tapas_status st = TAPAS_OK;

	memset(plan, 0, sizeof(*plan));
	plan->nclasses = K;
	plan->comp = tapas_malloc((K ? K : 1) * sizeof(int32_t));
	plan->regions = tapas_calloc(K ? K : 1, sizeof(uint64_t));
	plan->nregions = tapas_malloc((K ? K : 1) * sizeof(int32_t));
	plan->nmembers = tapas_calloc(K ? K : 1, sizeof(uint32_t));
	plan->split = tapas_calloc(K ? K : 1, sizeof(uint8_t));
	if (!plan->comp || !plan->regions || !plan->nregions || !plan->nmembers || !plan->split)
	{
		tapas_linrel_plan_clear(plan);
		return TAPAS_ENOMEM;
	}
	for (b = 0; b < K; b++)
	{
		parent[b] = b;
		size[b] = 1;
	}
	/* each dependent class joins the generator classes of its circuit */
	for (b = 0; b < K; b++)
	{
		const uint64_t *cf = lr->coef + (size_t) b * MAXC;

		if (lr->gen_of[b] >= 0 || lr->cls[b].nnz == 0)
			continue;
		for (i = 0; i < lr->G; i++)
			if (cf[i] != 0)
			{
				uint32_t	x = uf_find(parent, b),
							y = uf_find(parent, lr->gen_class[i]);

				if (x != y)
				{
					parent[x] = y;
					size[y] += size[x];
				}
			}
	}
	for (b = 0; b < K; b++)
		root_comp[b] = UINT32_MAX;
	for (b = 0; b < K; b++)
	{
		uint32_t	r = uf_find(parent, b);

		if (size[r] < 2)
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
		int			split;

		for (b = 0; b < K; b++)
			if (plan->comp[b] == (int32_t) c)
				members[nm++] = b;
		plan->nmembers[c] = nm;
		plan->nregions[c] = component_regions(lr, members, nm, plan->regions, &split, &st);
		plan->split[c] = (uint8_t) split;
	}
	if (st != TAPAS_OK)
		tapas_linrel_plan_clear(plan);
	return st;
}
