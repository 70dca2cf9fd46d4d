/*-------------------------------------------------------------------------
 *
 * alerts_int.h
 *	  The alerts' shared ring, shared by the files of the alert subsystem
 *	  (alerts.c: raising and listing; alerts_file.c: the durable file;
 *	  alerts_merge.c: one alert per statement, table and kind;
 *	  alerts_notify.c: the NOTIFY worker).  Not for other subsystems.
 *
 * IDENTIFICATION
 *	  src/audit/alerts_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_ALERTS_INT_H
#define TAPAS_ALERTS_INT_H

#include "storage/lwlock.h"

#include "audit/audit.h"

#define ALERT_DIR		"pg_tapas"
#define ALERT_FILE		"pg_tapas/alerts.log"
#define ALERT_MAGIC		"TAPASAL2"
#define ALERT_MAGIC_V1	"TAPASAL1"	/* tapas 0.2: frames of TAPAS_ALERT_V1_SIZE */
#define ALERT_MAGIC_LEN 8
#define MAX_NOTIFIERS	8

typedef struct AlertShared
{
	LWLock	   *lock;			/* guards everything below and the file */
	uint64		prime;			/* secret prime of the row-space test */
	int64		next_id;		/* id of the next alert */
	int64		oldest_id;		/* oldest alert still in the ring */
	Oid			notifier_db[MAX_NOTIFIERS]; /* databases with a running
											 * notifier, InvalidOid = free */
	int			nslots;			/* tapas.max_alerts, fixed at startup */
	TapasAlert	ring[FLEXIBLE_ARRAY_MEMBER];	/* nslots slots */
} AlertShared;

/* the ring slot of alert_id (ids start at 1) */
static inline TapasAlert *
tapas_alerts_slot(AlertShared *sh, int64 alert_id)
{
	return &sh->ring[(alert_id - 1) % sh->nslots];
}

/* alerts.c */
extern AlertShared *tapas_alerts_shared(void);

/* alerts_file.c */
extern void tapas_alerts_file_load(AlertShared *sh);
extern void tapas_alerts_file_append(const TapasAlert *a);

/* alerts_merge.c */
extern int	tapas_alerts_merge(const TapasAlert *in, int n, TapasAlert *out, int *group);

/* alerts_notify.c */
extern void tapas_alerts_kick_notifier(AlertShared *sh);

#endif							/* TAPAS_ALERTS_INT_H */
