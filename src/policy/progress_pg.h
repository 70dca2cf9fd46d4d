/*-------------------------------------------------------------------------
 *
 * progress_pg.h
 *	  The server side of util/progress.h: a kernel progress callback that
 *	  stops the kernel on a cancel or termination request and reports a
 *	  NOTICE at most every tapas.progress_interval (5 s by default).
 *
 * Long SQL functions (tapas.evaluate, tapas.reconstruct,
 * tapas.reconstruct_matrix) pass tapas_progress_notice_cb with a
 * TapasProgressNotice to their kernels, and call tapas_progress_notice()
 * between their own steps.  tapas.audit runs the checks of the gate
 * (audit/determined.c, reconstructed.c), whose kernel callbacks have no
 * room for a reporter of their own: it makes its reporter the active one
 * for the time of the call, and those callbacks report through
 * tapas_progress_active_notice(), which does nothing outside tapas.audit
 * (a gate's audit never reports to the analyst).  Before, tapas.evaluate only reported between
 * datasets, so a run whose time went into the classifier's fit (the
 * random forest over 1,000 feature vectors) stayed silent for 30 s.
 *
 * The callback never longjmps: it reads interrupt flags, and ereport at
 * NOTICE level returns (elog.c only jumps for ERROR and above), so kernel
 * memory is never leaked by a report.
 *
 * IDENTIFICATION
 *	  src/policy/progress_pg.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_PROGRESS_PG_H
#define TAPAS_PROGRESS_PG_H

#include "portability/instr_time.h"

#include "util/progress.h"

/* tapas.progress_interval: milliseconds between progress NOTICEs */
extern int	tapas_progress_interval_ms;

typedef struct TapasProgressNotice
{
	const char *what;			/* the NOTICE's prefix, e.g. "tapas.evaluate" */
	const char *step;			/* what runs now, e.g. "training the classifier" */
	instr_time	start;			/* when the function started */
	double		last;			/* seconds since start at the last NOTICE */
} TapasProgressNotice;

extern void tapas_progress_define_gucs(void);

/* starts the clock; what and step are kept by pointer */
extern void tapas_progress_notice_init(TapasProgressNotice *p, const char *what,
									   const char *step);

/*
 * NOTICE "what: step, N% (T s)" if the interval has passed since the last
 * one (fraction < 0: no percentage).
 */
extern void tapas_progress_notice(TapasProgressNotice *p, double fraction);

/* kernel callback (tapas_progress_t.fn, arg a TapasProgressNotice *) */
extern int	tapas_progress_notice_cb(void *arg, double fraction);

/*
 * The active reporter: set it (tapas_progress_activate) inside PG_TRY and
 * clear it (NULL) in PG_FINALLY, so that no error leaves a pointer to a
 * dead stack frame behind.  tapas_progress_active_notice() reports through
 * it, if any.
 */
extern void tapas_progress_activate(TapasProgressNotice *p);
extern void tapas_progress_active_notice(double fraction);

#endif							/* TAPAS_PROGRESS_PG_H */
