/*-------------------------------------------------------------------------
 *
 * audit_sql.c
 *	  SQL functions of the auditor: the alerts (tapas.alerts_raw behind
 *	  the view tapas.alerts) and the on-demand audit tapas.audit(tbl).
 *
 * Both are admin only: each checks tapas_require_admin() itself, on top
 * of the REVOKE/GRANT of the install script.  Results are materialised
 * (InitMaterializedSRF) in the caller's context.
 *
 * tapas.audit(tbl) re-runs the full audit of every (class, scope role) the
 * ledger holds for tbl, from scratch (the backend's cached state for those
 * keys is dropped and rebuilt from the ledger): every record determined by
 * the logged rows, every record a decoder reconstructs from the logged
 * answers (no time budget), and, for a 0/1 class, the one positive when
 * the logged answers leave fewer than tapas.min_candidates candidates for
 * it (candidates.c, as log mode decides it).  It reports; it raises no alert.
 *
 * IDENTIFICATION
 *	  src/audit/audit_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "funcapi.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "policy/progress_pg.h"
#include "audit/audit_int.h"
#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_alerts);
PG_FUNCTION_INFO_V1(tapas_sql_audit);

Datum
tapas_sql_alerts(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TapasAlert *alerts;
	int			n;

	tapas_require_admin("read the tapas alerts");
	InitMaterializedSRF(fcinfo, 0);
	alerts = tapas_alert_list(&n);
	for (int i = 0; i < n; i++)
	{
		TapasAlert *a = &alerts[i];
		Datum		values[15];
		bool		nulls[15];
		Datum	   *ids = palloc(sizeof(Datum) * Max(a->nlog_ids, 1));
		Datum	   *keys = palloc(sizeof(Datum) * Max(a->nkeys, 1));

		memset(nulls, 0, sizeof(nulls));
		for (int k = 0; k < a->nlog_ids; k++)
			ids[k] = Int64GetDatum(a->log_ids[k]);
		values[0] = Int64GetDatum(a->alert_id);
		values[1] = TimestampTzGetDatum(a->raised_at);
		values[2] = ObjectIdGetDatum(a->roleid);
		values[3] = Int32GetDatum(a->pid);
		values[4] = ObjectIdGetDatum(a->relid);
		values[5] = CStringGetTextDatum(a->statistic);
		values[6] = Int64GetDatum(a->record_key);
		values[7] = CStringGetTextDatum(tapas_alert_kind_name(a->kind));
		values[8] = CStringGetTextDatum(a->method);
		values[9] = CStringGetTextDatum(tapas_alert_action_name(a->action));
		values[10] = PointerGetDatum(construct_array(ids, a->nlog_ids, INT8OID, 8,
													 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		values[11] = CStringGetTextDatum(a->detail);
		values[12] = ObjectIdGetDatum(a->dbid);
		for (int k = 0; k < a->nkeys; k++)
			keys[k] = Int64GetDatum(a->record_keys[k]);
		values[13] = PointerGetDatum(construct_array(keys, a->nkeys, INT8OID, 8,
													 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		values[14] = Int32GetDatum(a->nrecords);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* one result row of tapas.audit */
static void
audit_row(ReturnSetInfo *rsinfo, TapasAuditEntry *e, const TapasFinding *f)
{
	Datum		values[6];
	bool		nulls[6];

	memset(nulls, 0, sizeof(nulls));
	{
		char	   *rn = OidIsValid(e->key.roleid)
			? GetUserNameFromId(e->key.roleid, true) : "(all)";

		values[0] = CStringGetTextDatum(rn ? rn : "?");
	}
	values[1] = CStringGetTextDatum(e->key.statistic);
	values[2] = Int64GetDatum(f->key);
	values[3] = CStringGetTextDatum(tapas_alert_kind_name(f->kind));
	values[4] = CStringGetTextDatum(f->method);
	values[5] = CStringGetTextDatum(f->detail);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* the full audit of one (class, scope role), from scratch */
static void
audit_one(ReturnSetInfo *rsinfo, TapasClass *cls, Oid roleid, TapasProgressNotice *pn,
		  const char *step_rowspace, const char *step_decoders)
{
	TapasAuditEntry *e = tapas_audit_entry(cls, roleid);
	TapasAuditBatch batch;
	TapasFinding *fr;
	TapasFinding *fc = NULL;
	TapasFinding f;
	const uint32 *det = NULL;
	size_t		ndet = 0;
	const char *why = NULL;
	int			nr;
	int			nc = 0;

	tapas_audit_entry_drop(e);
	e = tapas_audit_entry(cls, roleid);
	pn->step = step_rowspace;
	(void) tapas_audit_sync(e, DT_NOEND);
	roaring_bitmap_clear(e->sync_new);
	if (e->rs != NULL && !e->rs_broken)
		det = tapas_rowspace_determined(e->rs, &ndet);
	for (size_t i = 0; i < ndet; i++)
	{
		memset(&f, 0, sizeof(f));
		f.index = det[i];
		f.key = e->keys[det[i]];
		f.kind = TAPAS_ALERT_DETERMINED;
		f.method = "rowspace";
		snprintf(f.detail, sizeof(f.detail),
				 "e_j lies in the row space of the %d logged rows (rank %u)",
				 e->nrows, tapas_rowspace_rank(e->rs));
		audit_row(rsinfo, e, &f);
	}
	/* the decoders, on the logged rows alone, every record eligible */
	CHECK_FOR_INTERRUPTS();
	pn->step = step_decoders;
	tapas_progress_notice(pn, -1.0);
	memset(&batch, 0, sizeof(batch));
	batch.entry = e;
	batch.offsets = palloc0(sizeof(size_t));
	batch.n_total = e->nkeys;
	batch.keys = e->keys;
	roaring_bitmap_clear(e->reported);
	nr = tapas_audit_reconstructed(&batch, &fr, DT_NOEND, &why);
	for (int i = 0; i < nr; i++)
		audit_row(rsinfo, e, &fr[i]);
	/* the one-positive candidates test, as log mode runs it (candidates.c) */
	if (!tapas_audit_class_is_public(cls))
		nc = tapas_audit_candidates_logged(&batch, &fc);
	for (int i = 0; i < nc; i++)
		audit_row(rsinfo, e, &fc[i]);
	/* what this backend reports from now on starts from the full audit */
	for (size_t i = 0; i < ndet; i++)
		roaring_bitmap_add(e->reported, det[i]);
	for (int i = 0; i < nr; i++)
		roaring_bitmap_add(e->reported, (uint32) fr[i].index);
	for (int i = 0; i < nc; i++)
		roaring_bitmap_add(e->reported, (uint32) fc[i].index);
}

/* one (class, scope role) of the ledger's rows of a table */
typedef struct AuditJob
{
	TapasClass *cls;
	Oid			roleid;
	const char *statistic;
} AuditJob;

/* the distinct (class, scope role) pairs of the snapshot, in log order */
static List *
audit_jobs(Oid relid, TapasLedgerSnapshot *snap)
{
	List	   *jobs = NIL;

	for (int i = 0; i < snap->nrows; i++)
	{
		TapasClass *cls = tapas_audit_class_logged(relid, snap->statistics[i], snap->roles[i]);
		Oid			roleid = tapas_audit_scope == TAPAS_SCOPE_ROLE ? snap->roles[i] : InvalidOid;
		ListCell   *lc;
		bool		seen = false;
		AuditJob   *j;

		if ((i & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		if (cls == NULL)
			continue;			/* not sensitive */
		foreach(lc, jobs)
		{
			AuditJob   *o = lfirst(lc);

			seen |= o->cls == cls && o->roleid == roleid;
		}
		if (seen)
			continue;
		j = palloc(sizeof(AuditJob));
		j->cls = cls;
		j->roleid = roleid;
		j->statistic = pstrdup(snap->statistics[i]);
		jobs = lappend(jobs, j);
	}
	return jobs;
}

/*
 * tapas.audit(tbl): every (class, scope role) in turn.  Progress: a
 * NOTICE at most every tapas.progress_interval, also from inside one
 * class (the row-space sync between its chunks of rows, the decoders
 * from their kernels' callbacks, through the active reporter), and the
 * same callbacks stop the kernels on a cancel or statement_timeout.
 */
Datum
tapas_sql_audit(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	TapasLedgerFilter filter;
	TapasLedgerSnapshot *snap;
	List	   *jobs;
	TapasProgressNotice pn;

	tapas_require_admin("run the tapas audit");
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table must not be NULL")));
	relid = PG_GETARG_OID(0);
	if (get_rel_name(relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	InitMaterializedSRF(fcinfo, 0);
	tapas_progress_notice_init(&pn, "tapas.audit", "reading the ledger");
	memset(&filter, 0, sizeof(filter));
	filter.relid = relid;
	snap = tapas_ledger_snapshot(&filter);
	tapas_audit_classes_check(relid);
	jobs = audit_jobs(relid, snap);
	tapas_ledger_snapshot_free(snap);
	PG_TRY();
	{
		ListCell   *lc;

		tapas_progress_activate(&pn);
		foreach(lc, jobs)
		{
			AuditJob   *j = lfirst(lc);
			int			k = foreach_current_index(lc) + 1;
			int			n = list_length(jobs);

			CHECK_FOR_INTERRUPTS();
			/* looked up again: a class pointer is not kept across audits */
			audit_one(rsinfo, tapas_audit_class(relid, j->statistic), j->roleid, &pn,
					  psprintf("statistic %d of %d (%s), row space", k, n, j->statistic),
					  psprintf("statistic %d of %d (%s), decoders", k, n, j->statistic));
		}
	}
	PG_FINALLY();
	{
		tapas_progress_activate(NULL);
	}
	PG_END_TRY();
	return (Datum) 0;
}
