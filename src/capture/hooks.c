/*-------------------------------------------------------------------------
 *
 * hooks.c
 *	  The hooks of the capture subsystem: thin bodies that call into
 *	  normalise.c, plan.c and validate.c, always chained.
 *
 *	planner_hook			audited session, protected table read: validate
 *							and normalise the Query, plan, place gates
 *							(again without parallelism if a gate would
 *							run in a worker)
 *	ExecutorStart_hook		audited session: fail closed on ungated scans and
 *							on writes of protected tables; refuse EXPLAIN with row
 *							estimates and EXPLAIN ANALYZE on them
 *	ProcessUtility_hook		COPY protected TO/FROM, TRUNCATE protected,
 *							LISTEN tapas_alert; remembers EXPLAIN options;
 *							DROP EXTENSION tapas guard (policy/guard.c)
 *	ExecutorCheckPerms_hook	pg_statistic / pg_statistic_ext_data (pg_stats)
 *
 * Every hook calls the previous hook or the standard function on every
 * path; the EXPLAIN option state is restored in PG_FINALLY.  Admin sessions
 * (tapas_session_is_audited() false) skip everything: their queries are
 * planned without gates and not logged.
 *
 * IDENTIFICATION
 *	  src/capture/hooks.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/namespace.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_statistic_ext_data.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

static planner_hook_type prev_planner_hook = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static ExecutorCheckPerms_hook_type prev_ExecutorCheckPerms = NULL;

/* options of the EXPLAIN being run, if any (restored on exit) */
static bool explain_costs = false;

/* true when this backend must audit: audited session, something protected */
static bool
capture_active(void)
{
	return tapas_protection_any() && tapas_session_is_audited();
}

static PlannedStmt *
plan_query(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

static PlannedStmt *
tapas_planner(Query *parse, const char *query_string, int cursorOptions,
			  ParamListInfo boundParams)
{
	TapasCaptureInfo info;
	PlannedStmt *result;
	Query	   *serial = NULL;

	memset(&info, 0, sizeof(info));
	if (capture_active() && tapas_query_reads_protected(parse))
	{
		tapas_allowlist_fold_query(parse, boundParams);
		tapas_prevalidate_collect_begin();
		tapas_normalise_query(parse, &info);
		info.prevalidate = tapas_prevalidate_collect_end();
	}
	/* the planner scribbles on the Query: keep a copy for a serial replan */
	if (info.ncovers > 0 && (cursorOptions & CURSOR_OPT_PARALLEL_OK))
		serial = copyObject(parse);
	result = plan_query(parse, query_string, cursorOptions, boundParams);
	if (!tapas_plan_place_gates(result, &info))
	{
		/* a gate landed where parallel workers would run it: no parallelism */
		if (serial == NULL)
			elog(ERROR, "tapas: gate below a Gather in a serial plan");
		result = plan_query(serial, query_string,
							cursorOptions & ~CURSOR_OPT_PARALLEL_OK, boundParams);
		if (!tapas_plan_place_gates(result, &info))
			elog(ERROR, "tapas: gate below a Gather in a serial plan");
	}
	return result;
}

/* refusals that depend on how the plan is run (EXPLAIN), and fail-closed */
static void
check_execution(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;

	if (IsParallelWorker() || !capture_active() || !tapas_plan_reads_protected(stmt))
		return;
	tapas_plan_verify_no_write(stmt);
	if (queryDesc->instrument_options != 0 && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot run EXPLAIN ANALYZE on a query that reads a protected table"),
				 errdetail("Its row counts would be unaudited answers.")));
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) && explain_costs)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot show row estimates of a query that reads a protected table"),
				 errdetail("Estimates come from statistics of the protected data."),
				 errhint("Use EXPLAIN (COSTS OFF).")));
	tapas_plan_verify_gated(stmt);
}

static void
tapas_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	check_execution(queryDesc, eflags);
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* the protected table rv names, or InvalidOid */
static Oid
protected_relid(RangeVar *rv)
{
	Oid			relid = RangeVarGetRelid(rv, NoLock, true);

	return OidIsValid(relid) && tapas_protection_lookup(relid) != NULL ? relid : InvalidOid;
}

/*
 * COPY protected TO reads the heap, and COPY protected FROM writes it,
 * without planner or executor.
 */
static void
check_copy(CopyStmt *copy)
{
	Oid			relid;

	if (copy->relation == NULL || !capture_active() ||
		!OidIsValid(relid = protected_relid(copy->relation)))
		return;
	if (copy->is_from)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot copy rows into protected table \"%s\"", get_rel_name(relid)),
				 errdetail("Audited roles do not write protected tables."),
				 errhint("Write protected tables from a role that is not audited (a member of the tapas admin role).")));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("cannot copy rows out of protected table \"%s\"", get_rel_name(relid)),
			 errhint("Use COPY (SELECT ... aggregate query ...) TO instead.")));
}

/* TRUNCATE empties a protected table without planner or executor */
static void
check_truncate(TruncateStmt *stmt)
{
	ListCell   *lc;
	Oid			relid;

	if (!capture_active())
		return;
	foreach(lc, stmt->relations)
	{
		if (OidIsValid(relid = protected_relid(lfirst_node(RangeVar, lc))))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("cannot truncate protected table \"%s\"", get_rel_name(relid)),
					 errdetail("Audited roles do not write protected tables.")));
	}
}

/*
 * LISTEN tapas_alert would tell an audited analyst which of the answers
 * released in log mode isolate a record (alerts.c).
 */
static void
check_listen(ListenStmt *stmt)
{
	if (capture_active() && strcmp(stmt->conditionname, "tapas_alert") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("audited roles cannot listen to tapas alerts"),
				 errdetail("Alerts are for the administrator.")));
}

/* EXPLAIN shows row estimates unless COSTS OFF */
static bool
explain_wants_costs(ExplainStmt *stmt)
{
	ListCell   *lc;
	bool		costs = true;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "costs") == 0)
			costs = defGetBoolean(opt);
	}
	return costs;
}

static void
tapas_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					 bool readOnlyTree, ProcessUtilityContext context,
					 ParamListInfo params, QueryEnvironment *queryEnv,
					 DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	bool		saved_costs = explain_costs;

	/* DROP EXTENSION tapas while tables are protected (policy/guard.c) */
	tapas_guard_utility(parsetree);
	/* ATTACH/DETACH PARTITION out of a protection (policy/partitions.c) */
	tapas_partition_guard_utility(parsetree);
	if (IsA(parsetree, CopyStmt))
		check_copy((CopyStmt *) parsetree);
	if (IsA(parsetree, TruncateStmt))
		check_truncate((TruncateStmt *) parsetree);
	if (IsA(parsetree, ListenStmt))
		check_listen((ListenStmt *) parsetree);
	if (IsA(parsetree, ExplainStmt))
		explain_costs = explain_wants_costs((ExplainStmt *) parsetree);
	PG_TRY();
	{
		if (prev_ProcessUtility)
			prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
		/* an attached partition's keys join the registry (policy/keys.c) */
		tapas_partition_after_utility(parsetree);
	}
	PG_FINALLY();
	{
		explain_costs = saved_costs;
	}
	PG_END_TRY();
}

/* pg_stats and pg_statistic show values of protected columns */
static bool
tapas_ExecutorCheckPerms(List *rangeTable, bool ereport_on_violation)
{
	ListCell   *lc;

	if (prev_ExecutorCheckPerms && !prev_ExecutorCheckPerms(rangeTable, ereport_on_violation))
		return false;
	if (!capture_active())
		return true;
	foreach(lc, rangeTable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_RELATION &&
			(rte->relid == StatisticRelationId || rte->relid == StatisticExtDataRelationId))
		{
			if (!ereport_on_violation)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("audited roles cannot read planner statistics while tables are protected"),
					 errdetail("pg_stats and pg_statistic hold values of protected columns.")));
		}
	}
	return true;
}

/* Called once from _PG_init. */
void
tapas_capture_install(void)
{
	tapas_protection_install();
	tapas_gate_register();

	prev_planner_hook = planner_hook;
	planner_hook = tapas_planner;
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = tapas_ExecutorStart;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = tapas_ProcessUtility;
	prev_ExecutorCheckPerms = ExecutorCheckPerms_hook;
	ExecutorCheckPerms_hook = tapas_ExecutorCheckPerms;
}
