/*-------------------------------------------------------------------------
 *
 * status.h
 *	  Status codes shared by every pure-C kernel of tapas, and the one table
 *	  that says how each is reported.
 *
 * Kernels never print, exit or abort: they return a tapas_status (zero on
 * success, a negative TAPAS_E* code otherwise).  The server side reports a
 * status through one mapper, tapas_raise_status() in
 * src/policy/status_error.c, which reads its SQLSTATE, message and hint from
 * tapas_status_info() below; nothing else decides the SQLSTATE of a status.
 * The table is pure C so that a unit test can check every entry.
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

/* the most negative status code; every code from TAPAS_OK down to it is defined */
#define TAPAS_STATUS_LAST	TAPAS_ELIMIT

/*
 * How one status is reported.  sqlstate is the five-character SQLSTATE
 * (the README's "Errors" table); message a lower-case phrase that follows
 * the caller's "what: " prefix; hint NULL or a full sentence.
 */
typedef struct tapas_status_info_t
{
	tapas_status status;
	const char *sqlstate;
	const char *message;
	const char *hint;
} tapas_status_info_t;

/*
 * The entry of status; never NULL.  An unknown status gets the internal
 * error entry (SQLSTATE XX000, message "unrecognized status").
 */
extern const tapas_status_info_t *tapas_status_info(tapas_status status);

/* Returns tapas_status_info(status)->message; never NULL. */
extern const char *tapas_status_message(tapas_status status);

#endif							/* TAPAS_STATUS_H */
