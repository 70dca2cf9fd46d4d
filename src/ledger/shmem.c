/*-------------------------------------------------------------------------
 *
 * shmem.c
 *	  The ledger's shared memory: request, attach, and replay at startup.
 *
 * PG 15 style (as pg_stat_statements): shmem_request_hook asks for the
 * region (TapasLedgerShared + the store sized by the GUCs) and one LWLock
 * of tranche "tapas_ledger"; shmem_startup_hook attaches it under
 * AddinShmemInitLock and, the first time (in the postmaster, before any
 * backend runs, and again after every crash restart, which reinitialises
 * shared memory), formats the store and replays pg_tapas/ledger.log into
 * it.  So the shared state is always the file's content, and the file is
 * the durable truth.
 *
 * Locking is documented in ledger_int.h.  The region holds offsets only,
 * so backends may map it anywhere.
 *
 * IDENTIFICATION
 *	  src/ledger/shmem.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "ledger/ledger.h"
#include "ledger/ledger_int.h"
#include "policy/policy.h"

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* this backend's pointer to the shared state; NULL until attached */
static TapasLedgerShared *ledger_shared = NULL;

/* bytes of shared memory for the GUCs' limits */
static Size
ledger_memsize(void)
{
	tapas_ledger_store_limits_t lim;
	Size		store;

	tapas_ledger_limits(&lim);
	store = tapas_ledger_store_size(&lim);
	if (store == 0)
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid tapas ledger limits")));
	return add_size(MAXALIGN(sizeof(TapasLedgerShared)), store);
}

static void
tapas_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(ledger_memsize());
	RequestNamedLWLockTranche("tapas_ledger", 1);
}

static void
tapas_shmem_startup(void)
{
	bool		found;
	Size		size = ledger_memsize();
	tapas_ledger_store_limits_t lim;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ledger_shared = ShmemInitStruct("tapas ledger", size, &found);
	if (!found)
	{
		/* first attach after (re)initialisation: format and replay */
		memset(ledger_shared, 0, sizeof(TapasLedgerShared));
		SpinLockInit(&ledger_shared->sync_mutex);
		ledger_shared->lock = &(GetNamedLWLockTranche("tapas_ledger"))->lock;
		ledger_shared->store_size = size - MAXALIGN(sizeof(TapasLedgerShared));
		tapas_ledger_limits(&lim);
		if (tapas_ledger_store_init(TAPAS_LEDGER_STORE(ledger_shared),
							  ledger_shared->store_size, &lim) == NULL)
			elog(FATAL, "could not format the tapas ledger");
		tapas_ledger_persist_load(ledger_shared);
		/* the postmaster trims the file's zero tail at a clean shutdown */
		if (!IsUnderPostmaster)
			on_shmem_exit(tapas_ledger_persist_shutdown, PointerGetDatum(ledger_shared));
	}
	LWLockRelease(AddinShmemInitLock);
}

void
tapas_ledger_shmem_install(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = tapas_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = tapas_shmem_startup;
}

TapasLedgerShared *
tapas_ledger_shared(void)
{
	tapas_require_preloaded();
	if (ledger_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("tapas ledger shared memory is not initialized"),
				 errhint("tapas must be loaded via shared_preload_libraries.")));
	if (!ledger_shared->file_ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("tapas ledger file \"%s\" could not be opened at startup",
						TAPAS_LEDGER_FILE),
				 errhint("See the server log; fix the file or directory and restart the server.")));
	return ledger_shared;
}

/* the shared state, or NULL if startup could not open the ledger file */
TapasLedgerShared *
tapas_ledger_shared_if_usable(void)
{
	return ledger_shared != NULL && ledger_shared->file_ok ? ledger_shared : NULL;
}
