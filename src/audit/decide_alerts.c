/*-------------------------------------------------------------------------
 *
 * decide_alerts.c
 *	  The auditor's findings and failed checks, collected per statement and
 *	  turned into alerts.
 *
 * The driver (decide.c) collects, per statement, the records the checks
 * isolate (tapas_audit_pending_add: one per entry and record) and the
 * checks that could not complete (tapas_audit_incomplete_add); once the
 * statement is refused or logged, each becomes one alert
 * (tapas_audit_fill_alert, tapas_audit_incomplete_alerts).  Records that
 * rows of other sessions determined are alerted at sync
 * (tapas_audit_alert_synced), and a cell that sums several sensitive basis
 * values fails closed here (tapas_audit_incomplete).
 *
 * Memory: the pending findings and the alerts live in the caller's
 * (per-execution) context.
 *
 * IDENTIFICATION
 *	  src/audit/decide_alerts.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/lsyscache.h"

#include "audit/decide_int.h"
#include "policy/policy.h"

void
tapas_audit_pending_add(TapasAuditPending *p, TapasFinding *f, int nf, TapasAuditEntry *e,
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

void
tapas_audit_incomplete_add(TapasAuditPending *p, TapasAuditEntry *e, const char *reason)
{
	p->incomplete = p->incomplete
		? repalloc(p->incomplete, sizeof(Incomplete) * (p->nincomplete + 1))
		: palloc(sizeof(Incomplete));
	p->incomplete[p->nincomplete].entry = e;
	strlcpy(p->incomplete[p->nincomplete].reason, reason, TAPAS_ALERT_DETAIL_LEN);
	p->nincomplete++;
	p->relid = e->key.relid;
}

/*
 * The alert of a finding: log_ids are the entry's newest logged rows and,
 * once logged, the statement's own cells of that group (first_log_id >= 1).
 */
void
tapas_audit_fill_alert(TapasAlert *a, PendingFinding *pf, int action, int64 first_log_id)
{
	TapasAuditEntry *e = pf->entry;
	int			own = first_log_id > 0 ? Min(pf->ncells, TAPAS_ALERT_MAX_LOG_IDS / 2) : 0;
	int			old = Min(e->nrows, TAPAS_ALERT_MAX_LOG_IDS - own);
	int			k = 0;

	memset(a, 0, sizeof(*a));
	a->roleid = GetSessionUserId();
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

/* the 'incomplete' alerts of p, with action (palloc'd) */
TapasAlert *
tapas_audit_incomplete_alerts(TapasAuditPending *p, int action)
{
	TapasAlert *alerts = palloc0(sizeof(TapasAlert) * Max(p->nincomplete, 1));

	for (int i = 0; i < p->nincomplete; i++)
	{
		TapasAlert *a = &alerts[i];
		TapasAuditEntry *e = p->incomplete[i].entry;

		a->roleid = GetSessionUserId();
		a->relid = e->key.relid;
		a->record_key = 0;
		a->kind = TAPAS_ALERT_INCOMPLETE;
		a->action = action;
		strlcpy(a->statistic, e->key.statistic, sizeof(a->statistic));
		strlcpy(a->method, "audit", sizeof(a->method));
		strlcpy(a->detail, p->incomplete[i].reason, sizeof(a->detail));
	}
	return alerts;
}

/* true if an alert on (table, record) exists already for this scope */
static bool
already_alerted(Oid relid, int64 key, TapasAlert *list, int nlist)
{
	for (int i = 0; i < nlist; i++)
		if (list[i].relid == relid && list[i].record_key == key &&
			list[i].dbid == MyDatabaseId &&
			list[i].kind != TAPAS_ALERT_INCOMPLETE &&
			(tapas_audit_scope == TAPAS_SCOPE_ALL || list[i].roleid == GetSessionUserId()))
			return true;
	return false;
}

/*
 * Records made determined by rows that other sessions logged (taken over
 * at sync): alerted now, action 'logged' (their answers were released),
 * unless an alert on the record exists.
 */
void
tapas_audit_alert_synced(TapasAuditEntry *e)
{
	roaring_uint32_iterator_t *it;
	TapasAlert *list;
	TapasAlert *alerts;
	int			nlist;
	int			n = 0;
	uint64		card = roaring_bitmap_get_cardinality(e->sync_new);

	if (card == 0)
		return;
	list = tapas_alert_list(&nlist);
	alerts = palloc0(sizeof(TapasAlert) * card);
	it = roaring_create_iterator(e->sync_new);
	for (; it->has_value; roaring_advance_uint32_iterator(it))
	{
		int64		key = e->keys[it->current_value];
		TapasAlert *a = &alerts[n];
		int			k = 0;

		if (already_alerted(e->key.relid, key, list, nlist))
			continue;
		a->roleid = GetSessionUserId();
		a->relid = e->key.relid;
		a->record_key = key;
		a->kind = TAPAS_ALERT_DETERMINED;
		a->action = TAPAS_ALERT_LOGGED;
		for (int i = Max(0, e->nrows - TAPAS_ALERT_MAX_LOG_IDS); i < e->nrows; i++)
			a->log_ids[k++] = e->log_ids[i];
		a->nlog_ids = k;
		strlcpy(a->statistic, e->key.statistic, sizeof(a->statistic));
		strlcpy(a->method, "rowspace_sync", sizeof(a->method));
		snprintf(a->detail, sizeof(a->detail),
				 "e_j lies in the row space of the %d logged rows; the rows that determine it were logged by other sessions",
				 e->nrows);
		n++;
	}
	roaring_free_uint32_iterator(it);
	roaring_bitmap_clear(e->sync_new);
	if (n > 0)
		tapas_alert_raise(alerts, n);
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
