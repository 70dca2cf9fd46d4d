/*-------------------------------------------------------------------------
 *
 * threshold.c
 *	  Threshold selection for trainable-threshold attacks.
 *
 * TAPAS' TrainableThresholdAttack picks tau from the ROC curve of training
 * scores: the accuracy criterion maximises Youden's J = TPR - FPR (the
 * balanced accuracy), the "tpr"/"fpr" criteria hit a target rate, and the
 * "threshold" criterion fixes tau (no training, the no-box setting).
 *
 * The ROC point k (k = 0 is "never positive", k >= 1 is "positive iff
 * s >= g[k-1].score") is chosen exactly as the reference does, except for
 * the tie-breaking documented in metrics.h; then, unlike the reference,
 * the returned tau sits halfway to the next lower distinct score, so a test
 * score slightly below the lowest accepted training score is still judged
 * the way the training data suggests.  The training decisions are
 * unchanged by the margin.
 *
 * IDENTIFICATION
 *	  src/attacks/threshold.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "attacks/metrics.h"
#include "attacks/metrics_int.h"
#include "util/memory.h"

/* rate = count / total, 0 when total = 0 */
static double
rate(size_t count, size_t total)
{
	return total == 0 ? 0.0 : (double) count / (double) total;
}

/*
 * Index of the chosen ROC point (0 .. ng) for a trained criterion.  A
 * candidate replaces the best only when strictly better, or, for the
 * tie-breaks that prefer later (lower-threshold) points, when equal.
 */
static size_t
choose_point(const tapas_score_group_t *g, size_t ng, size_t P, size_t N,
			 tapas_criterion criterion, double value)
{
	size_t		k,
				best = 0,
				tp = 0,
				fp = 0;
	double		best_key = 0;

	for (k = 0; k <= ng; k++)
	{
		double		tpr,
					fpr,
					key;
		int			take;

		if (k > 0)
		{
			tp += g[k - 1].pos;
			fp += g[k - 1].neg;
		}
		tpr = rate(tp, P);
		fpr = rate(fp, N);
		switch (criterion)
		{
			case TAPAS_CRITERION_ACCURACY:
				/* maximise J; ties keep the highest threshold */
				key = tpr - fpr;
				take = k == 0 || key > best_key + 1e-12;
				break;
			case TAPAS_CRITERION_TPR:
				/* minimise |TPR - v|; ties keep the lowest FPR (earliest) */
				key = -fabs(tpr - value);
				take = k == 0 || key > best_key + 1e-12;
				break;
			default:
				/* minimise |FPR - v|; ties take the highest TPR (latest) */
				key = -fabs(fpr - value);
				take = k == 0 || key >= best_key - 1e-12;
				break;
		}
		if (take)
		{
			best = k;
			best_key = key;
		}
	}
	return best;
}

tapas_status
tapas_threshold_select(const double *s, const unsigned char *y, size_t n,
					   tapas_criterion criterion, double value, double *tau)
{
	tapas_score_group_t *g;
	size_t		ng,
				P,
				N,
				k;
	tapas_status st;

	if (criterion == TAPAS_CRITERION_THRESHOLD)
	{
		if (isnan(value))
			return TAPAS_EINVAL;
		*tau = value;
		return TAPAS_OK;
	}
	if (n == 0)
		return TAPAS_EINVAL;
	if (criterion != TAPAS_CRITERION_ACCURACY &&
		!(value >= 0 && value <= 1))
		return TAPAS_EINVAL;
	st = tapas_score_groups(s, y, n, &g, &ng, &P, &N);
	if (st != TAPAS_OK)
		return st;
	k = choose_point(g, ng, P, N, criterion, value);
	if (k == 0)
		*tau = INFINITY;
	else if (k == ng)
		*tau = g[ng - 1].score;
	else
	{
		*tau = 0.5 * g[k - 1].score + 0.5 * g[k].score;
		/* adjacent doubles: the midpoint may round onto the lower score */
		if (!(*tau > g[k].score))
			*tau = g[k - 1].score;
	}
	tapas_free(g);
	return TAPAS_OK;
}
