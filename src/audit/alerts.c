/*-------------------------------------------------------------------------
 *
 * alerts.c
 *	  Alerts of the auditor: shared-memory ring, durable file, server log,
 *	  NOTIFY tapas_alert; and the secret prime of the row-space test.
 *
 * An alert is raised inside the analyst's statement, often just before
 * that statement fails (deny mode), so nothing here may be transactional:
 *
 *	1. the alert is appended to $PGDATA/pg_tapas/alerts.log as one frame
 *	   (u32 payload length, u32 CRC-32C, payload = struct TapasAlert) and
 *	   fsync'd, under AlertShared->lock, before it gets its id;
 *	2. it is copied into the shared ring (slot (alert_id - 1) mod
 *	   tapas.max_alerts: the ring keeps the newest alerts, the file all);
 *	3. one LOG line (errhidestmt, errhidecontext) goes to the server log;
 *	4. NOTIFY is transactional, and the analyst's transaction may abort.
 *	   So a short-lived dynamic background worker, connected to the
 *	   analyst's database, sends NOTIFY tapas_alert, '<alert_id>' for every
 *	   alert not yet notified in its own transaction.  If no worker slot is
 *	   free, the notification waits for the next alert raised in that
 *	   database (the alert itself is never lost).
 *
 * At server start (shmem_startup_hook, in the postmaster) the file is
 * replayed: the newest tapas.max_alerts alerts fill the ring, ids continue
 * after the last one, a torn or damaged tail is cut off.  Replayed alerts
 * count as notified.
 *
 * The same startup draws the secret prime of the row-space test
 * (determined.c) from pg_strong_random; it is kept only in shared memory.
 *
 * Locking: AlertShared->lock (tranche "tapas_alerts") guards every field
 * of AlertShared and the ring; the file is only written under it.
 *
 * IDENTIFICATION
 *	  src/audit/alerts.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xact.h"
#include "commands/async.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "audit/audit.h"
#include "util/crc32c.h"
#include "util/rng.h"
#include "recon/rowspace.h"
#include "policy/policy.h"

#define ALERT_DIR		"pg_tapas"
#define ALERT_FILE		"pg_tapas/alerts.log"
#define ALERT_MAGIC		"TAPASAL1"
#define ALERT_MAGIC_LEN 8
#define MAX_NOTIFIERS	8

typedef struct AlertShared
{
	LWLock	   *lock;			/* guards everything below and the file */
	uint64		prime;			/* secret prime of the row-space test */
	int64		next_id;		/* id of the next alert */
	int64		oldest_id;		/* oldest alert still in the ring */
	Oid			notifier_db[MAX_NOTIFIERS]; /* databases with a running
											 * notifier, InvalidOid = free */
	TapasAlert	ring[FLEXIBLE_ARRAY_MEMBER];	/* tapas.max_alerts slots */
} AlertShared;

static int	tapas_max_alerts = 4096;
static AlertShared *alert_shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

PGDLLEXPORT void tapas_alert_notifier_main(Datum arg);

static Size
alerts_memsize(void)
{
	return add_size(offsetof(AlertShared, ring),
					mul_size(sizeof(TapasAlert), tapas_max_alerts));
}

static AlertShared *
alerts_attach(void)
{
	if (alert_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("tapas must be loaded via shared_preload_libraries")));
	return alert_shared;
}

static TapasAlert *
ring_slot(AlertShared *sh, int64 alert_id)
{
	return &sh->ring[(alert_id - 1) % tapas_max_alerts];
}

/* ----------------------------------------------------------------
 *		File
 * ----------------------------------------------------------------
 */

/* replays the file into the ring (postmaster, at startup) */
static void
alerts_load(AlertShared *sh)
{
	int			fd;
	struct stat st;
	char	   *buf;
	size_t		off,
				good;

	sh->next_id = 1;
	sh->oldest_id = 1;
	fd = OpenTransientFile(ALERT_FILE, O_RDWR | PG_BINARY);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_size < ALERT_MAGIC_LEN)
	{
		CloseTransientFile(fd);
		return;
	}
	buf = palloc(st.st_size);
	if (read(fd, buf, st.st_size) != st.st_size ||
		memcmp(buf, ALERT_MAGIC, ALERT_MAGIC_LEN) != 0)
	{
		ereport(LOG,
				(errmsg("tapas: ignoring unreadable alert file \"%s\"", ALERT_FILE)));
		pfree(buf);
		CloseTransientFile(fd);
		return;
	}
	off = good = ALERT_MAGIC_LEN;
	while (off + 8 + sizeof(TapasAlert) <= (size_t) st.st_size)
	{
		uint32		len,
					crc;
		TapasAlert	a;

		memcpy(&len, buf + off, 4);
		memcpy(&crc, buf + off + 4, 4);
		if (len != sizeof(TapasAlert) ||
			tapas_crc32c(buf + off + 8, len) != crc)
			break;
		memcpy(&a, buf + off + 8, sizeof(a));
		if (a.alert_id != sh->next_id)
			break;
		a.notified = 1;
		*ring_slot(sh, a.alert_id) = a;
		sh->next_id = a.alert_id + 1;
		off += 8 + len;
		good = off;
	}
	if (good < (size_t) st.st_size)
	{
		ereport(LOG,
				(errmsg("tapas: truncating alert file \"%s\" after %zu bytes (torn or damaged tail)",
						ALERT_FILE, good)));
		if (ftruncate(fd, good) != 0)
			ereport(LOG, (errcode_for_file_access(),
						  errmsg("could not truncate file \"%s\": %m", ALERT_FILE)));
	}
	sh->oldest_id = Max(1, sh->next_id - tapas_max_alerts);
	pfree(buf);
	CloseTransientFile(fd);
}

/* appends one frame and fsyncs; ERROR (nothing kept) on failure */
static void
alerts_write(const TapasAlert *a)
{
	int			fd;
	char		frame[8 + sizeof(TapasAlert)];
	uint32		len = sizeof(TapasAlert);
	uint32		crc = tapas_crc32c(a, sizeof(TapasAlert));
	struct stat st;

	(void) MakePGDirectory(ALERT_DIR);
	fd = OpenTransientFile(ALERT_FILE, O_RDWR | O_CREAT | O_APPEND | PG_BINARY);
	if (fd < 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not open file \"%s\": %m", ALERT_FILE)));
	if (fstat(fd, &st) == 0 && st.st_size == 0 &&
		write(fd, ALERT_MAGIC, ALERT_MAGIC_LEN) != ALERT_MAGIC_LEN)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not write file \"%s\": %m", ALERT_FILE)));
	memcpy(frame, &len, 4);
	memcpy(frame + 4, &crc, 4);
	memcpy(frame + 8, a, sizeof(TapasAlert));
	if (write(fd, frame, sizeof(frame)) != (ssize_t) sizeof(frame) ||
		pg_fsync(fd) != 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not write file \"%s\": %m", ALERT_FILE)));
	CloseTransientFile(fd);
}

/* ----------------------------------------------------------------
 *		Raising alerts
 * ----------------------------------------------------------------
 */

const char *
tapas_alert_kind_name(int kind)
{
	return kind == TAPAS_ALERT_DETERMINED ? "determined" :
		kind == TAPAS_ALERT_INCOMPLETE ? "incomplete" : "reconstructed";
}

const char *
tapas_alert_action_name(int action)
{
	switch (action)
	{
		case TAPAS_ALERT_LOGGED:
			return "logged";
		case TAPAS_ALERT_WARNED:
			return "warned";
		default:
			return "denied";
	}
}

/* starts a notifier for this database unless one runs (lock held) */
static void
alerts_kick_notifier(AlertShared *sh)
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

void
tapas_alert_raise(TapasAlert *alerts, int nalerts)
{
	AlertShared *sh = alerts_attach();

	for (int i = 0; i < nalerts; i++)
	{
		TapasAlert *a = &alerts[i];

		a->raised_at = GetCurrentTimestamp();
		a->dbid = MyDatabaseId;
		a->pid = MyProcPid;
		a->notified = 0;
		LWLockAcquire(sh->lock, LW_EXCLUSIVE);
		a->alert_id = sh->next_id;
		alerts_write(a);		/* ERROR releases the lock; id not used */
		*ring_slot(sh, a->alert_id) = *a;
		sh->next_id++;
		sh->oldest_id = Max(sh->oldest_id, sh->next_id - tapas_max_alerts);
		alerts_kick_notifier(sh);
		LWLockRelease(sh->lock);

		ereport(LOG,
				(errmsg("tapas alert %lld: record %lld of table \"%s\" %s by %s for statistic \"%s\" (role %u, pid %d, %s)",
						(long long) a->alert_id, (long long) a->record_key,
						get_rel_name(a->relid) ? get_rel_name(a->relid) : "?",
						tapas_alert_kind_name(a->kind), a->method, a->statistic,
						a->roleid, a->pid, tapas_alert_action_name(a->action)),
				 errdetail_log("%s", a->detail),
				 errhidestmt(true), errhidecontext(true)));
	}
}

TapasAlert *
tapas_alert_list(int *nalerts)
{
	AlertShared *sh = alerts_attach();
	TapasAlert *out;
	int			n = 0;

	LWLockAcquire(sh->lock, LW_SHARED);
	out = palloc(sizeof(TapasAlert) * Max(1, sh->next_id - sh->oldest_id));
	for (int64 id = sh->oldest_id; id < sh->next_id; id++)
		out[n++] = *ring_slot(sh, id);
	LWLockRelease(sh->lock);
	*nalerts = n;
	return out;
}

uint64
tapas_audit_prime(void)
{
	return alerts_attach()->prime;
}

/* ----------------------------------------------------------------
 *		Notifier background worker
 * ----------------------------------------------------------------
 */

/* sends NOTIFY for this database's pending alerts; returns how many */
static int
notifier_round(AlertShared *sh, Oid db)
{
	int64		ids[64];
	int			n = 0;

	LWLockAcquire(sh->lock, LW_EXCLUSIVE);
	for (int64 id = sh->oldest_id; id < sh->next_id && n < 64; id++)
	{
		TapasAlert *a = ring_slot(sh, id);

		if (!a->notified && a->dbid == db)
		{
			a->notified = 1;
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
	AlertShared *sh = alert_shared;

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
			if (!ring_slot(sh, id)->notified && ring_slot(sh, id)->dbid == db)
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

/* ----------------------------------------------------------------
 *		Shared memory and settings
 * ----------------------------------------------------------------
 */

static void
alerts_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(alerts_memsize());
	RequestNamedLWLockTranche("tapas_alerts", 1);
}

/* the secret prime: from a strong random seed, never shown */
static uint64
draw_prime(void)
{
	uint64		seed;
	tapas_rng_t rng;

	if (!pg_strong_random(&seed, sizeof(seed)))
		ereport(FATAL,
				(errmsg("tapas: could not generate a random seed for the audit prime")));
	tapas_rng_seed(&rng, seed);
	return tapas_rowspace_prime_draw(&rng);
}

static void
alerts_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	alert_shared = ShmemInitStruct("tapas alerts", alerts_memsize(), &found);
	if (!found)
	{
		memset(alert_shared, 0, alerts_memsize());
		alert_shared->lock = &(GetNamedLWLockTranche("tapas_alerts"))->lock;
		alert_shared->prime = draw_prime();
		alerts_load(alert_shared);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
tapas_alerts_shmem_install(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = alerts_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = alerts_shmem_startup;
}

void
tapas_alerts_define_gucs(void)
{
	DefineCustomIntVariable("tapas.max_alerts",
							"Alerts kept in shared memory (the newest; the file keeps all).",
							NULL,
							&tapas_max_alerts,
							4096, 16, 1000000,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
}
