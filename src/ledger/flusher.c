/*-------------------------------------------------------------------------
 *
 * flusher.c
 *	  The "tapas ledger flusher" background worker: bounds what
 *	  tapas.ledger_sync = off can lose to an operating-system crash.
 *
 * With tapas.ledger_sync = on, each statement fdatasyncs its own frame
 * before its rows leave (persist.c).  With off, the frame is only written
 * to the kernel, which survives any crash of PostgreSQL but not one of
 * the OS, and the kernel alone would flush it within
 * vm.dirty_expire_centisecs (30 s by default).  Like PostgreSQL's WAL
 * writer for synchronous_commit = off, this worker fdatasyncs the ledger
 * file every tapas.ledger_flush_delay milliseconds when frames were
 * written since the last sync, so the window an OS crash can lose is about
 * that delay.  Its syncs also count for the group commit of the
 * statements that run with tapas.ledger_sync = on.
 *
 * Like the WAL writer, it hibernates on an idle server: after
 * FLUSHER_IDLE_ROUNDS rounds with nothing to sync it waits for its latch
 * alone, and the next statement logged without a sync sets the latch
 * (tapas_ledger_flusher_wake), so the bound holds and an idle server sees
 * no wake-ups.  The asleep flag is set, then the file checked once more,
 * under the same spinlock the waking statement reads it with, so a record
 * written in between is never left unsynced.
 *
 * IDENTIFICATION
 *	  src/ledger/flusher.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"

#include "ledger/ledger.h"
#include "ledger/ledger_int.h"

PGDLLEXPORT void tapas_ledger_flusher_main(Datum arg);

int			tapas_ledger_flush_delay_ms = 200;

#define FLUSHER_IDLE_ROUNDS 25	/* rounds with nothing to sync before sleeping */

/* registers the worker; from _PG_init, while preloading */
void
tapas_ledger_flusher_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "tapas");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "tapas_ledger_flusher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "tapas ledger flusher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "tapas ledger flusher");
	RegisterBackgroundWorker(&worker);
}

/* syncs the frames written since the last sync; false if there were none */
static bool
flush_written(TapasLedgerShared *sh)
{
	TapasLedgerMark end;
	bool		pending;

	LWLockAcquire(sh->lock, LW_SHARED);
	end = tapas_ledger_persist_end(sh);
	LWLockRelease(sh->lock);
	pending = tapas_ledger_persist_synced(sh) < end.upto;
	tapas_ledger_persist_sync(sh, end);
	return pending;
}

/* a statement was logged without a sync: wake the flusher if it sleeps */
void
tapas_ledger_flusher_wake(TapasLedgerShared *sh)
{
	struct Latch *latch = NULL;

	SpinLockAcquire(&sh->sync_mutex);
	if (sh->flusher_asleep)
	{
		sh->flusher_asleep = false;
		latch = sh->flusher_latch;
	}
	SpinLockRelease(&sh->sync_mutex);
	if (latch != NULL)
		SetLatch(latch);
}

/* publishes the flusher's latch (NULL: none) and whether it sleeps */
static void
set_state(TapasLedgerShared *sh, struct Latch *latch, bool asleep)
{
	SpinLockAcquire(&sh->sync_mutex);
	sh->flusher_latch = latch;
	sh->flusher_asleep = asleep;
	SpinLockRelease(&sh->sync_mutex);
}

/* detaches the flusher's latch when the worker exits */
static void
flusher_exit(int code, Datum arg)
{
	set_state((TapasLedgerShared *) DatumGetPointer(arg), NULL, false);
}

/* one round: sync, then wait a delay, or for a wake-up once long idle */
static void
flusher_round(TapasLedgerShared *sh, int *idle)
{
	long		timeout = tapas_ledger_flush_delay_ms;
	int			events = WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH;

	*idle = flush_written(sh) ? 0 : *idle + 1;
	if (*idle >= FLUSHER_IDLE_ROUNDS)
	{
		set_state(sh, MyLatch, true);
		if (flush_written(sh))	/* written before the flag was seen */
			*idle = 0;
		else
			events &= ~WL_TIMEOUT;
	}
	(void) WaitLatch(MyLatch, events, timeout, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	set_state(sh, MyLatch, false);
}

void
tapas_ledger_flusher_main(Datum arg)
{
	TapasLedgerShared *sh;
	int			idle = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	/* no usable file (startup logged why): nothing to flush, idle quietly */
	sh = tapas_ledger_shared_if_usable();

	if (sh == NULL)
	{
		while (!ShutdownRequestPending)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L,
							 PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
		proc_exit(0);
	}
	set_state(sh, MyLatch, false);
	before_shmem_exit(flusher_exit, PointerGetDatum(sh));
	while (!ShutdownRequestPending)
	{
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		flusher_round(sh, &idle);
	}
	(void) flush_written(sh);
	proc_exit(0);
}
