/*-------------------------------------------------------------------------
 *
 * truth_domain_pairs.c
 *	  How the supports of two classes of a sliced component of the domain
 *	  grid (truth_domain_slices.c) lie on the whole grid: one inside the
 *	  other, meeting, neither.
 *
 * The slices hold linear relations, not the intersections of supports:
 * implied.c needs those (a class's row answered 1 narrows the candidates
 * of the classes it lies inside), and deciding them from the table's
 * records would use a coincidence of the data.  For classes a and b,
 * split their dimensions into the shared ones Y and the others U (a's)
 * and W (b's).  a(u, y) and b(y, w) range independently over u and w, so
 *		a inside b  iff  for every y: a(., y) has a nonzero => b(y, .) has none zero,
 *		they meet   iff  for some y: both have a nonzero,
 * each dimension of Y taking one value per group that a's and b's atoms
 * tell apart (tapas_domain_dim_values).  a(., y) depends on y only through
 * the groups a's own atoms tell apart (affinely within one where a value
 * expression reads the column, which the grid reads at the group's values,
 * as it reads a's vector), so whether it has a nonzero, and none zero, is
 * read once on a's own grid Y_a x U, per group of Y_a, and likewise b's
 * on Y_b x W; the pair's points y then combine the two tables:
 * |Y_a| |U| + |Y_b| |W| evaluations and |Y| lookups, not |Y| (|U| + |W|)
 * evaluations.
 *
 * Within bounds by construction.  For T inside Y, the slice of T takes on
 * each dimension of T the values that every class reading T tells apart,
 * a's and b's among them, so at least as many as the pair's; summing over
 * the subsets T of Y (each point of Y moves some T off the base) gives
 * |Y| <= 1 + the component's points, at most DOMAIN_MAX_POINTS; likewise
 * |Y_a| |U| over the subsets of a's dimensions.  So PAIR_MAX_EVALS is a
 * guard: past it the links would not be known and the caller would take
 * the records' (truth_identity.c), as it says at DEBUG1.
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_pairs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "utils/rel.h"

#include "audit/audit_int.h"
#include "audit/truth_domain_int.h"

#define PAIR_MAX_EVALS	65536

/* a product of some dimensions' values, walked in mixed radix */
typedef struct DimSet
{
	int			n;
	int		   *dim;
	int		  **vals;
	int		   *nv;
	int64		size;
} DimSet;

static void
dimset_add(Domain *d, DimSet *ds, int i, const int *cls, int ncls)
{
	Bitmapset  *pos = tapas_domain_dim_positions(d, i, cls, ncls);

	ds->dim[ds->n] = i;
	ds->vals[ds->n] = tapas_domain_dim_values(d, i, pos, &ds->nv[ds->n]);
	ds->size *= ds->nv[ds->n];
	if (ds->size > PAIR_MAX_EVALS)
		ds->size = PAIR_MAX_EVALS + 1;
	ds->n++;
}

/* sets x at ds's point of index l */
static void
dimset_point(const DimSet *ds, int64 l, int *x)
{
	for (int j = 0; j < ds->n; j++)
	{
		x[ds->dim[j]] = ds->vals[j][l % ds->nv[j]];
		l /= ds->nv[j];
	}
}

static void
dimset_init(DimSet *ds, int ndims)
{
	ds->n = 0;
	ds->dim = palloc(sizeof(int) * Max(ndims, 1));
	ds->vals = palloc(sizeof(int *) * Max(ndims, 1));
	ds->nv = palloc(sizeof(int) * Max(ndims, 1));
	ds->size = 1;
}

/* whether e's class has a nonzero (*any) and no zero (*all) over the points of ds, at x elsewhere */
static void
scan_own(StarEval *e, const DimSet *ds, int *x, bool *any, bool *all)
{
	*any = false;
	*all = true;
	for (int64 l = 0; l < ds->size; l++)
	{
		bool		nz;

		dimset_point(ds, l, x);
		nz = tapas_star_eval_point(e, x) != 0.0;
		*any |= nz;
		*all &= nz;
	}
}

/*
 * One side of a pair: the class's own values of the shared dimensions
 * (own), the groups its atoms tell apart there (ngroups; gown the group
 * of each own value, map of each of the pair's values), and whether the
 * class has a nonzero (any) and no zero (all) over its other dimensions
 * and the values of each point of the groups' grid.
 */
typedef struct PairSide
{
	DimSet		own;
	int		   *ngroups;		/* [Y.n] */
	int		  **gown;			/* [Y.n][own.nv[j]] */
	int		  **map;			/* [Y.n][Y.nv[j]] */
	int64		size;			/* prod ngroups */
	bool	   *any;			/* [size] */
	bool	   *all;
} PairSide;

/* the group of each of vals[n] of dimension i (by the class cls's atoms), in out; their number */
static int
side_groups(Domain *d, int i, const Bitmapset *pos, const int *vals, int n, int *out)
{
	int			m = tapas_domain_dim_groups(d, i, pos, vals, n, out);

	if (m >= 0)
		return m;
	/* an opaque atom: its truth values */
	for (int v = 0; v < n; v++)
		out[v] = vals[v];
	return list_nth_int(d->opaque_dom, i - list_length(d->cols));
}

/* side's own values and groups of Y's dimensions, the class being cls; the count of its own points */
static int64
side_project(Domain *d, const DimSet *Y, int cls, PairSide *side)
{
	dimset_init(&side->own, Y->n);
	side->ngroups = palloc(sizeof(int) * Max(Y->n, 1));
	side->gown = palloc(sizeof(int *) * Max(Y->n, 1));
	side->map = palloc(sizeof(int *) * Max(Y->n, 1));
	side->size = 1;
	for (int j = 0; j < Y->n; j++)
	{
		int			i = Y->dim[j];
		Bitmapset  *pos = tapas_domain_dim_positions(d, i, &cls, 1);

		side->own.dim[j] = i;
		side->own.vals[j] = tapas_domain_dim_values(d, i, pos, &side->own.nv[j]);
		side->gown[j] = palloc(sizeof(int) * side->own.nv[j]);
		side->map[j] = palloc(sizeof(int) * Y->nv[j]);
		side->ngroups[j] = side_groups(d, i, pos, side->own.vals[j], side->own.nv[j], side->gown[j]);
		(void) side_groups(d, i, pos, Y->vals[j], Y->nv[j], side->map[j]);
		side->size = Min(side->size * side->ngroups[j], PAIR_MAX_EVALS + 1);
		side->own.size = Min(side->own.size * side->own.nv[j], PAIR_MAX_EVALS + 1);
		side->own.n++;
	}
	return side->own.size;
}

/*
 * side's any and all at every point of its groups' grid, over the own
 * values in the group (a summed column's several) and its other
 * dimensions rest: a(., y) of the header for every y in the group.
 */
static void
side_scan(StarEval *e, const DimSet *rest, int *x, PairSide *side)
{
	int		   *digit = palloc0(sizeof(int) * Max(side->own.n, 1));

	side->any = palloc0(sizeof(bool) * side->size);
	side->all = palloc(sizeof(bool) * side->size);
	memset(side->all, true, sizeof(bool) * side->size);
	for (int64 l = 0; l < side->own.size; l++)
	{
		int64		g = 0;
		bool		any,
					all;

		for (int j = side->own.n - 1; j >= 0; j--)
			g = g * side->ngroups[j] + side->gown[j][digit[j]];
		dimset_point(&side->own, l, x);
		scan_own(e, rest, x, &any, &all);
		dimset_point(rest, 0, x);
		side->any[g] |= any;
		side->all[g] &= all;
		for (int j = 0; j < side->own.n && ++digit[j] == side->own.nv[j]; j++)
			digit[j] = 0;
	}
}

/* the index in side's groups' grid of the pair's point digit[] (mixed radix, Y's first dimension fastest) */
static int64
side_index(const PairSide *side, const int *digit)
{
	int64		l = 0;

	for (int j = side->own.n - 1; j >= 0; j--)
		l = l * side->ngroups[j] + side->map[j][digit[j]];
	return l;
}

static StarEval
pair_eval_begin(Domain *d, Star *s, Node *tree, TupleTableSlot *slot)
{
	StarEval	e;

	memset(&e, 0, sizeof(e));
	e.d = d;
	e.s = s;
	e.slot = slot;
	tapas_star_eval_begin(&e, tree);
	return e;
}

/*
 * The DOMAIN_LINK_* of class a (tree ta) with class b (tb), both of one
 * sliced component of s; 0 when the pair's grid is too large.
 */
uint8
tapas_domain_pair_links(Domain *d, Star *s, Node *ta, int a, Node *tb, int b)
{
	DimSet		Y,
				U,
				W;
	PairSide	sa,
				sb;
	int			ab[2] = {a, b};
	int			i = -1;
	int		   *x = palloc0(sizeof(int) * Max(s->ndims, 1));
	int		   *digit;
	TupleTableSlot *slot;
	StarEval	ea,
				eb;
	bool		inside = true,
				contains = true,
				meet = false;
	Bitmapset  *all = bms_union(s->dims[a], s->dims[b]);

	dimset_init(&Y, s->ndims);
	dimset_init(&U, s->ndims);
	dimset_init(&W, s->ndims);
	while ((i = bms_next_member(all, i)) >= 0)
	{
		bool		in_a = bms_is_member(i, s->dims[a]),
					in_b = bms_is_member(i, s->dims[b]);

		if (in_a && in_b)
			dimset_add(d, &Y, i, ab, 2);
		else if (in_a)
			dimset_add(d, &U, i, &ab[0], 1);
		else
			dimset_add(d, &W, i, &ab[1], 1);
	}
	if (Y.size > PAIR_MAX_EVALS ||
		side_project(d, &Y, a, &sa) * U.size + side_project(d, &Y, b, &sb) * W.size > PAIR_MAX_EVALS)
	{
		elog(DEBUG1, "tapas: the links of two classes of table \"%s\" come from its records (their grid has too many points)",
			 RelationGetRelationName(d->rel));
		return 0;
	}
	slot = MakeSingleTupleTableSlot(RelationGetDescr(d->rel), &TTSOpsVirtual);
	ea = pair_eval_begin(d, s, ta, slot);
	eb = pair_eval_begin(d, s, tb, slot);
	side_scan(&ea, &U, x, &sa);
	side_scan(&eb, &W, x, &sb);
	tapas_star_eval_end(&ea);
	tapas_star_eval_end(&eb);
	ExecDropSingleTupleTableSlot(slot);
	/* the pair's points, in mixed radix */
	digit = palloc0(sizeof(int) * Max(Y.n, 1));
	for (int64 y = 0; y < Y.size; y++)
	{
		int64		la = side_index(&sa, digit),
					lb = side_index(&sb, digit);

		inside &= !sa.any[la] || sb.all[lb];
		contains &= !sb.any[lb] || sa.all[la];
		meet |= sa.any[la] && sb.any[lb];
		for (int j = 0; j < Y.n && ++digit[j] == Y.nv[j]; j++)
			digit[j] = 0;
	}
	return DOMAIN_LINK_KNOWN | (inside ? DOMAIN_LINK_INSIDE : 0) |
		(contains ? DOMAIN_LINK_CONTAINS : 0) | (meet ? DOMAIN_LINK_MEET : 0);
}
