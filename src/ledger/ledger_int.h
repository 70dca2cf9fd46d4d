/*-------------------------------------------------------------------------
 *
 * ledger_int.h
 *	  Declarations shared by the files of src/ledger/ and src/ledger/ledger_sql.c;
 *	  not part of the public ledger API (ledger.h).
 *
 * The shared state is one TapasLedgerShared struct in the main shared
 * memory segment, followed by the pure-C store (lstore/ledger_store.h).
 * One LWLock of tranche "tapas_ledger" guards all of it:
 *	- LW_SHARED to read cells, statistics, covers and the dense index;
 *	- LW_EXCLUSIVE to append (prepare, file write, apply: one critical
 *	  section, so log_ids, dense indices and file order agree), to reset a
 *	  table and to rewrite the file.
 * file_size, file_alloc, file_generation and version are written only
 * under LW_EXCLUSIVE.  sync_generation and synced_upto have their own
 * spinlock, because the fdatasync that makes a statement's frame durable
 * runs after the ledger lock is released.
 * At startup the postmaster replays the file before any backend exists,
 * so no lock is needed there.
 *
 * IDENTIFICATION
 *	  src/ledger/ledger_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_INT_H
#define TAPAS_LEDGER_INT_H

#include "postgres.h"

#include "storage/lwlock.h"
#include "storage/spin.h"

#include "lstore/ledger_store.h"
#include "util/status.h"

#define TAPAS_LEDGER_DIR		"pg_tapas"
#define TAPAS_LEDGER_FILE		"pg_tapas/ledger.log"
#define TAPAS_LEDGER_TMPFILE	"pg_tapas/ledger.log.tmp"
#define TAPAS_LEDGER_DAMAGED	"pg_tapas/ledger.log.damaged"
#define TAPAS_LEDGER_MAX_QUERY	65536	/* bytes of query text kept per statement */

typedef struct TapasLedgerShared
{
	LWLock	   *lock;			/* guards everything below and the store */
	uint64		file_size;		/* bytes of valid file; appends go here */
	uint64		file_alloc;		/* bytes written, zeros after file_size */
	slock_t		sync_mutex;		/* guards the four fields below */
	uint64		sync_generation;	/* file generation synced_upto is of */
	uint64		synced_upto;	/* bytes of that file known durable */
	struct Latch *flusher_latch;	/* the ledger flusher's, while it runs */
	bool		flusher_asleep; /* it waits for a wake-up, not a timeout */
	uint64		file_generation;	/* bumped when the file is rewritten; since
									 * every reset rewrites it, also the reset
									 * generation of the backends' key caches */
	bool		file_ok;		/* false: startup could not open the file */
	uint64		version;		/* bumped by every change of the store */
	uint64		store_size;		/* bytes of the store region */
	/* the store follows, 8-byte aligned (TAPAS_LEDGER_STORE) */
} TapasLedgerShared;

#define TAPAS_LEDGER_STORE(sh) \
	((tapas_ledger_store_t *) ((char *) (sh) + MAXALIGN(sizeof(TapasLedgerShared))))

/*
 * Table ids of the store (lstore/ledger_store.h): (dbid << 32) | relid, so
 * that databases created from one template, whose tables share OIDs, keep
 * separate trails.  dbid 0 marks a table logged by tapas 0.2 (version 1
 * ledger file), whose database cannot be known: such a table keeps one
 * trail shared by every database, as 0.2 had it (answers in any database
 * count in all, the safe side), until tapas.reset(tbl) in any database
 * removes it; from then on each database logs the table on its own.
 */
#define TAPAS_LEDGER_TABLE_ID(dbid, relid) \
	(((uint64) (dbid) << 32) | (uint64) (relid))
#define TAPAS_LEDGER_TABLE_DB(table_id)		((Oid) ((table_id) >> 32))
#define TAPAS_LEDGER_TABLE_REL(table_id)	((Oid) ((table_id) & 0xFFFFFFFF))

/*
 * append.c: the table id of relid of the current database in store (the
 * caller holds the lock): the 0.2 shared trail if there is one, else
 * (MyDatabaseId, relid).
 */
extern uint64 tapas_ledger_table_id(const tapas_ledger_store_t *store, Oid relid);
/* whether a cell of table_id belongs to the current database's views */
#define TAPAS_LEDGER_TABLE_VISIBLE(table_id) \
	(TAPAS_LEDGER_TABLE_DB(table_id) == MyDatabaseId || TAPAS_LEDGER_TABLE_DB(table_id) == InvalidOid)

/* gucs.c */
extern int	tapas_ledger_memory_kb;
extern int	tapas_ledger_max_cells;
extern int	tapas_max_records;
extern int	tapas_ledger_max_cells_per_role;
extern int	tapas_ledger_memory_per_role_kb;
extern bool tapas_ledger_sync;
extern int	tapas_ledger_flush_delay_ms;
extern void tapas_ledger_limits(tapas_ledger_store_limits_t *lim);

/* shmem.c: the attached state; raises if tapas was not preloaded */
extern TapasLedgerShared *tapas_ledger_shared(void);
extern TapasLedgerShared *tapas_ledger_shared_if_usable(void);

/* persist.c */
extern void tapas_ledger_persist_load(TapasLedgerShared *sh);
/* where a written frame ends: what its sync must reach */
typedef struct TapasLedgerMark
{
	uint64		generation;		/* file generation it was written to */
	uint64		upto;			/* end of the frame in that file */
} TapasLedgerMark;

extern TapasLedgerMark tapas_ledger_persist_append(TapasLedgerShared *sh,
												   const uint8 *frame, size_t len);
extern TapasLedgerMark tapas_ledger_persist_end(TapasLedgerShared *sh);
extern void tapas_ledger_persist_sync(TapasLedgerShared *sh, TapasLedgerMark mark);
extern uint64 tapas_ledger_persist_synced(TapasLedgerShared *sh);
extern void tapas_ledger_persist_shutdown(int code, Datum arg);

/* flusher.c */
extern void tapas_ledger_flusher_wake(TapasLedgerShared *sh);
/* persist.c: rewrites the file from store without table skip (0: none) */
extern void tapas_ledger_persist_rewrite(TapasLedgerShared *sh, const tapas_ledger_store_t *store,
										 uint64 skip);

/* append.c */
extern void tapas_ledger_report(tapas_status st, tapas_ledger_store_full_t full);
/*
 * removes every cell and key of relid of the current database (see
 * tapas_ledger_table_id) from memory and file; returns cells removed
 */
extern uint64 tapas_ledger_reset(Oid relid);
/* this backend's key -> index cache, synced; call under the ledger lock; may be NULL */
struct tapas_ledger_cache;
extern struct tapas_ledger_cache *tapas_ledger_key_cache(TapasLedgerShared *sh);

#endif							/* TAPAS_LEDGER_INT_H */
