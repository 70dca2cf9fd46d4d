/*-------------------------------------------------------------------------
 *
 * state_pins.c
 *	  Reference counts on the shared copies of row-space states
 *	  (state_shared.c), so that a backend reads a copy's basis rows in
 *	  place for as long as its kernel lives.
 *
 * A copy is a DSA chunk: a head (a reference count, a magic number and the
 * copy's id) and the serialised kernel (recon/rowspace_serial.c).  Its
 * slot holds one reference; a backend that reads it takes another, under
 * the slots' lock held shared (so the slot's reference is still there),
 * and the kernel keeps the copy's basis rows in place (most of a copy at
 * 10^6 records) instead of copying them.  Whoever drops the last
 * reference frees the chunk: an eviction or a newer copy only drops the
 * slot's, so a pinned copy outlives its slot and is never written again.
 *
 * A backend's references are released when its kernel is freed (the
 * kernel's release callback; entries are freed on every path, errors
 * included, by determined.c and state_memory.c), and all of them at exit
 * (before_shmem_exit, while the area is still mapped); a kernel freed
 * after that releases nothing.  tapas_audit_shared_pins_check, at each
 * sync, raises an internal error if a pinned copy was freed all the same
 * (its head no longer names it), rather than read a reused area.
 *
 * Memory.  A copy evicted while pinned no longer counts against
 * tapas.audit_shared_memory, but stays within the area's hard limit
 * (state_shared.c), so pinned copies delay new ones, never exceed it.
 *
 * IDENTIFICATION
 *	  src/audit/state_pins.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/atomics.h"
#include "storage/ipc.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"

#define BLOB_LIVE	UINT64CONST(0x74617061735f7270)	/* "tapas_rp" */

typedef struct BlobHead
{
	pg_atomic_uint32 refs;		/* the slot's and the backends' */
	uint32		pad;
	uint64		magic;			/* BLOB_LIVE until freed */
	uint64		id;				/* unique per copy (the slots' clock) */
} BlobHead;

/* one reference this backend holds (a kernel reading the copy in place) */
typedef struct Pin
{
	dsa_pointer blob;
	uint64		id;
	struct Pin *prev;
	struct Pin *next;
} Pin;

static dsa_area *pin_area = NULL;
static Pin *pins = NULL;
static bool pins_exit_done = false;
static bool pins_exit_registered = false;

static BlobHead *
head_of(dsa_area *a, dsa_pointer blob)
{
	return (BlobHead *) dsa_get_address(a, blob);
}

/* a chunk for a copy of bytes, with one reference (the slot's): its data in *data */
dsa_pointer
tapas_audit_blob_alloc(dsa_area *a, Size bytes, void **data)
{
	dsa_pointer blob = dsa_allocate_extended(a, sizeof(BlobHead) + bytes,
											 DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	BlobHead   *h;

	if (!DsaPointerIsValid(blob))
		return InvalidDsaPointer;
	h = head_of(a, blob);
	pg_atomic_init_u32(&h->refs, 1);
	h->pad = 0;
	h->magic = BLOB_LIVE;
	h->id = 0;
	*data = h + 1;
	return blob;
}

/* names the copy (under the slots' exclusive lock, as it enters its slot) */
void
tapas_audit_blob_set_id(dsa_area *a, dsa_pointer blob, uint64 id)
{
	head_of(a, blob)->id = id;
}

void *
tapas_audit_blob_data(dsa_area *a, dsa_pointer blob)
{
	return head_of(a, blob) + 1;
}

/* references to the copy (the slot's included) */
uint32
tapas_audit_blob_refs(dsa_area *a, dsa_pointer blob)
{
	return pg_atomic_read_u32(&head_of(a, blob)->refs);
}

/* drops one reference; the last frees the chunk */
void
tapas_audit_blob_unref(dsa_area *a, dsa_pointer blob)
{
	BlobHead   *h = head_of(a, blob);

	Assert(pg_atomic_read_u32(&h->refs) > 0);
	if (pg_atomic_sub_fetch_u32(&h->refs, 1) == 0)
	{
		h->magic = 0;
		dsa_free(a, blob);
	}
}

/* at exit, while the area is mapped: every reference this backend holds */
static void
pins_at_exit(int code, Datum arg)
{
	for (Pin *p = pins; p != NULL; p = p->next)
		if (DsaPointerIsValid(p->blob))
		{
			tapas_audit_blob_unref(pin_area, p->blob);
			p->blob = InvalidDsaPointer;
		}
	pins_exit_done = true;
}

/* the kernel's release callback (tapas_rowspace_deserialise_ext) */
static void
pin_release(void *arg)
{
	Pin		   *p = arg;

	if (!pins_exit_done && DsaPointerIsValid(p->blob))
		tapas_audit_blob_unref(pin_area, p->blob);
	if (p->prev)
		p->prev->next = p->next;
	else
		pins = p->next;
	if (p->next)
		p->next->prev = p->prev;
	pfree(p);
}

/*
 * A kernel reading the copy blob of bytes in place, with a reference of
 * its own.  Call under the slots' lock (shared or exclusive) while the
 * slot holds blob; the kernel may outlive the lock and the slot.  NULL
 * (no reference kept) with *reason when the kernel refuses the copy.
 * May raise (out of memory) before it takes the reference.
 */
tapas_rowspace_t *
tapas_audit_blob_read(dsa_area *a, dsa_pointer blob, Size bytes, uint64 prime,
					  const char **reason)
{
	BlobHead   *h = head_of(a, blob);
	Pin		   *p;
	tapas_rowspace_t *rs;
	tapas_status st;

	if (!pins_exit_registered)
	{
		before_shmem_exit(pins_at_exit, (Datum) 0);
		pins_exit_registered = true;
	}
	p = MemoryContextAllocZero(TopMemoryContext, sizeof(Pin));
	Assert(h->magic == BLOB_LIVE);
	pg_atomic_fetch_add_u32(&h->refs, 1);
	pin_area = a;
	p->blob = blob;
	p->id = h->id;
	p->next = pins;
	if (pins)
		pins->prev = p;
	pins = p;
	/* the CRC was checked once, when the copy was published */
	rs = tapas_rowspace_deserialise_ext(h + 1, bytes, prime,
										TAPAS_ROWSPACE_SERIAL_INPLACE |
										TAPAS_ROWSPACE_SERIAL_VERIFIED,
										pin_release, p, &st, reason);
	if (rs == NULL)
		pin_release(p);
	return rs;
}

/* raises an internal error if a copy this backend reads was freed */
void
tapas_audit_shared_pins_check(void)
{
	for (Pin *p = pins; p != NULL; p = p->next)
	{
		BlobHead   *h;

		if (!DsaPointerIsValid(p->blob) || pins_exit_done)
			continue;
		h = head_of(pin_area, p->blob);
		if (h->magic != BLOB_LIVE || h->id != p->id || pg_atomic_read_u32(&h->refs) == 0)
			elog(ERROR, "tapas: a shared audit state was freed while a backend read it");
	}
}

/* references this backend holds (for tapas.audit_shared_state) */
int
tapas_audit_shared_pins(void)
{
	int			n = 0;

	for (Pin *p = pins; p != NULL; p = p->next)
		n += DsaPointerIsValid(p->blob) && !pins_exit_done;
	return n;
}
