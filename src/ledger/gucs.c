/*-------------------------------------------------------------------------
 *
 * gucs.c
 *	  Configuration parameters of the ledger.
 *
 * The three sizes are PGC_POSTMASTER: they size the shared memory region
 * (shmem.c) and cannot change while the server runs.  A full ledger
 * refuses new cells with ERRCODE_TAPAS_LEDGER_FULL (never evicts), so the
 * remedy is to raise a limit and restart, or tapas.reset(tbl).
 * tapas.ledger_sync is PGC_SUSET: an audited role cannot weaken the
 * durability of its own answers.  The per-role quotas are PGC_SUSET too
 * (an audited role cannot raise its own); they are checked against usage
 * counted in the store (tapas_ledger_store_role_usage), so they need no shared
 * memory of their own and can change at any time.  They keep one role's
 * flood (wide GROUP BYs, cells of half a table) from filling the ledger
 * for every other role and database: only that role gets TP003.
 *
 * IDENTIFICATION
 *	  src/ledger/gucs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "ledger/ledger.h"
#include "ledger/ledger_int.h"
#include "policy/policy.h"

/*
 * 2^24 records: a protected table of 10^7 rows (and others beside it) is
 * audited without a setting change.  Its hash then has exactly 2^25 slots
 * (load at most 1/2, ledger_store.c).
 */
#define TAPAS_DEFAULT_MAX_RECORDS	(1 << 24)

int			tapas_ledger_memory_kb = 32 * 1024;
int			tapas_ledger_max_cells = 100000;
int			tapas_max_records = TAPAS_DEFAULT_MAX_RECORDS;
int			tapas_ledger_max_cells_per_role = -1;
int			tapas_ledger_memory_per_role_kb = -1;
bool		tapas_ledger_sync = false;

void
tapas_ledger_define_gucs(void)
{
	DefineCustomIntVariable("tapas.ledger_memory",
							"Shared memory for logged statistics, query texts and covers.",
							"Covers are compressed bitmaps: about n/8 bytes for a cell covering "
							"half of n records, 2 bytes per record for small cells.  Cell headers "
							"and the record index are sized by tapas.ledger_max_cells and "
							"tapas.max_records on top of this.",
							&tapas_ledger_memory_kb,
							32 * 1024, 1024, INT_MAX,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("tapas.ledger_max_cells",
							"Maximum number of logged cells, all tables together.",
							"Each cell costs 80 bytes of shared memory plus its cover.",
							&tapas_ledger_max_cells,
							100000, 16, INT_MAX,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("tapas.max_records",
							"Maximum number of distinct (table, key) records the ledger indexes.",
							"Each costs 16 bytes of shared memory plus 8-16 bytes of hash "
							"slots (the default, 2^24, reserves 384 MB; pages nobody "
							"used yet cost no memory, the hash's 128 MB are cleared at "
							"start).",
							&tapas_max_records,
							TAPAS_DEFAULT_MAX_RECORDS, 16, INT_MAX,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("tapas.ledger_max_cells_per_role",
							"Maximum number of logged cells of one session user, all tables and databases together.",
							"-1: a quarter of tapas.ledger_max_cells; 0: no quota.  Superusers "
							"have none.",
							&tapas_ledger_max_cells_per_role,
							-1, -1, INT_MAX,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("tapas.ledger_memory_per_role",
							"Maximum ledger memory (covers and query texts) of one session user's cells.",
							"-1: a quarter of tapas.ledger_memory; 0: no quota.  Superusers "
							"have none.",
							&tapas_ledger_memory_per_role_kb,
							-1, -1, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("tapas.ledger_sync",
							 "Whether each logged statement is fsync'd to the ledger file before its rows are released.",
							 "Off: a statement is written before its rows are released, and flushed "
							 "by the tapas ledger flusher within tapas.ledger_flush_delay; it "
							 "survives a crash of PostgreSQL, and an operating-system crash loses "
							 "at most that window.  On: also safe from power loss, for one "
							 "device flush (about 0.1-0.2 ms) per statement.",
							 &tapas_ledger_sync,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("tapas.ledger_flush_delay",
							"Time between the ledger flusher's syncs of statements logged with tapas.ledger_sync = off.",
							NULL,
							&tapas_ledger_flush_delay_ms,
							200, 1, 10000,
							PGC_SIGHUP,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
}

/* the store limits from the GUCs */
void
tapas_ledger_limits(tapas_ledger_store_limits_t *lim)
{
	lim->max_records = (uint64) tapas_max_records;
	lim->max_cells = (uint64) tapas_ledger_max_cells;
	lim->arena_bytes = (uint64) tapas_ledger_memory_kb * 1024;
	lim->max_tables = TAPAS_LEDGER_STORE_MAX_TABLES;
}
