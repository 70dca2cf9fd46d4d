/*-------------------------------------------------------------------------
 *
 * plan_parallel.c
 *	  Whether the gates of a plan can audit in its parallel plan, and the
 *	  plan-tree walks it needs.
 *
 * A gate audits after it drained its Agg and shut its workers down
 * (gate.c), so every Gather must lie in a gate; a statement whose parallel
 * plan breaks that is planned again without parallelism by the planner
 * hook (plan.c places the gates, plan_verify.c checks the finished plan).
 *
 * IDENTIFICATION
 *	  src/capture/plan_parallel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/plannodes.h"

#include "capture/capture.h"

/* the child plans of plan, besides lefttree and righttree */
static List *
plan_children(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_Append:
			return ((Append *) plan)->appendplans;
		case T_MergeAppend:
			return ((MergeAppend *) plan)->mergeplans;
		case T_BitmapAnd:
			return ((BitmapAnd *) plan)->bitmapplans;
		case T_BitmapOr:
			return ((BitmapOr *) plan)->bitmapplans;
		case T_SubqueryScan:
			return list_make1(((SubqueryScan *) plan)->subplan);
		case T_CustomScan:
			return ((CustomScan *) plan)->custom_plans;
		default:
			return NIL;
	}
}

bool
tapas_plan_is_gather(Plan *plan)
{
	return IsA(plan, Gather) || IsA(plan, GatherMerge);
}

/* whether plan's tree (plan included) has a node satisfying pred */
bool
tapas_plan_has(Plan *plan, bool (*pred) (Plan *))
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	check_stack_depth();
	if (pred(plan))
		return true;
	foreach(lc, plan_children(plan))
	{
		if (tapas_plan_has(lfirst(lc), pred))
			return true;
	}
	return tapas_plan_has(plan->lefttree, pred) || tapas_plan_has(plan->righttree, pred);
}

/*
 * Whether every Gather of plan's tree runs inside a gate that holds no
 * other gate: such a gate drains its Agg, and so finishes its own workers,
 * before it audits (gate.c), and no other parallel query is running then.
 */
static bool
gathers_in_gates(Plan *plan, bool in_gate)
{
	ListCell   *lc;

	if (plan == NULL)
		return true;
	check_stack_depth();
	if (tapas_plan_is_gate(plan))
	{
		Plan	   *agg = outerPlan(plan);

		if (tapas_plan_has(agg, tapas_plan_is_gather) && tapas_plan_has(agg, tapas_plan_is_gate))
			return false;
		in_gate = true;
	}
	if (tapas_plan_is_gather(plan) && !in_gate)
		return false;
	foreach(lc, plan_children(plan))
	{
		if (!gathers_in_gates(lfirst(lc), in_gate))
			return false;
	}
	return gathers_in_gates(plan->lefttree, in_gate) &&
		gathers_in_gates(plan->righttree, in_gate);
}

/*
 * Whether the gates of stmt can audit in its parallel plan: every Gather
 * inside a gate holding no other gate (gathers_in_gates), and no gate in a
 * sub-plan if the statement has a Gather at all (a sub-plan runs when an
 * expression needs it, possibly while some Gather's workers run, or in a
 * worker).  Conservative: a statement that fails this is planned serially.
 */
bool
tapas_plan_parallel_gates_ok(PlannedStmt *stmt)
{
	bool		gather = tapas_plan_has(stmt->planTree, tapas_plan_is_gather);
	bool		subplan_gate = false;
	ListCell   *lc;

	foreach(lc, stmt->subplans)
	{
		gather |= tapas_plan_has(lfirst(lc), tapas_plan_is_gather);
		subplan_gate |= tapas_plan_has(lfirst(lc), tapas_plan_is_gate);
	}
	if (!gather)
		return true;
	if (subplan_gate || !gathers_in_gates(stmt->planTree, false))
		return false;
	return true;
}
