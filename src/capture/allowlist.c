/*-------------------------------------------------------------------------
 *
 * allowlist.c
 *	  The closed expression language of audited queries: every node of
 *	  every expression evaluated per row of a protected table must come
 *	  from an explicit allow-list.
 *
 * Why every node, not only those that read a column: evaluation itself
 * depends on the row.  In sum(CASE WHEN rare AND age = 91 THEN f() ELSE 0
 * END), f() reads nothing, yet it runs only when the target row exists; an
 * error, a NOTICE, a delay, a sequence step, a lock, a setting or a write
 * made by f() then reveals that row.  So, per row (WHERE, JOIN ... ON,
 * FILTER, aggregate arguments, GROUP BY keys), only these are allowed:
 *	- Vars, Consts, Params, CASE, COALESCE, NULLIF, GREATEST/LEAST, boolean
 *	  logic, IS [NOT] NULL, IS [NOT] TRUE/FALSE/UNKNOWN, IN lists (ARRAY of
 *	  values), ROW(...) and row comparisons, COLLATE, field selection,
 *	  current_date and the other SQL value functions;
 *	- built-in functions and operators (OID below FirstNormalObjectId, the
 *	  ones initdb created) that are non-volatile and either marked
 *	  leakproof, or comparison operators of built-in btree operator
 *	  classes, or widening numeric casts, or in the curated list of
 *	  curated.c (date_trunc, extract, to_char, lower, substr, round ...
 *	  with valid constant arguments);
 *	- casts to text through the output function of a built-in type;
 *	- tapas.design_member with constant design arguments (its record
 *	  argument never raises; a bad constant raises for every row alike);
 *	- integer, float, numeric, date and interval arithmetic, narrowing
 *	  numeric casts and text concatenation over non-sensitive columns of
 *	  the table only: evaluated on every row of the table before the query
 *	  (prevalidate.c), so whether they raise depends on no row the query
 *	  selects;
 *	- in expressions evaluated for every row the scan reads (non-sensitive
 *	  WHERE conjuncts, JOIN ... ON): parameters as those constant
 *	  arguments, and EXISTS, IN, ANY and ALL sub-queries whose every
 *	  expression is itself in this language (validate.c refuses those that
 *	  read a protected table).
 * User-defined functions, operators, casts, domains and types are never
 * allowed, even when a superuser marked them LEAKPROOF: LEAKPROOF promises
 * no leak through errors about the arguments, not the absence of side
 * effects or delays, and tapas cannot check a body it does not own.
 * Volatile functions are never allowed per row.  Scalar (and ARRAY)
 * sub-queries are refused per row: "more than one row returned" is an
 * error, and the planner runs an initplan lazily, when the first row
 * needs it.
 *
 * Row-independent sub-expressions (no column, no parameter, no
 * sub-query) made only of immutable built-in functions are evaluated once
 * at planning time, before anything is read (tapas_allowlist_fold_query):
 * 10 * 2 becomes 20, and 1/0 raises "division by zero" for every table
 * content alike.  In expressions evaluated for every row the scan reads
 * (non-sensitive WHERE conjuncts, JOIN ... ON), row-independent
 * sub-expressions of built-in non-volatile functions over constants and
 * parameters are allowed as they are: they run for every row, so whether
 * they raise depends on no sensitive value.  Elsewhere (FILTER, CASE
 * branches in aggregate arguments, GROUP BY), other row-independent
 * sub-expressions outside the list (pg_sleep(1), nextval('s'),
 * set_config(...), current_setting('x')::int, mal.boom(), $1 + 1) are
 * refused: a stable function or a parameter cannot be folded into a
 * cached plan, and an initplan would still run lazily, when the first row
 * that needs it comes; volatile and user functions are refused
 * everywhere.
 *
 * Expressions evaluated per group above the gate (the target list outside
 * aggregates, HAVING, ORDER BY) are not restricted: the gate logs every
 * cell and checks k before any of them runs (plan.c).
 *
 * A refusal names the function or operator and where it appears:
 * insufficient_privilege, with a hint.
 *
 * IDENTIFICATION
 *	  src/capture/allowlist.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_cast.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "capture/capture.h"

/*
 * Cost is row-independent by construction (the timing channel): what a
 * row that reaches a CASE branch, a FILTER or an aggregate argument costs
 * must not stand out, or a delay singles it out (sum(CASE WHEN rare THEN
 * length(repeat('x', 200000000)) ELSE 0 END) costs a second for the
 * target row alone).  So:
 *	1. every row-independent sub-expression of immutable built-ins is
 *	   evaluated once, before the scan (tapas_allowlist_fold_query), and a
 *	   folded value above 64 kB refuses the query (fold.c): size is
 *	   what makes a constant expensive per row (repeat, lpad, rpad and
 *	   array_fill are checked before they run, so the query is refused
 *	   without building the value);
 *	2. what is left per row is a bounded expression over the row's own
 *	   values: at most ALLOW_MAX_NODES nodes, constants of at most
 *	   ALLOW_MAX_SCALAR bytes (bpchar and collated text comparisons copy
 *	   or scan a constant per call), IN lists of at most ALLOW_MAX_ARRAY
 *	   bytes (hashed when the first row needs them), and the constant
 *	   arguments of curated functions within their declared cost bounds
 *	   (curated.c: to_char formats and LIKE patterns of ALLOW_MAX_ARG
 *	   bytes, numeric scales and divisors);
 *	3. functions whose cost grows with an argument's value (repeat, lpad,
 *	   rpad, regexp, power, factorial, generate_series ...) are not
 *	   leakproof and not curated: per row they are refused.
 * A row then costs what its own (quasi-identifier) values cost in a
 * bounded expression, microseconds.  Expressions evaluated for every row
 * the scan reads (non-sensitive WHERE conjuncts, JOIN ... ON) cost the
 * same whatever the sensitive values and are only bounded by the fold.
 */
#define ALLOW_MAX_NODES		2000	/* nodes of one expression */
#define ALLOW_MAX_ARG		1024	/* bytes of a constant argument of a curated function */
#define ALLOW_MAX_ARRAY		8192	/* bytes of an array constant (IN list) */
#define ALLOW_MAX_SCALAR	8192	/* bytes of any other constant per row */

typedef struct AllowContext
{
	const char *what;			/* "WHERE", "the argument of sum", ... */
	Oid			relid;			/* the protected table, for messages */
	int			varno;			/* its range-table index here (0: unknown) */
	Node	   *qi_root;		/* the largest enclosing sub-expression over
								 * non-sensitive columns only (prevalidate.c) */
	bool		every_row;		/* evaluated for every row the scan reads */
	int			nodes;			/* nodes seen so far */
} AllowContext;

static bool allow_walker(Node *node, AllowContext *ctx);
static void check_size(Node *node, AllowContext *ctx, bool curated_arg);

/* ----------------------------------------------------------------
 *		Refusals
 * ----------------------------------------------------------------
 */

static pg_attribute_noreturn() void
refuse(AllowContext *ctx, const char *kind, const char *name, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s %s is not allowed in %s of a query on protected table \"%s\"",
					kind, name, ctx->what, get_rel_name(ctx->relid)),
			 errdetail("%s Per row of a protected table, an error, a delay or a side effect reveals that the row exists.",
					   why),
			 errhint("Per row, use columns, constants, CASE, boolean logic, comparisons, leakproof built-in functions and the date, text and rounding functions tapas allows with constant arguments; compute anything else from an aggregate's result.")));
	pg_unreachable();
}

static pg_attribute_noreturn() void
refuse_node(AllowContext *ctx, Node *node)
{
	const char *kind;

	switch (nodeTag(node))
	{
		case T_SubLink:
			kind = "this sub-query";
			break;
		case T_CoerceToDomain:
			kind = "a cast to a domain";
			break;
		case T_CoerceViaIO:
			kind = "this cast";
			break;
		case T_NextValueExpr:
			kind = "a sequence";
			break;
		case T_SubscriptingRef:
			kind = "array subscripting";
			break;
		default:
			kind = "this kind of expression";
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s is not allowed in %s of a query on protected table \"%s\"",
					kind, ctx->what, get_rel_name(ctx->relid)),
			 errdetail("Per row of a protected table, only an allow-listed expression language is evaluated."),
			 errhint("Per row, use columns, constants, CASE, boolean logic, comparisons, leakproof built-in functions and the date, text and rounding functions tapas allows with constant arguments; EXISTS and IN sub-queries only in WHERE.")));
	pg_unreachable();
}

/* ----------------------------------------------------------------
 *		Functions and operators
 * ----------------------------------------------------------------
 */

/*
 * Checks one call of funcid over args: raises unless allowed; walks the
 * arguments that are evaluated per row.  kind/name are for the message.
 */
static void
check_call(AllowContext *ctx, Node *call, Oid funcid, List *args, Oid inputcollid,
		   Oid opno, Oid resulttype)
{
	const char *kind = OidIsValid(opno) ? "operator" : "function";
	const char *name = OidIsValid(opno) ? get_opname(opno) : get_func_name(funcid);
	uint32		rowargs = ~(uint32) 0;
	ListCell   *lc;

	if (name == NULL)
		name = "?";
	if (func_volatile(funcid) == PROVOLATILE_VOLATILE)
		refuse(ctx, kind, name, "It is volatile.");
	if (funcid >= FirstNormalObjectId)
	{
		if (!tapas_allow_is_design_member(funcid))
			refuse(ctx, kind, name, "It is not a built-in function.");
		if (!tapas_allow_design_member_call(funcid, args, ctx->every_row, &rowargs))
			refuse(ctx, kind, name, ctx->every_row ?
				   "Its arguments other than the record must be constants or parameters." :
				   "Here its arguments other than the record must be constants.");
	}
	else if (get_func_leakproof(funcid) ||
			 (OidIsValid(opno) && tapas_allow_builtin_comparison(opno)) ||
			 (!OidIsValid(opno) && list_length(args) == 1 &&
			  tapas_allow_widening_cast(funcid, exprType(linitial(args)), resulttype)))
		 /* allowed as is */ ;
	else if (!tapas_curated_call(funcid, args, inputcollid, ctx->every_row, &rowargs) &&
			 !tapas_prevalidate_admit(call, ctx->qi_root, funcid, ctx->varno, ctx->relid))
		refuse(ctx, kind, name, "It can raise an error on some inputs.");
	else if (tapas_curated_arithmetic(funcid) && ctx->qi_root == NULL &&
			 strcmp(ctx->what, "GROUP BY") == 0)
		refuse(ctx, kind, name,
			   "Grouping by arithmetic on a sensitive column would hide the values no row has.");

	foreach(lc, args)
	{
		if (rowargs & ((uint32) 1 << Min(foreach_current_index(lc), 31)))
			(void) allow_walker(lfirst(lc), ctx);
		else
			check_size(lfirst(lc), ctx, true);	/* a constant or parameter */
	}
}

/* ----------------------------------------------------------------
 *		The walker
 * ----------------------------------------------------------------
 */

/* aggregates allowed inside an EXISTS/IN sub-query: they cannot raise */
static bool
allowed_subquery_aggregate(Aggref *agg)
{
	char	   *name = get_func_name(agg->aggfnoid);

	return agg->aggfnoid < FirstNormalObjectId && name != NULL &&
		(strcmp(name, "count") == 0 || strcmp(name, "min") == 0 ||
		 strcmp(name, "max") == 0 || strcmp(name, "bool_and") == 0 ||
		 strcmp(name, "bool_or") == 0 || strcmp(name, "every") == 0);
}

/* a sub-query's Vars number another range table: nothing to prevalidate */
static bool
walk_subquery(Query *q, AllowContext *ctx)
{
	int			varno = ctx->varno;
	bool		r;

	ctx->varno = 0;
	r = query_tree_walker(q, allow_walker, ctx, 0);
	ctx->varno = varno;
	return r;
}

static bool
check_sublink(SubLink *sl, AllowContext *ctx)
{
	if (!ctx->every_row ||
		(sl->subLinkType != EXISTS_SUBLINK && sl->subLinkType != ANY_SUBLINK &&
		 sl->subLinkType != ALL_SUBLINK))
		refuse_node(ctx, (Node *) sl);
	/* its every expression runs while the protected rows are read */
	(void) allow_walker(sl->testexpr, ctx);
	return walk_subquery((Query *) sl->subselect, ctx);
}

/*
 * The size bounds above, for expressions evaluated only for some rows;
 * curated_arg: node is a constant argument of a curated function.
 */
static void
check_size(Node *node, AllowContext *ctx, bool curated_arg)
{
	Const	   *c = (Const *) node;
	int			limit;

	if (ctx->every_row)
		return;
	if (++ctx->nodes > ALLOW_MAX_NODES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("expression in %s of a query on protected table \"%s\" is too large",
						ctx->what, get_rel_name(ctx->relid)),
				 errdetail("At most %d nodes are allowed: its cost would tell the rows that evaluate it.",
						   ALLOW_MAX_NODES)));
	if (!IsA(node, Const) || c->constisnull || c->constlen != -1)
		return;
	limit = curated_arg ? ALLOW_MAX_ARG : type_is_array(c->consttype) ? ALLOW_MAX_ARRAY :
		ALLOW_MAX_SCALAR;
	if (VARSIZE_ANY(DatumGetPointer(c->constvalue)) > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("constant in %s of a query on protected table \"%s\" is too large",
						ctx->what, get_rel_name(ctx->relid)),
				 errdetail("At most %d bytes are allowed here: its cost would tell the rows that evaluate it.",
						   limit),
				 errhint("Move the condition to WHERE, or shorten the constant.")));
}

static bool allow_node(Node *node, AllowContext *ctx);

/*
 * The walker proper is allow_node; this keeps ctx->qi_root, so that a
 * call that can raise is checked before the scan within its largest
 * non-sensitive enclosing expression (CASE WHEN zip ~ '^[0-9]+$' THEN
 * zip::int END is checked whole, its guard included).
 */
static bool
allow_walker(Node *node, AllowContext *ctx)
{
	Node	   *root = ctx->qi_root;
	bool		r;

	if (node == NULL)
		return false;
	if (root == NULL && ctx->varno > 0 &&
		tapas_prevalidate_standalone(node, ctx->varno, ctx->relid))
		ctx->qi_root = node;
	r = allow_node(node, ctx);
	ctx->qi_root = root;
	return r;
}

static bool
allow_node(Node *node, AllowContext *ctx)
{
	if (node == NULL)
		return false;
	check_size(node, ctx, false);
	if (ctx->every_row && tapas_row_independent(node))
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_CaseTestExpr:
		case T_SQLValueFunction:
		case T_GroupingFunc:
		case T_RangeTblRef:
			return false;
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) node;

				if (f->funcretset)
					refuse(ctx, "set-returning function", get_func_name(f->funcid),
						   "It returns rows.");
				check_call(ctx, node, f->funcid, f->args, f->inputcollid, InvalidOid,
						   f->funcresulttype);
				return false;
			}
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			{
				OpExpr	   *op = (OpExpr *) node;

				set_opfuncid(op);
				check_call(ctx, node, op->opfuncid, op->args, op->inputcollid, op->opno,
						   op->opresulttype);
				return false;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *op = (ScalarArrayOpExpr *) node;

				set_sa_opfuncid(op);
				check_call(ctx, node, op->opfuncid, op->args, op->inputcollid, op->opno,
						   BOOLOID);
				return false;
			}
		case T_RowCompareExpr:
			{
				ListCell   *lc;

				foreach(lc, ((RowCompareExpr *) node)->opnos)
				{
					if (!tapas_allow_builtin_comparison(lfirst_oid(lc)))
						refuse(ctx, "operator", get_opname(lfirst_oid(lc)),
							   "It is not a built-in comparison.");
				}
				break;
			}
		case T_MinMaxExpr:
			if (((MinMaxExpr *) node)->minmaxtype >= FirstNormalObjectId)
				refuse_node(ctx, node);
			break;
		case T_CoerceViaIO:
			if (!tapas_allow_text_output_cast((CoerceViaIO *) node) &&
				!tapas_prevalidate_admit_cast(node, ctx->qi_root, ctx->varno, ctx->relid))
				refuse_node(ctx, node);
			break;
		case T_ArrayExpr:
			if (((ArrayExpr *) node)->multidims)
				refuse_node(ctx, node);
			break;
		case T_Aggref:
			/* only inside a sub-query: this level's are checked one by one */
			if (!allowed_subquery_aggregate((Aggref *) node))
				refuse(ctx, "aggregate function", get_func_name(((Aggref *) node)->aggfnoid),
					   "Inside a sub-query, only count, min, max, bool_and and bool_or are allowed.");
			break;
		case T_SubLink:
			return check_sublink((SubLink *) node, ctx);
		case T_Query:
			return walk_subquery((Query *) node, ctx);
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_ArrayCoerceExpr:
		case T_CollateExpr:
		case T_FieldSelect:
		case T_RowExpr:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
		case T_List:
		case T_TargetEntry:
		case T_FromExpr:
		case T_JoinExpr:
		case T_SetOperationStmt:
		case T_RangeTblFunction:
		case T_CommonTableExpr:
			break;
		default:
			refuse_node(ctx, node);
	}
	return expression_tree_walker(node, allow_walker, ctx);
}

/*
 * Raises unless every node of expr, evaluated per row of protected table
 * relid, is in the closed expression language.  what names the place for
 * the message ("WHERE", "FILTER", "the argument of sum", "GROUP BY").
 * every_row says that expr is evaluated for every row the scan reads, in
 * an order that no sensitive column decides (a non-sensitive WHERE
 * conjunct, JOIN ... ON): then EXISTS/IN/ANY/ALL sub-queries, and
 * parameters as the constant arguments of curated functions, are
 * allowed, since whether they run depends on no sensitive value.
 */
void
tapas_allowlist_check_expr(Node *expr, const char *what, bool every_row, Oid relid,
						   int varno)
{
	AllowContext ctx;

	ctx.what = what;
	ctx.relid = relid;
	ctx.varno = varno;
	ctx.qi_root = NULL;
	ctx.every_row = every_row;
	ctx.nodes = 0;
	(void) allow_walker(expr, &ctx);
}
