/*-------------------------------------------------------------------------
 *
 * tapas.h
 *	  Declarations shared by the server side of tapas: GUC variables,
 *	  SQLSTATEs and the subsystem entry points called from _PG_init.
 *
 * Server code (capture/, ledger/, audit/, pg/) includes this; pure-C
 * kernels (common/, recon/, attacks/) never do.
 *
 * IDENTIFICATION
 *	  src/tapas.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_H
#define TAPAS_H

#include "postgres.h"

#include "utils/elog.h"

/*
 * SQLSTATEs.  Class "TP" is ours (classes I-Z are implementation-defined);
 * standard codes are used where PostgreSQL already has the right one.
 *
 *	refusal of a protected read, or deny mode	ERRCODE_INSUFFICIENT_PRIVILEGE / TP001
 *	query shape not supported on protected data	ERRCODE_FEATURE_NOT_SUPPORTED
 *	bad argument								ERRCODE_INVALID_PARAMETER_VALUE
 *	size above configured limits				ERRCODE_PROGRAM_LIMIT_EXCEEDED
 *	extension not preloaded						ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE
 */
#define ERRCODE_TAPAS_ISOLATION_DENIED	MAKE_SQLSTATE('T','P','0','0','1')
#define ERRCODE_TAPAS_GROUP_TOO_SMALL	MAKE_SQLSTATE('T','P','0','0','2')
#define ERRCODE_TAPAS_LEDGER_FULL		MAKE_SQLSTATE('T','P','0','0','3')

/* tapas.mode: what the auditor does when a query isolates a record */
typedef enum TapasMode
{
	TAPAS_MODE_OFF,				/* no isolation audit (capture and k still apply) */
	TAPAS_MODE_LOG,				/* record an alert */
	TAPAS_MODE_WARN,			/* record an alert and warn the analyst */
	TAPAS_MODE_DENY				/* refuse the query; its answer is not logged */
} TapasMode;

/* guc.c */
extern int	tapas_mode;
extern char *tapas_admin_role;
extern void tapas_guc_define(void);

/* auth.c */
extern bool tapas_session_is_audited(void);

/*
 * > 0 while the auditor reads the truth of a protected table for itself
 * (audit/reconstructed.c, set and reset around its SPI query): the session
 * then counts as not audited, so capture neither refuses nor logs that read.
 */
extern int	tapas_internal_read;
extern void tapas_require_admin(const char *what);
extern void tapas_require_preloaded(void);

/* tapas.c */
extern bool tapas_loaded_at_startup;

#endif							/* TAPAS_H */
