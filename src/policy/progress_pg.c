/*-------------------------------------------------------------------------
 *
 * progress_pg.c
 *	  Progress NOTICEs and cancellation for long SQL functions (see
 *	  progress_pg.h).
 *
 * IDENTIFICATION
 *	  src/policy/progress_pg.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "policy/progress_pg.h"
#include "policy/status_error.h"

int			tapas_progress_interval_ms = 5000;

/* the reporter of the running tapas.audit, or NULL */
static TapasProgressNotice *active = NULL;

void
tapas_progress_define_gucs(void)
{
	DefineCustomIntVariable("tapas.progress_interval",
							"Time between the progress NOTICEs of long tapas functions.",
							"tapas.evaluate, tapas.reconstruct, tapas.reconstruct_matrix and tapas.audit report at most this often.",
							&tapas_progress_interval_ms,
							5000, 1, 3600 * 1000,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
}

void
tapas_progress_notice_init(TapasProgressNotice *p, const char *what, const char *step)
{
	p->what = what;
	p->step = step;
	p->last = 0;
	INSTR_TIME_SET_CURRENT(p->start);
}

void
tapas_progress_notice(TapasProgressNotice *p, double fraction)
{
	instr_time	now;
	double		t;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, p->start);
	t = INSTR_TIME_GET_DOUBLE(now);
	if ((t - p->last) * 1000.0 < tapas_progress_interval_ms)
		return;
	p->last = t;
	if (fraction >= 0)
		ereport(NOTICE,
				(errmsg("%s: %s, %.0f%% (%.0f s)", p->what, p->step,
						100.0 * (fraction > 1 ? 1 : fraction), t)));
	else
		ereport(NOTICE,
				(errmsg("%s: %s (%.0f s)", p->what, p->step, t)));
}

/*
 * Stops the kernel when a cancel or termination is pending (other
 * interrupts, such as barrier requests, are served after it returns).
 */
int
tapas_progress_notice_cb(void *arg, double fraction)
{
	if (tapas_cancel_requested())
		return 1;
	if (arg != NULL)
		tapas_progress_notice((TapasProgressNotice *) arg, fraction);
	return 0;
}

void
tapas_progress_activate(TapasProgressNotice *p)
{
	active = p;
}

void
tapas_progress_active_notice(double fraction)
{
	if (active != NULL)
		tapas_progress_notice(active, fraction);
}
