/*-------------------------------------------------------------------------
 *
 * decide.c
 *	  The auditor's driver: runs the checks on one statement's candidate
 *	  cells and acts on tapas.mode.
 *
 * Called by the gate (capture/gate.c) after the k threshold and before the
 * ledger append, when no row has left the gate:
 *
 *	1. the joint system: per protected table and audit scope
 *	   (tapas.audit_scope: every audited role, or the session user), the
 *	   cells of every statistic are grouped by basis-value class (truth.c:
 *	   statistics with identical truth vectors are one unknown per record),
 *	   one audit entry per (table, scope, class) (determined.c);
 *	   statistics whose per-row value reads no sensitive column are not
 *	   audited (their values are quasi-identifiers the analyst may know);
 *	2. serialised: the statement takes an exclusive lock per (database,
 *	   table, scope) before it syncs with the ledger and holds it until
 *	   tapas_audit_logged, after the ledger append; so two statements of one
 *	   scope on one table decide one after another, each against every row
 *	   the other logged;
 *	3. per group: sync with the ledger (rows of other sessions that
 *	   determine a record are alerted now: nobody tested them against this
 *	   state), row-space trial (simulatable), then the data-aware decoders;
 *	   each group gets a share of the statement's budget
 *	   tapas.audit_budget_ms (what is left, divided by the groups left), so
 *	   one slow cell cannot spend the budget of the others;
 *	4. fail closed: a check a group needs that cannot complete (budget,
 *	   rank limit, a truth that cannot be read, more positives than the
 *	   decoders cover, a rebuild from the ledger not finished in time)
 *	   makes the statement incomplete: deny mode records an 'incomplete'
 *	   alert and raises TP004 (the reason in the server log only), the
 *	   other modes record the alert and answer;
 *	5. findings (records not reported before):
 *	   deny: one alert per record with action 'denied', then ERROR
 *	   TP001 naming the table only; the cells are neither released nor
 *	   logged, and the row-space state is as before the statement;
 *	   log/warn: returned as pending; after the ledger append,
 *	   tapas_audit_logged raises the alerts with the new log_ids (and, in
 *	   warn mode, a WARNING naming the table and the alert ids).
 *
 * Groups of related classes are audited by decide_joint.c; findings and
 * checks that could not complete become alerts in decide_alerts.c; the
 * auditor's settings (tapas.mode and the others) are in decide_gucs.c.
 *
 * Memory: findings and batches live in the caller's (per-execution)
 * context; only the entries are cached (TopMemoryContext child).
 *
 * IDENTIFICATION
 *	  src/audit/decide.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "audit/decide_int.h"
#include "policy/policy.h"

/* field4 of tapas's advisory-style lock tags (SQL advisory locks use 1, 2) */
#define TAPAS_LOCK_FIELD4	0x7461

Oid
tapas_audit_scope_roleid(void)
{
	return tapas_audit_scope == TAPAS_SCOPE_ROLE ? GetSessionUserId() : InvalidOid;
}

static int
cmp_oid(const void *a, const void *b)
{
	Oid			x = *(const Oid *) a,
				y = *(const Oid *) b;

	return x < y ? -1 : x > y;
}

/*
 * Takes the decision lock of every table of the cells, in OID order (no
 * deadlock between two statements over the same tables), and checks each
 * table's classes against its change counter.  Released by
 * tapas_audit_logged, or by the transaction's end on an error.
 */
static void
lock_tables(TapasAuditPending *p, const TapasCell *cells, int ncells)
{
	Oid		   *rels = palloc(sizeof(Oid) * ncells);
	int			nrels = 0;

	for (int i = 0; i < ncells; i++)
		rels[nrels++] = cells[i].relid;
	qsort(rels, nrels, sizeof(Oid), cmp_oid);
	p->locks = palloc(sizeof(LOCKTAG) * nrels);
	for (int i = 0; i < nrels; i++)
	{
		if (i > 0 && rels[i] == rels[i - 1])
			continue;
		SET_LOCKTAG_ADVISORY(p->locks[p->nlocks], MyDatabaseId, rels[i],
							 tapas_audit_scope_roleid(), TAPAS_LOCK_FIELD4);
		(void) LockAcquire(&p->locks[p->nlocks], ExclusiveLock, false, false);
		p->nlocks++;
		tapas_audit_classes_check(rels[i]);
	}
	for (int i = 0; i < ncells; i++)
		tapas_audit_class_refresh(cells[i].relid, cells[i].statistic);
	pfree(rels);
}

static void
unlock_tables(TapasAuditPending *p)
{
	for (int i = 0; i < p->nlocks; i++)
		LockRelease(&p->locks[i], ExclusiveLock, false);
	p->nlocks = 0;
}

/*
 * Refuses the statement when one of its classes is new and the table or
 * the session user has no room for it (tapas_audit_class_room), after the
 * groups' syncs, before any decision is acted on: the refusal depends on
 * the classes only.
 */
static void
check_class_room(List *groups)
{
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, groups)
	{
		Group	   *g = lfirst(lc);
		int			nnew = 0;

		/* the statement's earlier new classes on the same table */
		foreach(lc2, groups)
		{
			Group	   *h = lfirst(lc2);

			if (h == g)
				break;
			nnew += h->key.relid == g->key.relid && !h->key.cls->logged &&
				!h->key.cls->is_one;
		}
		tapas_audit_class_room(g->key.relid, g->key.cls, GetSessionUserId(), nnew);
	}
}

/* sensitive cells grouped by (table, class), in order of first appearance */
static List *
group_cells(const TapasCell *cells, int ncells)
{
	HASHCTL		ctl;
	HTAB	   *h;
	List	   *volatile groups = NIL;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(GroupKey);
	ctl.entrysize = sizeof(Group);
	ctl.hcxt = CurrentMemoryContext;
	h = hash_create("tapas audit groups", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	/* the truths of the statement's new statistics: one scan per table */
	PG_TRY();
	{
		tapas_audit_truth_preread(cells, ncells);
		for (int i = 0; i < ncells; i++)
		{
			GroupKey	k;
			Group	   *g;
			bool		found;

			memset(&k, 0, sizeof(k));
			k.relid = cells[i].relid;
			k.cls = tapas_audit_class(cells[i].relid, cells[i].statistic);
			if (k.cls == NULL)
				continue;		/* reads no sensitive column */
			g = hash_search(h, &k, HASH_ENTER, &found);
			if (!found)
			{
				g->no_grid = g->grid_reported = false;
				g->n = 0;
				g->max = 8;
				g->cell_no = palloc(sizeof(int) * g->max);
				groups = lappend(groups, g);
			}
			if (g->n == g->max)
			{
				g->max *= 2;
				g->cell_no = repalloc(g->cell_no, sizeof(int) * g->max);
			}
			g->cell_no[g->n++] = i;
		}
	}
	PG_FINALLY();
	{
		/* read under this statement's snapshot: never kept for another */
		tapas_audit_truth_pending_clear();
	}
	PG_END_TRY();
	return groups;
}

/* runs the checks for one group; adds its findings to p */
static void
audit_group(TapasAuditPending *p, Group *g, const TapasCell *cells, int ncells,
			TimestampTz deadline)
{
	TapasAuditEntry *e;
	TapasAuditBatch batch;
	TapasFinding *fd,
			   *fr;
	int			nd,
				nr;
	const char *why = NULL;
	bool		complete;

	/*
	 * The row-space test is cheap and always needed: it gets at least
	 * SYNC_FLOOR_MS to take up rows from the ledger, whatever the budget; a
	 * rebuild that needs longer is continued by the next statement.
	 */
	TimestampTz rs_deadline = Max(deadline,
								  TimestampTzPlusMilliseconds(GetCurrentTimestamp(), SYNC_FLOOR_MS));

	TimestampTz t0 = GetCurrentTimestamp();

	/*
	 * A multiple of count(*) on every record (count(health) without NULLs):
	 * its answer over Q is c |Q|, public, so its cells isolate nothing and
	 * no decoder may "reconstruct" a value everybody has.
	 */
	if (g->key.cls != NULL && g->key.cls->is_one)
		return;
	e = tapas_audit_entry(g->key.cls, tapas_audit_scope_roleid());
	complete = tapas_audit_build_batch(&batch, e, cells, ncells, g->cell_no, g->n,
									   rs_deadline);
	/*
	 * The sync is not the decoders' time: a rebuild from the ledger (the
	 * backend's first statement on the table) takes seconds on its own
	 * floor, and spent the share, so that an attack the decoders decide
	 * in a fraction of it failed closed (TP004) at every reconnect.
	 */
	deadline += GetCurrentTimestamp() - t0;
	tapas_audit_alert_synced(e);
	nd = complete ? tapas_audit_determined(&batch, &fd, rs_deadline) : -1;
	if (nd < 0)
	{
		tapas_audit_incomplete_add(p, e, e->rs_broken
					   ? tapas_audit_broken_reason(e, false)
					   : "the audit state was not rebuilt from the ledger within the budget");
		return;
	}
	tapas_audit_pending_add(p, fd, nd, e, g);
	if (tapas_audit_truth_unknown(e->key.relid, &why))
	{
		/* a class that may be this one's unknown is missing from the system */
		tapas_audit_incomplete_add(p, e, "the truth of a logged statistic cannot be read");
		why = NULL;
	}
	if (!tapas_audit_class_is_public(e->cls))
	{
		nr = tapas_audit_candidates(&batch, &fr, tapas_mode == TAPAS_MODE_DENY);
		if (nr < 0)
			tapas_audit_incomplete_add(p, e, "the logged zeros of the classes this statistic implies could not be read");
		else
			tapas_audit_pending_add(p, fr, nr, e, g);
	}
	nr = tapas_audit_reconstructed(&batch, &fr, deadline, &why);
	/* kept open: committed at the next sync if the statement is logged as tried */
	tapas_audit_trial_park(&batch);
	p->parked = p->parked ? repalloc(p->parked, sizeof(TapasAuditEntry *) * (p->nparked + 1))
		: palloc(sizeof(TapasAuditEntry *));
	p->parked[p->nparked++] = e;
	tapas_audit_pending_add(p, fr, nr, e, g);
	if (why != NULL)
		tapas_audit_incomplete_add(p, e, why);
	if (p->n > 0)
		p->relid = e->key.relid;
}

/* deny mode: alerts for the findings and TP001 */
static void
deny_isolated(TapasAuditPending *p)
{
	TapasAlert *alerts = palloc(sizeof(TapasAlert) * p->n);

	for (int i = 0; i < p->n; i++)
		tapas_audit_fill_alert(&alerts[i], &p->items[i], TAPAS_ALERT_DENIED, 0);
	tapas_alert_raise(alerts, p->n);
	ereport(ERROR,
			(errcode(ERRCODE_TAPAS_ISOLATION_DENIED),
			 errmsg("query refused: its answer would isolate a record of protected table \"%s\"",
					get_rel_name(p->relid)),
			 errdetail("Together with earlier answers, this answer would let its values be derived for an individual record."),
			 errdetail_log("tapas alerts %lld..%lld: record key %lld %s by %s.",
						   (long long) alerts[0].alert_id,
						   (long long) alerts[p->n - 1].alert_id,
						   (long long) alerts[0].record_key,
						   tapas_alert_kind_name(alerts[0].kind), alerts[0].method),
			 errhint("The refusal has been recorded for the administrator.")));
}

static void deny_incomplete(TapasAuditPending *p);

/*
 * Groups with a statistic off the domain grid
 * (tapas_audit_statistic_no_grid) are incomplete.  Looked at before the
 * checks (a new statistic) and again after the groups' syncs (a logged
 * row classed there may have taken the grid from a class), and in deny
 * mode the statement is refused at once, so that no decision taken on the
 * records' values (an identity, a relation, an implication by
 * coincidence) can come first and tell it.
 */
static void
check_grid(TapasAuditPending *p, List *groups, const TapasCell *cells)
{
	ListCell   *lc;
	bool		added = false;

	foreach(lc, groups)
	{
		Group	   *g = lfirst(lc);

		for (int i = 0; i < g->n && !g->no_grid; i++)
			g->no_grid = tapas_audit_statistic_no_grid(cells[g->cell_no[i]].relid,
													   cells[g->cell_no[i]].statistic);
		if (g->no_grid && !g->grid_reported)
		{
			tapas_audit_incomplete_add(p, tapas_audit_entry(g->key.cls, tapas_audit_scope_roleid()),
									   "the statistic's class has no domain grid (too many columns or cuts of its columns): its identity with the other classes would come from the records' values");
			g->grid_reported = added = true;
		}
	}
	if (tapas_mode == TAPAS_MODE_DENY && added)
		deny_incomplete(p);
}

/* deny mode: an 'incomplete' alert and TP004, the reason in the server log only */
static void
deny_incomplete(TapasAuditPending *p)
{
	TapasAlert *alerts = tapas_audit_incomplete_alerts(p, TAPAS_ALERT_DENIED);

	tapas_alert_raise(alerts, p->nincomplete);
	ereport(ERROR,
			(errcode(ERRCODE_TAPAS_AUDIT_INCOMPLETE),
			 errmsg("query refused: tapas could not complete the audit of its answer on protected table \"%s\"",
					get_rel_name(p->relid)),
			 errdetail_log("tapas alert %lld: %s (statistic \"%s\").",
						   (long long) alerts[0].alert_id, alerts[0].detail,
						   alerts[0].statistic),
			 errhint("Try again later, or ask the administrator to review the audit limits.")));
}

TapasAuditPending *
tapas_audit_cells(const TapasCell *cells, int ncells)
{
	TapasAuditPending *p;
	List	   *groups;
	ListCell   *lc;
	TimestampTz deadline;
	int			left;

	if (tapas_mode == TAPAS_MODE_OFF || ncells == 0 || !tapas_session_is_audited())
		return NULL;
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), tapas_audit_budget_ms);
	p = palloc0(sizeof(TapasAuditPending));
	lock_tables(p, cells, ncells);
	groups = group_cells(cells, ncells);
	check_grid(p, groups, cells);
	left = list_length(groups);
	/* batches over the same keys share their indices within this call (batch.c) */
	tapas_audit_batch_memo_clear();
	PG_TRY();
	{
		foreach(lc, groups)
		{
			TimestampTz now = GetCurrentTimestamp();
			TimestampTz share = now + Max(0, deadline - now) / left--;

			CHECK_FOR_INTERRUPTS();
			audit_group(p, lfirst(lc), cells, ncells, share);
		}
		/* their syncs have classed every logged row: room for the new */
		check_class_room(groups);
		check_grid(p, groups, cells);

		/*
		 * Then the groups of related classes, once every group's sync has
		 * classed the statistics logged on its table (relations.c sees
		 * them all).
		 */
		foreach(lc, tapas_audit_joint_cells(groups))
		{
			CHECK_FOR_INTERRUPTS();
			tapas_audit_joint_group(p, lfirst(lc), cells, ncells, deadline);
		}
	}
	PG_FINALLY();
	{
		tapas_audit_batch_memo_clear();
	}
	PG_END_TRY();
	if (tapas_mode == TAPAS_MODE_DENY && p->n > 0)
		deny_isolated(p);
	if (tapas_mode == TAPAS_MODE_DENY && p->nincomplete > 0)
		deny_incomplete(p);
	return p;
}

void
tapas_audit_logged(TapasAuditPending *p, int64 first_log_id)
{
	TapasAlert *alerts;
	int			action;

	if (p == NULL)
		return;
	for (int i = 0; i < p->nparked; i++)
		tapas_audit_trial_logged(p->parked[i], first_log_id);
	unlock_tables(p);
	action = tapas_mode == TAPAS_MODE_WARN ? TAPAS_ALERT_WARNED : TAPAS_ALERT_LOGGED;
	if (p->nincomplete > 0)
	{
		alerts = tapas_audit_incomplete_alerts(p, action);
		tapas_alert_raise(alerts, p->nincomplete);
	}
	if (p->n == 0)
		return;
	alerts = palloc(sizeof(TapasAlert) * p->n);
	for (int i = 0; i < p->n; i++)
	{
		PendingFinding *pf = &p->items[i];
		int64		idx;

		tapas_audit_fill_alert(&alerts[i], pf, action, first_log_id);
		/* the record's real dense index, now that the ledger assigned it */
		(void) tapas_ledger_key_indices(pf->entry->key.relid, &pf->f.key, 1, &idx);
		if (idx >= 0)
			roaring_bitmap_add(pf->entry->reported, (uint32) idx);
	}
	tapas_alert_raise(alerts, p->n);
	if (action == TAPAS_ALERT_WARNED)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("this answer isolates a record of protected table \"%s\"",
						get_rel_name(p->relid)),
				 errdetail("tapas raised alert %lld%s for the administrator.",
						   (long long) alerts[0].alert_id, p->n > 1 ? " and more" : "")));
}
