/*-------------------------------------------------------------------------
 *
 * status.c
 *	  Messages for the kernel status codes.
 *
 * IDENTIFICATION
 *	  src/util/status.c
 *
 *-------------------------------------------------------------------------
 */
#include "util/status.h"

const char *
tapas_status_message(tapas_status status)
{
	switch (status)
	{
		case TAPAS_OK:
			return "success";
		case TAPAS_EINVAL:
			return "invalid argument";
		case TAPAS_ENOMEM:
			return "out of memory";
		case TAPAS_ECANCELED:
			return "canceled";
		case TAPAS_EDECODE:
			return "input cannot be decoded";
		case TAPAS_EINCONSISTENT:
			return "no solution is consistent with the answers";
		case TAPAS_ENUMERIC:
			return "numerical routine failed";
		case TAPAS_ELIMIT:
			return "size limit exceeded";
	}
	return "unrecognized status";
}
