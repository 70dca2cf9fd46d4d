/*-------------------------------------------------------------------------
 *
 * truth_domain_slices.c
 *	  A component of the domain grid too large for its full product, laid
 *	  out as slices: the points that move the dimensions of one set T and
 *	  leave the others at the base, for every T that the classes read.
 *
 * Why: ten IN lists of bits on income cut it into 1,024 groups, and one
 * class that reads income with rare and diagnosis (rare AND diagnosis =
 * 'flu' AND income > 5) puts the three columns in one component of
 * 2 x 5 x 1,024 points, above DOMAIN_MAX_POINTS.  Its classes then fell
 * back to their truth over the table, where diagnosis = 'hiv' is the
 * class rare when the hiv patients are the rare ones, and a refusal told
 * it (issue 11, item 5).  Its slices have a few hundred points.
 *
 * The points.  Let S_k be the dimensions class k reads and b the base.
 * For every nonempty T inside some S_k, take the points (x_T, b) whose
 * coordinates in T are all off the base: on dimension j of T, one value
 * per group of j's representatives that the classes with S_k containing
 * T tell apart (their atoms' truth values; NULL alone; a summed column
 * up to GROUP_SUMMED_REPS values of the merged groups), the base group's
 * other values included.
 *
 * Linear relations are exact on these points.  Write a function F of
 * the dimensions in anchored form, F = sum over T of F_T, with
 * F_T(x_T) = sum over R inside T of (-1)^(|T| - |R|) F(x_R, b), zero when a
 * coordinate of T is at the base.  For F = sum_k lambda_k f_k, F_T is the
 * sum over the classes with S_k containing T, so it is constant on the
 * groups those classes tell apart (affine in a summed value within one,
 * as the grid takes value expressions), and zero on the base's group.
 * By induction on |T|: if F vanishes on the slices of every R strictly
 * inside T, every F_R is zero and F_T(x_T) = F(x_T, b), so F is zero
 * everywhere iff it is zero on every slice.  Identity, complement, affine
 * images (truth_identity.c), the relations' kernel (relations.c) and the
 * 0/1 shape of a class (every combination of the groups it tells apart
 * is on its own slice T = S_k) are thus decided as on the full product.
 *
 * Not exact: which classes are nonzero together.  A point that moves
 * dimensions of two classes that share some (S_1 = {rare, income},
 * S_2 = {income, diagnosis}) is on no slice, so the supports' inclusions
 * and intersections are taken pair by pair (truth_domain_pairs.c), and
 * the regions of a joint system (recon/linrel.h: records grouped by the
 * classes nonzero at them) may miss a pattern of the product.  A missing
 * pattern credits the attacker with fewer possible rows, never more:
 * more refusals, not fewer, and from the statistics alone.
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_slices.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/hsearch.h"
#include "utils/rel.h"

#include "audit/audit_int.h"
#include "audit/truth_domain_int.h"

#define SLICE_MAX_DIMS		12	/* dimensions of one class in a sliced component: 2^12 subsets */
#define SLICE_MAX_LOCAL		62	/* dimensions of a sliced component (bit masks) */

typedef struct DomSlice
{
	int			ndims;
	int		   *dim;			/* [ndims] its dimensions, ascending */
	int		  **vals;			/* [ndims] the dimension's values, the base's first */
	int		   *nv;				/* [ndims] */
	int64		start;			/* local index of its first point (the base is 0) */
	int64		npoints;		/* prod (nv - 1) */
} DomSlice;

struct DomSlices
{
	int			n;
	DomSlice   *slice;
};

/* ----------------------------------------------------------------
 *		A dimension's values that some atoms tell apart
 * ----------------------------------------------------------------
 */

static const uint8 *key_of;
static int	key_len;

static int
cmp_key(const void *a, const void *b)
{
	int			x = *(const int *) a,
				y = *(const int *) b;
	int			r = memcmp(key_of + x * key_len, key_of + y * key_len, key_len);

	return r != 0 ? r : x - y;
}

/* the signature positions of column dimension i read by the classes cls[ncls] */
Bitmapset *
tapas_domain_dim_positions(Domain *d, int i, const int *cls, int ncls)
{
	int			ncols = list_length(d->cols);
	Bitmapset  *pos = NULL;

	if (i >= ncols)
		return NULL;
	for (int k = 0; k < ncls; k++)
		pos = bms_union(pos, d->atpos[cls[k] * ncols + i]);
	return pos;
}

/*
 * The merged group of each of c's groups, by their truth values at the
 * signature positions pos (NULL's group alone): ids by first member, so
 * that group 0 (the base's) is merged group 0.  Returns their number.
 */
static int
merge_groups(DomCol *c, const Bitmapset *pos, int *merged)
{
	int			G = c->ngroups;
	int			nsig = G - (c->null_group ? 1 : 0);
	int		   *order = palloc(sizeof(int) * Max(G, 1));
	int		   *rank = palloc(sizeof(int) * Max(G, 1));
	uint8	   *keys;
	int			m = 0;

	key_len = bms_num_members(pos) + 1;
	keys = palloc0(key_len * Max(G, 1));
	for (int g = 0; g < G; g++)
	{
		int			p = -1,
					b = 0;

		order[g] = g;
		keys[g * key_len] = g >= nsig;	/* NULL's group */
		while ((p = bms_next_member(pos, p)) >= 0)
			keys[g * key_len + 1 + b++] = g >= nsig ? 0 : c->sig[g * c->siglen + p];
	}
	key_of = keys;
	qsort(order, G, sizeof(int), cmp_key);
	for (int i = 0; i < G; i++)
	{
		if (i > 0 && memcmp(keys + order[i] * key_len, keys + order[i - 1] * key_len, key_len) != 0)
			m++;
		rank[order[i]] = m;
	}
	/* renumber by first member */
	{
		int		   *id = palloc(sizeof(int) * Max(G, 1));
		int			next = 0;

		for (int g = 0; g < G; g++)
			id[g] = -1;
		for (int g = 0; g < G; g++)
		{
			if (id[rank[g]] < 0)
				id[rank[g]] = next++;
			merged[g] = id[rank[g]];
		}
		pfree(id);
		m = next;
	}
	pfree(keys);
	pfree(order);
	pfree(rank);
	return m;
}

/*
 * The values of dimension i on a slice or pair grid (the base's first):
 * for a column, one representative per merged group of its groups
 * (merge_groups), or for a summed column up to GROUP_SUMMED_REPS of the
 * merged groups' representatives, spread over them; for an opaque atom
 * its truth values.  In *nv.
 */
int *
tapas_domain_dim_values(Domain *d, int i, const Bitmapset *pos, int *nv)
{
	int			ncols = list_length(d->cols);
	DomCol	   *c;
	int		   *merged;
	int			m;
	int		   *vals;
	int		   *members;
	int		   *first;
	int		   *fill;

	if (i >= ncols)
	{
		*nv = list_nth_int(d->opaque_dom, i - ncols);
		vals = palloc(sizeof(int) * *nv);
		for (int v = 0; v < *nv; v++)
			vals[v] = v;
		return vals;
	}
	c = list_nth(d->cols, i);
	merged = palloc(sizeof(int) * Max(c->ngroups, 1));
	m = merge_groups(c, pos, merged);
	first = palloc0(sizeof(int) * (m + 1));
	members = palloc(sizeof(int) * Max(c->nreps, 1));
	/* the merged groups' representatives, bucketed by id in group order: rep 0 first for the base */
	for (int g = 0; g < c->ngroups; g++)
		first[merged[g] + 1] += c->summed ? c->gstart[g + 1] - c->gstart[g] : 1;
	for (int id = 0; id < m; id++)
		first[id + 1] += first[id];
	fill = palloc(sizeof(int) * Max(m, 1));
	memcpy(fill, first, sizeof(int) * Max(m, 1));
	for (int g = 0; g < c->ngroups; g++)
		for (int r = c->gstart[g]; r < c->gstart[g + 1] && (c->summed || r == c->gstart[g]); r++)
			members[fill[merged[g]]++] = r;
	vals = palloc(sizeof(int) * (GROUP_SUMMED_REPS * m + 1));
	*nv = 0;
	for (int id = 0; id < m; id++)
	{
		const int  *mem = members + first[id];
		int			n = first[id + 1] - first[id];

		/* a column no value expression reads: the first member's first representative */
		if (!c->summed)
			n = Min(n, 1);
		for (int k = 0; k < Min(n, GROUP_SUMMED_REPS); k++)
			vals[(*nv)++] = mem[n <= GROUP_SUMMED_REPS ? k
								: (int) ((int64) k * (n - 1) / (GROUP_SUMMED_REPS - 1))];
	}
	pfree(fill);
	pfree(first);
	pfree(members);
	pfree(merged);
	return vals;
}

/*
 * The merged group (merge_groups, by the truth values at positions pos)
 * of each representative vals[n] of column dimension i, in out[n]; their
 * number, or -1 for an opaque atom's dimension (out untouched).
 */
int
tapas_domain_dim_groups(Domain *d, int i, const Bitmapset *pos, const int *vals, int n, int *out)
{
	DomCol	   *c;
	int		   *merged;
	int			m;

	if (i >= list_length(d->cols))
		return -1;
	c = list_nth(d->cols, i);
	merged = palloc(sizeof(int) * Max(c->ngroups, 1));
	m = merge_groups(c, pos, merged);
	for (int v = 0; v < n; v++)
	{
		int			lo = 0,
					hi = c->ngroups - 1;

		/* the group holding representative vals[v]: gstart[lo] <= vals[v] < gstart[lo + 1] */
		while (lo < hi)
		{
			int			mid = (lo + hi + 1) / 2;

			if (c->gstart[mid] <= vals[v])
				lo = mid;
			else
				hi = mid - 1;
		}
		out[v] = merged[lo];
	}
	pfree(merged);
	return m;
}

/* ----------------------------------------------------------------
 *		The slices of a component
 * ----------------------------------------------------------------
 */

typedef struct SliceKey
{
	uint64		t;				/* hash key: a set of the component's dimensions */
} SliceKey;

/* the slice of the local set t (local[] the component's dimensions), in *sl */
static void
slice_make(Domain *d, const int *local, uint64 t, const uint64 *mask, const int *cls, int ncls,
		   DomSlice *sl)
{
	int		   *in = palloc(sizeof(int) * Max(ncls, 1));
	int			nin = 0;

	/* the classes that read every dimension of t */
	for (int k = 0; k < ncls; k++)
		if ((mask[k] & t) == t)
			in[nin++] = cls[k];
	sl->ndims = 0;
	sl->dim = palloc(sizeof(int) * SLICE_MAX_LOCAL);
	sl->vals = palloc(sizeof(int *) * SLICE_MAX_LOCAL);
	sl->nv = palloc(sizeof(int) * SLICE_MAX_LOCAL);
	sl->npoints = 1;
	for (int j = 0; j < SLICE_MAX_LOCAL; j++)
	{
		int			i = local[j];
		Bitmapset  *pos;

		if ((t & ((uint64) 1 << j)) == 0)
			continue;
		pos = tapas_domain_dim_positions(d, i, in, nin);
		sl->dim[sl->ndims] = i;
		sl->vals[sl->ndims] = tapas_domain_dim_values(d, i, pos, &sl->nv[sl->ndims]);
		sl->npoints *= sl->nv[sl->ndims] - 1;
		if (sl->npoints > DOMAIN_MAX_POINTS)
			sl->npoints = DOMAIN_MAX_POINTS + 1;	/* over any budget; no overflow */
		sl->ndims++;
	}
	pfree(in);
}

/*
 * Lays out component c of the star in slices (s->slices[c]), with at
 * most budget points besides the base: their number, or -1 (the
 * component is then left out: its classes fall back).
 */
int64
tapas_domain_slices_layout(Domain *d, Star *s, int c, int64 budget)
{
	int			local[SLICE_MAX_LOCAL];
	int			nl = 0;
	int		   *cls = palloc(sizeof(int) * Max(d->nclasses, 1));
	uint64	   *mask = palloc0(sizeof(uint64) * Max(d->nclasses, 1));
	int			ncls = 0;
	HASHCTL		ctl;
	HTAB	   *seen;
	DomSlices  *out = palloc0(sizeof(DomSlices));
	int			cap = 16;
	int64		total = 0;

	for (int i = 0; i < s->ndims; i++)
		if (s->comp[i] == c)
		{
			if (nl == SLICE_MAX_LOCAL)
				return -1;
			local[nl++] = i;
		}
	for (int k = 0; k < d->nclasses; k++)
	{
		int			i = -1;

		if (bms_is_empty(s->dims[k]) || s->comp[bms_next_member(s->dims[k], -1)] != c)
			continue;
		if (bms_num_members(s->dims[k]) > SLICE_MAX_DIMS)
			return -1;
		while ((i = bms_next_member(s->dims[k], i)) >= 0)
			for (int j = 0; j < nl; j++)
				if (local[j] == i)
					mask[ncls] |= (uint64) 1 << j;
		cls[ncls++] = k;
	}
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(SliceKey);
	ctl.hcxt = CurrentMemoryContext;
	seen = hash_create("tapas domain slices", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	out->slice = palloc(sizeof(DomSlice) * cap);
	for (int k = 0; k < ncls; k++)
	{
		/* every nonempty subset t of the class's dimensions */
		for (uint64 t = mask[k]; t != 0; t = (t - 1) & mask[k])
		{
			bool		found;
			DomSlice   *sl;

			CHECK_FOR_INTERRUPTS();
			(void) hash_search(seen, &t, HASH_ENTER, &found);
			if (found)
				continue;
			if (out->n == cap)
			{
				cap *= 2;
				out->slice = repalloc(out->slice, sizeof(DomSlice) * cap);
			}
			sl = &out->slice[out->n];
			slice_make(d, local, t, mask, cls, ncls, sl);
			if (sl->npoints == 0)
				continue;		/* a dimension with one value: its points are smaller slices' */
			sl->start = 1 + total;
			total += sl->npoints;
			if (total > budget)
			{
				hash_destroy(seen);
				return -1;
			}
			out->n++;
		}
	}
	hash_destroy(seen);
	s->slices[c] = out;
	elog(DEBUG1, "tapas: a component of table \"%s\" in %d slices, " INT64_FORMAT " points",
		 RelationGetRelationName(d->rel), out->n, total + 1);
	return total;
}

/* the point of local index l >= 1 of sliced component c, in x (at the base elsewhere) */
void
tapas_domain_slice_point(Star *s, int c, int64 l, int *x)
{
	DomSlices  *ss = s->slices[c];

	for (int n = 0; n < ss->n; n++)
	{
		DomSlice   *sl = &ss->slice[n];
		int64		r = l - sl->start;

		if (r < 0 || r >= sl->npoints)
			continue;
		for (int j = 0; j < sl->ndims; j++)
		{
			x[sl->dim[j]] = sl->vals[j][1 + r % (sl->nv[j] - 1)];
			r /= sl->nv[j] - 1;
		}
		return;
	}
	elog(ERROR, "point " INT64_FORMAT " is on no slice", l);
}
