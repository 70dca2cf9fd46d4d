/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  Configuration parameters of tapas.
 *
 * Everything that weakens the audit is PGC_SUSET: an audited role cannot
 * change it with SET, SET LOCAL, RESET, RESET ALL or ALTER ROLE ... SET of
 * its own (PostgreSQL checks the privilege for each of these).  A DBA may
 * delegate with GRANT SET ON PARAMETER.  Sizes of shared memory are
 * PGC_POSTMASTER.
 *
 * IDENTIFICATION
 *	  src/guc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "tapas.h"

int			tapas_mode = TAPAS_MODE_DENY;
char	   *tapas_admin_role = NULL;

static const struct config_enum_entry mode_options[] = {
	{"off", TAPAS_MODE_OFF, false},
	{"log", TAPAS_MODE_LOG, false},
	{"warn", TAPAS_MODE_WARN, false},
	{"deny", TAPAS_MODE_DENY, false},
	{NULL, 0, false}
};

void
tapas_guc_define(void)
{
	DefineCustomEnumVariable("tapas.mode",
							 "What tapas does when an answer isolates a record.",
							 "off: no isolation audit; log: record an alert; "
							 "warn: also warn the analyst; deny: refuse the query.",
							 &tapas_mode,
							 TAPAS_MODE_DENY,
							 mode_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("tapas.admin_role",
							   "Role whose members are exempt from auditing and may read the ledger.",
							   "Superusers are always exempt.",
							   &tapas_admin_role,
							   "tapas_admin",
							   PGC_POSTMASTER,
							   0,
							   NULL, NULL, NULL);

	MarkGUCPrefixReserved("tapas");
}
