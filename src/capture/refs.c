/*-------------------------------------------------------------------------
 *
 * refs.c
 *	  The column-reference test: does an expression read a column of a
 *	  given range-table entry (of its own level, also from sub-queries)?
 *
 * normalise.c uses it to split conditions into sensitive and
 * non-sensitive ones.  What an expression may compute is decided
 * elsewhere (allowlist.c), for every node whether or not it reads a
 * column.
 *
 * IDENTIFICATION
 *	  src/capture/refs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"

#include "capture/capture.h"

typedef struct RefsContext
{
	int			varno;			/* range-table index of p at the top level */
	int			depth;			/* current sub-query depth */
	const Bitmapset *attnos;	/* columns that count, or NULL for any */
} RefsContext;

static bool refs_walker(Node *node, RefsContext *ctx);

/* ----------------------------------------------------------------
 *		Column references
 * ----------------------------------------------------------------
 */

static bool
refs_walker(Node *node, RefsContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		return v->varno == ctx->varno && v->varlevelsup == ctx->depth &&
			(ctx->attnos == NULL || v->varattno <= 0 ||
			 bms_is_member(v->varattno, ctx->attnos));
	}
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == ctx->depth)
		return false;			/* an aggregate's value, not a row's column */
	if (IsA(node, Query))
	{
		bool		r;

		ctx->depth++;
		r = query_tree_walker((Query *) node, refs_walker, ctx, 0);
		ctx->depth--;
		return r;
	}
	return expression_tree_walker(node, refs_walker, ctx);
}

/*
 * true when node references a column of range-table entry varno of the
 * level it belongs to (also from inside sub-queries), outside aggregates of
 * that level; attnos restricts to those columns (a whole-row reference
 * counts as all of them).
 */
bool
tapas_expr_refs(Node *node, int varno, const Bitmapset *attnos)
{
	RefsContext ctx;

	ctx.varno = varno;
	ctx.depth = 0;
	ctx.attnos = attnos;
	return refs_walker(node, &ctx);
}
