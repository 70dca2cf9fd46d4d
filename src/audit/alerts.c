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
 *	   (table, kind) that lists their records (alerts_merge.c);
 *	1. the alert is appended to $PGDATA/pg_tapas/alerts.log as one frame
 *	   (u32 payload length, u32 CRC-32C, payload = struct TapasAlert) and
 *	   fsync'd, under AlertShared->lock, before it gets its id (the alerts
 *	   of one statement under one lock, so their ids are consecutive);
 *	2. it is copied into the shared ring (slot (alert_id - 1) mod
 *	   tapas.max_alerts: the ring keeps the newest alerts, the file all);
 *	3. one LOG_SERVER_ONLY line (errhidestmt, errhidecontext) goes to the
 *	   server log, never to a client at any client_min_messages: it names
 *	   the record key and the method (issue 10, class 7);
 *	4. NOTIFY is transactional, and the analyst's transaction may abort.
 *	   So a short-lived dynamic background worker, connected to the
 *	   analyst's database, sends NOTIFY tapas_alert, '<alert_id>' for every
 *	   statement with alerts not yet notified, in its own transaction: one
 *	   NOTIFY per statement, naming its first alert (stmt_head); the
 *	   statement's other alerts follow it in id order.  If no worker slot is
 *	   free, the notification waits for the next alert raised in that
 *	   database (the alert itself is never lost).  Audited sessions cannot
 *	   LISTEN on the channel (hooks.c): in log mode it would tell the
 *	   analyst which answers isolate a record.
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

#include "commands/dbcommands.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "audit/alerts_int.h"
#include "recon/rowspace.h"

static int	tapas_max_alerts = 4096;
static AlertShared *alert_shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

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

AlertShared *
tapas_alerts_shared(void)
{
	return alerts_attach();
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
	nmerged = tapas_alerts_merge(alerts, nalerts, merged, group);
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
		tapas_alerts_file_append(a);		/* ERROR releases the lock; id not used */
		*tapas_alerts_slot(sh, a->alert_id) = *a;
		sh->next_id++;
		sh->oldest_id = Max(sh->oldest_id, sh->next_id - tapas_max_alerts);
	}
	tapas_alerts_kick_notifier(sh);
	LWLockRelease(sh->lock);

	for (int m = 0; m < nmerged; m++)
	{
		TapasAlert *a = &merged[m];

		ereport(LOG_SERVER_ONLY,
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
		out[n++] = *tapas_alerts_slot(sh, id);
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
		alert_shared->nslots = tapas_max_alerts;
		tapas_alerts_file_load(alert_shared);
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
