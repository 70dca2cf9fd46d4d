/*-------------------------------------------------------------------------
 *
 * determined.c
 *	  Per-backend audit state per (table, audit scope, basis-value class)
 *	  and the row-space test: which records would the candidate cells
 *	  determine?
 *
 * Record j is determined for a statistic when e_j lies in the row space of
 * the logged matrix A (Chin and Ozsoyoglu, IEEE TSE 1982): its value
 * follows from the answers by linear algebra, whatever the data.  The test
 * reads only A, never an answer, so refusing on it leaks nothing.  The
 * kernel (recon/rowspace.c) works over atoms modulo the secret prime drawn
 * at server start (alerts.c); all backends use the same prime.
 *
 * Sync.  An entry takes the rows logged on its table since its last log_id
 * from the ledger (tapas_ledger_snapshot with after_log_id; every role
 * under tapas.audit_scope = all, else the session user), keeps those whose
 * statistic belongs to its class (truth.c), copies their covers and
 * answers, and adds them to the row space a few rows at a time until the
 * deadline (cancellable; a rebuild not finished resumes at the next
 * statement, which meanwhile fails closed).  Records that rows taken over
 * this way make determined go to sync_new and are alerted (decide_alerts.c).  The row space is created over
 * dense indices 0..cap_n-1; when the ledger's dense index (or a batch's new
 * keys) outgrows cap_n it is rebuilt with room to spare from the copied
 * rows.
 *
 * Trial.  The candidate cells (with provisional indices n, n+1, ... for
 * keys the ledger has not seen; batch.c) are tried on top of the synced
 * state, the decoders look at the atoms under the trial, and the trial is
 * parked (parked.c): the next sync commits it if the statement was logged
 * exactly as tried, and otherwise rolls it back and takes the rows from
 * the ledger with the indices it really assigned.  So an error anywhere
 * between the decision and the ledger append leaves the state exactly as
 * logged.
 *
 * tapas.reset(tbl) renumbers the table's dense index; a sync that finds
 * the index shorter or changed drops its rows and starts over.
 *
 * Concurrency: decisions of one (table, scope) are serialised by decide.c's
 * lock, so a statement syncs every row logged before it.
 *
 * IDENTIFICATION
 *	  src/audit/determined.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "util/rng.h"
#include "recon/binmat.h"
#include "recon/sparse_search.h"
#include "policy/policy.h"
#include "policy/progress_pg.h"
#include "policy/status_error.h"

/* the row's member of e (0 for a class entry), or -1: not e's row */
static int
entry_row_member(const TapasAuditEntry *e, const TapasClass *cls)
{
	if (e->joint == NULL)
		return cls == e->cls ? 0 : -1;
	return cls == NULL ? -1 : tapas_audit_joint_member(e->joint, cls);
}

/*
 * rows from..to-1 of e as (ids, offsets) for the kernel (palloc'd); a row
 * of a group of related classes is its cover times the regions of its
 * class, or one row per region in split coordinates (joint.c).  Returns
 * the number of kernel rows.
 */
static size_t
rows_as_ids(TapasAuditEntry *e, int from, int to, uint32 **ids, size_t **offsets)
{
	size_t		total = 0,
				nrows = 0;

	for (int i = from; i < to; i++)
	{
		total += roaring_bitmap_get_cardinality(e->rows[i]) *
			(e->joint ? tapas_regset_count(&e->joint->regions[e->row_member[i]]) : 1);
		nrows += e->joint ? tapas_audit_joint_nrows(e->joint, e->row_member[i]) : 1;
	}
	*offsets = palloc(sizeof(size_t) * (nrows + 1));
	*ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(total, 1));
	total = 0;
	nrows = 0;
	for (int i = from; i < to; i++)
	{
		size_t		card = roaring_bitmap_get_cardinality(e->rows[i]);

		(*offsets)[nrows++] = total;
		roaring_bitmap_to_uint32_array(e->rows[i], *ids + total);
		if (e->joint)
			total = tapas_audit_joint_cell_rows(e->joint, e->row_member[i], e->cap_n,
												*ids, total, card, *offsets, &nrows);
		else
			total += card;
	}
	(*offsets)[nrows] = total;
	return nrows;
}

/* kernel progress: stop on a pending cancel or termination (the caller then raises it) */
static int
interrupt_progress(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

static const tapas_progress_t interrupt_poll = {interrupt_progress, NULL};

#define SYNC_CHUNK_ROWS	8		/* rows added between two deadline checks */

/*
 * Adds the copied rows not yet in the row space (rs_rows..nrows-1), a few
 * at a time, until the deadline.  Records they make determined that were
 * not reported go to sync_new (decide_alerts.c alerts them: they were logged by
 * another session, so nobody tested them against this state).  Returns
 * false when rows remain (deadline) or the rank limit was reached.
 */
static bool
rowspace_add_rows(TapasAuditEntry *e, TimestampTz deadline)
{
	uint32	   *ids;
	size_t	   *offsets,
				nrows;
	const uint32 *newly;
	size_t		count;
	tapas_status st;
	TimestampTz t0;

	if (e->rs == NULL || e->rs_broken)
		return false;
	while (e->rs_rows < e->nrows)
	{
		int			to = Min(e->nrows, e->rs_rows + SYNC_CHUNK_ROWS);

		CHECK_FOR_INTERRUPTS();
		tapas_progress_active_notice((double) e->rs_rows / e->nrows);	/* in tapas.audit */
		if (deadline != DT_NOEND && GetCurrentTimestamp() > deadline)
			return false;
		nrows = rows_as_ids(e, e->rs_rows, to, &ids, &offsets);
		t0 = GetCurrentTimestamp();
		st = tapas_rowspace_add(e->rs, ids, offsets, nrows, &interrupt_poll,
								&newly, &count);
		e->shared_work_us += GetCurrentTimestamp() - t0;	/* state_shared.c */
		pfree(ids);
		pfree(offsets);
		if (st == TAPAS_ECANCELED)
		{
			CHECK_FOR_INTERRUPTS();
			return false;		/* not a cancel after all: try again next time */
		}
		if (st != TAPAS_OK)
		{
			e->rs_broken = true;
			ereport(LOG_SERVER_ONLY,
					(errmsg("tapas: row-space audit of table \"%s\" stopped for statistic \"%s\": %s",
							get_rel_name(e->key.relid), e->key.statistic,
							st == TAPAS_ELIMIT ? "rank limit reached" : "kernel failure")));
			return false;
		}
		for (size_t i = 0; i < count; i++)
		{
			uint32		j = newly[i] % e->cap_n;	/* the record of a region's unknown */

			if (!roaring_bitmap_contains(e->reported, j))
			{
				roaring_bitmap_add(e->reported, j);
				roaring_bitmap_add(e->sync_new, j);
			}
		}
		e->rs_rows = to;
		if (!tapas_audit_memory_ok(e))
			return false;
	}
	return true;
}

/*
 * Takes a kernel of e's first rows copied from another backend
 * (state_shared.c) instead of an empty one, if there is one over at least
 * need records: the records it shows determined that e has not reported
 * go to sync_new, as rowspace_add_rows would put them.  False if none.
 */
static bool
rowspace_from_shared(TapasAuditEntry *e, int64 need)
{
	int			nrows;
	tapas_rowspace_t *rs = tapas_audit_shared_copy(e, need, &nrows);
	const uint32 *det;
	size_t		ndet;

	if (rs == NULL)
		return false;
	e->rs = rs;
	e->cap_n = tapas_rowspace_n(rs);
	e->rs_broken = false;
	e->rs_rows = nrows;
	e->shared_rows = nrows;
	e->shared_work_us = 0;
	det = tapas_rowspace_determined(rs, &ndet);
	for (size_t i = 0; i < ndet; i++)
		if (!roaring_bitmap_contains(e->reported, det[i]))
		{
			roaring_bitmap_add(e->reported, det[i]);
			roaring_bitmap_add(e->sync_new, det[i]);
		}
	(void) tapas_audit_memory_ok(e);	/* else rs freed, rs_broken */
	return true;
}

/* a group found too wide under a smaller tapas.audit_joint_max_unknowns: retried */
static bool
joint_bound_raised(const TapasAuditEntry *e)
{
	return e->over_unknowns > 0 && tapas_audit_joint_max_unknowns > e->over_unknowns;
}

/* makes room for dense indices < need, rebuilding the row space if needed */
static void
ensure_capacity(TapasAuditEntry *e, int64 need)
{
	const char *reason = NULL;
	uint32		cap;
	tapas_status st;

	if ((e->rs != NULL || e->rs_broken) && e->cap_n > 0 && need <= (int64) e->cap_n &&
		!joint_bound_raised(e))
		return;
	if (e->over_memory)
		return;					/* stays closed until the bound is raised */
	if (need >= (int64) PG_INT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("protected table \"%s\" has too many records for the audit",
						get_rel_name(e->key.relid))));
	cap = (uint32) Max(1024, need + need / 4 + 64);
	tapas_rowspace_free(e->rs);
	e->rs = NULL;
	/*
	 * The joint system's bound on unknowns applies to groups of related
	 * classes only: a class's own row space has one unknown per record and
	 * is bounded by tapas.audit_memory (a 10^7-row table needs 1.25 10^7).
	 */
	if (e->joint != NULL &&
		(int64) cap * tapas_audit_virtual_width(e) > tapas_audit_joint_max_unknowns)
	{
		/* a group of related classes too wide to audit: fail closed */
		e->cap_n = cap;
		e->rs_broken = true;
		e->rs_rows = 0;
		e->over_unknowns = tapas_audit_joint_max_unknowns;
		ereport(LOG_SERVER_ONLY,
				(errmsg("tapas: joint audit of table \"%s\" needs %lld unknowns for \"%s\", more than its limit",
						get_rel_name(e->key.relid),
						(long long) cap * tapas_audit_virtual_width(e), e->key.statistic)));
		return;
	}
	if (e->joint == NULL && rowspace_from_shared(e, need))
		return;
	e->rs = tapas_audit_rowspace_create(cap * tapas_audit_virtual_width(e), &interrupt_poll,
										&st, &reason);
	if (e->rs == NULL && st == TAPAS_ECANCELED)
	{
		CHECK_FOR_INTERRUPTS();
		/* not a cancel after all: no row space yet, the checks fail closed */
		e->cap_n = 0;
		e->rs_rows = 0;
		return;
	}
	if (e->rs == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not create the row-space audit state: %s",
						reason ? reason : "out of memory")));
	e->cap_n = cap;
	e->rs_broken = false;
	e->over_unknowns = 0;
	e->rs_rows = 0;				/* every copied row is added again (rowspace_add_rows) */
	(void) tapas_audit_memory_ok(e);	/* else rs freed, rs_broken */
}

/* forgets the rows taken from the ledger (after tapas.reset of the table) */
static void
entry_forget_rows(TapasAuditEntry *e)
{
	tapas_audit_parked_drop(e);
	tapas_audit_combined_free(e);
	for (int i = 0; i < e->nrows; i++)
		tapas_audit_cover_release(e->rows[i]);
	e->nrows = 0;
	e->rows_bytes = 0;
	e->over_memory = false;
	e->over_unknowns = 0;
	e->rs_rows = 0;
	e->synced = 0;
	e->shared_rows = 0;
	e->shared_work_us = 0;
	tapas_rowspace_free(e->rs);
	e->rs = NULL;
	e->cap_n = 0;
	e->rs_broken = false;
	tapas_binmat_free(e->A);
	e->A = NULL;
	e->A_cap = 0;
	e->A_rows = 0;
	tapas_binmat_colbytes_free(e->P);
	e->P = NULL;
	e->P_rows = 0;
	tapas_sparse_hashes_free(e->H);
	e->H = NULL;
	for (int i = 0; i < e->design_tags_max; i++)
		e->design_tags[i].log_id = -1;
	roaring_bitmap_clear(e->reported);
	roaring_bitmap_clear(e->sync_new);
	tapas_audit_candidates_reset(e);
	if (e->keys)
		pfree(e->keys);
	e->keys = NULL;
	e->nkeys = 0;
}

/*
 * Each row of snap's member index in e (palloc'd): 0 for e's class, the
 * class's index in a group of related classes, -1 for a row e does not
 * take.  A statement's
 * rows repeat a few statistic texts, so the last few texts seen and their
 * classes are kept: a string compare instead of a hash of the text per row.
 */
#define CLASS_MEMO	4

static int16 *
rows_member(TapasAuditEntry *e, const TapasLedgerSnapshot *snap)
{
	int16	   *member = palloc(sizeof(int16) * Max(snap->nrows, 1));
	const char *memo_text[CLASS_MEMO] = {NULL};
	int16		memo_member[CLASS_MEMO] = {0};
	int			next = 0;

	for (int i = 0; i < snap->nrows; i++)
	{
		int			m;

		for (m = 0; m < CLASS_MEMO; m++)
			if (memo_text[m] != NULL && strcmp(memo_text[m], snap->statistics[i]) == 0)
				break;
		if (m == CLASS_MEMO)
		{
			m = next;
			next = (next + 1) % CLASS_MEMO;
			memo_text[m] = snap->statistics[i];
			memo_member[m] = (int16) entry_row_member(e, tapas_audit_class_logged(e->key.relid,
																				 snap->statistics[i],
																				 snap->roles[i]));
		}
		member[i] = memo_member[m];
	}
	return member;
}

/*
 * Takes the rows of e's class logged since e->synced from the ledger (by
 * the roles of e's scope: every role, or the session user) and adds them
 * to the row space until the deadline.  Returns false when the row space
 * is not complete (deadline, rank limit): the checks cannot run.
 */
bool
tapas_audit_sync(TapasAuditEntry *e, TimestampTz deadline)
{
	TapasLedgerFilter f;
	TapasLedgerSnapshot *snap;
	MemoryContext old;
	int			adopted;
	int			nrows0;
	int16	   *member;
	bool	   *in_class;

	/* basis rows read in place must still be there (state_pins.c) */
	tapas_audit_shared_pins_check();
	/* a trial left open by an error is rolled back; a parked one may be kept */
	if (!e->parked)
		tapas_audit_trial_end(e);
	/* closed by tapas.audit_memory, which has been raised since: rebuild */
	if (tapas_audit_memory_retry(e))
		entry_forget_rows(e);
	memset(&f, 0, sizeof(f));
	f.relid = e->key.relid;
	f.statistic = NULL;			/* every spelling: the class decides */
	f.roleid = e->key.roleid;	/* InvalidOid under tapas.audit_scope = all */
	f.after_log_id = e->synced;
	f.keys_known = e->keys != NULL;
	f.known_nkeys = e->nkeys;
	f.known_generation = e->keys_generation;
	snap = tapas_ledger_snapshot(&f);

	/*
	 * tapas.reset(tbl) renumbers the dense index from 0: a shorter or
	 * different index means our rows are stale.  Start over from the
	 * ledger as it is now.
	 */
	if (!snap->keys_unchanged && e->keys != NULL &&
		(snap->nrecords < e->nkeys ||
		 memcmp(snap->keys, e->keys, sizeof(int64) * e->nkeys) != 0))
	{
		tapas_ledger_snapshot_free(snap);
		entry_forget_rows(e);
		f.after_log_id = 0;
		f.keys_known = false;
		snap = tapas_ledger_snapshot(&f);
	}
	member = rows_member(e, snap);
	in_class = palloc(sizeof(bool) * Max(snap->nrows, 1));
	for (int i = 0; i < snap->nrows; i++)
		in_class[i] = member[i] >= 0;
	/*
	 * The statement tried last, logged as tried: its rows are in rs already
	 * (parked.c).  Not for a group of related classes, whose rows expand
	 * over regions (joint.c): its trial is rolled back and redone.
	 */
	if (e->joint == NULL)
		adopted = tapas_audit_parked_adopt(e, snap, in_class);
	else
	{
		tapas_audit_parked_drop(e);
		adopted = 0;
	}
	nrows0 = e->nrows;
	old = MemoryContextSwitchTo(tapas_audit_cxt());
	if (e->nrows + snap->nrows > e->maxrows)
	{
		int			newmax = Max(64, 2 * (e->nrows + snap->nrows));

		e->rows = e->rows ? repalloc(e->rows, sizeof(roaring_bitmap_t *) * newmax)
			: palloc(sizeof(roaring_bitmap_t *) * newmax);
		e->answers = e->answers ? repalloc(e->answers, sizeof(double) * newmax)
			: palloc(sizeof(double) * newmax);
		e->log_ids = e->log_ids ? repalloc(e->log_ids, sizeof(int64) * newmax)
			: palloc(sizeof(int64) * newmax);
		e->row_member = e->row_member ? repalloc(e->row_member, sizeof(int16) * newmax)
			: palloc(sizeof(int16) * newmax);
		e->maxrows = newmax;
	}
	for (int i = 0; i < snap->nrows; i++)
	{
		e->synced = Max(e->synced, snap->log_ids[i]);
		if ((i & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		if (member[i] < 0)
			continue;
		e->row_member[e->nrows] = member[i];
		e->rows[e->nrows] = tapas_audit_cover_take(snap->covers[i]);
		e->rows_bytes += roaring_bitmap_portable_size_in_bytes(e->rows[e->nrows]);
		e->answers[e->nrows] =
			tapas_audit_class_answer(e->key.relid, snap->statistics[i], snap->answers[i],
									 (int64) roaring_bitmap_get_cardinality(snap->covers[i]));
		e->log_ids[e->nrows] = snap->log_ids[i];
		e->nrows++;
	}
	e->keys_generation = snap->generation;
	if (!snap->keys_unchanged && (e->keys == NULL || snap->nrecords != e->nkeys))
	{
		if (e->keys)
			pfree(e->keys);
		e->keys = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(int64) * Max(snap->nrecords, 1));
		memcpy(e->keys, snap->keys, sizeof(int64) * snap->nrecords);
		e->nkeys = snap->nrecords;
	}
	MemoryContextSwitchTo(old);
	tapas_ledger_snapshot_free(snap);
	pfree(in_class);
	pfree(member);
	if (adopted > 0 && e->rs_rows == nrows0)
		e->rs_rows = nrows0 + adopted;	/* the adopted rows come first */

	if (e->rs == NULL || e->nkeys > (int64) e->cap_n)
		ensure_capacity(e, e->nkeys);	/* rebuild: adds every row */
	if (!rowspace_add_rows(e, deadline))
		return false;
	tapas_audit_shared_publish(e);	/* when the work done pays for a copy */
	return true;
}

/*
 * Makes e's row space ready for a batch over n_total records: room for
 * them, and every copied row added (until the deadline).  False when the
 * test cannot run: rows left at the deadline, the rank or size limit.
 */
bool
tapas_audit_rowspace_ready(TapasAuditEntry *e, int64 n_total, TimestampTz deadline)
{
	ensure_capacity(e, n_total);
	return rowspace_add_rows(e, deadline);
}

/*
 * Records the batch would make determined (not reported before): tries
 * the candidate rows on the synced row space and leaves the trial open, so
 * the decoders can consult the atoms with the batch; the caller closes it
 * with tapas_audit_trial_end (an error in between leaves it open, and the
 * next sync rolls it back).  Returns the number of findings (palloc'd
 * array in *found), or -1 when the test cannot complete: the rank limit,
 * or logged rows not yet in the row space at the deadline (no trial open).
 */
int
tapas_audit_determined(TapasAuditBatch *batch, TapasFinding **found,
					   TimestampTz deadline)
{
	TapasAuditEntry *e = batch->entry;
	const uint32 *newly;
	size_t		count = 0;
	tapas_status st;
	int			nf = 0;
	TimestampTz t0;

	*found = NULL;
	if (!tapas_audit_rowspace_ready(e, batch->n_total, deadline))
		return -1;
	if (batch->ncells == 0)
		return 0;
	t0 = GetCurrentTimestamp();
	st = tapas_rowspace_trial(e->rs, batch->ids, batch->offsets, batch->ncells,
							  &interrupt_poll, &newly, &count);
	e->shared_work_us += GetCurrentTimestamp() - t0;	/* state_shared.c */
	if (st == TAPAS_ECANCELED)
	{
		CHECK_FOR_INTERRUPTS();
		return -1;
	}
	if (st == TAPAS_ELIMIT)
	{
		/* the rank limit: fail closed in deny mode (decide.c) */
		ereport(LOG_SERVER_ONLY,
				(errmsg("tapas: row-space audit of table \"%s\" reached its rank limit for statistic \"%s\"",
						get_rel_name(e->key.relid), e->key.statistic)));
		return -1;
	}
	if (st != TAPAS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("row-space audit failed (status %d)", (int) st)));
	e->trial_open = true;		/* closed by tapas_audit_trial_end */
	if (!tapas_audit_memory_ok(e))
		return -1;				/* the trial's basis rows were too many */
	*found = palloc0(sizeof(TapasFinding) * Max(count, 1));
	for (size_t i = 0; i < count; i++)
	{
		TapasFinding *f = &(*found)[nf];

		if (roaring_bitmap_contains(e->reported, newly[i]))
			continue;
		f->index = newly[i];
		f->key = batch->keys[newly[i]];
		f->kind = TAPAS_ALERT_DETERMINED;
		f->method = "rowspace";
		snprintf(f->detail, sizeof(f->detail),
				 "e_j lies in the row space of the %d logged rows plus %d candidate rows (rank %u)",
				 e->nrows, batch->ncells, tapas_rowspace_rank(e->rs));
		nf++;
	}
	return nf;
}

/* closes the trial left open by tapas_audit_determined (if any) */
void
tapas_audit_trial_end(TapasAuditEntry *e)
{
	if (e->trial_open && e->rs != NULL)
	{
		tapas_status st = tapas_rowspace_rollback(e->rs);

		e->trial_open = false;
		if (st != TAPAS_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("row-space audit rollback failed (status %d)", (int) st)));
	}
	e->trial_open = false;
}
