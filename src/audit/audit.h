/*-------------------------------------------------------------------------
 *
 * audit.h
 *	  The auditor: decides whether the cells of one statement isolate a
 *	  record, before any of them is released or logged; alerts.
 *
 * The gate (capture/gate.c) calls, for an audited session:
 *
 *	p = tapas_audit_cells(cells, ncells);		before logging; may ERROR
 *	first = tapas_ledger_append(cells, ...);
 *	tapas_audit_logged(p, first);				after logging
 *
 * tapas_audit_cells takes the decision lock of each (table, audit scope)
 * the cells touch (released by tapas_audit_logged or at transaction end),
 * syncs the per-backend audit state of every (table, scope, basis-value
 * class) with the ledger, tests the
 * candidate cells (determined.c: row space; reconstructed.c: decoders on
 * the true data), and acts on tapas.mode: in deny mode it records a
 * 'denied' alert and raises ERRCODE_TAPAS_ISOLATION_DENIED, so nothing is
 * released or logged; otherwise it returns the pending findings, which
 * tapas_audit_logged turns into alerts tagged with the new log_ids (and a
 * WARNING in warn mode).  An error between the two calls (e.g. ledger
 * full) leaves no trace: the row-space trials are rolled back at once and
 * the cache picks the logged rows up from the ledger next time.
 *
 * Alerts (alerts.c) live in shared memory and in $PGDATA/pg_tapas/
 * alerts.log, written and fsync'd outside any transaction, so they survive
 * ROLLBACK, disconnect and restart.
 *
 * IDENTIFICATION
 *	  src/audit/audit.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_AUDIT_H
#define TAPAS_AUDIT_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "ledger/ledger.h"
#include "policy/policy.h"

/* tapas.mode: what the auditor does when a query isolates a record */
typedef enum TapasMode
{
	TAPAS_MODE_OFF,				/* no isolation audit (capture and k still apply) */
	TAPAS_MODE_LOG,				/* record an alert */
	TAPAS_MODE_WARN,			/* record an alert and warn the analyst */
	TAPAS_MODE_DENY				/* refuse the query; its answer is not logged */
} TapasMode;

/* decide_gucs.c */
extern int	tapas_mode;

/* ---- alerts.c ---- */

#define TAPAS_ALERT_MAX_LOG_IDS		64	/* log_ids kept per alert (newest) */
#define TAPAS_ALERT_STAT_LEN		256 /* statistic text kept (truncated) */
#define TAPAS_ALERT_METHOD_LEN		32
#define TAPAS_ALERT_DETAIL_LEN		256
#define TAPAS_ALERT_MAX_RECORDS		32	/* record keys listed per alert */
#define TAPAS_ALERT_V1_SIZE			1104	/* an alert of tapas 0.2: up to nrecords */

typedef enum TapasAlertKind
{
	TAPAS_ALERT_DETERMINED = 1, /* e_j in the row space of A */
	TAPAS_ALERT_RECONSTRUCTED = 2,	/* a decoder recovers v_j from (A, b) */
	TAPAS_ALERT_INCOMPLETE = 3	/* a check the cells need could not complete
								 * (record_key 0; the reason in detail) */
} TapasAlertKind;

typedef enum TapasAlertAction
{
	TAPAS_ALERT_LOGGED = 1,		/* mode log: answer sent */
	TAPAS_ALERT_WARNED = 2,		/* mode warn: answer sent with a WARNING */
	TAPAS_ALERT_DENIED = 3		/* mode deny: query refused, not logged */
} TapasAlertAction;

/* One alert, as kept in shared memory and in the file (fixed size). */
typedef struct TapasAlert
{
	int64		alert_id;		/* 1, 2, ... (assigned by tapas_alert_raise) */
	TimestampTz raised_at;
	Oid			dbid;			/* database of the session */
	Oid			roleid;			/* session user */
	int32		pid;
	Oid			relid;			/* protected table */
	int64		record_key;		/* key value of the isolated record */
	uint8		kind;			/* TapasAlertKind */
	uint8		action;			/* TapasAlertAction */
	uint8		notified;		/* NOTIFY sent (shared memory only) */
	uint8		stmt_head;		/* first alert of its statement: the one NOTIFY names */
	int32		nlog_ids;		/* entries used in log_ids */
	int64		log_ids[TAPAS_ALERT_MAX_LOG_IDS];	/* queries involved, ascending */
	char		statistic[TAPAS_ALERT_STAT_LEN];
	char		method[TAPAS_ALERT_METHOD_LEN];
	char		detail[TAPAS_ALERT_DETAIL_LEN];
	/* tapas 0.2 alerts end here (TAPAS_ALERT_V1_SIZE bytes) */
	int32		nrecords;		/* records this alert isolates (all, even past the list) */
	int32		nkeys;			/* entries used in record_keys */
	int64		record_keys[TAPAS_ALERT_MAX_RECORDS];	/* the first ones, ascending */
} TapasAlert;

/*
 * Records the findings of one statement (one TapasAlert each, record_key
 * set): they are merged into one alert per (table, kind), which lists its
 * records (record_keys, capped, and nrecords), the union of their log_ids
 * and their statistics and methods; each merged alert gets alert_id,
 * raised_at, dbid and pid, is appended to the durable file (fsync'd) and
 * the shared ring, and gets one server-log line; the statement gets one
 * NOTIFY tapas_alert naming its first alert.  On return alerts[i].alert_id
 * is the id of the alert finding i went into.  Safe inside an
 * aborted-to-be transaction: nothing here is transactional.
 */
extern void tapas_alert_raise(TapasAlert *alerts, int nalerts);

/* Copies of the alerts in shared memory, oldest first (palloc'd). */
extern TapasAlert *tapas_alert_list(int *nalerts);

extern const char *tapas_alert_kind_name(int kind);
extern const char *tapas_alert_action_name(int action);

/* the secret prime of the row-space test (drawn at server start) */
extern uint64 tapas_audit_prime(void);

extern void tapas_alerts_shmem_install(void);

/* state_shared.c: row-space states shared with new backends */
extern void tapas_audit_shared_install(void);
extern void tapas_audit_shared_define_gucs(void);
extern void tapas_alerts_define_gucs(void);

/* ---- decide.c: the gate's entry points ---- */

typedef struct TapasAuditPending TapasAuditPending;

extern TapasAuditPending *tapas_audit_cells(const TapasCell *cells, int ncells);
extern void tapas_audit_logged(TapasAuditPending *p, int64 first_log_id);
/* decide_alerts.c */
extern void tapas_audit_incomplete(Oid relid);
/* truth.c: remembers the canonical basis trees of cells for the truth */
extern void tapas_audit_register_bases(const TapasCell *cells, int ncells);
/* decide_gucs.c */
extern void tapas_audit_define_gucs(void);

/* budget of the checks, per statement (tapas.audit_budget_ms) */
extern int	tapas_audit_budget_ms;

/* tapas.audit_scope: whose answers are combined in one joint system */
typedef enum TapasAuditScope
{
	TAPAS_SCOPE_ALL,			/* answers released to any audited role */
	TAPAS_SCOPE_ROLE			/* per session user */
} TapasAuditScope;
extern int	tapas_audit_scope;

/* tapas.min_candidates: anonymity floor of the attacker's candidate set */
extern int	tapas_min_candidates;

/* ---- determined.c / reconstructed.c, shared with the SQL tapas.audit ---- */

/* One finding: record (dense index and key) isolated by kind/method. */
typedef struct TapasFinding
{
	int64		index;			/* dense record index */
	int64		key;			/* key value */
	int			kind;			/* TapasAlertKind */
	const char *method;			/* static string */
	char		detail[TAPAS_ALERT_DETAIL_LEN];
} TapasFinding;

/*
 * Per-(table, scope, class) audit state, cached per backend
 * (determined.c).  Opaque outside audit/.
 */
typedef struct TapasAuditEntry TapasAuditEntry;

/* sensitive_atoms.c: the atoms a basis value's canonical form assigns */
extern List *tapas_basis_atoms(Node *phi);
extern bool tapas_atom_not_null(Node *atom, Oid relid);

#endif							/* TAPAS_AUDIT_H */
