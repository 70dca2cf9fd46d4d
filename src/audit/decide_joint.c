/*-------------------------------------------------------------------------
 *
 * decide_joint.c
 *	  The auditor's driver for groups of related classes (relations.c):
 *	  the joint row-space test (joint.c), the one-positive candidates test
 *	  over the group's unknowns, and the candidates test and decoders on
 *	  the rows the group's classes give together (combined.c).  Called by
 *	  tapas_audit_cells (decide.c) once every class group has synced.
 *
 * IDENTIFICATION
 *	  src/audit/decide_joint.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/timestamp.h"

#include "audit/decide_int.h"
#include "policy/policy.h"

/* adds group g's cells to the cells of jt in *out */
static void
joint_cells_add(List **out, TapasJoint *jt, Group *g)
{
	JointCells *jc = NULL;
	ListCell   *lc2;
	int16		m;

	foreach(lc2, *out)
		if (((JointCells *) lfirst(lc2))->jt == jt)
			jc = lfirst(lc2);
	if (jc == NULL)
	{
		jc = palloc0(sizeof(JointCells));
		jc->jt = jt;
		jc->g.key = g->key;
		*out = lappend(*out, jc);
	}
	m = (int16) tapas_audit_joint_member(jt, g->key.cls);
	jc->g.cell_no = jc->g.cell_no
		? repalloc(jc->g.cell_no, sizeof(int) * (jc->g.n + g->n))
		: palloc(sizeof(int) * g->n);
	jc->member = jc->member
		? repalloc(jc->member, sizeof(int16) * (jc->g.n + g->n))
		: palloc(sizeof(int16) * g->n);
	for (int i = 0; i < g->n; i++)
	{
		jc->g.cell_no[jc->g.n] = g->cell_no[i];
		jc->member[jc->g.n++] = m;
	}
}

/* the groups of related classes the statement's cells touch */
List *
tapas_audit_joint_cells(List *groups)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, groups)
	{
		Group	   *g = lfirst(lc);
		List	   *jts = tapas_audit_joints_of(g->key.relid, g->key.cls);
		ListCell   *lj;

		/* a class of a cut component is a member of several groups */
		foreach(lj, jts)
			joint_cells_add(&out, lfirst(lj), g);
		list_free(jts);
	}
	return out;
}

/* every class of the group is 0/1 (the one-positive prior applies) */
static bool
joint_is_binary(const TapasJoint *jt)
{
	/* projected classes of a cut (patterns 0) are not candidates' rows */
	for (int i = 0; i < jt->ncls; i++)
		if (!tapas_regset_empty(&jt->patterns[i]) && !tapas_audit_class_is_binary(jt->cls[i]))
			return false;
	return true;
}

/*
 * The candidates test and the decoders on the attacker's combined rows of
 * a group of related 0/1 classes (combined.c): for each target (the base
 * the classes split, each class's value), the rows that identical covers
 * give it, as one 0/1 class's rows.  Their row space serves the atoms
 * only: the joint test decides what the cells determine.
 */
static void
audit_combined(TapasAuditPending *p, JointCells *jc, TapasAuditBatch *batch,
			   TimestampTz deadline, TimestampTz rs_deadline)
{
	TapasAuditBatch cb[TAPAS_COMBINED_MAX_TARGETS];
	int			nt = tapas_audit_combined_rows ? tapas_audit_combined(batch, jc->member, cb) : 0;

	for (int t = 0; t < nt; t++)
	{
		TapasAuditEntry *ce = cb[t].entry;
		TapasFinding *fd,
				   *fr;
		int			nr;
		const char *why = NULL;

		if (ce == NULL || cb[t].ncells == 0)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (tapas_audit_determined(&cb[t], &fd, rs_deadline) < 0)
		{
			tapas_audit_trial_end(ce);
			tapas_audit_incomplete_add(p, ce, ce->rs_broken
						   ? tapas_audit_broken_reason(ce, false)
						   : "the combined rows of related classes were not tested within the budget");
			continue;
		}
		nr = tapas_audit_candidates(&cb[t], &fr, tapas_mode == TAPAS_MODE_DENY);
		if (nr < 0)
			tapas_audit_incomplete_add(p, ce, "the logged zeros of the classes this statistic implies could not be read");
		else
			tapas_audit_pending_add(p, fr, nr, ce, &jc->g);
		nr = tapas_audit_reconstructed(&cb[t], &fr, deadline, &why);
		tapas_audit_pending_add(p, fr, nr, ce, &jc->g);
		tapas_audit_trial_end(ce);
		if (why != NULL)
			tapas_audit_incomplete_add(p, ce, why);
	}
}

/*
 * The joint row-space test of one group of related classes: its cells
 * of every class are rows of one system (joint.c); for 0/1 classes, the
 * one-positive candidates test over the same unknowns (candidates.c).  A group without 0/1
 * coordinates, or too wide, cannot be audited: incomplete.
 */
void
tapas_audit_joint_group(TapasAuditPending *p, JointCells *jc, const TapasCell *cells,
			int ncells, TimestampTz deadline)
{
	TapasAuditEntry *e = tapas_audit_joint_entry(jc->jt, tapas_audit_scope_roleid());
	TapasAuditBatch batch;
	TapasFinding *fd;
	int			nd;
	bool		complete;
	TimestampTz rs_deadline = Max(deadline,
								  TimestampTzPlusMilliseconds(GetCurrentTimestamp(), SYNC_FLOOR_MS));

	if (jc->jt->nregions < 1)
	{
		tapas_audit_incomplete_add(p, e, "related classes have no 0/1 coordinates for the joint row-space test");
		return;
	}
	complete = tapas_audit_build_batch(&batch, e, cells, ncells, jc->g.cell_no, jc->g.n,
									   rs_deadline);
	tapas_audit_alert_synced(e);
	nd = complete ? tapas_audit_joint_determined(&batch, jc->member, &fd, rs_deadline) : -1;
	if (nd < 0)
	{
		tapas_audit_trial_end(e);
		tapas_audit_incomplete_add(p, e, e->rs_broken
					   ? tapas_audit_broken_reason(e, true)
					   : "the joint audit state was not rebuilt from the ledger within the budget");
		return;
	}
	tapas_audit_pending_add(p, fd, nd, e, &jc->g);
	if (joint_is_binary(jc->jt))
	{
		TapasFinding *fr;
		int			nr = tapas_audit_joint_candidates(&batch, jc->member, &fr,
													  tapas_mode == TAPAS_MODE_DENY);

		tapas_audit_pending_add(p, fr, nr, e, &jc->g);
		audit_combined(p, jc, &batch, deadline, rs_deadline);
	}
	tapas_audit_trial_end(e);
	if (p->n > 0)
		p->relid = e->key.relid;
}
