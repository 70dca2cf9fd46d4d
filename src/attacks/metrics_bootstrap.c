/*-------------------------------------------------------------------------
 *
 * metrics_bootstrap.c
 *	  Bootstrap confidence intervals of the attack metrics (metrics.h).
 *
 * The sample is the test datasets of one evaluation: each gives a score
 * and a label.  A resample keeps the numbers of positives and negatives
 * (stratified), because the threat model fixes them (pairs give exactly
 * half) and because AUC and the TPR at a low FPR are defined per class.
 * The metrics of a resample are the same functions as the point estimates
 * (tapas_metrics_confusion, _auc, _tpr_at_fpr) on the resampled arrays.
 *
 * IDENTIFICATION
 *	  src/attacks/metrics_bootstrap.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "attacks/metrics.h"
#include "util/memory.h"
#include "util/rng.h"

#define N_METRICS 4

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* the four metrics of (s, y) into m[0..3] */
static tapas_status
metrics_of(const double *s, const unsigned char *y, size_t n, double tau,
		   double *m)
{
	tapas_confusion_t c = tapas_metrics_confusion(s, y, n, tau);
	tapas_status st;

	m[0] = (double) (c.tp + c.tn) / (double) n;
	if ((st = tapas_metrics_auc(s, y, n, &m[1])) != TAPAS_OK ||
		(st = tapas_metrics_tpr_at_fpr(s, y, n, 0.1, &m[2])) != TAPAS_OK ||
		(st = tapas_metrics_tpr_at_fpr(s, y, n, 0.01, &m[3])) != TAPAS_OK)
		return st;
	return TAPAS_OK;
}

/* percentile interval of the sorted values v[0..b-1], widened to hold est */
static tapas_interval_t
percentile(double *v, size_t b, double level, double est)
{
	tapas_interval_t r = {est, est, est};
	double		ql = (1 - level) / 2 * (double) (b - 1),
				qh = (1 + level) / 2 * (double) (b - 1);

	if (b == 0)
		return r;
	qsort(v, b, sizeof(double), cmp_double);
	r.low = v[(size_t) floor(ql)];
	r.high = v[(size_t) ceil(qh)];
	if (est < r.low)
		r.low = est;
	if (est > r.high)
		r.high = est;
	return r;
}

/* one stratified resample of (s, y) into (rs, ry) */
static void
resample(tapas_rng_t *rng, const double *s, const size_t *pos, size_t np,
		 const size_t *neg, size_t nn, double *rs, unsigned char *ry)
{
	size_t		i;

	for (i = 0; i < np; i++)
	{
		rs[i] = s[pos[tapas_rng_below(rng, np)]];
		ry[i] = 1;
	}
	for (i = 0; i < nn; i++)
	{
		rs[np + i] = s[neg[tapas_rng_below(rng, nn)]];
		ry[np + i] = 0;
	}
}

tapas_status
tapas_metrics_bootstrap(const double *s, const unsigned char *y, size_t n,
						double tau, size_t n_boot, double level, uint64_t seed,
						const tapas_progress_t *progress, tapas_metrics_ci_t *out)
{
	size_t	   *idx = NULL;
	double	   *rs = NULL,
			   *vals = NULL,
				est[N_METRICS],
				m[N_METRICS];
	unsigned char *ry = NULL;
	size_t		np = 0,
				nn = 0,
				i,
				b,
				k;
	tapas_rng_t rng;
	tapas_status st;

	if (n == 0 || !(level > 0 && level < 1))
		return TAPAS_EINVAL;
	if ((st = metrics_of(s, y, n, tau, est)) != TAPAS_OK)
		return st;
	idx = tapas_malloc(n * sizeof(size_t));
	rs = tapas_malloc(n * sizeof(double));
	ry = tapas_malloc(n);
	vals = tapas_malloc((N_METRICS * n_boot + 1) * sizeof(double));
	st = TAPAS_ENOMEM;
	if (idx == NULL || rs == NULL || ry == NULL || vals == NULL)
		goto done;
	/* positives first, then negatives, each in sample order */
	for (i = 0; i < n; i++)
		if (y[i])
			idx[np++] = i;
	for (i = 0; i < n; i++)
		if (!y[i])
			idx[np + nn++] = i;
	tapas_rng_seed(&rng, seed);
	for (b = 0; b < n_boot; b++)
	{
		if (b % 64 == 63 && tapas_progress_poll(progress, (double) b / (double) n_boot))
		{
			st = TAPAS_ECANCELED;
			goto done;
		}
		resample(&rng, s, idx, np, idx + np, nn, rs, ry);
		if ((st = metrics_of(rs, ry, n, tau, m)) != TAPAS_OK)
			goto done;
		for (k = 0; k < N_METRICS; k++)
			vals[k * n_boot + b] = m[k];
	}
	out->accuracy = percentile(vals, n_boot, level, est[0]);
	out->auc = percentile(vals + n_boot, n_boot, level, est[1]);
	out->tpr_at_fpr_01 = percentile(vals + 2 * n_boot, n_boot, level, est[2]);
	out->tpr_at_fpr_001 = percentile(vals + 3 * n_boot, n_boot, level, est[3]);
	out->n_boot = n_boot;
	out->level = level;
	st = TAPAS_OK;
done:
	tapas_free(idx);
	tapas_free(rs);
	tapas_free(ry);
	tapas_free(vals);
	return st;
}
