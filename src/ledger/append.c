/*-------------------------------------------------------------------------
 *
 * append.c
 *	  Log the answered cells of a statement; check capacity; reset a table.
 *
 * tapas_ledger_append runs one critical section under the exclusive
 * ledger lock: prepare the batch (dense indices, covers) from the store,
 * check it fits, encode and write it to the file (fsync'd if
 * tapas.ledger_sync), and only then apply it to shared memory.  Every
 * step that can fail comes before the apply, which cannot fail after a
 * successful check, so a statement is logged whole or not at all, in
 * memory and on disk alike, and log_ids, indices and file order agree.
 *
 * Memory: the batch and frame are kernel memory (tapas_malloc, CRoaring's
 * malloc) freed in PG_FINALLY, so an error in between leaks nothing; the
 * converted input lives in the caller's CurrentMemoryContext (statement
 * lifetime) and is freed before returning.
 *
 * IDENTIFICATION
 *	  src/ledger/append.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/nodes.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "lstore/ledger_cache.h"
#include "lstore/ledger_file.h"
#include "util/memory.h"
#include "ledger/ledger.h"
#include "ledger/ledger_int.h"
#include "policy/policy.h"

void
tapas_ledger_report(tapas_status st, tapas_ledger_store_full_t full)
{
	const char *what = "memory";
	const char *guc = "tapas.ledger_memory";

	/* a store limit is the ledger being full (TP003, below), not 54000 */
	if (st != TAPAS_ELIMIT)
		tapas_raise_status(st, "could not log to the tapas ledger", NULL);
	switch (full)
	{
		case TAPAS_LEDGER_STORE_FULL_CELLS:
			what = "cells";
			guc = "tapas.ledger_max_cells";
			break;
		case TAPAS_LEDGER_STORE_FULL_RECORDS:
			what = "records";
			guc = "tapas.max_records";
			break;
		case TAPAS_LEDGER_STORE_FULL_TABLES:
			ereport(ERROR,
					(errcode(ERRCODE_TAPAS_LEDGER_FULL),
					 errmsg("tapas ledger is full"),
					 errdetail("The ledger holds cells of %d tables, its maximum.",
							   TAPAS_LEDGER_STORE_MAX_TABLES),
					 errhint("Remove the entries of a table with tapas.reset().")));
			break;
		case TAPAS_LEDGER_STORE_FULL_ROLES:
			ereport(ERROR,
					(errcode(ERRCODE_TAPAS_LEDGER_FULL),
					 errmsg("tapas ledger is full"),
					 errdetail("The ledger holds cells of %d roles, its maximum.",
							   TAPAS_LEDGER_STORE_MAX_ROLES),
					 errhint("Remove the entries of a table with tapas.reset().")));
			break;
		case TAPAS_LEDGER_STORE_FULL_MEMORY:
		case TAPAS_LEDGER_STORE_FITS:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_TAPAS_LEDGER_FULL),
			 errmsg("tapas ledger is full"),
			 errdetail("Logging this statement's answers needs more %s than the ledger has left; no answer was released.",
					   what),
			 errhint("Raise %s and restart the server, or remove the entries of a table with tapas.reset().",
					 guc)));
}

/* a per-role quota in its unit: -1 is a quarter of the global limit */
static uint64
role_quota(int setting, uint64 global)
{
	return setting < 0 ? Max(global / 4, 1) : (uint64) setting;
}

/*
 * Refuses batch b of the session user if its cells would take that role
 * beyond tapas.ledger_max_cells_per_role or tapas.ledger_memory_per_role
 * (the caller holds the lock).  Superusers (exempt, looked up before the
 * lock so that no catalog read happens under it) have no quota.  Only this role
 * is refused: the others keep the rest of the ledger.
 */
static void
check_role_quota(const tapas_ledger_store_t *store, const tapas_ledger_batch_t *b, bool exempt)
{
	tapas_ledger_store_usage_t have = tapas_ledger_store_role_usage(store, b->role);
	tapas_ledger_store_usage_t add = tapas_ledger_batch_usage(b);
	uint64		max_cells = role_quota(tapas_ledger_max_cells_per_role, store->lim.max_cells);
	uint64		max_bytes = role_quota(tapas_ledger_memory_per_role_kb,
									   store->lim.arena_bytes / 1024) * 1024;
	const char *guc = NULL;

	if (exempt)
		return;
	if (tapas_ledger_max_cells_per_role != 0 && have.cells + add.cells > max_cells)
		guc = "tapas.ledger_max_cells_per_role";
	else if (tapas_ledger_memory_per_role_kb != 0 && have.bytes + add.bytes > max_bytes)
		guc = "tapas.ledger_memory_per_role";
	if (guc != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_TAPAS_LEDGER_FULL),
				 errmsg("tapas ledger quota of this role is exhausted"),
				 errdetail("Logging this statement's answers would take the role beyond %s; no answer was released.",
						   guc),
				 errhint("Ask an administrator to raise %s or to remove the entries of a table with tapas.reset().",
						 guc)));
}

/*
 * The basis tree of cell i as the ledger keeps it: nodeToString of the
 * tree tapas built (capture/basis.c), which only tapas's own trees reach,
 * so reading it back (src/audit/truth.c) parses nothing of the analyst's:
 * literals are Const nodes, serialised as their datum bytes.  Only the
 * first cell of each (table, statistic) of the statement carries it (the
 * store keeps one per statistic); NULL when the cell has none or it is
 * longer than TAPAS_LEDGER_MAX_BASIS (the auditor then fails closed).
 */
static const char *
cell_basis_text(const TapasCell *cells, int i)
{
	char	   *text;

	if (cells[i].basis == NULL)
		return NULL;
	for (int j = i - 1; j >= 0 && j >= i - 64; j--)
		if (cells[j].relid == cells[i].relid && cells[j].basis != NULL &&
			(cells[j].statistic == cells[i].statistic ||
			 strcmp(cells[j].statistic, cells[i].statistic) == 0))
			return NULL;
	text = nodeToString(cells[i].basis);
	if (strlen(text) > TAPAS_LEDGER_MAX_BASIS)
	{
		pfree(text);
		return NULL;
	}
	return text;
}

/* validates the cells and converts them to the kernel's input */
static tapas_ledger_cell_in_t *
cells_to_input(const TapasCell *cells, int ncells)
{
	tapas_ledger_cell_in_t *in = palloc(sizeof(tapas_ledger_cell_in_t) * ncells);
	int			i;

	for (i = 0; i < ncells; i++)
	{
		const TapasCell *c = &cells[i];
		size_t		len = c->statistic ? strlen(c->statistic) : 0;

		if (!OidIsValid(c->relid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid table for the tapas ledger")));
		if (len == 0 || len > TAPAS_LEDGER_MAX_STATISTIC)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("statistic must have 1 to %d bytes", TAPAS_LEDGER_MAX_STATISTIC)));
		if (c->nkeys < 0 || (c->nkeys > 0 && c->keys == NULL))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid covered keys for the tapas ledger")));
		in[i].table_id = 0;		/* tapas_ledger_table_id, under the lock */
		in[i].statistic = c->statistic;
		in[i].answer = c->answer;
		in[i].keys = (const int64_t *) c->keys;
		in[i].nkeys = (uint64_t) c->nkeys;
		in[i].basis = cell_basis_text(cells, i);
	}
	return in;
}

uint64
tapas_ledger_table_id(const tapas_ledger_store_t *store, Oid relid)
{
	if (tapas_ledger_store_table_slot(store, TAPAS_LEDGER_TABLE_ID(MyDatabaseId, relid)) < 0 &&
		tapas_ledger_store_table_slot(store, TAPAS_LEDGER_TABLE_ID(InvalidOid, relid)) >= 0)
		return TAPAS_LEDGER_TABLE_ID(InvalidOid, relid);
	return TAPAS_LEDGER_TABLE_ID(MyDatabaseId, relid);
}

/* fills the table ids of in from cells (the caller holds the lock) */
static void
resolve_tables(const tapas_ledger_store_t *store, const TapasCell *cells,
			   tapas_ledger_cell_in_t *in, int ncells)
{
	int			i;

	for (i = 0; i < ncells; i++)
		in[i].table_id = tapas_ledger_table_id(store, cells[i].relid);
}

/*
 * This backend's cache of key -> dense index mappings read from the store
 * (ledger_cache.h), created at first use (kernel memory, backend
 * lifetime).  Used only under the ledger lock, after tapas_ledger_key_cache
 * has cleared it if any table was reset since it was filled: every reset
 * rewrites the file (tapas_ledger_persist_rewrite bumps file_generation)
 * before it installs the store without the table, so file_generation is
 * the reset generation.  The store never changes a known key's index
 * otherwise, so the cache always agrees with it.  NULL after an
 * allocation failure: prepare then uses the store alone.
 */
static tapas_ledger_cache_t *ledger_cache = NULL;

/*
 * The cache, valid for the store under the lock the caller holds (also
 * used by tapas_ledger_key_indices, snapshot.c).
 */
tapas_ledger_cache_t *
tapas_ledger_key_cache(TapasLedgerShared *sh)
{
	if (ledger_cache == NULL)
	{
		ledger_cache = tapas_ledger_cache_create();
		if (ledger_cache == NULL)
			return NULL;
		ledger_cache->generation = sh->file_generation;
	}
	tapas_ledger_cache_sync(ledger_cache, sh->file_generation);
	return ledger_cache;
}

/*
 * Puts the keys a statement has just indexed into this backend's key
 * cache: under the exclusive lock, right after apply, so they are the
 * store's own mappings (the cache's invariant).  Apply gives the new keys
 * of a table the next indices in cell order (newkeys of each cell, in
 * index order), so the first new key of table T is its n after apply
 * minus the batch's new keys of T.  The next statement over the same rows
 * then finds them in the cache, in the audit (tapas_ledger_key_indices)
 * and in prepare, instead of probing the shared hash for each: after a
 * 20-group report over 10^6 new keys, those probes were 40 % of the next
 * statement (perf, issue 12).  A key the window cannot hold is skipped.
 */
static void
cache_new_keys(TapasLedgerShared *sh, const tapas_ledger_store_t *store,
			   const tapas_ledger_batch_t *b)
{
	tapas_ledger_cache_t *cache = tapas_ledger_key_cache(sh);

	if (cache == NULL)
		return;
	for (int i = 0; i < b->ncells; i++)
	{
		uint64		tid = b->cells[i].table_id;
		uint64		total = 0,
					n,
					next;
		tapas_ledger_cache_table_t *ct;
		bool		seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = b->cells[j].table_id == tid;
		if (seen)
			continue;			/* table done at its first cell */
		for (int j = i; j < b->ncells; j++)
			if (b->cells[j].table_id == tid)
				total += b->cells[j].nnew;
		if (total == 0)
			continue;
		n = tapas_ledger_store_table_n(store, tid);
		ct = tapas_ledger_cache_table(cache, tid, 1);
		next = n - total;
		for (int j = i; j < b->ncells; j++)
		{
			if (b->cells[j].table_id != tid)
				continue;
			for (uint64 k = 0; k < b->cells[j].nnew; k++)
				(void) tapas_ledger_cache_put(cache, ct, b->cells[j].newkeys[k],
											  (uint32) next++, n);
		}
	}
}

/*
 * The batch prepared by the last capacity check, kept (kernel memory, one
 * batch at most) so that the append of the same cells right after it need
 * not rebuild the covers.  Valid while the store's version is unchanged
 * and the append passes the very same cells (same array, same pointers).
 */
static tapas_ledger_batch_t *checked_batch = NULL;
static uint64 checked_version = 0;
static const TapasCell *checked_cells = NULL;
static TapasCell *checked_copy = NULL;	/* TopMemoryContext: compared at append */
static int	checked_copy_size = 0;	/* cells checked_copy can hold */
static int	checked_ncells = 0;

static void
forget_checked(void)
{
	tapas_ledger_batch_free(checked_batch);
	checked_batch = NULL;
	checked_cells = NULL;
	checked_ncells = 0;
}

/* the cached batch if it was prepared for exactly these cells at version */
static tapas_ledger_batch_t *
take_checked(const TapasCell *cells, int ncells, uint64 version)
{
	tapas_ledger_batch_t *b = checked_batch;

	if (b == NULL || cells != checked_cells || ncells != checked_ncells ||
		version != checked_version ||
		memcmp(cells, checked_copy, sizeof(TapasCell) * ncells) != 0)
	{
		forget_checked();
		return NULL;
	}
	checked_batch = NULL;
	forget_checked();
	return b;
}

void
tapas_ledger_check_capacity(const TapasCell *cells, int ncells)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_cell_in_t *in;
	tapas_ledger_batch_t *volatile batch = NULL;
	tapas_status st;
	tapas_ledger_store_full_t full = TAPAS_LEDGER_STORE_FITS;
	uint64		version;
	bool		exempt;

	forget_checked();
	if (ncells <= 0)
		return;
	in = cells_to_input(cells, ncells);
	exempt = superuser_arg(GetSessionUserId());
	/* before the batch exists, so an out-of-memory error leaks nothing */
	if (ncells > checked_copy_size)
	{
		if (checked_copy)
			pfree(checked_copy);
		checked_copy = NULL;
		checked_copy_size = 0;
		/* backend lifetime: one array, grown to the largest statement seen */
		checked_copy = MemoryContextAlloc(TopMemoryContext, sizeof(TapasCell) * ncells);
		checked_copy_size = ncells;
	}
	LWLockAcquire(sh->lock, LW_SHARED);
	PG_TRY();
	{
		tapas_ledger_batch_t *b = NULL;

		resolve_tables(TAPAS_LEDGER_STORE(sh), cells, in, ncells);
		st = tapas_ledger_store_prepare_cached(TAPAS_LEDGER_STORE(sh), tapas_ledger_key_cache(sh),
										 in, ncells, NULL, &b);
		batch = b;
		if (st == TAPAS_OK)
		{
			b->role = GetSessionUserId();
			check_role_quota(TAPAS_LEDGER_STORE(sh), b, exempt);
			st = tapas_ledger_store_check(TAPAS_LEDGER_STORE(sh), b, &full);
		}
		if (st != TAPAS_OK)
			tapas_ledger_report(st, full);
	}
	PG_CATCH();
	{
		tapas_ledger_batch_free(batch);
		PG_RE_THROW();
	}
	PG_END_TRY();
	version = sh->version;
	LWLockRelease(sh->lock);
	pfree(in);

	/* keep it for the append that normally follows */
	memcpy(checked_copy, cells, sizeof(TapasCell) * ncells);
	checked_batch = batch;
	checked_cells = cells;
	checked_ncells = ncells;
	checked_version = version;
}

/* the query text to log: clipped to TAPAS_LEDGER_MAX_QUERY bytes */
static const char *
clip_query(const char *query_text)
{
	size_t		len;

	if (query_text == NULL)
		return NULL;
	len = strlen(query_text);
	if (len <= TAPAS_LEDGER_MAX_QUERY)
		return query_text;
	return pnstrdup(query_text, pg_mbcliplen(query_text, len, TAPAS_LEDGER_MAX_QUERY));
}

int64
tapas_ledger_append(const TapasCell *cells, int ncells, const char *query_text)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);
	tapas_ledger_cell_in_t *in;
	const char *query;
	TimestampTz now = GetCurrentTimestamp();
	tapas_ledger_batch_t *volatile batch = NULL;
	uint8_t    *volatile frame = NULL;
	int64		first = 0;
	TapasLedgerMark durable = {0, 0};
	bool		exempt;

	if (ncells <= 0)
		return 0;
	in = cells_to_input(cells, ncells);
	query = clip_query(query_text);
	exempt = superuser_arg(GetSessionUserId());

	LWLockAcquire(sh->lock, LW_EXCLUSIVE);
	PG_TRY();
	{
		tapas_ledger_batch_t *b = NULL;
		uint8_t    *f = NULL;
		size_t		len = 0;
		tapas_ledger_store_full_t full = TAPAS_LEDGER_STORE_FITS;
		tapas_status st;

		/* 1. indices and covers (reused from the capacity check if valid) */
		b = take_checked(cells, ncells, sh->version);
		if (b != NULL)
		{
			b->query = query;
			b->query_len = query ? (uint32) strlen(query) : 0;
			/* the bases this call serialised (the check's may be gone) */
			for (int i = 0; i < ncells; i++)
				if (b->cells[i].basis != NULL)
				{
					b->cells[i].basis = in[i].basis;
					b->cells[i].basis_len = in[i].basis ? (uint32) strlen(in[i].basis) : 0;
				}
			st = TAPAS_OK;
		}
		else
		{
			resolve_tables(store, cells, in, ncells);
			st = tapas_ledger_store_prepare_cached(store, tapas_ledger_key_cache(sh),
											 in, ncells, query, &b);
		}
		batch = b;
		if (st == TAPAS_OK)
		{
			b->role = GetSessionUserId();
			check_role_quota(store, b, exempt);
			st = tapas_ledger_store_check(store, b, &full);
		}
		if (st != TAPAS_OK)
			tapas_ledger_report(st, full);
		b->pid = MyProcPid;
		b->session_start = MyStartTimestamp;
		b->logged_at = now;

		/* 2. durable first: the frame carries the log_ids apply will give */
		b->first_log_id = store->next_log_id;
		st = tapas_ledger_file_encode_stmt(b, &f, &len);
		frame = f;
		if (st != TAPAS_OK)
			tapas_ledger_report(st, TAPAS_LEDGER_STORE_FULL_MEMORY);
		durable = tapas_ledger_persist_append(sh, f, len);

		/* 3. shared memory; cannot fail after the check above */
		b->first_log_id = 0;
		st = tapas_ledger_store_apply(store, b, &full);
		if (st != TAPAS_OK)
			ereport(PANIC,
					(errmsg("tapas ledger changed under its lock: %s",
							tapas_status_message(st))));
		sh->version++;
		cache_new_keys(sh, store, b);
		first = b->first_log_id;
	}
	PG_FINALLY();
	{
		tapas_ledger_batch_free(batch);
		tapas_free(frame);
	}
	PG_END_TRY();
	LWLockRelease(sh->lock);
	/* no row is released before the frame is durable */
	if (tapas_ledger_sync)
		tapas_ledger_persist_sync(sh, durable);
	else
		tapas_ledger_flusher_wake(sh);
	pfree(in);
	return first;
}

uint64
tapas_ledger_reset(Oid relid)
{
	TapasLedgerShared *sh = tapas_ledger_shared();
	tapas_ledger_store_t *store = TAPAS_LEDGER_STORE(sh);
	void	   *scratch;
	uint64		removed = 0;
	uint64		generation PG_USED_FOR_ASSERTS_ONLY;
	uint64		table_id;

	LWLockAcquire(sh->lock, LW_EXCLUSIVE);
	table_id = tapas_ledger_table_id(store, relid);
	if (tapas_ledger_store_table_slot(store, table_id) < 0)
	{
		LWLockRelease(sh->lock);
		return 0;
	}

	/*
	 * Everything that can fail comes first: the scratch of the in-place
	 * reset (statement memory), then the new file without the table
	 * (written aside and renamed over the old one); on ERROR memory and
	 * file are as they were.  Then the store is compacted in place, which
	 * cannot fail, at a cost proportional to what it holds (ledger_reset.c).
	 */
	scratch = palloc_extended(tapas_ledger_store_reset_scratch_size(store), MCXT_ALLOC_HUGE);
	generation = sh->file_generation;
	tapas_ledger_persist_rewrite(sh, store, table_id);
	/* the key caches of every backend (tapas_ledger_key_cache) rely on this */
	Assert(sh->file_generation != generation);
	tapas_ledger_store_reset_table_with(store, table_id, scratch, &removed);
	sh->version++;
	LWLockRelease(sh->lock);
	pfree(scratch);
	return removed;
}
