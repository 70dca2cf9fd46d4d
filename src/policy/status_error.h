/*-------------------------------------------------------------------------
 *
 * status_error.h
 *	  The one mapper from a kernel status to an error report.
 *
 * The SQLSTATE, message and hint of each status come from the pure table
 * of src/util/status.c (tapas_status_info); this file only turns an entry
 * into ereport() arguments.  Callers that word the message themselves
 * still take the SQLSTATE from here (tapas_status_errcode), so every
 * status has one SQLSTATE everywhere.
 *
 * IDENTIFICATION
 *	  src/policy/status_error.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_STATUS_ERROR_H
#define TAPAS_STATUS_ERROR_H

#include "miscadmin.h"

#include "util/status.h"

/* The SQLSTATE of status, as an ERRCODE_* value for errcode(). */
extern int	tapas_status_errcode(tapas_status status);

/*
 * Raises the error of status and does not return, except for TAPAS_OK.
 * The message is "what: reason", reason defaulting to the status's own
 * message; for TAPAS_ENOMEM and TAPAS_ECANCELED the kernel's reason is
 * dropped (it names no resource).  TAPAS_ECANCELED first runs
 * CHECK_FOR_INTERRUPTS(), so a pending cancel or statement_timeout reports
 * as PostgreSQL itself would.
 */
extern void tapas_raise_status(tapas_status status, const char *what,
							   const char *reason);


/*
 * True when the backend must stop: a query cancel or a termination is
 * pending.  Kernel progress callbacks use this, not InterruptPending, which
 * is also set by harmless interrupts (a configuration reload, a procsignal
 * barrier, memory-context logging) that CHECK_FOR_INTERRUPTS handles
 * without raising: a kernel stopped for one of those would fail with a
 * "canceled" status that no cancel explains.
 */
static inline bool
tapas_cancel_requested(void)
{
	return QueryCancelPending || ProcDiePending;
}

#endif							/* TAPAS_STATUS_ERROR_H */
