/*-------------------------------------------------------------------------
 *
 * metrics_int.h
 *	  Internal to metrics.c, threshold.c and epsilon.c: scores grouped by
 *	  distinct value.
 *
 * tapas_score_groups() sorts the scores in decreasing order and merges equal
 * scores into groups: g[k].score is the k-th largest distinct score, g[k].pos
 * and g[k].neg count the positive and negative samples that have it.  The
 * ROC point after group k is (sum_{l<=k} neg / N, sum_{l<=k} pos / P).
 *
 * IDENTIFICATION
 *	  src/attacks/metrics_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_METRICS_INT_H
#define TAPAS_METRICS_INT_H

#include <stddef.h>

#include "util/status.h"

typedef struct tapas_score_group
{
	double		score;			/* a distinct score */
	size_t		pos;			/* positives with this score */
	size_t		neg;			/* negatives with this score */
} tapas_score_group_t;

/*
 * Groups n scores; *groups is tapas_malloc'd (caller frees), *ngroups its
 * length, *npos and *nneg the label totals.  TAPAS_ENOMEM on failure.
 */
extern tapas_status tapas_score_groups(const double *s, const unsigned char *y,
									   size_t n, tapas_score_group_t **groups,
									   size_t *ngroups, size_t *npos,
									   size_t *nneg);

/*
 * 1 (the default): the bootstrap counts each resample per distinct score
 * of the sample (metrics_bootstrap.c); 0: it sorts every resample, as
 * before (the unit test's oracle; both give the same intervals).
 */
extern int	tapas_metrics_bootstrap_groups;

#endif							/* TAPAS_METRICS_INT_H */
