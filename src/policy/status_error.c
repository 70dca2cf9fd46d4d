/*-------------------------------------------------------------------------
 *
 * status_error.c
 *	  Kernel status to ereport(): the SQLSTATE, message and hint of the
 *	  table in src/util/status.c.
 *
 * IDENTIFICATION
 *	  src/policy/status_error.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "policy/status_error.h"

int
tapas_status_errcode(tapas_status status)
{
	const char *s = tapas_status_info(status)->sqlstate;

	return MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]);
}

void
tapas_raise_status(tapas_status status, const char *what, const char *reason)
{
	const tapas_status_info_t *info = tapas_status_info(status);

	if (status == TAPAS_OK)
		return;
	if (status == TAPAS_ECANCELED)
		CHECK_FOR_INTERRUPTS();
	if (status == TAPAS_ENOMEM || status == TAPAS_ECANCELED || reason == NULL)
		reason = info->message;
	ereport(ERROR,
			(errcode(tapas_status_errcode(status)),
			 errmsg("%s: %s", what, reason),
			 info->hint != NULL ? errhint("%s", info->hint) : 0));
	pg_unreachable();
}
