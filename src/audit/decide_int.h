/*-------------------------------------------------------------------------
 *
 * decide_int.h
 *	  What the auditor's driver (decide.c) shares with its alerts
 *	  (decide_alerts.c), its settings (decide_gucs.c) and the audit of
 *	  groups of related classes (decide_joint.c): the pending findings of a
 *	  statement and the grouping of its cells.
 *
 * IDENTIFICATION
 *	  src/audit/decide_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DECIDE_INT_H
#define TAPAS_DECIDE_INT_H

#include "storage/lock.h"

#include "audit/audit_int.h"

/*
 * The row-space sync's time floor per group, whatever tapas.audit_budget_ms.
 * A statement takes over only the few rows logged since the last one, in
 * far less; the floor matters when a backend rebuilds its state from the
 * ledger (its first statement on the table, after a reconnect): 1,000
 * attack rows over 100,000 records take seconds.  Doing that in one
 * statement (cancellable) costs one slow answer; a short floor made each of
 * the next several statements fail closed (TP004) after a second of
 * rebuilding, the reconnect denial of service.
 */
#define SYNC_FLOOR_MS		10000

/* a finding with where it came from */
typedef struct PendingFinding
{
	TapasFinding f;
	TapasAuditEntry *entry;
	int			ncells;			/* the group's cells in the statement */
	int		   *cell_no;
} PendingFinding;

/* a check that could not complete */
typedef struct Incomplete
{
	TapasAuditEntry *entry;
	char		reason[TAPAS_ALERT_DETAIL_LEN];
} Incomplete;

struct TapasAuditPending
{
	int			n;
	PendingFinding *items;
	Oid			relid;			/* a table, for the WARNING */
	int			nincomplete;
	Incomplete *incomplete;
	int			nlocks;
	LOCKTAG    *locks;			/* held until tapas_audit_logged */
	int			nparked;
	TapasAuditEntry **parked;	/* entries whose trial is parked (parked.c) */
};

/* grouping key of the statement's cells: (table, class) */
typedef struct GroupKey
{
	Oid			relid;
	TapasClass *cls;
} GroupKey;

typedef struct Group
{
	GroupKey	key;
	int			n;
	int			max;
	int		   *cell_no;
	bool		no_grid;		/* a cell's statistic is off the domain grid */
	bool		grid_reported;	/* and that is an 'incomplete' of the statement */
} Group;

/* the statement's cells of one group of related classes */
typedef struct JointCells
{
	TapasJoint *jt;
	Group		g;				/* cell_no of the cells of the group's classes */
	int16	   *member;			/* [g.n] class of each cell in jt->cls */
} JointCells;

/* decide.c */
extern Oid	tapas_audit_scope_roleid(void);

/* decide_alerts.c */
extern void tapas_audit_pending_add(TapasAuditPending *p, TapasFinding *f, int nf,
									TapasAuditEntry *e, Group *g);
extern void tapas_audit_incomplete_add(TapasAuditPending *p, TapasAuditEntry *e,
									   const char *reason);
extern void tapas_audit_fill_alert(TapasAlert *a, PendingFinding *pf, int action,
								   int64 first_log_id);
extern TapasAlert *tapas_audit_incomplete_alerts(TapasAuditPending *p, int action);
extern void tapas_audit_alert_synced(TapasAuditEntry *e);

/* decide_joint.c */
extern List *tapas_audit_joint_cells(List *groups);
extern void tapas_audit_joint_group(TapasAuditPending *p, JointCells *jc,
									const TapasCell *cells, int ncells,
									TimestampTz deadline);

#endif							/* TAPAS_DECIDE_INT_H */
