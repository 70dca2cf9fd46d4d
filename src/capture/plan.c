/*-------------------------------------------------------------------------
 *
 * plan.c
 *	  Plan surgery: a TapasGate above every Agg that carries a capture
 *	  aggregate.
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
 * statistic node, group columns, answer slot) list per statistic, found
 * through the Const argument of its capture Aggref (a capture answers
 * every statistic of its covered set, slot i its value i: cover_build.c),
 * in the order normalise.c created the statistics, which is the order of
 * the cells the gate logs; plain List/Integer/String and expression nodes
 * (the canonical basis tree), so copyObject and the plan cache preserve
 * them.
 *
 * Parallel and partition-wise aggregation split a capture in two: Partial
 * Aggs (in workers, or one per partition) whose capture Aggrefs skip the
 * final function and emit serialised partial states, and one Finalize Agg
 * that combines them.  Only an Agg that finalises a capture gets a gate; a
 * Finalize Agg's capture reads its partial state through a Var, so the
 * capture's Const argument is found by following that Var down to the
 * Partial Agg (partial_capture_id).  Partial states are keys in transit:
 * the fail-closed check refuses a Partial Agg with a capture outside a
 * gate, and a gate below a Gather (it would run in workers, once per
 * worker, each seeing part of the rows).  A gate audits after it drained
 * its Agg and shut its workers down (gate.c), so every Gather must lie in a
 * gate; a statement whose parallel plan breaks that is planned again
 * without parallelism by the planner hook (plan_parallel.c).
 *
 * The fail-closed check of the finished plan is plan_verify.c.
 *
 * IDENTIFICATION
 *	  src/capture/plan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
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

/* a capture Aggref that yields the final result (not a partial state) */
static bool
is_cover(Node *node)
{
	return node != NULL && IsA(node, Aggref) &&
		!DO_AGGSPLIT_SKIPFINAL(((Aggref *) node)->aggsplit) &&
		tapas_is_cover_aggregate(((Aggref *) node)->aggfnoid);
}

/* a capture Aggref of a Partial Agg: its output is a serialised state */
bool
tapas_is_partial_cover(Node *node)
{
	return node != NULL && IsA(node, Aggref) &&
		DO_AGGSPLIT_SKIPFINAL(((Aggref *) node)->aggsplit) &&
		tapas_is_cover_aggregate(((Aggref *) node)->aggfnoid);
}

bool
tapas_tlist_has(List *tlist, bool (*pred) (Node *))
{
	ListCell   *lc;

	foreach(lc, tlist)
	{
		if (pred((Node *) lfirst_node(TargetEntry, lc)->expr))
			return true;
	}
	return false;
}

static bool
agg_has_cover(Agg *agg)
{
	return tapas_tlist_has(agg->plan.targetlist, is_cover);
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

/*
 * 0-based position in flat of the reference to input column attno, or -1
 * (compared by hand: setrefs keeps varnosyn/varattnosyn, so equal() would
 * miss it)
 */
static int
outer_var_index(List *flat, AttrNumber attno)
{
	ListCell   *lc;

	foreach(lc, flat)
	{
		Var		   *v = lfirst(lc);

		if (IsA(v, Var) && v->varno == OUTER_VAR && v->varattno == attno &&
			v->varlevelsup == 0)
			return foreach_current_index(lc);
	}
	return -1;
}

/* whether cols (a group_columns list) has sortgroupref ref */
static bool
has_group_ref(List *cols, Index ref)
{
	ListCell   *lc;

	foreach(lc, cols)
	{
		if (intVal(linitial(lfirst(lc))) == (int) ref)
			return true;
	}
	return false;
}

/*
 * (sortgroupref, flat index) of each grouping column the Agg outputs.  The
 * Agg's own tlist labels name them, unless setrefs replaced those labels:
 * a trivial SubqueryScan above the Agg is removed and its labels, which
 * carry no sortgroupref, are copied onto the Agg's tlist
 * (clean_up_removed_plan_level), as in SELECT count(*) FROM (SELECT hiv
 * FROM t GROUP BY hiv) s.  The Agg's input keeps its labels
 * (create_agg_plan asks for CP_LABEL_TLIST), and setrefs made each grouping
 * expression of the Agg's tlist an OUTER_VAR reference to that input, so
 * the input's labels find the columns the Agg's lost.
 */
static List *
group_columns(Agg *agg, List *flat)
{
	List	   *cols = NIL;
	ListCell   *lc;

	foreach(lc, agg->plan.targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		int			idx = list_index_equal(flat, (Node *) tle->expr);

		if (tle->ressortgroupref != 0 && idx >= 0)
			cols = lappend(cols, list_make2(makeInteger(tle->ressortgroupref),
											makeInteger(idx + 1)));
	}
	if (agg->plan.lefttree == NULL)
		return cols;
	foreach(lc, agg->plan.lefttree->targetlist)
	{
		TargetEntry *in = lfirst_node(TargetEntry, lc);
		int			idx;

		if (in->ressortgroupref == 0 || has_group_ref(cols, in->ressortgroupref))
			continue;
		if ((idx = outer_var_index(flat, in->resno)) >= 0)
			cols = lappend(cols, list_make2(makeInteger(in->ressortgroupref),
											makeInteger(idx + 1)));
	}
	return cols;
}

/*
 * the capture argument (a Const int4, the second) of a capture Aggref with
 * its arguments (key, capture, values)
 */
static int
aggref_capture_id(Aggref *a)
{
	Const	   *id;

	if (list_length(a->args) < 3)
		elog(ERROR, "tapas: malformed capture aggregate");
	id = (Const *) lsecond_node(TargetEntry, a->args)->expr;
	if (!IsA(id, Const) || id->constisnull || DatumGetInt32(id->constvalue) < 0)
		elog(ERROR, "tapas: malformed capture aggregate");
	return DatumGetInt32(id->constvalue);
}

/*
 * The capture id behind output column attno of plan, which carries a
 * partial state: follow OUTER_VAR Vars down Gather, Sort and the like, and
 * every child of an Append (all must agree), to the Partial Agg's Aggref.
 * Returns -1 if the column is anything else.
 */
static int
partial_capture_id(Plan *plan, AttrNumber attno)
{
	Node	   *expr;
	List	   *children = NIL;
	int			id = -1;
	ListCell   *lc;

	check_stack_depth();
	if (plan == NULL || attno < 1 || attno > list_length(plan->targetlist))
		return -1;
	expr = (Node *) list_nth_node(TargetEntry, plan->targetlist, attno - 1)->expr;
	if (tapas_is_partial_cover(expr))
		return aggref_capture_id((Aggref *) expr);
	if (!IsA(expr, Var) || ((Var *) expr)->varno != OUTER_VAR)
		return -1;
	attno = ((Var *) expr)->varattno;
	if (IsA(plan, Append))
		children = ((Append *) plan)->appendplans;
	else if (IsA(plan, MergeAppend))
		children = ((MergeAppend *) plan)->mergeplans;
	else
		return partial_capture_id(plan->lefttree, attno);
	foreach(lc, children)
	{
		int			child = partial_capture_id(lfirst(lc), attno);

		if (child < 0 || (id >= 0 && child != id))
			return -1;
		id = child;
	}
	return id;
}

/*
 * The capture id of a capture Aggref of agg: its own Const argument, or
 * for a Finalize Agg (combining partial states) that of the Partial Aggs
 * below.
 */
static int
capture_id(Aggref *a, Agg *agg)
{
	Node	   *arg;

	if (!DO_AGGSPLIT_COMBINE(a->aggsplit))
		return aggref_capture_id(a);
	if (list_length(a->args) != 1)
		elog(ERROR, "tapas: malformed capture aggregate");
	arg = (Node *) linitial_node(TargetEntry, a->args)->expr;
	if (!IsA(arg, Var) || ((Var *) arg)->varno != OUTER_VAR)
		elog(ERROR, "tapas: malformed capture aggregate");
	return partial_capture_id(agg->plan.lefttree, ((Var *) arg)->varattno);
}

/* orders (Integer seq, cell) pairs by seq */
static int
seq_cmp(const ListCell *a, const ListCell *b)
{
	int			x = intVal(linitial((List *) lfirst(a)));
	int			y = intVal(linitial((List *) lfirst(b)));

	return (x > y) - (x < y);
}

/*
 * (scan attno, statistic node, group columns, answer slot) of each
 * statistic of each capture in the flat list, in the order the statistics
 * were created (their seq); group columns are (sortgroupref, scan attno)
 * pairs.
 */
static List *
cover_cells(Agg *agg, List *flat, List *groupcols, const TapasCaptureInfo *info)
{
	List	   *seqcells = NIL;
	List	   *cells = NIL;
	ListCell   *lc;

	foreach(lc, flat)
	{
		Aggref	   *a = lfirst(lc);
		int			id;
		List	   *stats;
		ListCell   *s;

		if (!is_cover((Node *) a))
			continue;
		id = capture_id(a, agg);
		if (id < 0 || id >= list_length(info->covers))
			elog(ERROR, "tapas: malformed capture aggregate");
		stats = list_nth(info->covers, id);
		if (!DO_AGGSPLIT_COMBINE(a->aggsplit) &&
			list_length(a->args) != 2 + list_length(stats))
			elog(ERROR, "tapas: malformed capture aggregate");
		foreach(s, stats)
		{
			List	   *st = lfirst(s);

			seqcells = lappend(seqcells,
							   list_make2(linitial(st),
										  list_make4(makeInteger(foreach_current_index(lc) + 1),
													 copyObject(lsecond(st)), groupcols,
													 makeInteger(foreach_current_index(s)))));
		}
	}
	list_sort(seqcells, seq_cmp);
	foreach(lc, seqcells)
		cells = lappend(cells, lsecond((List *) lfirst(lc)));
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
	CustomScan *gate;
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
	cells = cover_cells(agg, flat, group_columns(agg, flat), ctx->info);

	/* the Agg now computes only the flat list; HAVING runs in the gate */
	agg->plan.targetlist = agg_tlist;
	agg->plan.qual = NIL;
	gate = tapas_gate_create(agg, cells, scan_tlist, tlist, qual, ctx->next_id++);
	/* the first gate checks the statement's arithmetic before any row is read */
	if (ctx->placed++ == 0)
		gate->custom_exprs = copyObject(ctx->info->prevalidate);
	return (Plan *) gate;
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
 * the plan still scans a protected table.  Returns false when the gates
 * could not audit in this parallel plan (plan_parallel.c): the caller
 * then plans the query again without parallelism.  Gates stay in the
 * leader, where the audit, the ledger and the session are.
 */
bool
tapas_plan_place_gates(PlannedStmt *stmt, const TapasCaptureInfo *info)
{
	PlaceContext ctx;
	ListCell   *lc;

	if (info->ncovers == 0)
		return true;
	memset(&ctx, 0, sizeof(ctx));
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
	return tapas_plan_parallel_gates_ok(stmt);
}
