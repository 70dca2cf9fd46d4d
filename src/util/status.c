/*-------------------------------------------------------------------------
 *
 * status.c
 *	  The table of kernel status codes: SQLSTATE, message, hint.
 *
 * SQLSTATEs follow the README's "Errors" table: a bad argument is 22023
 * invalid_parameter_value; answers no solution explains or a decoder cannot
 * decode (and a numerical routine that fails on them) are 22000
 * data_exception; a size limit is 54000 program_limit_exceeded; an
 * allocation failure 53200 out_of_memory; a cancelled kernel 57014
 * query_canceled.
 *
 * IDENTIFICATION
 *	  src/util/status.c
 *
 *-------------------------------------------------------------------------
 */
#include <stddef.h>

#include "util/status.h"

static const tapas_status_info_t status_table[] = {
	{TAPAS_OK, "00000", "success", NULL},
	{TAPAS_EINVAL, "22023", "invalid argument", NULL},
	{TAPAS_ENOMEM, "53200", "out of memory",
	"Try a smaller input: the kernels allocate with malloc, outside PostgreSQL's memory contexts."},
	{TAPAS_ECANCELED, "57014", "canceled", NULL},
	{TAPAS_EDECODE, "22000", "input cannot be decoded", NULL},
	{TAPAS_EINCONSISTENT, "22000", "no solution is consistent with the answers", NULL},
	{TAPAS_ENUMERIC, "22000", "numerical routine failed",
	"A linear-algebra or linear-programming routine did not converge on these inputs."},
	/* no hint: the caller's reason names the limit that was reached */
	{TAPAS_ELIMIT, "54000", "size limit exceeded", NULL},
};

static const tapas_status_info_t status_unknown =
{1, "XX000", "unrecognized status", NULL};

const tapas_status_info_t *
tapas_status_info(tapas_status status)
{
	if (status > TAPAS_OK || status < TAPAS_STATUS_LAST)
		return &status_unknown;
	/* the table is in code order: entry i has status -i */
	return &status_table[-status];
}

const char *
tapas_status_message(tapas_status status)
{
	return tapas_status_info(status)->message;
}
