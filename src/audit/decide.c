/*-------------------------------------------------------------------------
 *
 * decide.c
 *	  The auditor's driver: runs the checks on one statement's candidate
 *	  cells and acts on tapas.mode.
 *
 * Called by the gate (capture/gate.c) after the k threshold and before the
 * ledger append, when no row has left the gate:
 *
 *	1. group the cells by (table, statistic); the audit state is per
 *	   (table, statistic, session user) (determined.c);
 *	2. statistics whose per-row value reads no sensitive column are not
 *	   audited (their values are quasi-identifiers the analyst may know);
 *	3. per group: sync with the ledger, row-space trial (always: cheap and
 *	   simulatable), then the data-aware decoders when their trigger
 *	   fires, until the statement's budget tapas.audit_budget_ms is spent
 *	   (later expensive checks are skipped, with one LOG line);
 *	4. findings (records not reported before):
 *	   deny: one alert per record with action 'denied', then ERROR
 *	   TP001 naming the table only; the cells are neither released nor
 *	   logged, and the row-space state is as before the statement;
 *	   log/warn: returned as pending; after the ledger append,
 *	   tapas_audit_logged raises the alerts with the new log_ids (and, in
 *	   warn mode, a WARNING naming the table and the alert ids).
 *	If the row-space test cannot run (rank limit), deny mode refuses the
 *	statement (fail closed) and the other modes log it.
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
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "policy/policy.h"

int			tapas_audit_budget_ms = 300;

/* a finding with where it came from */
typedef struct PendingFinding
{
	TapasFinding f;
	TapasAuditEntry *entry;
	int			ncells;			/* the group's cells in the statement */
	int		   *cell_no;
} PendingFinding;

struct TapasAuditPending
{
	int			n;
	PendingFinding *items;
	Oid			relid;			/* a table, for the WARNING */
};

/* grouping key of the statement's cells */
typedef struct GroupKey
{
	Oid			relid;
	char		statistic[TAPAS_LEDGER_MAX_STATISTIC + 1];
} GroupKey;

typedef struct Group
{
	GroupKey	key;
	int			n;
	int			max;
	int		   *cell_no;
} Group;

/* cells grouped by (table, statistic), in order of first appearance */
static List *
group_cells(const TapasCell *cells, int ncells)
{
	HASHCTL		ctl;
	HTAB	   *h;
	List	   *groups = NIL;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(GroupKey);
	ctl.entrysize = sizeof(Group);
	ctl.hcxt = CurrentMemoryContext;
	h = hash_create("tapas audit groups", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (int i = 0; i < ncells; i++)
	{
		GroupKey	k;
		Group	   *g;
		bool		found;

		memset(&k, 0, sizeof(k));
		k.relid = cells[i].relid;
		strlcpy(k.statistic, cells[i].statistic, sizeof(k.statistic));
		g = hash_search(h, &k, HASH_ENTER, &found);
		if (!found)
		{
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
	return groups;
}

static void
pending_add(TapasAuditPending *p, TapasFinding *f, int nf, TapasAuditEntry *e,
			Group *g)
{
	for (int i = 0; i < nf; i++)
	{
		bool		dup = false;

		for (int j = 0; j < p->n; j++)
			if (p->items[j].entry == e && p->items[j].f.index == f[i].index)
				dup = true;
		if (dup)
			continue;
		p->items = p->items ? repalloc(p->items, sizeof(PendingFinding) * (p->n + 1))
			: palloc(sizeof(PendingFinding));
		p->items[p->n].f = f[i];
		p->items[p->n].entry = e;
		p->items[p->n].ncells = g->n;
		p->items[p->n].cell_no = g->cell_no;
		p->n++;
	}
}

/*
 * The alert of a finding: log_ids are the entry's newest logged rows and,
 * once logged, the statement's own cells of that group (first_log_id >= 1).
 */
static void
fill_alert(TapasAlert *a, PendingFinding *pf, int action, int64 first_log_id)
{
	TapasAuditEntry *e = pf->entry;
	int			own = first_log_id > 0 ? Min(pf->ncells, TAPAS_ALERT_MAX_LOG_IDS / 2) : 0;
	int			old = Min(e->nrows, TAPAS_ALERT_MAX_LOG_IDS - own);
	int			k = 0;

	memset(a, 0, sizeof(*a));
	a->roleid = e->key.roleid;
	a->relid = e->key.relid;
	a->record_key = pf->f.key;
	a->kind = pf->f.kind;
	a->action = action;
	for (int i = e->nrows - old; i < e->nrows; i++)
		a->log_ids[k++] = e->log_ids[i];
	for (int i = 0; i < own; i++)
		a->log_ids[k++] = first_log_id + pf->cell_no[pf->ncells - own + i];
	a->nlog_ids = k;
	strlcpy(a->statistic, e->key.statistic, sizeof(a->statistic));
	strlcpy(a->method, pf->f.method, sizeof(a->method));
	snprintf(a->detail, sizeof(a->detail), "%s%s", pf->f.detail,
			 action == TAPAS_ALERT_DENIED ? "; the query was refused and not logged" : "");
}

/* runs the checks for one group; adds its findings to p */
static void
audit_group(TapasAuditPending *p, Group *g, const TapasCell *cells, int ncells,
			Oid roleid, TimestampTz deadline, bool *skipped)
{
	TapasAuditEntry *e = tapas_audit_entry(g->key.relid, roleid, g->key.statistic);
	TapasAuditBatch batch;
	TapasFinding *fd,
			   *fr;
	int			nd,
				nr;

	if (!e->sensitive)
		return;
	tapas_audit_build_batch(&batch, e, cells, ncells, g->cell_no, g->n);
	nd = tapas_audit_determined(&batch, &fd);
	if (nd < 0)
	{
		if (tapas_mode == TAPAS_MODE_DENY)
			ereport(ERROR,
					(errcode(ERRCODE_TAPAS_ISOLATION_DENIED),
					 errmsg("query refused: tapas can no longer audit answers on protected table \"%s\"",
							get_rel_name(e->key.relid)),
					 errdetail("The audit state for this statistic reached its size limit."),
					 errhint("Ask the administrator to review the ledger (tapas.reset).")));
		nd = 0;
	}
	pending_add(p, fd, nd, e, g);
	nr = tapas_audit_reconstructed(&batch, &fr, deadline, skipped);
	tapas_audit_trial_end(e);
	pending_add(p, fr, nr, e, g);
	if (p->n > 0)
		p->relid = e->key.relid;
}

TapasAuditPending *
tapas_audit_cells(const TapasCell *cells, int ncells)
{
	TapasAuditPending *p;
	List	   *groups;
	ListCell   *lc;
	Oid			roleid = GetSessionUserId();
	TimestampTz deadline;
	bool		skipped = false;

	if (tapas_mode == TAPAS_MODE_OFF || ncells == 0 || !tapas_session_is_audited())
		return NULL;
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), tapas_audit_budget_ms);
	p = palloc0(sizeof(TapasAuditPending));
	groups = group_cells(cells, ncells);
	foreach(lc, groups)
	{
		CHECK_FOR_INTERRUPTS();
		audit_group(p, lfirst(lc), cells, ncells, roleid, deadline, &skipped);
	}
	if (skipped)
		ereport(LOG,
				(errmsg("tapas: audit budget of %d ms spent; expensive reconstruction checks skipped for this statement",
						tapas_audit_budget_ms),
				 errhidestmt(true)));
	if (p->n == 0)
		return NULL;
	if (tapas_mode == TAPAS_MODE_DENY)
	{
		TapasAlert *alerts = palloc(sizeof(TapasAlert) * p->n);

		for (int i = 0; i < p->n; i++)
			fill_alert(&alerts[i], &p->items[i], TAPAS_ALERT_DENIED, 0);
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
	return p;
}

void
tapas_audit_logged(TapasAuditPending *p, int64 first_log_id)
{
	TapasAlert *alerts;
	int			action;

	if (p == NULL || p->n == 0)
		return;
	action = tapas_mode == TAPAS_MODE_WARN ? TAPAS_ALERT_WARNED : TAPAS_ALERT_LOGGED;
	alerts = palloc(sizeof(TapasAlert) * p->n);
	for (int i = 0; i < p->n; i++)
	{
		PendingFinding *pf = &p->items[i];
		int64		idx;

		fill_alert(&alerts[i], pf, action, first_log_id);
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

int			tapas_mode = TAPAS_MODE_DENY;

static const struct config_enum_entry mode_options[] = {
	{"off", TAPAS_MODE_OFF, false},
	{"log", TAPAS_MODE_LOG, false},
	{"warn", TAPAS_MODE_WARN, false},
	{"deny", TAPAS_MODE_DENY, false},
	{NULL, 0, false}
};

void
tapas_audit_define_gucs(void)
{
	DefineCustomEnumVariable("tapas.mode",
							 "What tapas does when an answer isolates a record.",
							 "off: no isolation audit; log: record an alert; "
							 "warn: also warn the analyst; deny: refuse the query.",
							 &tapas_mode,
							 TAPAS_MODE_DENY,
							 mode_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("tapas.audit_budget_ms",
							"Time per statement after which the expensive reconstruction checks are skipped.",
							"The row-space test always runs; skipped checks are noted in the server log.",
							&tapas_audit_budget_ms,
							300, 0, 600000,
							PGC_SUSET, GUC_UNIT_MS,
							NULL, NULL, NULL);
	tapas_alerts_define_gucs();
}

/*
 * Fails closed on a cell that sums two or more sensitive basis values
 * (capture/cellform.c): the per-statistic audit cannot decide what their
 * sum reveals, so deny mode refuses the statement (TP004) and log/warn
 * raise an "incomplete" alert; each term is then logged as its own cell,
 * more than the analyst learned, never less.
 */
void
tapas_audit_incomplete(Oid relid)
{
	TapasAlert	a;

	if (tapas_mode == TAPAS_MODE_OFF || !tapas_session_is_audited())
		return;
	if (tapas_mode == TAPAS_MODE_DENY)
		ereport(ERROR,
				(errcode(ERRCODE_TAPAS_AUDIT_INCOMPLETE),
				 errmsg("query refused: tapas cannot audit an aggregate over protected table \"%s\" that sums several sensitive values",
						get_rel_name(relid)),
				 errhint("Write one aggregate per sensitive value, e.g. sum(CASE WHEN c THEN x END) and sum(CASE WHEN NOT c THEN y END), or move conditions on other columns to WHERE or GROUP BY.")));
	memset(&a, 0, sizeof(a));
	a.roleid = GetSessionUserId();
	a.relid = relid;
	a.kind = TAPAS_ALERT_INCOMPLETE;
	a.action = tapas_mode == TAPAS_MODE_WARN ? TAPAS_ALERT_WARNED : TAPAS_ALERT_LOGGED;
	strlcpy(a.method, "normal form", sizeof(a.method));
	strlcpy(a.statistic, "(several sensitive bases)", sizeof(a.statistic));
	strlcpy(a.detail, "a cell sums several sensitive basis values; its terms are logged as separate cells",
			sizeof(a.detail));
	tapas_alert_raise(&a, 1);
	if (tapas_mode == TAPAS_MODE_WARN)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("tapas cannot fully audit this answer on protected table \"%s\"",
						get_rel_name(relid)),
				 errdetail("tapas raised alert %lld for the administrator.",
						   (long long) a.alert_id)));
}
