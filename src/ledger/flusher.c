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

/* syncs the frames written since the last sync, if any */
static void
flush_written(TapasLedgerShared *sh)
{
	TapasLedgerMark end;

	LWLockAcquire(sh->lock, LW_SHARED);
	end = tapas_ledger_persist_end(sh);
	LWLockRelease(sh->lock);
	tapas_ledger_persist_sync(sh, end);
}

void
tapas_ledger_flusher_main(Datum arg)
{
	TapasLedgerShared *sh;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	/* no usable file (startup logged why): nothing to flush, idle quietly */
	sh = tapas_ledger_shared_if_usable();

	while (!ShutdownRequestPending)
	{
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if (sh != NULL)
			flush_written(sh);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 tapas_ledger_flush_delay_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	if (sh != NULL)
		flush_written(sh);
	proc_exit(0);
}
