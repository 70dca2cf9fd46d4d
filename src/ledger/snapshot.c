/*-------------------------------------------------------------------------
 *
 * snapshot.c
 *	  Read API of the ledger: snapshots of (A, b) and the dense index.
 *
 * A snapshot copies, under the shared ledger lock, the selected cells
 * (log_id order) and the table's dense index into a private memory
 * context, and deserialises each cover into a CRoaring bitmap.  The
 * bitmaps are malloc'd by CRoaring; a reset callback on the snapshot's
 * context frees them, so they cannot outlive it or leak on ERROR.  The
 * covers array is zeroed and the callback registered before the first
 * bitmap is made.
 *
 * Cost: O(ncells) to scan, plus the size of the selected covers and
 * O(records) to copy the index (a scan of the records array), unless the
 * caller's copy is still the table's (TapasLedgerFilter.keys_known).
 *
 * IDENTIFICATION
 *	  src/ledger/snapshot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "lstore/ledger_cache.h"
#include "ledger/ledger.h"
#include "ledger/ledger_int.h"
#include "policy/policy.h"

/* frees the CRoaring bitmaps of a snapshot when its context goes away */
static void
snapshot_release(void *arg)
{
	TapasLedgerSnapshot *snap = arg;
	int			i;

	for (i = 0; i < snap->nrows; i++)
		if (snap->covers[i] != NULL)
		{
			roaring_bitmap_free(snap->covers[i]);
			snap->covers[i] = NULL;
		}
}

/*
 * whether cell c of the table id tid passes filter f; stat_off is the
 * interned statistic or 0
 */
static bool
cell_selected(const tapas_ledger_store_cell_t *c, uint64 tid, const TapasLedgerFilter *f,
			  uint64 stat_off)
{
	if (c->table_id != tid || c->log_id <= f->after_log_id)
		return false;
	if (f->statistic != NULL && c->stat_off != stat_off)
		return false;
	if (OidIsValid(f->roleid) && c->role != f->roleid)
		return false;
	if (f->pid != 0 && (c->pid != f->pid || c->session_start != f->session_start))
		return false;
	return true;
}

/* allocates the per-row arrays of snap in its context */
static void
snapshot_alloc_rows(TapasLedgerSnapshot *snap, int nrows)
{
	int			m = Max(nrows, 1);

	snap->log_ids = palloc(sizeof(int64) * m);
	snap->answers = palloc(sizeof(double) * m);
	snap->roles = palloc(sizeof(Oid) * m);
	snap->pids = palloc(sizeof(int32) * m);
	snap->logged_at = palloc(sizeof(TimestampTz) * m);
	snap->statistics = palloc(sizeof(char *) * m);
	snap->covers = palloc0(sizeof(roaring_bitmap_t *) * m);
}

/*
 * The first cell with log_id > after: cells are in increasing log_id order
 * (an invariant of the store, lstore/ledger_validate.c), so a sync that
 * asks for the rows since its last one looks at those only, not at every
 * cell of the ledger.
 */
static uint64
first_cell_after(const tapas_ledger_store_t *store, int64 after)
{
	uint64		lo = 0,
				hi = store->ncells;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (tapas_ledger_store_cell(store, mid)->log_id <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* copies the selected cells; called with the lock held, in snap->cxt */
static void
snapshot_fill(TapasLedgerSnapshot *snap, const tapas_ledger_store_t *store, uint64 tid,
			  const TapasLedgerFilter *f)
{
	uint64		stat_off = 0,
				first,
				i;
	int			nrows = 0,
				k = 0;

	if (f->statistic != NULL)
	{
		stat_off = tapas_ledger_store_find_stat(store, tid, f->statistic,
										  (uint32) strlen(f->statistic));
		if (stat_off == 0)
		{
			snapshot_alloc_rows(snap, 0);
			return;
		}
	}
	first = first_cell_after(store, f->after_log_id);
	for (i = first; i < store->ncells; i++)
		if (cell_selected(tapas_ledger_store_cell(store, i), tid, f, stat_off))
			nrows++;
	snapshot_alloc_rows(snap, nrows);
	for (i = first; i < store->ncells && k < nrows; i++)
	{
		const tapas_ledger_store_cell_t *c = tapas_ledger_store_cell(store, i);
		uint32		len;
		const char *stat;

		if (!cell_selected(c, tid, f, stat_off))
			continue;
		snap->log_ids[k] = c->log_id;
		snap->answers[k] = c->answer;
		snap->roles[k] = c->role;
		snap->pids[k] = c->pid;
		snap->logged_at[k] = c->logged_at;
		stat = tapas_ledger_store_stat_text(store, c, &len);
		snap->statistics[k] = pnstrdup(stat, len);
		snap->covers[k] = roaring_bitmap_portable_deserialize_safe(
											(const char *) tapas_ledger_store_cover(store, c),
											c->cover_len);
		snap->nrows = ++k;		/* the callback frees covers[0..nrows) */
		if (snap->covers[k - 1] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("tapas ledger cover of log_id %lld does not decode",
							(long long) c->log_id)));
	}
}

TapasLedgerSnapshot *
tapas_ledger_snapshot(const TapasLedgerFilter *filter)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);
	MemoryContext cxt,
				old;
	TapasLedgerSnapshot *snap;
	MemoryContextCallback *cb;
	uint64		tid;

	if (filter == NULL || !OidIsValid(filter->relid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid table for a tapas ledger snapshot")));

	/* a child of the caller's context: the snapshot lives as long as the caller wants */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tapas ledger snapshot",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	snap = palloc0(sizeof(TapasLedgerSnapshot));
	snap->cxt = cxt;
	snap->relid = filter->relid;
	cb = palloc(sizeof(MemoryContextCallback));
	cb->func = snapshot_release;
	cb->arg = snap;
	MemoryContextRegisterResetCallback(cxt, cb);

	LWLockAcquire(sh->lock, LW_SHARED);
	tid = tapas_ledger_table_id(store, filter->relid);
	snap->nrecords = (int64) tapas_ledger_store_table_n(store, tid);
	snap->generation = sh->file_generation;

	/*
	 * A known key keeps its index until tapas.reset, which rewrites the file
	 * (file_generation), and the index only grows otherwise: the same count
	 * at the same generation is the same index.  Copying it is a scan of
	 * every record of every table, a third of a repeated 20-group report at
	 * 10^6 records (perf), so it is skipped then.
	 */
	snap->keys_unchanged = filter->keys_known &&
		filter->known_nkeys == snap->nrecords &&
		filter->known_generation == snap->generation;
	if (!snap->keys_unchanged)
	{
		snap->keys = MemoryContextAllocHuge(cxt, sizeof(int64) * Max(snap->nrecords, 1));
		tapas_ledger_store_table_keys(store, tid, (int64_t *) snap->keys);
	}
	snapshot_fill(snap, store, tid, filter);
	LWLockRelease(sh->lock);

	MemoryContextSwitchTo(old);
	return snap;
}

void
tapas_ledger_snapshot_free(TapasLedgerSnapshot *snap)
{
	if (snap != NULL)
		MemoryContextDelete(snap->cxt);
}

char *
tapas_ledger_basis(Oid relid, const char *statistic)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);
	const char *basis;
	uint32		len = 0;
	char	   *copy = NULL;

	if (statistic == NULL || strlen(statistic) > TAPAS_LEDGER_MAX_STATISTIC)
		return NULL;
	LWLockAcquire(sh->lock, LW_SHARED);
	basis = tapas_ledger_store_find_basis(store, tapas_ledger_table_id(store, relid), statistic,
										  (uint32) strlen(statistic), &len);
	/* a palloc failure here releases the LWLock with the transaction abort */
	if (basis != NULL)
		copy = pnstrdup(basis, len);
	LWLockRelease(sh->lock);
	return copy;
}

/*
 * Keys are looked up a chunk at a time, the lock released in between so a
 * cancel acts (interrupts are held while an LWLock is): 10^7 keys take
 * about a second.  A known key's index never changes except by
 * tapas.reset, which rewrites the file; a reset between two chunks makes
 * the result PG_INT64_MAX, more than any n, so a caller that compares the
 * result with its synced n syncs again (batch.c).
 */
#define KEY_INDICES_CHUNK	(1 << 18)

int64
tapas_ledger_key_indices(Oid relid, const int64 *keys, int64 nkeys, int64 *idx)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);
	int64		n = 0;
	int64		at = 0;
	uint64		generation = 0;
	bool		reset = false;

	do
	{
		int64		len = Min(KEY_INDICES_CHUNK, nkeys - at);
		uint64		tid;

		if (at > 0)
			CHECK_FOR_INTERRUPTS();
		LWLockAcquire(sh->lock, LW_SHARED);
		if (at == 0)
			generation = sh->file_generation;
		else if (sh->file_generation != generation)
			reset = true;
		tid = tapas_ledger_table_id(store, relid);
		n = Max(n, (int64) tapas_ledger_store_table_n(store, tid));
		/* batched: the backend's key cache, then prefetched probes (ledger_lookup.c) */
		tapas_ledger_store_lookup_cached(store, tapas_ledger_key_cache(sh), tid,
										 (const int64_t *) keys + at, (uint64_t) len,
										 (int64_t *) idx + at);
		LWLockRelease(sh->lock);
		at += len;
	} while (at < nkeys);
	return reset ? PG_INT64_MAX : n;
}

/*
 * relid's number of indexed keys and the ledger's reset generation, read
 * together under the shared lock: while both stay the same, no key of
 * the table was indexed and none renumbered, so a lookup of any keys
 * (tapas_ledger_key_indices) gives what it gave before (audit/batch.c).
 */
void
tapas_ledger_key_state(Oid relid, int64 *n, uint64 *generation)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);

	LWLockAcquire(sh->lock, LW_SHARED);
	*generation = sh->file_generation;
	*n = (int64) tapas_ledger_store_table_n(store, tapas_ledger_table_id(store, relid));
	LWLockRelease(sh->lock);
}
