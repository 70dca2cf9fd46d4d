/*-------------------------------------------------------------------------
 *
 * state_shared_int.h
 *	  What the shared row-space states' memory and area (state_shared.c)
 *	  share with their slots (state_shared_slots.c).
 *
 * tapas_audit_shared is the shared-memory struct, set at shmem startup;
 * its slots and counters are guarded by its lock.
 * tapas_audit_shared_area is this backend's mapping of the DSA area, NULL
 * until tapas_audit_shared_dsa first attaches it (inside a guarded run).
 *
 * IDENTIFICATION
 *	  src/audit/state_shared_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_STATE_SHARED_INT_H
#define TAPAS_STATE_SHARED_INT_H

#include "storage/lwlock.h"
#include "utils/dsa.h"

#include "audit/audit_int.h"


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

/* state_shared.c */
extern SharedState *tapas_audit_shared;
extern dsa_area *tapas_audit_shared_area;

#endif							/* TAPAS_STATE_SHARED_INT_H */
