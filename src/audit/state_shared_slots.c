/*-------------------------------------------------------------------------
 *
 * state_shared_slots.c
 *	  The slots of the shared row-space states: copying a kernel for a new
 *	  backend's entry, and publishing one.
 *
 * A slot is named by (database, table, audit scope, class truth hash) and
 * carries what its kernel was built from; the rules for using and for
 * publishing a copy are in state_shared.c's banner.  Every use of the area
 * runs guarded (tapas_audit_shared_run): on an error the entry replays, or
 * keeps its state unpublished.
 *
 * Concurrency: the slots are guarded by tapas_audit_shared->lock; a reader
 * takes a reference of its own to a copy under LW_SHARED, a publisher
 * serialises into a fresh chunk without the lock and swaps it in under
 * LW_EXCLUSIVE.
 *
 * IDENTIFICATION
 *	  src/audit/state_shared_slots.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "utils/dsa.h"

#include "audit/state_shared_int.h"

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
		tapas_audit_blob_unref(tapas_audit_shared_area, s->blob);	/* freed unless read in place */
	tapas_audit_shared->total_bytes -= s->used ? s->bytes : 0;
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

	if (tapas_audit_shared_dsa() == NULL)
		return;
	LWLockAcquire(tapas_audit_shared->lock, LW_SHARED);
	for (int i = 0; i < SHARED_SLOTS; i++)
	{
		s = &tapas_audit_shared->slots[i];
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
		c->rs = tapas_audit_blob_read(tapas_audit_shared_area, s->blob, s->bytes,
									  tapas_audit_prime(), &reason);
		if (c->rs == NULL)
		{
			ereport(LOG_SERVER_ONLY,
					(errmsg("tapas: shared audit state of table %u not used: %s",
							e->key.relid, reason ? reason : "?")));
			break;
		}
		c->nrows = s->nrows;
		s->copies++;			/* counters only: a lost increment is harmless */
		s->last_used = ++tapas_audit_shared->clock;
		break;
	}
	LWLockRelease(tapas_audit_shared->lock);
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
	if (!shareable(e) || tapas_audit_shared == NULL || tapas_audit_shared_memory_kb <= 0)
		return NULL;
	if (!tapas_audit_shared_run(copy_guarded, &c))
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
		if (slot_is(&tapas_audit_shared->slots[i], e))
			return &tapas_audit_shared->slots[i];
	for (int i = 0; i < SHARED_SLOTS; i++)
	{
		SharedSlot *s = &tapas_audit_shared->slots[i];

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

	while (tapas_audit_shared->total_bytes + bytes > limit)
	{
		SharedSlot *lru = NULL;

		for (int i = 0; i < SHARED_SLOTS; i++)
		{
			SharedSlot *s = &tapas_audit_shared->slots[i];

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

	if (tapas_audit_shared_dsa() == NULL)
		return;
	blob = tapas_audit_blob_alloc(tapas_audit_shared_area, bytes, &data);
	if (!DsaPointerIsValid(blob))
		return;
	/* the CRC is checked here, once: readers trust the copy (VERIFIED) */
	if (tapas_rowspace_serialise(e->rs, data, bytes) != TAPAS_OK ||
		!tapas_rowspace_serial_verify(data, bytes))
	{
		tapas_audit_blob_unref(tapas_audit_shared_area, blob);
		return;
	}
	LWLockAcquire(tapas_audit_shared->lock, LW_EXCLUSIVE);
	s = slot_for(e);
	/* a copy of more rows of the same generation is already there: keep it */
	if (!(s->used && s->generation == e->keys_generation && s->nrows >= e->nrows) &&
		make_room(bytes - (s->used ? Min(s->bytes, bytes) : 0), s))
	{
		if (s->used && DsaPointerIsValid(s->blob))
			tapas_audit_blob_unref(tapas_audit_shared_area, s->blob);	/* readers keep theirs */
		tapas_audit_shared->total_bytes -= s->used ? s->bytes : 0;
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
		s->last_used = ++tapas_audit_shared->clock;
		tapas_audit_blob_set_id(tapas_audit_shared_area, blob, s->last_used);
		tapas_audit_shared->total_bytes += bytes;
		stored = true;
	}
	LWLockRelease(tapas_audit_shared->lock);
	if (!stored)
		tapas_audit_blob_unref(tapas_audit_shared_area, blob);
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
		tapas_audit_shared == NULL || limit == 0)
		return;
	bytes = tapas_rowspace_serial_size(e->rs);
	if (e->shared_work_us < copy_cost_us(bytes) || bytes > limit)
		return;
	(void) tapas_audit_shared_run(publish_guarded, e);
	/* published or not, the work so far is not counted again */
	e->shared_rows = e->nrows;
	e->shared_work_us = 0;
}
