/*-------------------------------------------------------------------------
 *
 * truth_domain_star.c
 *	  The classes' values on the domain grid, laid out as a star over the
 *	  grid's independent components rather than as the full product.
 *
 * Components.  A dimension of the grid is a column with representatives
 * or an opaque atom (truth_domain.c).  A class reads some dimensions; two
 * dimensions read by one class are in one component (union-find), so
 * every class is a function of the dimensions of one component (or of
 * none: a constant).  The full grid is the product of the components'
 * grids.
 *
 * The star.  Fix a base point b (every dimension at its first value) and
 * take b plus, for each component C, the points that vary C's dimensions
 * over C's grid and leave the others at b: 1 + sum_C (|C| - 1) points
 * instead of prod_C |C|.  Linear relations are exact on it: a relation
 * sum_C F_C(x_C) = 0 (each F_C a combination of C's classes, the constant
 * ONE in any of them) holds on the product iff on the star, because on
 * the star it reads F_C(x_C) + sum_{D != C} F_D(b_D) = 0 for every x_C,
 * so every F_C is constant and their sum is 0 at b.  Identity, complement
 * and affine images (truth_identity.c), the kernel of relations.c and the
 * 0/1 shape are all linear, so they are decided exactly.  Supports of two
 * classes of different components are not: on the product, a inside b iff
 * a is empty or b has no zero, and they meet iff both are nonempty and
 * neither is inside the other; truth_identity.c decides those pairs by
 * these rules and TapasDomainVector.comp.
 *
 * Why: the product is what an analyst inflates.  An IN list of 1,501
 * incomes gave income 1,501 cells and every class of the table fell back
 * to its truth over the table, where a coincidence of two other columns
 * (the hiv patients are the rare ones) is one unknown and a refusal tells
 * it (issue 11, item 5).  Now only income's component would: a component
 * whose grid is above DOMAIN_MAX_POINTS is laid out in slices instead
 * (truth_domain_slices.c), and one falls back only when a column has no
 * representatives (truth_domain_reps.c) or its slices are too many too;
 * and while the star is above DOMAIN_MAX_POINTS, its largest component.
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_star.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "access/sysattr.h"

#include "audit/audit_int.h"
#include "audit/truth_domain_int.h"

/* the dimensions a class reads: its columns' Vars and its opaque atoms' Params */
typedef struct DimsCtx
{
	Domain	   *d;
	Bitmapset  *dims;
} DimsCtx;

static bool
dims_walker(Node *node, DimsCtx *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == 1 && ((Var *) node)->varattno > 0)
	{
		ListCell   *lc;

		foreach(lc, ctx->d->cols)
			if (((DomCol *) lfirst(lc))->attno == ((Var *) node)->varattno)
				ctx->dims = bms_add_member(ctx->dims, foreach_current_index(lc));
		return false;
	}
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)
	{
		ctx->dims = bms_add_member(ctx->dims, list_length(ctx->d->cols) + ((Param *) node)->paramid - 1);
		return false;
	}
	return expression_tree_walker(node, dims_walker, ctx);
}

static int
find_root(int *parent, int x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

/*
 * The components of the dimensions the classes read (trees[k], with the
 * opaque atoms as Params), each class's in comp_of[k] (-1: reads none).
 */
static void
star_components(Domain *d, Star *s, Node **trees, int n, int *comp_of)
{
	int		   *parent = palloc(sizeof(int) * Max(s->ndims, 1));
	int		   *dense = palloc(sizeof(int) * Max(s->ndims, 1));
	Bitmapset **dims = palloc(sizeof(Bitmapset *) * Max(n, 1));

	for (int i = 0; i < s->ndims; i++)
		parent[i] = i, dense[i] = -1;
	for (int k = 0; k < n; k++)
	{
		DimsCtx		ctx = {d, NULL};
		int			first = -1,
					i = -1;

		(void) dims_walker(trees[k], &ctx);
		dims[k] = s->dims[k] = ctx.dims;
		while ((i = bms_next_member(ctx.dims, i)) >= 0)
		{
			if (first < 0)
				first = i;
			else
				parent[find_root(parent, i)] = find_root(parent, first);
		}
	}
	s->ncomp = 0;
	s->comp = palloc(sizeof(int) * Max(s->ndims, 1));
	for (int i = 0; i < s->ndims; i++)
	{
		int			r = find_root(parent, i);

		if (dense[r] < 0)
			dense[r] = s->ncomp++;
		s->comp[i] = dense[r];
	}
	for (int k = 0; k < n; k++)
	{
		int			i = bms_next_member(dims[k], -1);

		comp_of[k] = i < 0 ? -1 : s->comp[i];
	}
}

/*
 * Lays out the star: a component with a failed column is left out; one
 * above DOMAIN_MAX_POINTS points is laid out in slices
 * (truth_domain_slices.c), or left out when they are too many too; then
 * the largest until the star has DOMAIN_MAX_POINTS points or fewer.
 */
static void
star_layout(Domain *d, Star *s)
{
	int64		total = 1;
	bool	   *failed = palloc0(sizeof(bool) * Max(s->ncomp, 1));

	s->cpoints = palloc(sizeof(int64) * Max(s->ncomp, 1));
	s->cstart = palloc(sizeof(int64) * Max(s->ncomp, 1));
	s->slices = palloc0(sizeof(DomSlices *) * Max(s->ncomp, 1));
	for (int c = 0; c < s->ncomp; c++)
		s->cpoints[c] = 1;
	for (int i = 0; i < s->ndims; i++)
	{
		int			c = s->comp[i];

		if (s->size[i] <= 0)
			failed[c] = true;
		else if (s->cpoints[c] > 0)
		{
			s->cpoints[c] *= s->size[i];
			if (s->cpoints[c] > DOMAIN_MAX_POINTS)
				s->cpoints[c] = -1;
		}
	}
	for (int c = 0; c < s->ncomp; c++)
	{
		if (failed[c])
			s->cpoints[c] = -1;
		else if (s->cpoints[c] < 0)
		{
			int64		sliced = tapas_domain_slices_layout(d, s, c, DOMAIN_MAX_POINTS - 1);

			s->cpoints[c] = sliced < 0 ? -1 : sliced + 1;
		}
		if (s->cpoints[c] > 0)
			total += s->cpoints[c] - 1;
	}
	while (total > DOMAIN_MAX_POINTS)
	{
		int			big = 0;

		for (int c = 1; c < s->ncomp; c++)
			if (s->cpoints[c] > s->cpoints[big])
				big = c;
		total -= s->cpoints[big] - 1;
		s->cpoints[big] = -1;
	}
	s->npoints = 1;
	for (int c = 0; c < s->ncomp; c++)
	{
		s->cstart[c] = s->cpoints[c] > 0 ? s->npoints : -1;
		if (s->cpoints[c] > 0)
			s->npoints += s->cpoints[c] - 1;
		else
			elog(DEBUG1, "tapas: no domain grid for a component of table \"%s\" (its classes are off the grid)",
				 RelationGetRelationName(d->rel));
	}
}

/* sets dimension i of the point to its value v */
static void
set_dim(StarEval *e, int i, int v)
{
	int			ncols = list_length(e->d->cols);

	if (i < ncols)
	{
		DomCol	   *c = list_nth(e->d->cols, i);

		if (c->failed)
			return;
		e->slot->tts_values[c->attno - 1] = c->reps[v];
		e->slot->tts_isnull[c->attno - 1] = c->rnull[v];
	}
	else
	{
		ParamExternData *p = &e->params->params[i - ncols];

		p->ptype = BOOLOID;
		p->pflags = PARAM_FLAG_CONST;
		p->value = BoolGetDatum(v == 0);
		p->isnull = v == 2;
	}
}

/* the class's value at the point x ([ndims] values, truth_domain_int.h) */
double
tapas_star_eval_point(StarEval *e, const int *x)
{
	TupleDesc	desc = e->slot->tts_tupleDescriptor;
	bool		isnull;
	Datum		r;
	double		v;

	if ((++e->nevals & 1023) == 0)
		CHECK_FOR_INTERRUPTS();
	ExecClearTuple(e->slot);
	for (int a = 0; a < desc->natts; a++)
	{
		e->slot->tts_values[a] = (Datum) 0;
		e->slot->tts_isnull[a] = true;
	}
	for (int i = 0; i < e->s->ndims; i++)
		if (e->s->size[i] > 0)
			set_dim(e, i, x[i]);
	ExecStoreVirtualTuple(e->slot);
	e->econtext->ecxt_scantuple = e->slot;
	r = ExecEvalExprSwitchContext(e->es, e->econtext, &isnull);
	v = isnull ? 0.0 : DatumGetFloat8(r);
	ResetExprContext(e->econtext);
	if (!isfinite(v))
		ereport(ERROR, (errmsg("a class's value is not finite on the domain grid")));
	return v;
}

/*
 * The class's value at the point whose component c has local index l (0
 * is the base; a full product's are mixed radix over its dimensions, a
 * sliced one's truth_domain_slices.c's) and every other dimension at the
 * base; x is scratch of ndims.
 */
static double
eval_at(StarEval *e, int *x, int c, int64 l)
{
	Star	   *s = e->s;

	memset(x, 0, sizeof(int) * Max(s->ndims, 1));
	if (c >= 0 && l > 0 && s->slices[c] != NULL)
		tapas_domain_slice_point(s, c, l, x);
	else if (c >= 0)
	{
		for (int i = 0; i < s->ndims; i++)
			if (s->comp[i] == c)
			{
				x[i] = (int) (l % s->size[i]);
				l /= s->size[i];
			}
	}
	return tapas_star_eval_point(e, x);
}

static void
emit(TapasDomainVector *out, int64 *cap, int64 p, double v)
{
	if (v == 0.0)
		return;
	if (out->nnz == *cap)
	{
		*cap *= 2;
		out->keys = repalloc(out->keys, sizeof(int64) * *cap);
		out->vals = repalloc(out->vals, sizeof(double) * *cap);
	}
	out->keys[out->nnz] = p;
	out->vals[out->nnz++] = v;
}

/* the class of tree (component c) on the star, in *out, keys ascending */
static void
star_vector(StarEval *e, int c, TapasDomainVector *out)
{
	Star	   *s = e->s;
	int64		cap = 64;
	int		   *x = palloc(sizeof(int) * Max(s->ndims, 1));
	double		base = eval_at(e, x, c, 0);

	out->exact = true;
	out->comp = c;
	out->npoints = s->npoints;
	out->nnz = 0;
	out->keys = palloc(sizeof(int64) * cap);
	out->vals = palloc(sizeof(double) * cap);
	emit(out, &cap, 0, base);
	for (int k = 0; k < s->ncomp; k++)
	{
		if (s->cstart[k] < 0)
			continue;
		for (int64 l = 1; l < s->cpoints[k]; l++)
			emit(out, &cap, s->cstart[k] + l - 1, k == c ? eval_at(e, x, c, l) : base);
	}
	out->sliced = c >= 0 && s->slices[c] != NULL;
	pfree(x);
}

/* prepares e to evaluate tree (its opaque atoms as Params) */
void
tapas_star_eval_begin(StarEval *e, Node *tree)
{
	e->estate = CreateExecutorState();
	e->params = makeParamList(list_length(e->d->opaque));
	e->params->numParams = list_length(e->d->opaque);
	e->estate->es_param_list_info = e->params;
	e->econtext = GetPerTupleExprContext(e->estate);
	e->es = ExecPrepareExpr((Expr *) tree, e->estate);
}

void
tapas_star_eval_end(StarEval *e)
{
	FreeExecutorState(e->estate);
	e->estate = NULL;
}

/*
 * The links of the last class with every other class of its component
 * when that is sliced (truth_domain_pairs.c), in its links.
 */
static void
star_links(Domain *d, Star *s, Node **trees, int n, const int *comp_of, TapasDomainVector *out)
{
	TapasDomainVector *last = &out[n - 1];

	last->links = palloc0(sizeof(uint8) * Max(n, 1));
	if (!last->exact || !last->sliced)
		return;
	for (int k = 0; k < n - 1; k++)
		if (out[k].exact && comp_of[k] == comp_of[n - 1])
			last->links[k] = tapas_domain_pair_links(d, s, trees[n - 1], n - 1, trees[k], k);
}


/*
 * The domain vectors of n classes on the star of d (whose representatives
 * are read), in out[n], from their trees with the opaque atoms as Params;
 * a class of a component left out is inexact.
 */
void
tapas_domain_star_vectors(Domain *d, Node **trees, int n, bool links, TapasDomainVector *out)
{
	Star		s;
	int		   *comp_of = palloc(sizeof(int) * Max(n, 1));
	int			ncols = list_length(d->cols);
	ListCell   *lc;
	StarEval	e;

	memset(&s, 0, sizeof(s));
	s.ndims = ncols + list_length(d->opaque);
	s.size = palloc(sizeof(int) * Max(s.ndims, 1));
	s.dims = palloc0(sizeof(Bitmapset *) * Max(n, 1));
	foreach(lc, d->cols)
	{
		DomCol	   *c = lfirst(lc);

		s.size[foreach_current_index(lc)] = c->failed ? 0 : c->nreps;
	}
	foreach(lc, d->opaque_dom)
		s.size[ncols + foreach_current_index(lc)] = lfirst_int(lc);
	star_components(d, &s, trees, n, comp_of);
	star_layout(d, &s);
	memset(&e, 0, sizeof(e));
	e.d = d;
	e.s = &s;
	e.slot = MakeSingleTupleTableSlot(RelationGetDescr(d->rel), &TTSOpsVirtual);
	for (int k = 0; k < n; k++)
	{
		out[k].exact = false;
		out[k].comp = comp_of[k];
		if (comp_of[k] >= 0 && s.cstart[comp_of[k]] < 0)
			continue;			/* its component is left out: the callers' fallback */
		tapas_star_eval_begin(&e, trees[k]);
		star_vector(&e, comp_of[k], &out[k]);
		tapas_star_eval_end(&e);
	}
	if (links && n > 0)
		star_links(d, &s, trees, n, comp_of, out);
	ExecDropSingleTupleTableSlot(e.slot);
}
