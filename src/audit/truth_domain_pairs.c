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
 * each dimension taking one value per group that a's and b's atoms tell
 * apart (tapas_domain_dim_values): |Y| (|U| + |W|) evaluations, not the
 * product |Y| |U| |W|.  Above PAIR_MAX_EVALS the links are not known and
 * the caller takes the records' (truth_identity.c).
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
 * The DOMAIN_LINK_* of class a (tree ta) with class b (tb), both of one
 * sliced component of s; 0 when the pair's grid is too large.
 */
uint8
tapas_domain_pair_links(Domain *d, Star *s, Node *ta, int a, Node *tb, int b)
{
	DimSet		Y,
				U,
				W;
	int			ab[2] = {a, b};
	int			i = -1;
	int		   *x = palloc0(sizeof(int) * Max(s->ndims, 1));
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
	if (Y.size * (U.size + W.size) > PAIR_MAX_EVALS)
		return 0;
	memset(&ea, 0, sizeof(ea));
	ea.d = d;
	ea.s = s;
	ea.slot = MakeSingleTupleTableSlot(RelationGetDescr(d->rel), &TTSOpsVirtual);
	eb = ea;
	tapas_star_eval_begin(&ea, ta);
	tapas_star_eval_begin(&eb, tb);
	for (int64 y = 0; y < Y.size; y++)
	{
		bool		a_any,
					a_all,
					b_any,
					b_all;

		dimset_point(&Y, y, x);
		scan_own(&ea, &U, x, &a_any, &a_all);
		dimset_point(&U, 0, x);
		scan_own(&eb, &W, x, &b_any, &b_all);
		dimset_point(&W, 0, x);
		inside &= !a_any || b_all;
		contains &= !b_any || a_all;
		meet |= a_any && b_any;
	}
	tapas_star_eval_end(&ea);
	tapas_star_eval_end(&eb);
	ExecDropSingleTupleTableSlot(ea.slot);
	return DOMAIN_LINK_KNOWN | (inside ? DOMAIN_LINK_INSIDE : 0) |
		(contains ? DOMAIN_LINK_CONTAINS : 0) | (meet ? DOMAIN_LINK_MEET : 0);
}
