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
 * IDENTIFICATION
 *	  src/audit/state_shared.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/hashfn.h"
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

#include "audit/audit_int.h"
#include "policy/policy.h"

#define SHARED_SLOTS		64

typedef struct SharedSlot
{
	bool		used;
	Oid			dbid;
	Oid			relid;
	Oid			roleid;			/* InvalidOid under tapas.audit_scope = all */
	uint64		class_hash;		/* TapasClass.hash */
	int64		class_nnz;
	uint64		generation;		/* the dense index's reset generation */
	uint32		nrecords;		/* columns of the kernel (cap_n) */
	int			nrows;			/* rows of the class in the kernel */
	int64		last_log_id;	/* log_id of the last of them */
	uint64		rows_digest;	/* hash of their log_ids, in order */
	uint32		rank;
	Size		bytes;
	dsa_pointer blob;
	uint64		last_used;		/* the clock at the last publish or copy */
	uint64		copies;			/* times copied by a backend */
} SharedSlot;

typedef struct SharedState
{
	LWLock	   *lock;
	int			tranche;		/* of the DSA area's locks */
	dsa_handle	area;			/* DSM_HANDLE_INVALID until first used */
	uint64		clock;
	Size		total_bytes;
	SharedSlot	slots[SHARED_SLOTS];
} SharedState;

int			tapas_audit_shared_memory_kb = 0;	/* opt-in in 0.3: see the README */

static SharedState *shared = NULL;
static dsa_area *area = NULL;
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
	shared = ShmemInitStruct("tapas audit shared state", sizeof(SharedState), &found);
	if (!found)
	{
		memset(shared, 0, sizeof(SharedState));
		shared->lock = &(GetNamedLWLockTranche("tapas_audit_shared"))->lock;
		shared->tranche = LWLockNewTrancheId();
		shared->area = DSM_HANDLE_INVALID;
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

	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	if (shared->area == DSM_HANDLE_INVALID)
	{
		a = dsa_create(shared->tranche);
		dsa_pin(a);				/* outlives this backend */
		shared->area = dsa_get_handle(a);
	}
	else
		a = dsa_attach(shared->area);
	LWLockRelease(shared->lock);
	dsa_pin_mapping(a);			/* kept mapped for the backend's life */
	area = a;
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

	if (shared == NULL || tapas_audit_shared_memory_kb <= 0)
		return NULL;
	if (area == NULL)
	{
		LWLockRegisterTranche(shared->tranche, "tapas_audit_shared_area");
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
		dsa_set_size_limit(area, 2 * limit + 64 * 1024 * 1024);
		bound = limit;
	}
	return area;
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
 *		Slots
 * ----------------------------------------------------------------
 */

/* hash of e's first nrows log_ids, in order */
static uint64
rows_digest(const TapasAuditEntry *e, int nrows)
{
	return hash_bytes_extended((const unsigned char *) e->log_ids,
							   (int) (sizeof(int64) * nrows), UINT64CONST(0x7461706173));
}

static bool
slot_is(const SharedSlot *s, const TapasAuditEntry *e)
{
	return s->used && s->dbid == MyDatabaseId && s->relid == e->key.relid &&
		s->roleid == e->key.roleid && s->class_hash == e->cls->hash &&
		s->class_nnz == e->cls->nnz;
}

/* whether e's state may be shared at all (see the banner) */
static bool
shareable(const TapasAuditEntry *e)
{
	return e->joint == NULL && e->cls != NULL && e->cls->usable && e->nrows > 0;
}

/* frees slot s's copy (exclusive lock held) */
static void
slot_clear(SharedSlot *s)
{
	if (s->used && DsaPointerIsValid(s->blob))
		tapas_audit_blob_unref(area, s->blob);	/* freed unless read in place */
	shared->total_bytes -= s->used ? s->bytes : 0;
	memset(s, 0, sizeof(*s));
}

typedef struct CopyArgs
{
	TapasAuditEntry *e;
	int64		need;
	int			nrows;
	tapas_rowspace_t *rs;
} CopyArgs;

/* the body of tapas_audit_shared_copy (run guarded: mapping a segment may raise) */
static void
copy_guarded(void *arg)
{
	CopyArgs   *c = arg;
	TapasAuditEntry *e = c->e;
	SharedSlot *s;
	const char *reason = NULL;
	uint64		digest_at = 0;
	int			digest_rows = -1;

	if (shared_area() == NULL)
		return;
	LWLockAcquire(shared->lock, LW_SHARED);
	for (int i = 0; i < SHARED_SLOTS; i++)
	{
		s = &shared->slots[i];
		if (!slot_is(s, e) || s->generation != e->keys_generation ||
			(int64) s->nrecords < c->need || s->nrows <= 0 || s->nrows > e->nrows ||
			e->log_ids[s->nrows - 1] != s->last_log_id)
			continue;
		if (digest_rows != s->nrows)
		{
			digest_at = rows_digest(e, s->nrows);
			digest_rows = s->nrows;
		}
		if (digest_at != s->rows_digest)
			continue;
		/* a reference of its own: the kernel reads the basis rows in place */
		c->rs = tapas_audit_blob_read(area, s->blob, s->bytes, tapas_audit_prime(), &reason);
		if (c->rs == NULL)
		{
			ereport(LOG_SERVER_ONLY,
					(errmsg("tapas: shared audit state of table %u not used: %s",
							e->key.relid, reason ? reason : "?")));
			break;
		}
		c->nrows = s->nrows;
		s->copies++;			/* counters only: a lost increment is harmless */
		s->last_used = ++shared->clock;
		break;
	}
	LWLockRelease(shared->lock);
}

/*
 * A kernel for e's first rows, copied from a slot (see the banner), over
 * at least need records: the kernel, with *nrows its rows; NULL when no
 * slot fits or the area cannot be used (the caller replays).
 */
tapas_rowspace_t *
tapas_audit_shared_copy(TapasAuditEntry *e, int64 need, int *nrows)
{
	CopyArgs	c = {e, need, 0, NULL};

	*nrows = 0;
	if (!shareable(e) || shared == NULL || tapas_audit_shared_memory_kb <= 0)
		return NULL;
	if (!shared_guarded(copy_guarded, &c))
	{
		tapas_rowspace_free(c.rs);
		return NULL;
	}
	*nrows = c.nrows;
	return c.rs;
}

/* the slot for e (exclusive lock held): its own, a free one, or the least recently used */
static SharedSlot *
slot_for(const TapasAuditEntry *e)
{
	SharedSlot *lru = NULL;

	for (int i = 0; i < SHARED_SLOTS; i++)
		if (slot_is(&shared->slots[i], e))
			return &shared->slots[i];
	for (int i = 0; i < SHARED_SLOTS; i++)
	{
		SharedSlot *s = &shared->slots[i];

		if (!s->used)
			return s;
		if (lru == NULL || s->last_used < lru->last_used)
			lru = s;
	}
	slot_clear(lru);
	return lru;
}

/* evicts least recently used copies other than keep until bytes more fit */
static bool
make_room(Size bytes, SharedSlot *keep)
{
	Size		limit = (Size) tapas_audit_shared_memory_kb * 1024;

	while (shared->total_bytes + bytes > limit)
	{
		SharedSlot *lru = NULL;

		for (int i = 0; i < SHARED_SLOTS; i++)
		{
			SharedSlot *s = &shared->slots[i];

			if (s->used && s != keep && (lru == NULL || s->last_used < lru->last_used))
				lru = s;
		}
		if (lru == NULL)
			return false;
		slot_clear(lru);
	}
	return true;
}

/* estimated microseconds to serialise and copy a state of bytes (about 1 byte/ns) */
static int64
copy_cost_us(Size bytes)
{
	return (int64) (bytes / 1000) + 100;
}

/* stores e's kernel of bytes in a slot (run guarded: allocating a segment may raise) */
static void
publish_guarded(void *arg)
{
	TapasAuditEntry *e = arg;
	Size		bytes = tapas_rowspace_serial_size(e->rs);
	dsa_pointer blob;
	void	   *data;
	SharedSlot *s;
	bool		stored = false;

	if (shared_area() == NULL)
		return;
	blob = tapas_audit_blob_alloc(area, bytes, &data);
	if (!DsaPointerIsValid(blob))
		return;
	/* the CRC is checked here, once: readers trust the copy (VERIFIED) */
	if (tapas_rowspace_serialise(e->rs, data, bytes) != TAPAS_OK ||
		!tapas_rowspace_serial_verify(data, bytes))
	{
		tapas_audit_blob_unref(area, blob);
		return;
	}
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	s = slot_for(e);
	/* a copy of more rows of the same generation is already there: keep it */
	if (!(s->used && s->generation == e->keys_generation && s->nrows >= e->nrows) &&
		make_room(bytes - (s->used ? Min(s->bytes, bytes) : 0), s))
	{
		if (s->used && DsaPointerIsValid(s->blob))
			tapas_audit_blob_unref(area, s->blob);	/* readers keep theirs */
		shared->total_bytes -= s->used ? s->bytes : 0;
		s->used = true;
		s->dbid = MyDatabaseId;
		s->relid = e->key.relid;
		s->roleid = e->key.roleid;
		s->class_hash = e->cls->hash;
		s->class_nnz = e->cls->nnz;
		s->generation = e->keys_generation;
		s->nrecords = tapas_rowspace_n(e->rs);
		s->nrows = e->nrows;
		s->last_log_id = e->log_ids[e->nrows - 1];
		s->rows_digest = rows_digest(e, e->nrows);
		s->rank = tapas_rowspace_rank(e->rs);
		s->bytes = bytes;
		s->blob = blob;
		s->last_used = ++shared->clock;
		tapas_audit_blob_set_id(area, blob, s->last_used);
		shared->total_bytes += bytes;
		stored = true;
	}
	LWLockRelease(shared->lock);
	if (!stored)
		tapas_audit_blob_unref(area, blob);
}

/*
 * Publishes e's committed kernel when the work it saves pays for the copy
 * (see the banner).  Call after a complete sync: rows[0..nrows) are all
 * in e->rs and no trial is open.  Never raises for lack of shared memory:
 * the copy is an optimisation.
 */
void
tapas_audit_shared_publish(TapasAuditEntry *e)
{
	Size		bytes;
	Size		limit = (Size) tapas_audit_shared_memory_kb * 1024;

	if (!shareable(e) || e->rs == NULL || e->rs_broken || e->trial_open ||
		e->rs_rows != e->nrows || e->nrows <= e->shared_rows ||
		shared == NULL || limit == 0)
		return;
	bytes = tapas_rowspace_serial_size(e->rs);
	if (e->shared_work_us < copy_cost_us(bytes) || bytes > limit)
		return;
	(void) shared_guarded(publish_guarded, e);
	/* published or not, the work so far is not counted again */
	e->shared_rows = e->nrows;
	e->shared_work_us = 0;
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
	if (shared == NULL)
		PG_RETURN_VOID();
	if (area == NULL)
		(void) shared_guarded(attach_only, NULL);	/* to read the references */
	LWLockAcquire(shared->lock, LW_SHARED);
	memcpy(copy, shared->slots, sizeof(copy));
	for (int i = 0; i < SHARED_SLOTS; i++)
		readers[i] = copy[i].used && area != NULL && DsaPointerIsValid(copy[i].blob) ?
			(int64) tapas_audit_blob_refs(area, copy[i].blob) - 1 : -1;
	LWLockRelease(shared->lock);
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
