/*-------------------------------------------------------------------------
 *
 * alerts_notify.c
 *	  NOTIFY tapas_alert from a short-lived dynamic background worker per
 *	  database, in its own transaction, since the analyst's may abort: one
 *	  NOTIFY per statement, naming its first alert (alerts.c, step 4).
 *
 * IDENTIFICATION
 *	  src/audit/alerts_notify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/async.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"

#include "audit/alerts_int.h"

PGDLLEXPORT void tapas_alert_notifier_main(Datum arg);

/* starts a notifier for this database unless one runs (lock held) */
void
tapas_alerts_kick_notifier(AlertShared *sh)
{
	BackgroundWorker worker;
	int			free_slot = -1;

	for (int i = 0; i < MAX_NOTIFIERS; i++)
	{
		if (sh->notifier_db[i] == MyDatabaseId)
			return;
		if (sh->notifier_db[i] == InvalidOid && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return;
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "tapas");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "tapas_alert_notifier_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "tapas alert notifier");
	snprintf(worker.bgw_type, BGW_MAXLEN, "tapas alert notifier");
	worker.bgw_main_arg = ObjectIdGetDatum(MyDatabaseId);
	worker.bgw_notify_pid = 0;
	if (RegisterDynamicBackgroundWorker(&worker, NULL))
		sh->notifier_db[free_slot] = MyDatabaseId;
}

/* sends NOTIFY for this database's pending alerts; returns how many */
static int
notifier_round(AlertShared *sh, Oid db)
{
	int64		ids[64];
	int			n = 0;

	LWLockAcquire(sh->lock, LW_EXCLUSIVE);
	for (int64 id = sh->oldest_id; id < sh->next_id && n < 64; id++)
	{
		TapasAlert *a = tapas_alerts_slot(sh, id);

		if (!a->notified && a->dbid == db)
		{
			a->notified = 1;
			/* one NOTIFY per statement: its first alert (a statement's
			 * alerts are raised together, so the head comes first) */
			if (a->stmt_head)
				ids[n++] = id;
		}
	}
	LWLockRelease(sh->lock);
	if (n == 0)
		return 0;
	StartTransactionCommand();
	for (int i = 0; i < n; i++)
	{
		char		payload[32];

		snprintf(payload, sizeof(payload), "%lld", (long long) ids[i]);
		Async_Notify("tapas_alert", payload);
	}
	CommitTransactionCommand();
	return n;
}

void
tapas_alert_notifier_main(Datum arg)
{
	Oid			db = DatumGetObjectId(arg);
	AlertShared *sh = tapas_alerts_shared();

	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(db, InvalidOid, 0);
	pgstat_report_appname("tapas alert notifier");
	for (;;)
	{
		bool		more = false;

		while (notifier_round(sh, db) > 0)
			;
		/* leave the slot, unless an alert arrived meanwhile */
		LWLockAcquire(sh->lock, LW_EXCLUSIVE);
		for (int64 id = sh->oldest_id; id < sh->next_id; id++)
			if (!tapas_alerts_slot(sh, id)->notified && tapas_alerts_slot(sh, id)->dbid == db)
				more = true;
		if (!more)
			for (int i = 0; i < MAX_NOTIFIERS; i++)
				if (sh->notifier_db[i] == db)
					sh->notifier_db[i] = InvalidOid;
		LWLockRelease(sh->lock);
		if (!more)
			break;
	}
	proc_exit(0);
}
