/*-------------------------------------------------------------------------
 *
 * plan_verify.c
 *	  The fail-closed check of a plan: every scan of a protected table lies
 *	  under a gate, and an audited statement writes nothing.
 *
 * Checked at ExecutorStart: plans are cached across SET SESSION
 * AUTHORIZATION, and admin sessions are planned without gates, so an
 * audited session refuses any plan that scans a protected table outside a
 * gate.
 *
 * IDENTIFICATION
 *	  src/capture/plan_verify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

typedef struct VerifyContext
{
	PlannedStmt *stmt;
	bool		has_gather;		/* the statement has a Gather somewhere */
	bool		in_worker;		/* walking the part below a Gather */
} VerifyContext;

static void verify_plan(Plan *plan, bool gated, VerifyContext *ctx);

/* a gate must run in the leader, and partial states must reach a gate */
static void
verify_parallel(Plan *plan, bool gated, VerifyContext *ctx)
{
	if (tapas_plan_is_gate(plan) && ctx->in_worker)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("plan audits a protected table in a parallel worker"),
				 errhint("Prepare the statement again.")));
	if (IsA(plan, Agg) && !gated && tapas_tlist_has(plan->targetlist, tapas_is_partial_cover))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("plan reads partial captures of a protected table outside an audited aggregate"),
				 errhint("Prepare the statement again.")));
}

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

/*
 * A ForeignScan that stands for a join or an aggregate (scanrelid 0: the
 * remote server joins or aggregates, postgres_fdw's pushdown) must read
 * no protected table: its rows would reach the capture already combined,
 * computed where nothing captures.  A scan of one foreign partition
 * (scanrelid > 0) returns rows, and is captured like any scan.
 */
static void
verify_remote(Plan *plan, VerifyContext *ctx)
{
	ForeignScan *fs = (ForeignScan *) plan;
	int			rti = -1;

	if (!IsA(plan, ForeignScan) || fs->scan.scanrelid != 0)
		return;
	while ((rti = bms_next_member(fs->fs_relids, rti)) >= 0)
	{
		Oid			relid = rt_fetch(rti, ctx->stmt->rtable)->relid;

		if (OidIsValid(relid) && tapas_protection_lookup(relid) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("plan pushes a join or an aggregate over protected table \"%s\" to a remote server",
							get_rel_name(relid)),
					 errdetail("tapas captures the rows this server aggregates; a remote server does not capture."),
					 errhint("Do not list extension tapas in the foreign server's \"extensions\" option, or disable the pushdown.")));
	}
}

static void
verify_plan(Plan *plan, bool gated, VerifyContext *ctx)
{
	Oid			relid;

	bool		saved_in_worker = ctx->in_worker;

	if (plan == NULL)
		return;
	check_stack_depth();
	verify_parallel(plan, gated, ctx);
	verify_remote(plan, ctx);
	if (tapas_plan_is_gate(plan))
		gated = true;
	if (tapas_plan_is_gather(plan))
		ctx->in_worker = true;
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
	ctx->in_worker = saved_in_worker;
}

/* Raises unless every scan of a protected table in stmt is under a gate. */
void
tapas_plan_verify_gated(PlannedStmt *stmt)
{
	VerifyContext ctx;
	ListCell   *lc;

	ctx.stmt = stmt;
	ctx.has_gather = tapas_plan_has(stmt->planTree, tapas_plan_is_gather);
	foreach(lc, stmt->subplans)
		ctx.has_gather |= tapas_plan_has(lfirst(lc), tapas_plan_is_gather);
	ctx.in_worker = false;
	verify_plan(stmt->planTree, false, &ctx);
	foreach(lc, stmt->subplans)
	{
		Plan	   *sub = lfirst(lc);

		/* a worker may run a parallel-safe sub-plan of a parallel plan */
		ctx.in_worker = ctx.has_gather && sub != NULL && sub->parallel_safe;
		verify_plan(sub, false, &ctx);
	}
}

/*
 * Raises when stmt writes a protected table: a range-table entry of p that
 * needs INSERT, UPDATE or DELETE privilege, whatever planned it (a plan
 * cached by an exempt session, a rule, a view).
 */
void
tapas_plan_verify_no_write(PlannedStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION &&
			(rte->requiredPerms & (ACL_INSERT | ACL_UPDATE | ACL_DELETE)) != 0 &&
			tapas_protection_lookup(rte->relid) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot write protected table \"%s\"", get_rel_name(rte->relid)),
					 errdetail("Audited roles do not write protected tables."),
					 errhint("Write protected tables from a role that is not audited (a member of the tapas admin role).")));
	}
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
