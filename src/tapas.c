/*-------------------------------------------------------------------------
 *
 * tapas.c
 *	  Module entry point: one init call per subsystem, nothing else.
 *
 * _PG_init only wires things up; each subsystem owns its hooks and state.
 * tapas keeps its ledger in shared memory, so it must be loaded through
 * shared_preload_libraries; loaded any other way it refuses to start.
 *
 * IDENTIFICATION
 *	  src/tapas.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <cblas.h>
#include <flint/flint.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "policy/progress_pg.h"
#include "audit/audit.h"
#include "capture/capture.h"
#include "ledger/ledger.h"
#include "policy/policy.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * FLINT calls abort() on internal errors (e.g. division by zero); that would
 * crash the backend and restart every session.  Raise an ERROR instead; what
 * FLINT had allocated leaks, so wrappers still validate FLINT's unchecked
 * preconditions before calling it.
 */
static pg_attribute_noreturn() void
tapas_flint_abort(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("FLINT aborted an operation inside tapas"),
			 errhint("The server log has FLINT's message.")));
	pg_unreachable();
}

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("tapas must be loaded via shared_preload_libraries"),
				 errhint("Add tapas to shared_preload_libraries in postgresql.conf and restart the server.")));
	tapas_loaded_at_startup = true;

	/*
	 * One BLAS thread per backend: PostgreSQL backends are single-threaded,
	 * and a thread pool makes floating-point results depend on scheduling.
	 */
	openblas_set_num_threads(1);
	flint_set_abort(tapas_flint_abort);

	/* every subsystem defines its settings before the prefix is reserved */
	tapas_policy_define_gucs();
	tapas_ledger_define_gucs();
	tapas_audit_define_gucs();
	tapas_audit_shared_define_gucs();
	tapas_progress_define_gucs();
	MarkGUCPrefixReserved("tapas");
	tapas_ledger_shmem_install();
	tapas_ledger_flusher_register();
	tapas_capture_install();
	tapas_alerts_shmem_install();
	tapas_audit_shared_install();
}
