/*-------------------------------------------------------------------------
 *
 * ledger.h
 *	  Public API of the tapas ledger: the logged answers (A, b) of every
 *	  protected table, per statistic, role and session.
 *
 * The ledger lives in shared memory (bounded by tapas.ledger_memory,
 * tapas.ledger_max_cells and tapas.max_records) and in an append-only file
 * $PGDATA/pg_tapas/ledger.log, written and (if tapas.ledger_sync) fsync'd
 * before tapas_ledger_append returns.  It is non-transactional: a logged
 * cell survives the analyst's ROLLBACK, disconnect and a server restart.
 *
 * Dense record index.  Per protected table, every key value gets a dense
 * index 0..n-1 the first time it appears in a logged cell, in the order the
 * cells of one append list it (keys of cell 0 first, then new keys of cell
 * 1, ...).  Indices are never reused or reassigned until tapas.reset(tbl)
 * clears the table; they are identical after a restart.  n is therefore
 * the number of distinct keys of the table seen in any logged cell of any
 * statistic and role, not the table's row count: a record never covered
 * by any logged cell has no index (it is not in the row space of A).
 *
 * Locking: every function here takes the ledger LWLock itself; callers
 * hold no tapas lock.  Every function raises
 * ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE when tapas was not preloaded.
 *
 * IDENTIFICATION
 *	  src/ledger/ledger.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_H
#define TAPAS_LEDGER_H

#include "postgres.h"

#include <roaring/roaring.h>

#include "datatype/timestamp.h"
#include "utils/palloc.h"

/*
 * One answered cell, as the gate hands it over.  All pointers are owned by
 * the caller and only read during the call.
 */
typedef struct TapasCell
{
	Oid			relid;			/* protected table */
	const char *statistic;		/* canonical statistic text, e.g. "count(*)", "sum(hiv)" */
	double		answer;			/* the cell's value; avg is logged as its sum and count cells */
	const int64 *keys;			/* key values of the covered rows, any order, no duplicates */
	int64		nkeys;
	const struct Node *basis;	/* the per-row value as a float8 expression
								 * over varno 1 = relid, built by tapas
								 * (capture/basis.c), for the auditor's
								 * truth; NULL if unknown; logged once per
								 * statistic (tapas_ledger_basis) */
} TapasCell;

/*
 * Raises ERRCODE_TAPAS_LEDGER_FULL if these cells would not fit; call
 * before releasing any row.  Advisory under concurrency: another backend
 * may fill the ledger between this check and tapas_ledger_append, which
 * then raises the same error itself (and logs nothing).  The check builds
 * the covers; a tapas_ledger_append right after it with the same cells
 * array, unmodified, and no other change of the ledger in between reuses
 * them instead of building them again (one batch cached per backend).
 */
extern void tapas_ledger_check_capacity(const TapasCell *cells, int ncells);

/*
 * Appends the cells of one statement atomically (all or none), tagged with
 * session user, pid, backend start time and query text (may be NULL);
 * returns the log_id of the first cell (the others follow consecutively).
 * Non-transactional: the cells stay logged whatever the caller's
 * transaction does.  The cells are in the durable file (fsync'd when
 * tapas.ledger_sync is on) before this returns.  Raises
 * ERRCODE_TAPAS_LEDGER_FULL when they do not fit (nothing is logged),
 * ERRCODE_INVALID_PARAMETER_VALUE for an invalid relid, empty statistic,
 * statistic longer than TAPAS_LEDGER_MAX_STATISTIC or negative nkeys, and
 * an I/O error when the file cannot be written (nothing is logged).
 * Duplicate keys within one cell are counted once.
 */
extern int64 tapas_ledger_append(const TapasCell *cells, int ncells,
								 const char *query_text);

#define TAPAS_LEDGER_MAX_STATISTIC	1024	/* bytes, without the NUL */
#define TAPAS_LEDGER_MAX_BASIS		(256 * 1024)	/* bytes of a logged basis tree */

/*
 * Read API for the auditor.
 *
 * A filter selects the logged rows of one table and statistic (or all
 * statistics), optionally of one role and/or one session, optionally only
 * those after a log_id (for incremental consumers: remember the last
 * log_id seen and pass it next time).
 */
typedef struct TapasLedgerFilter
{
	Oid			relid;			/* required */
	const char *statistic;		/* compared exactly; NULL: every statistic */
	Oid			roleid;			/* InvalidOid: every role */
	int32		pid;			/* 0: every session; else with session_start */
	TimestampTz session_start;	/* backend start time of that pid */
	int64		after_log_id;	/* only rows with log_id > this; 0 for all */

	/*
	 * The caller's copy of the dense index, from an earlier snapshot: when
	 * the table still has known_nkeys records at known_generation, the
	 * snapshot does not copy the index again (keys_unchanged).
	 */
	bool		keys_known;
	int64		known_nkeys;
	uint64		known_generation;
} TapasLedgerFilter;

/*
 * A consistent snapshot (taken under the shared lock) of the selected
 * rows, in log_id order, and of the table's dense index.
 *
 * Memory: everything, including the struct, lives in snap->cxt, a child of
 * the CurrentMemoryContext of the caller of tapas_ledger_snapshot.  The
 * CRoaring bitmaps are malloc'd by CRoaring, but a reset callback on cxt
 * frees them, so deleting cxt (directly, through its parent, or by
 * tapas_ledger_snapshot_free) releases everything, also on ERROR.  Never
 * keep a bitmap beyond cxt; copy it with roaring_bitmap_copy if needed.
 */
typedef struct TapasLedgerSnapshot
{
	MemoryContext cxt;			/* owns everything below */
	Oid			relid;
	int64		nrecords;		/* n: dense indices are 0..n-1 */
	int64	   *keys;			/* keys[j] = key value of dense index j, or
								 * NULL when keys_unchanged */
	bool		keys_unchanged; /* the filter's known index is the table's */
	uint64		generation;		/* reset generation the index belongs to */
	int			nrows;			/* selected logged cells */
	int64	   *log_ids;		/* [nrows], increasing */
	double	   *answers;		/* [nrows] b */
	Oid		   *roles;			/* [nrows] session user of each cell */
	int32	   *pids;			/* [nrows] */
	TimestampTz *logged_at;		/* [nrows] */
	char	  **statistics;		/* [nrows] statistic text of each cell */
	roaring_bitmap_t **covers;	/* [nrows] rows of A over dense indices */
} TapasLedgerSnapshot;

/* Returns a snapshot (never NULL; nrows may be 0). */
extern TapasLedgerSnapshot *tapas_ledger_snapshot(const TapasLedgerFilter *filter);

/*
 * The basis tree logged with relid's statistic (nodeToString of the
 * TapasCell.basis of its first cell that had one, palloc'd in the
 * caller's context), or NULL when the statistic was never logged or only
 * without a tree (a ledger file of an older version, tapas.ledger_append
 * by an administrator, a tree above TAPAS_LEDGER_MAX_BASIS).  Any backend
 * can thus evaluate the truth of any logged statistic.
 */
extern char *tapas_ledger_basis(Oid relid, const char *statistic);

/* Frees the snapshot and its bitmaps (deletes snap->cxt); NULL is a no-op. */
extern void tapas_ledger_snapshot_free(TapasLedgerSnapshot *snap);

/*
 * Maps key values of relid to dense indices: idx[i] = index of keys[i], or
 * -1 when that key was never logged.  idx is caller-allocated [nkeys].
 * Returns the table's current n (the largest seen: the lookup goes a chunk
 * at a time and is cancellable), or PG_INT64_MAX when a tapas.reset came
 * between two chunks (the indices then mix two numberings: sync again).
 */
extern int64 tapas_ledger_key_indices(Oid relid, const int64 *keys,
									  int64 nkeys, int64 *idx);

/*
 * relid's number of indexed keys (its n) and the ledger's reset
 * generation, read together: equal pairs mean no key was indexed or
 * renumbered in between.
 */
extern void tapas_ledger_key_state(Oid relid, int64 *n, uint64 *generation);

/* ledger/gucs.c, ledger/shmem.c: called from _PG_init */
extern void tapas_ledger_define_gucs(void);
extern void tapas_ledger_shmem_install(void);
extern void tapas_ledger_flusher_register(void);

#endif							/* TAPAS_LEDGER_H */
