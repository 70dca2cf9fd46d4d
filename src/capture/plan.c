/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  Plan surgery: a TapasGate above every Agg that carries a capture
 *	  aggregate, and the fail-closed check that every scan of a protected
 *	  table lies under a gate.
 *
 * After the standard planner (setrefs done), every Agg whose target list
 * holds a tapas._cover Aggref is replaced by a gate whose outer plan is
 * that Agg.  The Agg's target list is flattened to the values the gate
 * needs (grouping columns, aggregates, GROUPING()), and its projection and
 * HAVING qual move up into the gate, rewritten to INDEX_VAR references
 * into the flat list (pg_diffix's BucketScan does the same).  Hence:
 *	- groups filtered out by HAVING (including the hidden group-existence
 *	  condition) still reach the gate, so their cells are captured;
 *	- no expression over an aggregate (1/(count(*)-5)) is evaluated before
 *	  the gate has logged and checked every cell: its errors leak nothing
 *	  the ledger does not hold.
 * The gate outputs the Agg's original columns, capture columns replaced by
 * NULL (nothing above needs the key lists), so the nodes above (Sort,
 * Limit, SubqueryScan, joins) are untouched.
 *
 * What the executor needs travels in custom_private: one (scan attno,
 * statistic node, group columns) triple per capture column, found through
 * the Const argument of the capture Aggref; plain List/Integer/String and
 * expression nodes (the canonical basis tree), so copyObject and the plan
 * cache preserve them.
 *
 * Fail-closed (ExecutorStart): plans are cached across SET SESSION
 * AUTHORIZATION, and admin sessions are planned without gates, so an
 * audited session refuses any plan that scans a protected table outside a
 * gate.
 *
 * IDENTIFICATION
 *	  src/capture/plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

typedef struct PlaceContext
{
	int			placed;			/* gates placed */
	int			next_id;		/* next free plan_node_id */
	const TapasCaptureInfo *info;	/* what each capture logs */
} PlaceContext;

static Plan *place_gates(Plan *plan, PlaceContext *ctx);

/* ----------------------------------------------------------------
 *		Placing gates
 * ----------------------------------------------------------------
 */

static bool
is_cover(Node *node)
{
	return node != NULL && IsA(node, Aggref) &&
		tapas_is_cover_aggregate(((Aggref *) node)->aggfnoid);
}

static bool
agg_has_cover(Agg *agg)
{
	ListCell   *lc;

	foreach(lc, agg->plan.targetlist)
	{
		if (is_cover((Node *) lfirst_node(TargetEntry, lc)->expr))
			return true;
	}
	return false;
}

/* adds the Vars, aggregates and GROUPING() of expr to *flat, once each */
static void
flatten_into(List **flat, Node *expr)
{
	List	   *vars = pull_var_clause(expr, PVC_INCLUDE_AGGREGATES |
									   PVC_INCLUDE_PLACEHOLDERS);
	ListCell   *lc;

	foreach(lc, vars)
		*flat = list_append_unique(*flat, lfirst(lc));
}

/* 0-based position of the first member of list equal to node, or -1 */
static int
list_index_equal(List *list, Node *node)
{
	ListCell   *lc;

	foreach(lc, list)
	{
		if (equal(lfirst(lc), node))
			return foreach_current_index(lc);
	}
	return -1;
}

/* expression over the flat list -> expression over the gate's scan tuple */
static Node *
to_index_var(Node *node, List *flat)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, flat)
	{
		Node	   *f = lfirst(lc);

		if (equal(node, f))
			return (Node *) makeVar(INDEX_VAR, foreach_current_index(lc) + 1,
									exprType(f), exprTypmod(f), exprCollation(f), 0);
	}
	return expression_tree_mutator(node, to_index_var, flat);
}

/* flat index of the expression of the Agg tlist entry with sortgroupref ref */
static List *
group_columns(List *agg_tlist, List *flat)
{
	List	   *cols = NIL;
	ListCell   *lc;

	foreach(lc, agg_tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		int			idx = list_index_equal(flat, (Node *) tle->expr);

		if (tle->ressortgroupref != 0 && idx >= 0)
			cols = lappend(cols, list_make2(makeInteger(tle->ressortgroupref),
											makeInteger(idx + 1)));
	}
	return cols;
}

/*
 * (scan attno, statistic node, group columns) of each capture in the
 * flat list; group columns are (sortgroupref, scan attno) pairs.
 */
static List *
cover_cells(List *flat, List *groupcols, const TapasCaptureInfo *info)
{
	List	   *cells = NIL;
	ListCell   *lc;

	foreach(lc, flat)
	{
		Aggref	   *a = lfirst(lc);
		Const	   *id;
		List	   *what;

		if (!is_cover((Node *) a))
			continue;
		id = (Const *) lthird_node(TargetEntry, a->args)->expr;
		if (!IsA(id, Const) || id->constisnull ||
			DatumGetInt32(id->constvalue) < 0 ||
			DatumGetInt32(id->constvalue) >= list_length(info->covers))
			elog(ERROR, "tapas: malformed capture aggregate");
		what = list_nth(info->covers, DatumGetInt32(id->constvalue));
		cells = lappend(cells,
						list_make3(makeInteger(foreach_current_index(lc) + 1),
								   copyObject(what), groupcols));
	}
	return cells;
}

static Plan *
make_gate(Agg *agg, PlaceContext *ctx)
{
	List	   *flat = NIL;
	List	   *agg_tlist = NIL;
	List	   *scan_tlist = NIL;
	List	   *tlist = NIL;
	List	   *qual;
	List	   *cells;
	ListCell   *lc;

	foreach(lc, agg->plan.targetlist)
		flatten_into(&flat, (Node *) lfirst_node(TargetEntry, lc)->expr);
	flatten_into(&flat, (Node *) agg->plan.qual);

	foreach(lc, flat)
	{
		Node	   *f = lfirst(lc);
		int			i = foreach_current_index(lc) + 1;

		agg_tlist = lappend(agg_tlist, makeTargetEntry((Expr *) f, i, NULL, false));
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) makeVar(OUTER_VAR, i, exprType(f),
															  exprTypmod(f), exprCollation(f), 0),
											 i, NULL, false));
	}
	foreach(lc, agg->plan.targetlist)
	{
		TargetEntry *tle = flatCopyTargetEntry(lfirst_node(TargetEntry, lc));

		if (is_cover((Node *) tle->expr))
			tle->expr = (Expr *) makeNullConst(BYTEAOID, -1, InvalidOid);
		else
			tle->expr = (Expr *) to_index_var((Node *) tle->expr, flat);
		tlist = lappend(tlist, tle);
	}
	qual = (List *) to_index_var((Node *) agg->plan.qual, flat);
	cells = cover_cells(flat, group_columns(agg->plan.targetlist, flat), ctx->info);

	/* the Agg now computes only the flat list; HAVING runs in the gate */
	agg->plan.targetlist = agg_tlist;
	agg->plan.qual = NIL;
	ctx->placed++;
	return (Plan *) tapas_gate_create(agg, cells, scan_tlist, tlist, qual,
									  ctx->next_id++);
}

static List *
place_list(List *plans, PlaceContext *ctx)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = place_gates(lfirst(lc), ctx);
	return plans;
}

static Plan *
place_gates(Plan *plan, PlaceContext *ctx)
{
	if (plan == NULL)
		return NULL;
	plan->lefttree = place_gates(plan->lefttree, ctx);
	plan->righttree = place_gates(plan->righttree, ctx);
	switch (nodeTag(plan))
	{
		case T_Append:
			place_list(((Append *) plan)->appendplans, ctx);
			break;
		case T_MergeAppend:
			place_list(((MergeAppend *) plan)->mergeplans, ctx);
			break;
		case T_BitmapAnd:
			place_list(((BitmapAnd *) plan)->bitmapplans, ctx);
			break;
		case T_BitmapOr:
			place_list(((BitmapOr *) plan)->bitmapplans, ctx);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan = place_gates(((SubqueryScan *) plan)->subplan, ctx);
			break;
		case T_CustomScan:
			place_list(((CustomScan *) plan)->custom_plans, ctx);
			break;
		case T_Agg:
			if (agg_has_cover((Agg *) plan))
				return make_gate((Agg *) plan, ctx);
			break;
		default:
			break;
	}
	return plan;
}

static int
max_plan_id(Plan *plan)
{
	return plan ? Max(plan->plan_node_id, Max(max_plan_id(plan->lefttree),
											 max_plan_id(plan->righttree))) : 0;
}

/*
 * Places a gate above every capturing Agg of stmt (main plan and
 * sub-plans).  Raises if normalise.c added captures, no gate was placed and
 * the plan still scans a protected table.
 */
void
tapas_plan_place_gates(PlannedStmt *stmt, const TapasCaptureInfo *info)
{
	PlaceContext ctx;
	ListCell   *lc;

	if (info->ncovers == 0)
		return;
	ctx.placed = 0;
	ctx.info = info;
	ctx.next_id = max_plan_id(stmt->planTree);
	foreach(lc, stmt->subplans)
		ctx.next_id = Max(ctx.next_id, max_plan_id(lfirst(lc)));
	ctx.next_id += 1000;		/* clear of ids hidden in lists we did not scan */

	stmt->planTree = place_gates(stmt->planTree, &ctx);
	foreach(lc, stmt->subplans)
		lfirst(lc) = place_gates(lfirst(lc), &ctx);

	/*
	 * No gate: the planner dropped every capturing level (an unreferenced
	 * CTE, say).  That is fine only if no protected table is scanned.
	 */
	if (ctx.placed == 0)
		tapas_plan_verify_gated(stmt);
}

/* ----------------------------------------------------------------
 *		Fail-closed check
 * ----------------------------------------------------------------
 */

typedef struct VerifyContext
{
	PlannedStmt *stmt;
} VerifyContext;

static void verify_plan(Plan *plan, bool gated, VerifyContext *ctx);

static void
verify_list(List *plans, bool gated, VerifyContext *ctx)
{
	ListCell   *lc;

	foreach(lc, plans)
		verify_plan(lfirst(lc), gated, ctx);
}

/* relid scanned by plan, or InvalidOid */
static Oid
scanned_relid(Plan *plan, VerifyContext *ctx)
{
	Index		scanrelid;

	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_CustomScan:
		case T_ForeignScan:
			scanrelid = ((Scan *) plan)->scanrelid;
			break;
		case T_ModifyTable:
			scanrelid = ((ModifyTable *) plan)->nominalRelation;
			return ((ModifyTable *) plan)->operation == CMD_INSERT ? InvalidOid :
				rt_fetch(scanrelid, ctx->stmt->rtable)->relid;
		default:
			return InvalidOid;
	}
	if (scanrelid == 0)
		return InvalidOid;
	return rt_fetch(scanrelid, ctx->stmt->rtable)->relid;
}

static void
verify_plan(Plan *plan, bool gated, VerifyContext *ctx)
{
	Oid			relid;

	if (plan == NULL)
		return;
	if (tapas_plan_is_gate(plan))
		gated = true;
	relid = scanned_relid(plan, ctx);
	if (OidIsValid(relid) && !gated && tapas_protection_lookup(relid) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("plan reads protected table \"%s\" outside an audited aggregate",
						get_rel_name(relid)),
				 errhint("Only aggregate queries are allowed on protected tables; a plan cached before the session was audited must be prepared again.")));
	verify_plan(plan->lefttree, gated, ctx);
	verify_plan(plan->righttree, gated, ctx);
	switch (nodeTag(plan))
	{
		case T_Append:
			verify_list(((Append *) plan)->appendplans, gated, ctx);
			break;
		case T_MergeAppend:
			verify_list(((MergeAppend *) plan)->mergeplans, gated, ctx);
			break;
		case T_BitmapAnd:
			verify_list(((BitmapAnd *) plan)->bitmapplans, gated, ctx);
			break;
		case T_BitmapOr:
			verify_list(((BitmapOr *) plan)->bitmapplans, gated, ctx);
			break;
		case T_SubqueryScan:
			verify_plan(((SubqueryScan *) plan)->subplan, gated, ctx);
			break;
		case T_CustomScan:
			verify_list(((CustomScan *) plan)->custom_plans, gated, ctx);
			break;
		default:
			break;
	}
}

/* Raises unless every scan of a protected table in stmt is under a gate. */
void
tapas_plan_verify_gated(PlannedStmt *stmt)
{
	VerifyContext ctx;
	ListCell   *lc;

	ctx.stmt = stmt;
	verify_plan(stmt->planTree, false, &ctx);
	foreach(lc, stmt->subplans)
		verify_plan(lfirst(lc), false, &ctx);
}

/* true when stmt's range table names a protected table */
bool
tapas_plan_reads_protected(PlannedStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION && tapas_protection_lookup(rte->relid) != NULL)
			return true;
	}
	return false;
}
