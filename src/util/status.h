/*-------------------------------------------------------------------------
 *
 * status.h
 *	  Status codes shared by every pure-C kernel of tapas.
 *
 * Kernels never print, exit or abort: they return a tapas_status (zero on
 * success, a negative TAPAS_E* code otherwise) and the SQL wrappers of
 * src/api/ map it to ereport().  tapas_status_message() gives the one-line
 * lower-case text a wrapper may use as errmsg detail.
 *
 * IDENTIFICATION
 *	  src/util/status.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_STATUS_H
#define TAPAS_STATUS_H

typedef int tapas_status;

#define TAPAS_OK			0
#define TAPAS_EINVAL		(-1)	/* an argument is out of its documented range */
#define TAPAS_ENOMEM		(-2)	/* an allocation failed */
#define TAPAS_ECANCELED		(-3)	/* the progress callback asked to stop */
#define TAPAS_EDECODE		(-4)	/* the decoder detected an undecodable input */
#define TAPAS_EINCONSISTENT	(-5)	/* no solution is consistent with the answers */
#define TAPAS_ENUMERIC		(-6)	/* a numerical routine failed (LAPACK info > 0) */
#define TAPAS_ELIMIT		(-7)	/* a size limit of the kernel was exceeded */

/* Returns a static string describing status; never NULL. */
extern const char *tapas_status_message(tapas_status status);

#endif							/* TAPAS_STATUS_H */
