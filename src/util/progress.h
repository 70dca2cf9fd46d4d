/*-------------------------------------------------------------------------
 *
 * progress.h
 *	  Cancellation and progress reporting across the kernel boundary.
 *
 * A long kernel takes an optional tapas_progress_t and calls
 * tapas_progress_poll() every few thousand iterations.  When the callback
 * returns nonzero the kernel frees its scratch and returns TAPAS_ECANCELED.
 * The server's callback only reads InterruptPending; it never longjmps, so
 * kernel memory is never leaked by a cancel.
 *
 * IDENTIFICATION
 *	  src/util/progress.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_PROGRESS_H
#define TAPAS_PROGRESS_H

#include <stddef.h>

typedef struct tapas_progress
{
	/* returns nonzero to cancel; fraction in [0, 1] or negative if unknown */
	int			(*fn) (void *arg, double fraction);
	void	   *arg;
} tapas_progress_t;

/* Nonzero when the caller asked to stop; progress may be NULL. */
static inline int
tapas_progress_poll(const tapas_progress_t *progress, double fraction)
{
	return progress != NULL && progress->fn != NULL &&
		progress->fn(progress->arg, fraction) != 0;
}

#endif							/* TAPAS_PROGRESS_H */
