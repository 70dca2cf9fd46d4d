/*-------------------------------------------------------------------------
 *
 * parked.c
 *	  Keeping a statement's row-space trial when the statement is logged
 *	  exactly as it was tried, instead of rolling it back and adding the
 *	  same rows again at the next sync.
 *
 * determined.c tries the candidate rows of a statement on top of the
 * synced row space and used to roll the trial back always: the rows of an
 * answered statement came back through the next sync, with the indices
 * the ledger really assigned.  So every answered row was added twice, and
 * for a GROUP BY of 1,000 disjoint cells the second time costs as much as
 * the first (1,000 independent rows).
 *
 * Here the trial stays open (parked) after the checks; tapas_audit_logged
 * tells the entry the statement's first log_id; and the next sync commits
 * the trial if the ledger holds exactly what was tried:
 *
 *	1. the table's dense index still starts with the keys of the trial
 *	   (checked by the sync as always) and continues with the trial's new
 *	   keys in the order the trial numbered them, so every provisional
 *	   index names the key the ledger gave it;
 *	2. the first rows of the entry's class since the last sync are the
 *	   statement's cells, in order (log_id = first log_id + the cell's
 *	   place in the statement), so no other row of the class was logged
 *	   before them (a session of another audit scope, tapas.ledger_record).
 *
 * The covers of those rows are the cells' keys through the same index, so
 * the committed trial is the state the re-adding sync would build (up to
 * the random choice of pivots, which no answer depends on).  In every
 * other case (the statement refused or failed before it was logged, a
 * rebuild, any mismatch) the trial is rolled back and the sync adds what
 * the ledger holds, as before.
 *
 * IDENTIFICATION
 *	  src/audit/parked.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "audit/audit_int.h"

/* forgets the parked trial's bookkeeping (not the trial itself) */
static void
parked_clear(TapasAuditEntry *e)
{
	if (e->parked_cell_no)
		pfree(e->parked_cell_no);
	if (e->parked_newkeys)
		pfree(e->parked_newkeys);
	e->parked = false;
	e->parked_first_log_id = 0;
	e->parked_ncells = 0;
	e->parked_cell_no = NULL;
	e->parked_nkeys = 0;
	e->parked_nnew = 0;
	e->parked_newkeys = NULL;
}

/*
 * Parks the open trial of batch (tapas_audit_determined left it open):
 * what it tried is kept for tapas_audit_parked_adopt.  Without an open
 * trial there is nothing to keep.
 */
void
tapas_audit_trial_park(TapasAuditBatch *batch)
{
	TapasAuditEntry *e = batch->entry;
	MemoryContext old;

	parked_clear(e);
	if (!e->trial_open || e->rs == NULL)
		return;
	old = MemoryContextSwitchTo(tapas_audit_cxt());
	e->parked_ncells = batch->ncells;
	e->parked_cell_no = palloc(sizeof(int) * Max(batch->ncells, 1));
	memcpy(e->parked_cell_no, batch->cell_no, sizeof(int) * batch->ncells);
	e->parked_nkeys = e->nkeys;
	e->parked_nnew = batch->n_total - e->nkeys;
	e->parked_newkeys = MemoryContextAllocHuge(CurrentMemoryContext,
											   sizeof(int64) * Max(e->parked_nnew, 1));
	memcpy(e->parked_newkeys, batch->keys + e->nkeys, sizeof(int64) * e->parked_nnew);
	MemoryContextSwitchTo(old);
	e->parked = true;
}

/* the statement of e's parked trial was logged from first_log_id on */
void
tapas_audit_trial_logged(TapasAuditEntry *e, int64 first_log_id)
{
	if (e->parked && e->trial_open)
		e->parked_first_log_id = first_log_id;
}

/* whether snap holds exactly the parked trial (see the banner) */
static bool
parked_matches(TapasAuditEntry *e, const TapasLedgerSnapshot *snap,
			   const bool *in_class)
{
	int			j = 0;

	if (!e->parked || !e->trial_open || e->rs == NULL || e->parked_first_log_id <= 0 ||
		e->parked_nkeys != e->nkeys ||
		snap->nrecords < e->parked_nkeys + e->parked_nnew ||
		(e->parked_nnew > 0 &&	/* else snap->keys may be NULL (unchanged) */
		 memcmp(snap->keys + e->parked_nkeys, e->parked_newkeys,
				sizeof(int64) * e->parked_nnew) != 0))
		return false;
	for (int i = 0; i < snap->nrows && j < e->parked_ncells; i++)
	{
		if (!in_class[i])
			continue;
		if (snap->log_ids[i] != e->parked_first_log_id + e->parked_cell_no[j])
			return false;
		j++;
	}
	return j == e->parked_ncells;
}

/*
 * Called by the sync with the rows logged since e->synced (snap; in_class[i]
 * tells whether row i is of e's class) before it copies them: commits the parked trial if snap holds exactly what it
 * tried and returns the number of its rows (the first rows of e's class in
 * snap, now in the row space), else rolls any open trial back and returns
 * 0.
 */
int
tapas_audit_parked_adopt(TapasAuditEntry *e, const TapasLedgerSnapshot *snap,
						 const bool *in_class)
{
	int			adopted = 0;

	if (parked_matches(e, snap, in_class))
	{
		tapas_status st = tapas_rowspace_commit(e->rs);

		if (st != TAPAS_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("row-space audit commit failed (status %d)", (int) st)));
		e->trial_open = false;
		adopted = e->parked_ncells;
	}
	else
		tapas_audit_trial_end(e);
	parked_clear(e);
	return adopted;
}

/* drops a parked trial without looking at the ledger (reset, rebuild, drop) */
void
tapas_audit_parked_drop(TapasAuditEntry *e)
{
	tapas_audit_trial_end(e);
	parked_clear(e);
}
