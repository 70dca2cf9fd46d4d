/*-------------------------------------------------------------------------
 *
 * alerts.c
 *	  Alerts of the auditor: shared-memory ring, durable file, server log,
 *	  NOTIFY tapas_alert; and the secret prime of the row-space test.
 *
 * An alert is raised inside the analyst's statement, often just before
 * that statement fails (deny mode), so nothing here may be transactional:
 *
 *	0. the findings of one statement are merged into one alert per
 *	   (table, kind) that lists their records (alerts_merge);
 *	1. the alert is appended to $PGDATA/pg_tapas/alerts.log as one frame
 *	   (u32 payload length, u32 CRC-32C, payload = struct TapasAlert) and
 *	   fsync'd, under AlertShared->lock, before it gets its id (the alerts
 *	   of one statement under one lock, so their ids are consecutive);
 *	2. it is copied into the shared ring (slot (alert_id - 1) mod
 *	   tapas.max_alerts: the ring keeps the newest alerts, the file all);
 *	3. one LOG line (errhidestmt, errhidecontext) goes to the server log;
 *	4. NOTIFY is transactional, and the analyst's transaction may abort.
 *	   So a short-lived dynamic background worker, connected to the
 *	   analyst's database, sends NOTIFY tapas_alert, '<alert_id>' for every
 *	   statement with alerts not yet notified, in its own transaction: one
 *	   NOTIFY per statement, naming its first alert (stmt_head); the
 *	   statement's other alerts follow it in id order.  If no worker slot is
 *	   free, the notification waits for the next alert raised in that
 *	   database (the alert itself is never lost).
 *
 * File versions: "TAPASAL2" frames hold a whole TapasAlert; a 0.2 file
 * ("TAPASAL1") holds frames of TAPAS_ALERT_V1_SIZE bytes, the same struct
 * without the record list, read as alerts of one record.  Both sizes are
 * read in either file; a 0.2 file gets the new magic at startup.
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
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "lib/stringinfo.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "audit/audit.h"
#include "util/compare.h"
#include "util/crc32c.h"
#include "util/rng.h"
#include "recon/rowspace.h"
#include "policy/policy.h"

#define ALERT_DIR		"pg_tapas"
#define ALERT_FILE		"pg_tapas/alerts.log"
#define ALERT_MAGIC		"TAPASAL2"
#define ALERT_MAGIC_V1	"TAPASAL1"	/* tapas 0.2: frames of TAPAS_ALERT_V1_SIZE */
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

StaticAssertDecl(offsetof(TapasAlert, nrecords) == TAPAS_ALERT_V1_SIZE,
				 "a tapas 0.2 alert is the prefix of TapasAlert up to nrecords");

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
		(memcmp(buf, ALERT_MAGIC, ALERT_MAGIC_LEN) != 0 &&
		 memcmp(buf, ALERT_MAGIC_V1, ALERT_MAGIC_LEN) != 0))
	{
		ereport(LOG,
				(errmsg("tapas: ignoring unreadable alert file \"%s\"", ALERT_FILE)));
		pfree(buf);
		CloseTransientFile(fd);
		return;
	}
	off = good = ALERT_MAGIC_LEN;
	while (off + 8 <= (size_t) st.st_size)
	{
		uint32		len,
					crc;
		TapasAlert	a;

		memcpy(&len, buf + off, 4);
		memcpy(&crc, buf + off + 4, 4);
		if ((len != sizeof(TapasAlert) && len != TAPAS_ALERT_V1_SIZE) ||
			off + 8 + len > (size_t) st.st_size ||
			tapas_crc32c(buf + off + 8, len) != crc)
			break;
		memset(&a, 0, sizeof(a));
		memcpy(&a, buf + off + 8, len);
		if (len == TAPAS_ALERT_V1_SIZE)
		{
			/* a 0.2 alert: one record, and a statement of its own */
			a.nrecords = a.nkeys = 1;
			a.record_keys[0] = a.record_key;
			a.stmt_head = 1;
		}
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
	/* a 0.2 file: appends from now on are whole TapasAlerts */
	if (memcmp(buf, ALERT_MAGIC_V1, ALERT_MAGIC_LEN) == 0 &&
		(pwrite(fd, ALERT_MAGIC, ALERT_MAGIC_LEN, 0) != ALERT_MAGIC_LEN || pg_fsync(fd) != 0))
		ereport(LOG, (errcode_for_file_access(),
					  errmsg("could not upgrade file \"%s\": %m", ALERT_FILE)));
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
	switch (kind)
	{
		case TAPAS_ALERT_DETERMINED:
			return "determined";
		case TAPAS_ALERT_RECONSTRUCTED:
			return "reconstructed";
		default:
			return "incomplete";
	}
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

/* names for the server log: the alert's table is of the current database */
static const char *
alert_rel_name(Oid relid)
{
	char	   *name = get_rel_name(relid);

	return name ? name : psprintf("dropped table (OID %u)", relid);
}

static const char *
alert_db_name(Oid dbid)
{
	char	   *name = get_database_name(dbid);

	return name ? name : psprintf("dropped database (OID %u)", dbid);
}

static const char *
alert_role_name(Oid roleid)
{
	char	   *name = GetUserNameFromId(roleid, true);

	return name ? name : psprintf("dropped role (OID %u)", roleid);
}

/* ----------------------------------------------------------------
 *		One alert per (statement, table, kind)
 * ----------------------------------------------------------------
 */

/* appends item to the ", "-separated list in buf (size len) unless listed */
static void
list_append(char *buf, size_t len, const char *item)
{
	size_t		n = strlen(buf),
				k = strlen(item);
	const char *p;

	for (p = buf; (p = strstr(p, item)) != NULL; p++)
		if ((p == buf || (p >= buf + 2 && p[-2] == ',' && p[-1] == ' ')) &&
			(p[k] == '\0' || (p[k] == ',' && p[k + 1] == ' ')))
			return;
	if (n + 2 + k + 1 <= len)
	{
		memcpy(buf + n, ", ", 2);
		memcpy(buf + n + 2, item, k + 1);
	}
}

/* dst's log_ids joined with src's: sorted, distinct, the newest kept */
static void
merge_log_ids(TapasAlert *dst, const TapasAlert *src)
{
	int64		all[2 * TAPAS_ALERT_MAX_LOG_IDS];
	int			n = 0,
				m = 0;

	memcpy(all, dst->log_ids, sizeof(int64) * dst->nlog_ids);
	memcpy(all + dst->nlog_ids, src->log_ids, sizeof(int64) * src->nlog_ids);
	n = dst->nlog_ids + src->nlog_ids;
	qsort(all, n, sizeof(int64), tapas_cmp_int64);
	for (int i = 0; i < n; i++)
		if (m == 0 || all[i] != all[m - 1])
			all[m++] = all[i];
	n = Min(m, TAPAS_ALERT_MAX_LOG_IDS);
	memcpy(dst->log_ids, all + (m - n), sizeof(int64) * n);
	dst->nlog_ids = n;
}

/* the distinct record keys of the findings of group g */
static void
merge_records(TapasAlert *dst, const TapasAlert *in, int n, const int *group, int g)
{
	int64	   *keys = palloc(sizeof(int64) * Max(n, 1));
	int			k = 0,
				m = 0;

	/* an incomplete audit isolates no record: it lists none */
	for (int i = 0; i < n; i++)
		if (group[i] == g && in[i].kind != TAPAS_ALERT_INCOMPLETE)
			keys[k++] = in[i].record_key;
	qsort(keys, k, sizeof(int64), tapas_cmp_int64);
	for (int i = 0; i < k; i++)
		if (m == 0 || keys[i] != keys[m - 1])
			keys[m++] = keys[i];
	dst->nrecords = m;
	dst->nkeys = Min(m, TAPAS_ALERT_MAX_RECORDS);
	memcpy(dst->record_keys, keys, sizeof(int64) * dst->nkeys);
	if (m > 1)
	{
		size_t		len = strlen(dst->detail);

		snprintf(dst->detail + len, sizeof(dst->detail) - len,
				 " (first of %d isolated records)", m);
	}
	pfree(keys);
}

/*
 * Merges the n findings of one statement into one alert per (table,
 * kind), in order of first appearance; group[i] gets the alert of finding
 * i.  Each alert keeps its first finding's record_key, detail and action.
 * Returns the number of alerts in out.
 */
static int
alerts_merge(const TapasAlert *in, int n, TapasAlert *out, int *group)
{
	int			m = 0;

	for (int i = 0; i < n; i++)
	{
		int			g;

		for (g = 0; g < m; g++)
			if (out[g].relid == in[i].relid && out[g].kind == in[i].kind)
				break;
		if (g == m)
			out[m++] = in[i];
		else
		{
			merge_log_ids(&out[g], &in[i]);
			list_append(out[g].statistic, sizeof(out[g].statistic), in[i].statistic);
			list_append(out[g].method, sizeof(out[g].method), in[i].method);
		}
		group[i] = g;
	}
	for (int g = 0; g < m; g++)
		merge_records(&out[g], in, n, group, g);
	return m;
}

/* the record keys of a, for the server log only */
static char *
alert_keys_text(const TapasAlert *a)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int k = 0; k < a->nkeys; k++)
		appendStringInfo(&buf, "%s%lld", k > 0 ? ", " : "", (long long) a->record_keys[k]);
	if (a->nrecords > a->nkeys)
		appendStringInfo(&buf, " and %d more", a->nrecords - a->nkeys);
	return buf.data;
}

void
tapas_alert_raise(TapasAlert *alerts, int nalerts)
{
	AlertShared *sh = alerts_attach();
	TapasAlert *merged;
	int		   *group;
	int			nmerged;
	TimestampTz now = GetCurrentTimestamp();

	if (nalerts <= 0)
		return;
	merged = palloc(sizeof(TapasAlert) * nalerts);
	group = palloc(sizeof(int) * nalerts);
	nmerged = alerts_merge(alerts, nalerts, merged, group);
	for (int m = 0; m < nmerged; m++)
	{
		merged[m].raised_at = now;
		merged[m].dbid = MyDatabaseId;
		merged[m].pid = MyProcPid;
		merged[m].notified = 0;
		merged[m].stmt_head = m == 0;
	}
	/* one lock for the statement: its alerts get consecutive ids */
	LWLockAcquire(sh->lock, LW_EXCLUSIVE);
	for (int m = 0; m < nmerged; m++)
	{
		TapasAlert *a = &merged[m];

		a->alert_id = sh->next_id;
		alerts_write(a);		/* ERROR releases the lock; id not used */
		*ring_slot(sh, a->alert_id) = *a;
		sh->next_id++;
		sh->oldest_id = Max(sh->oldest_id, sh->next_id - tapas_max_alerts);
	}
	alerts_kick_notifier(sh);
	LWLockRelease(sh->lock);

	for (int m = 0; m < nmerged; m++)
	{
		TapasAlert *a = &merged[m];

		ereport(LOG,
				(errmsg("tapas alert %lld: %d record%s of table \"%s\" in database \"%s\" %s by %s for statistic \"%s\" (role \"%s\", pid %d, %s): keys %s",
						(long long) a->alert_id, a->nrecords, a->nrecords == 1 ? "" : "s",
						alert_rel_name(a->relid), alert_db_name(a->dbid),
						tapas_alert_kind_name(a->kind), a->method, a->statistic,
						alert_role_name(a->roleid), a->pid, tapas_alert_action_name(a->action),
						alert_keys_text(a)),
				 errdetail_log("%s", a->detail),
				 errhidestmt(true), errhidecontext(true)));
	}
	for (int i = 0; i < nalerts; i++)
	{
		TapasAlert *a = &merged[group[i]];

		alerts[i].alert_id = a->alert_id;
		alerts[i].raised_at = a->raised_at;
		alerts[i].dbid = a->dbid;
		alerts[i].pid = a->pid;
	}
	pfree(merged);
	pfree(group);
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
