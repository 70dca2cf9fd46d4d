/*-------------------------------------------------------------------------
 *
 * leakproof.c
 *	  Refusals of expressions over protected columns that could leak single
 *	  rows through their errors, and the column-reference test they use.
 *
 * Like validate.c, this file only checks and raises; nothing rewrites.
 * Every expression that touches a column of a protected table p in WHERE,
 * FILTER, an aggregate argument or a grouping key (also inside a
 * correlated sub-query, whose other expressions do not matter) must use
 * only leakproof functions and operators, comparison operators of
 * built-in btree operator classes, widening casts, boolean logic, CASE and
 * NULL tests: otherwise its errors (1/(x-5)) would reveal single rows.
 * Sub-expressions that touch no column of p are not checked
 * (tapas_expr_refs decides, per sub-query depth).  A refusal is
 * insufficient_privilege; an expression kind not handled at all is
 * feature_not_supported.
 *
 * IDENTIFICATION
 *	  src/capture/leakproof.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

typedef struct RefsContext
{
	int			varno;			/* range-table index of p at the top level */
	int			depth;			/* current sub-query depth */
	const Bitmapset *attnos;	/* columns that count, or NULL for any */
} RefsContext;

typedef struct LeakContext
{
	int			varno;
	int			depth;
	Oid			relid;
	const char *what;			/* "WHERE", "an aggregate argument", ... */
} LeakContext;

static bool refs_walker(Node *node, RefsContext *ctx);
static bool leak_walker(Node *node, LeakContext *ctx);

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

/* ----------------------------------------------------------------
 *		Leakproof expressions
 * ----------------------------------------------------------------
 */

/* widening casts between pg_catalog numeric types cannot fail */
static bool
safe_cast(FuncExpr *f)
{
	Oid			from;
	Oid			to = f->funcresulttype;

	if (f->funcformat == COERCE_EXPLICIT_CALL || list_length(f->args) != 1 ||
		get_func_namespace(f->funcid) != PG_CATALOG_NAMESPACE)
		return false;
	from = exprType(linitial(f->args));
	switch (from)
	{
		case BOOLOID:
			return to == INT4OID;
		case INT2OID:
			return to == INT4OID || to == INT8OID || to == FLOAT4OID ||
				to == FLOAT8OID || to == NUMERICOID;
		case INT4OID:
			return to == INT8OID || to == FLOAT4OID || to == FLOAT8OID || to == NUMERICOID;
		case INT8OID:
			return to == FLOAT4OID || to == FLOAT8OID || to == NUMERICOID;
		case FLOAT4OID:
			return to == FLOAT8OID;
		default:
			return false;
	}
}

/*
 * Comparison operators of PostgreSQL's own btree operator classes (e.g.
 * numeric's <, =, >) cannot fail on any input even where pg_proc does not
 * mark them leakproof.
 */
static bool
safe_comparison(Oid opno)
{
	HeapTuple	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	bool		builtin;

	if (!HeapTupleIsValid(tup))
		return false;
	builtin = ((Form_pg_operator) GETSTRUCT(tup))->oprnamespace == PG_CATALOG_NAMESPACE;
	ReleaseSysCache(tup);
	return builtin && get_op_btree_interpretation(opno) != NIL;
}

static pg_attribute_noreturn() void
refuse_leaky(LeakContext *ctx, const char *kind, const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s %s is not leakproof and cannot be applied to columns of protected table \"%s\"",
					kind, name, get_rel_name(ctx->relid)),
			 errdetail("It appears in %s; its errors could reveal values of single rows.", ctx->what),
			 errhint("On protected columns use only leakproof operators and functions, widening casts such as hiv::int, CASE and boolean logic.")));
	pg_unreachable();
}

static bool
leak_walker(Node *node, LeakContext *ctx)
{
	RefsContext rc;

	if (node == NULL)
		return false;
	rc.varno = ctx->varno;
	rc.depth = ctx->depth;
	rc.attnos = NULL;
	if (!refs_walker(node, &rc))
		return false;			/* touches no column of p: harmless here */

	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_CaseTestExpr:
			return false;
		case T_Aggref:
		case T_GroupingFunc:
			if (ctx->depth == 0)
				return false;	/* this level's aggregates are checked on their own */
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			if (!get_func_leakproof(((OpExpr *) node)->opfuncid) &&
				!safe_comparison(((OpExpr *) node)->opno))
				refuse_leaky(ctx, "operator", get_opname(((OpExpr *) node)->opno));
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			if (!get_func_leakproof(((ScalarArrayOpExpr *) node)->opfuncid) &&
				!safe_comparison(((ScalarArrayOpExpr *) node)->opno))
				refuse_leaky(ctx, "operator", get_opname(((ScalarArrayOpExpr *) node)->opno));
			break;
		case T_FuncExpr:
			if (!get_func_leakproof(((FuncExpr *) node)->funcid) &&
				!safe_cast((FuncExpr *) node))
				refuse_leaky(ctx, "function", get_func_name(((FuncExpr *) node)->funcid));
			break;
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_ArrayExpr:
		case T_List:
			break;
		case T_Query:
			{
				bool		r;

				/* a correlated sub-query: check what it does with p's columns */
				ctx->depth++;
				r = query_tree_walker((Query *) node, leak_walker, ctx, 0);
				ctx->depth--;
				return r;
			}
		case T_SubLink:
		case T_FromExpr:
		case T_JoinExpr:
		case T_TargetEntry:
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("this kind of expression cannot be applied to columns of protected table \"%s\"",
							get_rel_name(ctx->relid)),
					 errdetail("It appears in %s.", ctx->what),
					 errhint("Use columns, constants, leakproof operators and functions, widening casts, CASE and boolean logic.")));
	}
	return expression_tree_walker(node, leak_walker, ctx);
}

/*
 * Raises unless every sub-expression of expr that touches a column of
 * range-table entry varno (p, table relid) is leakproof.  "what" says where
 * expr comes from, for the message.
 */
void
tapas_verify_leakproof(Node *expr, int varno, int depth, const char *what, Oid relid)
{
	LeakContext ctx;

	ctx.varno = varno;
	ctx.depth = depth;
	ctx.relid = relid;
	ctx.what = what;
	(void) leak_walker(expr, &ctx);
}
