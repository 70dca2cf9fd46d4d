/*-------------------------------------------------------------------------
 *
 * gate.c
 *	  TapasGate, the CustomScan placed directly above each capturing Agg:
 *	  nothing leaves it before every cell of the execution is captured,
 *	  checked against k and logged.
 *
 * Per execution (first fetch, and again after a rescan with changed
 * parameters), in this order:
 *	1. drain every group from the Agg into a tuplestore, capture columns
 *	   replaced by NULL; for an audited session, unpack each capture into a
 *	   cell (relid, statistic with $n bound, answer, covered keys): one
 *	   capture per term of an aggregate's normal form (cellform.c); the
 *	   captures of a level grouped by a sensitive column become cells after
 *	   the drain, per non-sensitive group and value (groups.c);
 *	   a group that the user's HAVING rejects by its size alone (having.c)
 *	   and that has a cell below k is dropped here, neither logged nor
 *	   released (gate_group_dropped);
 *	2. k threshold: a cell covering fewer than k rows fails the whole query
 *	   (TP002), naming k, never the size: every covered set of every term,
 *	   so a condition on quasi-identifiers inside an aggregate counts too;
 *	   a cell that sums several sensitive bases fails closed (TP004 in
 *	   deny mode, an "incomplete" alert otherwise: tapas_audit_incomplete);
 *	3. tapas_audit_cells(): the auditor decides (audit/decide.c); in deny
 *	   mode it raises before anything is released or logged; in a
 *	   parallel plan, the Agg's workers are shut down first and 3-4 run
 *	   outside parallel mode (gate_leave_parallel_mode);
 *	4. tapas_ledger_check_capacity, then tapas_ledger_append, and the per-backend copy for last_capture();
 *	5. release: stream the stored groups, applying the lifted HAVING and
 *	   projection (ExecScan with the scan tuple = one flat Agg row);
 *	   tapas_audit_logged() raises the alerts of log/warn mode with the
 *	   new log_ids just before.
 * Admin sessions pass through: no cells, no k, no ledger.
 *
 * The cells of step 1 and the k check of step 2 are built in gate_cells.c.
 *
 * Memory: the tuplestore and the cells live in "tapas gate", a child of
 * es_query_cxt created in BeginCustomScan (freed at ExecutorEnd); a rescan
 * with new parameters resets it.  Stored tuples are minimal tuples, read
 * into a dedicated minimal slot.
 *
 * Backward scans and mark/restore are not offered: the planner puts a
 * Material node above us for SCROLL cursors.
 *
 * IDENTIFICATION
 *	  src/capture/gate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "audit/audit.h"
#include "capture/capture.h"
#include "capture/gate_int.h"
#include "policy/policy.h"


static Node *gate_create_state(CustomScan *cscan);
static void gate_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gate_exec(CustomScanState *node);
static void gate_end(CustomScanState *node);
static void gate_rescan(CustomScanState *node);
static void gate_explain(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomScanMethods gate_scan_methods = {
	.CustomName = "TapasGate",
	.CreateCustomScanState = gate_create_state,
};

static const CustomExecMethods gate_exec_methods = {
	.CustomName = "TapasGate",
	.BeginCustomScan = gate_begin,
	.ExecCustomScan = gate_exec,
	.EndCustomScan = gate_end,
	.ReScanCustomScan = gate_rescan,
	.ExplainCustomScan = gate_explain,
};

void
tapas_gate_register(void)
{
	RegisterCustomScanMethods(&gate_scan_methods);
}

bool
tapas_plan_is_gate(Plan *plan)
{
	return IsA(plan, CustomScan) && ((CustomScan *) plan)->methods == &gate_scan_methods;
}

/*
 * A gate above agg.  cells: (scan attno, statistic node, group columns,
 * answer slot) lists, one per statistic (plan.c, statistic.c);
 * scan_tlist: OUTER_VAR Vars over the Agg's flat output; tlist and qual:
 * the Agg's former projection and HAVING over INDEX_VAR.
 */
CustomScan *
tapas_gate_create(Agg *agg, List *cells, List *scan_tlist, List *tlist,
				  List *qual, int plan_node_id)
{
	CustomScan *cs = makeNode(CustomScan);
	Plan	   *p = &cs->scan.plan;

	p->startup_cost = agg->plan.total_cost;	/* nothing before the Agg is done */
	p->total_cost = agg->plan.total_cost;
	p->plan_rows = agg->plan.plan_rows;
	p->plan_width = agg->plan.plan_width;
	p->parallel_aware = false;
	p->parallel_safe = false;
	p->plan_node_id = plan_node_id;
	p->targetlist = tlist;
	p->qual = qual;
	p->lefttree = (Plan *) agg;
	p->extParam = bms_copy(agg->plan.extParam);
	p->allParam = bms_copy(agg->plan.allParam);
	cs->scan.scanrelid = 0;
	cs->flags = 0;
	cs->custom_private = cells;
	cs->custom_scan_tlist = scan_tlist;
	cs->methods = &gate_scan_methods;
	return cs;
}

/* ----------------------------------------------------------------
 *		Executor callbacks
 * ----------------------------------------------------------------
 */

static Node *
gate_create_state(CustomScan *cscan)
{
	TapasGateState *gs = palloc0(sizeof(TapasGateState));

	NodeSetTag(gs, T_CustomScanState);
	gs->css.methods = &gate_exec_methods;
	return (Node *) gs;
}

static void
gate_begin(CustomScanState *node, EState *estate, int eflags)
{
	TapasGateState *gs = (TapasGateState *) node;
	CustomScan *cs = (CustomScan *) node->ss.ps.plan;
	ListCell   *lc;
	int			i = 0;

	/* before any row is read: arithmetic on every row (prevalidate.c) */
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		tapas_prevalidate_run(cs->custom_exprs, estate);
	outerPlanState(node) = ExecInitNode(outerPlan(cs), estate, eflags);
	gs->cxt = AllocSetContextCreate(estate->es_query_cxt, "tapas gate",
									ALLOCSET_DEFAULT_SIZES);
	gs->readslot = ExecInitExtraTupleSlot(estate,
										  node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
										  &TTSOpsMinimalTuple);
	gs->ncovers = list_length(cs->custom_private);
	gs->cover_att = palloc(sizeof(AttrNumber) * Max(gs->ncovers, 1));
	gs->cover_relid = palloc(sizeof(Oid) * Max(gs->ncovers, 1));
	gs->cover_spec = palloc(sizeof(TapasStatSpec *) * Max(gs->ncovers, 1));
	gs->cover_grouped = palloc(sizeof(TapasGroupedCover *) * Max(gs->ncovers, 1));
	gs->cover_slot = palloc(sizeof(int) * Max(gs->ncovers, 1));
	foreach(lc, cs->custom_private)
	{
		List	   *t = lfirst(lc);

		gs->cover_att[i] = intVal(linitial(t));
		gs->cover_slot[i] = intVal(lfourth(t));
		gs->cover_spec[i] = tapas_statistic_spec(lsecond(t));
		gs->cover_relid[i] = gs->cover_spec[i]->relid;
		gs->cover_grouped[i] =
			tapas_grouped_create(gs->cover_spec[i], lthird(t),
								 node->ss.ss_ScanTupleSlot->tts_tupleDescriptor);
		i++;
	}
}

/* log this execution's cells: ledger first, then the inspection copy */
static int64
gate_log_cells(TapasGateState *gs, EState *estate)
{
	int64		first;

	tapas_ledger_check_capacity(gs->cells, gs->ncells);
	first = tapas_ledger_append(gs->cells, gs->ncells, estate->es_sourceText);
	tapas_capture_record(gs->cells, gs->ncells, gs->cell_group, gs->cell_aggs);
	return first;
}

/*
 * A parallel plan runs in parallel mode (ExecutePlan), which forbids what
 * the auditor needs (a subtransaction to read the truth, writes).  The
 * Agg is drained, so its workers are done: shut them down, and if no other
 * parallel query is running (plan.c plans statements where one could be
 * serially), leave parallel mode until the audit is done.  Returns how
 * many levels were left, for the caller to enter again.  If another
 * parallel context is active, parallel mode stays and whatever the audit
 * cannot do there raises: the query fails closed.
 */
static int
gate_leave_parallel_mode(TapasGateState *gs)
{
	int			levels = 0;

	if (!IsInParallelMode())
		return 0;
	ExecShutdownNode(outerPlanState(gs));
	if (ParallelContextActive())
		return 0;
	while (IsInParallelMode())
	{
		ExitParallelMode();
		levels++;
	}
	return levels;
}

/* 1-4: drain the Agg, build the cells, check k, audit, log */
static void
gate_drain(TapasGateState *gs)
{
	PlanState  *outer = outerPlanState(gs);
	EState	   *estate = gs->css.ss.ps.state;
	TupleDesc	desc = gs->readslot->tts_tupleDescriptor;
	bool		audited = tapas_session_is_audited();
	MemoryContext old;
	char	  **stats;
	Node	  **trees;
	Datum	   *values;
	bool	   *isnull;

	MemoryContextReset(gs->cxt);
	gs->cells = NULL;
	gs->cell_group = NULL;
	gs->cell_aggs = NULL;
	gs->group_no = 0;
	gs->ncells = gs->maxcells = 0;
	gs->incomplete = false;
	old = MemoryContextSwitchTo(gs->cxt);
	gs->store = tuplestore_begin_heap(false, false, work_mem);
	stats = palloc(sizeof(char *) * Max(gs->ncovers, 1));
	trees = palloc0(sizeof(Node *) * Max(gs->ncovers, 1));
	for (int i = 0; i < gs->ncovers; i++)
	{
		stats[i] = NULL;
		if (gs->cover_grouped[i] != NULL)
			tapas_grouped_reset(gs->cover_grouped[i]);
		else
			stats[i] = tapas_statistic_format(gs->cover_spec[i],
											  estate->es_param_list_info, NULL, NULL,
											  &trees[i]);
	}
	values = palloc(sizeof(Datum) * desc->natts);
	isnull = palloc(sizeof(bool) * desc->natts);
	gs->row_cover = palloc(sizeof(bytea *) * Max(gs->ncovers, 1));
	gs->row_keys = palloc(sizeof(int64 *) * Max(gs->ncovers, 1));
	gs->row_relid = palloc(sizeof(Oid) * Max(gs->ncovers, 1));
	MemoryContextSwitchTo(old);

	for (;;)
	{
		TupleTableSlot *slot;

		CHECK_FOR_INTERRUPTS();
		slot = ExecProcNode(outer);
		if (TupIsNull(slot))
			break;
		slot_getallattrs(slot);
		memcpy(values, slot->tts_values, sizeof(Datum) * desc->natts);
		memcpy(isnull, slot->tts_isnull, sizeof(bool) * desc->natts);
		gs->group_no++;
		gs->nrow = 0;
		if (audited && gate_group_dropped(gs, values, isnull))
			continue;
		for (int i = 0; i < gs->ncovers; i++)
		{
			int			a = gs->cover_att[i] - 1;

			/* a NULL statistic: the basis vanishes with these parameters */
			if (audited && !isnull[a] &&
				(stats[i] != NULL || gs->cover_grouped[i] != NULL))
				gate_add_cover(gs, i, stats[i], trees[i], DatumGetByteaPP(values[a]),
							   values, isnull);
		}
		/* after every statistic: one capture answers several */
		for (int i = 0; i < gs->ncovers; i++)
		{
			isnull[gs->cover_att[i] - 1] = true;
			values[gs->cover_att[i] - 1] = (Datum) 0;
		}
		old = MemoryContextSwitchTo(gs->cxt);
		tuplestore_putvalues(gs->store, desc, values, isnull);
		MemoryContextSwitchTo(old);
	}
	if (audited)
	{
		old = MemoryContextSwitchTo(gs->cxt);
		gate_grouped_cells(gs, estate->es_param_list_info);
		MemoryContextSwitchTo(old);
	}
	if (audited && gs->ncells > 0)
	{
		int			levels = gate_leave_parallel_mode(gs);

		PG_TRY();
		{
			TapasAuditPending *pending;

			gate_check_k(gs);
			tapas_audit_register_bases(gs->cells, gs->ncells);
			/* a sum of several sensitive bases: fail closed (decide_alerts.c) */
			if (gs->incomplete)
				tapas_audit_incomplete(gs->cells[0].relid);
			/* the auditor decides before anything is released or logged */
			pending = tapas_audit_cells(gs->cells, gs->ncells);
			tapas_audit_logged(pending, gate_log_cells(gs, estate));
		}
		PG_FINALLY();
		{
			while (levels-- > 0)
				EnterParallelMode();
		}
		PG_END_TRY();
	}
	gs->drained = true;
}

/*
 * ExecScan access method: next stored group in the (virtual) scan slot, or
 * an empty slot.  The projection expects a virtual slot and reads
 * tts_values directly, so the minimal tuple is deformed here; by-reference
 * values point into the store's current tuple, valid until the next fetch.
 */
static TupleTableSlot *
gate_next(ScanState *ss)
{
	TapasGateState *gs = (TapasGateState *) ss;
	TupleTableSlot *scan = ss->ss_ScanTupleSlot;
	int			natts = scan->tts_tupleDescriptor->natts;

	if (!gs->drained)
		gate_drain(gs);
	ExecClearTuple(scan);
	if (!tuplestore_gettupleslot(gs->store, true, false, gs->readslot))
		return scan;
	slot_getallattrs(gs->readslot);
	memcpy(scan->tts_values, gs->readslot->tts_values, natts * sizeof(Datum));
	memcpy(scan->tts_isnull, gs->readslot->tts_isnull, natts * sizeof(bool));
	return ExecStoreVirtualTuple(scan);
}

static bool
gate_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
gate_exec(CustomScanState *node)
{
	return ExecScan(&node->ss, gate_next, gate_recheck);
}

static void
gate_end(CustomScanState *node)
{
	TapasGateState *gs = (TapasGateState *) node;

	if (gs->store != NULL)
		tuplestore_end(gs->store);
	gs->store = NULL;
	ExecEndNode(outerPlanState(node));
}

/*
 * Same parameters: replay the stored groups (they were logged once).  New
 * parameters: a new set of answers, drained, checked and logged again.
 */
static void
gate_rescan(CustomScanState *node)
{
	TapasGateState *gs = (TapasGateState *) node;
	PlanState  *outer = outerPlanState(node);

	if (outer->chgParam != NULL || !gs->drained)
	{
		if (gs->store != NULL)
			tuplestore_end(gs->store);
		gs->store = NULL;
		gs->drained = false;
		if (outer->chgParam == NULL)
			ExecReScan(outer);
	}
	else
		tuplestore_rescan(gs->store);
}

static void
gate_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	TapasGateState *gs = (TapasGateState *) node;
	List	   *stats = NIL;
	List	   *rels = NIL;

	for (int i = 0; i < gs->ncovers; i++)
	{
		char	   *rel = get_rel_name(gs->cover_relid[i]);

		stats = lappend(stats, gs->cover_spec[i]->text);
		if (rel != NULL && !list_member(rels, makeString(rel)))
			rels = lappend(rels, makeString(rel));
	}
	if (rels != NIL)
		ExplainPropertyText("Protected Table", strVal(linitial(rels)), es);
	ExplainPropertyList("Statistics", stats, es);
}
