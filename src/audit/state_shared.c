/*-------------------------------------------------------------------------
 *
 * state_shared.c
 *	  Row-space states shared between backends, so that the first audited
 *	  statement of a new backend copies what another backend built instead
 *	  of replaying the whole ledger.
 *
 * A backend's audit entry (determined.c) takes its class's rows from the
 * ledger and adds them to its row-space kernel; at 10^6 records and 10^4
 * logged cells that replay costs a new backend about 10 s (72 % of it in
 * the kernel's row additions).  Here a backend that has done such work
 * publishes a copy of its committed kernel (recon/rowspace_serial.c) in a
 * DSA area, and a backend that starts an entry from nothing copies it when
 * it provably holds a prefix of the rows the entry has just taken from
 * the ledger, then adds only the rest.
 *
 * When a copy may be used.  A slot is named by (database, table, audit
 * scope, class truth hash) and carries what its kernel was built from:
 *	- the rows: their number k, the log_id of the last, and a 64-bit hash
 *	  of the k log_ids in order.  A log_id is one cell of one statistic,
 *	  which belongs to one class, so equal log_ids mean the same rows of
 *	  the same class; their covers never change within a reset generation;
 *	- the reset generation of the ledger's dense index (tapas.reset
 *	  renumbers records; the kernel's columns are dense indices);
 *	- its number of records (columns), at least what the entry needs;
 *	- the server start: the area lives in this server's shared memory and
 *	  the copy carries the secret prime (per start), checked on reading;
 *	- a CRC-32C over the bytes, checked once, when the copy is published
 *	  (nothing writes the chunk after that: see Concurrency).
 * The entry then holds the kernel of exactly its first k rows, which is
 * what a replay of those rows builds (the same span, atoms and determined
 * set; only the secret projections and pivots, which no answer depends
 * on, differ), and the sync adds rows k.. as usual.  Records the copy
 * shows determined go to the entry's reported and sync_new sets, as the
 * replay would put them.  On any mismatch or failure the entry replays
 * fully, as before, and fails closed as before when it cannot.
 * Groups of related classes (joint.c) are not shared: their rows expand
 * over regions that depend on the backend's classes.
 *
 * When a copy is published.  Serialising costs about a byte per
 * nanosecond; a backend publishes when the kernel work it did on an entry
 * since it last published or copied (row additions and trials) exceeds
 * the estimated cost of the copy, so the copies cost at most as much as
 * the work they save, and never more than tapas.audit_shared_memory in
 * all (least recently used copies are evicted first).
 *
 * Failures.  The area's memory is DSM segments: creating or mapping one
 * raises an ERROR (not NULL, even under DSA_ALLOC_NO_OOM) when /dev/shm is
 * full or the server's segment slots are used up.  A copy is an
 * optimisation, so every use of the area runs in an internal
 * subtransaction (shared_guarded): on an error the entry replays, or
 * keeps its own state unpublished, and the statement goes on.  The area
 * is also bounded by dsa_set_size_limit, so fragmentation cannot make it
 * grow past twice tapas.audit_shared_memory (the copies themselves count
 * against the setting; a copy being replaced and the segments' rounding
 * take the rest).
 *
 * Concurrency.  The slots are guarded by one LWLock: readers take a
 * reference to a copy under LW_SHARED and keep its basis rows in place
 * (state_pins.c); a publisher serialises into a fresh DSA chunk without
 * the lock and swaps it in under LW_EXCLUSIVE, dropping the slot's
 * reference to the old chunk, which its last reader frees.  The copy holds the secret
 * projections, so it never leaves shared memory; tapas.audit_shared_state
 * shows only sizes and counters, to admins.
 *
 * The slots, and the copies and publishing through them, are
 * state_shared_slots.c; this file holds the shared memory, the area and
 * the guarded runs, and tapas.audit_shared_state().
 *
 * IDENTIFICATION
 *	  src/audit/state_shared.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/dsa.h"
#include "utils/guc.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "audit/state_shared_int.h"
#include "policy/policy.h"

int			tapas_audit_shared_memory_kb = 0;	/* opt-in in 0.3: see the README */

SharedState *tapas_audit_shared = NULL;
dsa_area   *tapas_audit_shared_area = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* ----------------------------------------------------------------
 *		Shared memory
 * ----------------------------------------------------------------
 */

static void
shared_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(SharedState)));
	RequestNamedLWLockTranche("tapas_audit_shared", 1);
}

static void
shared_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	tapas_audit_shared = ShmemInitStruct("tapas audit shared state", sizeof(SharedState), &found);
	if (!found)
	{
		memset(tapas_audit_shared, 0, sizeof(SharedState));
		tapas_audit_shared->lock = &(GetNamedLWLockTranche("tapas_audit_shared"))->lock;
		tapas_audit_shared->tranche = LWLockNewTrancheId();
		tapas_audit_shared->area = DSM_HANDLE_INVALID;
	}
	LWLockRelease(AddinShmemInitLock);
}

void
tapas_audit_shared_install(void)
{
	tapas_audit_write_stamp_install();	/* truth_stamp.c */
	tapas_audit_truth_shared_install(); /* truth_shared.c */
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = shared_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = shared_shmem_startup;
}

void
tapas_audit_shared_define_gucs(void)
{
	DefineCustomIntVariable("tapas.audit_shared_memory",
							"Shared memory for copies of the audit state that new backends start from.",
							"A new backend's first audited statement copies the row-space state another backend built instead of replaying the ledger. 0 disables the copies.",
							&tapas_audit_shared_memory_kb,
							0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_KB,
							NULL, NULL, NULL);
}

/*
 * Runs fn(arg) in an internal subtransaction (see "Failures" in the
 * banner): false, with the error in the server log, when it raises.  The
 * subtransaction's abort releases any LWLock fn held.  A cancel or
 * termination is raised again: it must still stop the statement.  In
 * parallel mode no subtransaction can start: the area is not used then.
 */
static bool
shared_guarded(void (*fn) (void *), void *arg)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	if (IsInParallelMode())
		return false;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(caller);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED || err->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			ReThrowError(err);
		ereport(LOG_SERVER_ONLY,
				(errmsg("tapas: shared audit state not used: %s", err->message)));
		FreeErrorData(err);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/* creates or attaches the area (run guarded: either may raise) */
static void
area_attach(void *arg)
{
	dsa_area   *a;

	LWLockAcquire(tapas_audit_shared->lock, LW_EXCLUSIVE);
	if (tapas_audit_shared->area == DSM_HANDLE_INVALID)
	{
		a = dsa_create(tapas_audit_shared->tranche);
		dsa_pin(a);				/* outlives this backend */
		tapas_audit_shared->area = dsa_get_handle(a);
	}
	else
		a = dsa_attach(tapas_audit_shared->area);
	LWLockRelease(tapas_audit_shared->lock);
	dsa_pin_mapping(a);			/* kept mapped for the backend's life */
	tapas_audit_shared_area = a;
}

/*
 * The DSA area, created by the first backend that needs it, bounded by
 * the setting; NULL if disabled or it cannot be had (run guarded).
 */
static dsa_area *
shared_area(void)
{
	static Size bound = 0;
	Size		limit = (Size) tapas_audit_shared_memory_kb * 1024;
	MemoryContext old;

	if (tapas_audit_shared == NULL || tapas_audit_shared_memory_kb <= 0)
		return NULL;
	if (tapas_audit_shared_area == NULL)
	{
		LWLockRegisterTranche(tapas_audit_shared->tranche, "tapas_audit_shared_area");
		old = MemoryContextSwitchTo(TopMemoryContext);
		area_attach(NULL);
		MemoryContextSwitchTo(old);
	}
	if (bound != limit)
	{
		/*
		 * The copies count against the setting (total_bytes); the area may
		 * hold one replaced copy more while its successor is written, and
		 * its segments round up: twice the setting, never more.
		 */
		dsa_set_size_limit(tapas_audit_shared_area, 2 * limit + 64 * 1024 * 1024);
		bound = limit;
	}
	return tapas_audit_shared_area;
}

/* the area for other shared audit state (truth_shared.c): call inside tapas_audit_shared_run */
dsa_area *
tapas_audit_shared_dsa(void)
{
	return shared_area();
}

/* runs fn(arg) guarded (shared_guarded): false if it raised */
bool
tapas_audit_shared_run(void (*fn) (void *), void *arg)
{
	return shared_guarded(fn, arg);
}


/* ----------------------------------------------------------------
 *		tapas.audit_shared_state()
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(tapas_sql_audit_shared_state);

/* attaches the area, if it is enabled (run guarded) */
static void
attach_only(void *arg)
{
	(void) shared_area();
}

/* the copies in shared memory: sizes and counters only (admin only) */
Datum
tapas_sql_audit_shared_state(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SharedSlot	copy[SHARED_SLOTS];
	int64		readers[SHARED_SLOTS];

	tapas_require_admin("read the tapas shared audit state");
	InitMaterializedSRF(fcinfo, 0);
	if (tapas_audit_shared == NULL)
		PG_RETURN_VOID();
	if (tapas_audit_shared_area == NULL)
		(void) shared_guarded(attach_only, NULL);	/* to read the references */
	LWLockAcquire(tapas_audit_shared->lock, LW_SHARED);
	memcpy(copy, tapas_audit_shared->slots, sizeof(copy));
	for (int i = 0; i < SHARED_SLOTS; i++)
		readers[i] = copy[i].used && tapas_audit_shared_area != NULL &&
			DsaPointerIsValid(copy[i].blob) ?
			(int64) tapas_audit_blob_refs(tapas_audit_shared_area, copy[i].blob) - 1 : -1;
	LWLockRelease(tapas_audit_shared->lock);
	for (int i = 0; i < SHARED_SLOTS; i++)
	{
		Datum		values[8];
		bool		nulls[8] = {false};
		SharedSlot *s = &copy[i];

		if (!s->used || s->dbid != MyDatabaseId)
			continue;
		values[0] = ObjectIdGetDatum(s->relid);
		if (OidIsValid(s->roleid))
			values[1] = CStringGetTextDatum(GetUserNameFromId(s->roleid, true) ?
											GetUserNameFromId(s->roleid, true) : "?");
		else
			nulls[1] = true;
		values[2] = Int32GetDatum(s->nrows);
		values[3] = Int64GetDatum((int64) s->rank);
		values[4] = Int64GetDatum((int64) s->nrecords);
		values[5] = Int64GetDatum((int64) s->bytes);
		values[6] = Int64GetDatum((int64) s->copies);
		values[7] = Int64GetDatum(readers[i]);
		nulls[7] = readers[i] < 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_VOID();
}
