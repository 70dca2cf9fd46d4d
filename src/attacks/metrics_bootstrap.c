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
 * Those functions sort their input; a resample's scores are the sample's
 * own, so the sample's distinct scores are sorted once (tapas_score_groups)
 * and a resample is only its positive and negative counts per distinct
 * score (metrics_of_groups): the same counts give the same integers and
 * the same floating-point sums in the same order, so the metrics are
 * identical to the sorting path's (test/unit/attacks/t-metrics_bootstrap.c
 * compares them), at O(n) per resample instead of three sorts.  A NaN
 * score has no place in an order: such samples take the sorting path.
 *
 * IDENTIFICATION
 *	  src/attacks/metrics_bootstrap.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "attacks/metrics.h"
#include "attacks/metrics_int.h"
#include "util/memory.h"
#include "util/rng.h"

#define N_METRICS 4

int			tapas_metrics_bootstrap_groups = 1;

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

/*
 * The four metrics of a resample given as counts per distinct score: g[k]
 * (ng groups, decreasing score) holds the resample's positives and
 * negatives with score g[k].score, possibly none.  The same sums as
 * metrics_of's functions: confusion at tau, the AUC's group sum and the
 * best TPR over the ROC points with FPR <= max_fpr (an empty group adds a
 * zero term, or repeats a point).
 */
static void
metrics_of_groups(const tapas_score_group_t *g, size_t ng, size_t P, size_t N,
				  double tau, double *m)
{
	double		tp_before = 0,
				area = 0,
				best01 = 0,
				best001 = 0;
	size_t		tp = 0,
				fp = 0,
				tp_tau = 0,
				tn_tau = 0,
				k;

	for (k = 0; k < ng; k++)
	{
		double		f,
					t;

		if (g[k].score >= tau)
			tp_tau += g[k].pos;
		else
			tn_tau += g[k].neg;
		area += (double) g[k].neg * (tp_before + 0.5 * (double) g[k].pos);
		tp_before += (double) g[k].pos;
		tp += g[k].pos;
		fp += g[k].neg;
		f = N == 0 ? 0.0 : (double) fp / (double) N;
		t = P == 0 ? 0.0 : (double) tp / (double) P;
		if (f <= 0.1 * (1 + 1e-12) && t > best01)
			best01 = t;
		if (f <= 0.01 * (1 + 1e-12) && t > best001)
			best001 = t;
	}
	m[0] = (double) (tp_tau + tn_tau) / (double) (P + N);
	m[1] = (P == 0 || N == 0) ? 0.5 : area / ((double) P * (double) N);
	m[2] = best01;
	m[3] = best001;
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

/*
 * The group (position in g, decreasing score) of each sample score, by
 * binary search; 0 if some score is NaN (no group order), else 1.
 */
static int
score_group_index(const double *s, size_t n, const tapas_score_group_t *g,
				  size_t ng, size_t *grp)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		size_t		lo = 0,
					hi = ng;

		if (isnan(s[i]))
			return 0;
		while (hi - lo > 1)
		{
			size_t		mid = (lo + hi) / 2;

			if (g[mid].score >= s[i])
				lo = mid;
			else
				hi = mid;
		}
		if (g[lo].score != s[i])
			return 0;
		grp[i] = lo;
	}
	return 1;
}

/*
 * One stratified resample as counts per group into g (the draws of
 * resample(), in the same order).
 */
static void
resample_groups(tapas_rng_t *rng, const size_t *grp, const size_t *pos, size_t np,
				const size_t *neg, size_t nn, tapas_score_group_t *g, size_t ng)
{
	size_t		i;

	for (i = 0; i < ng; i++)
		g[i].pos = g[i].neg = 0;
	for (i = 0; i < np; i++)
		g[grp[pos[tapas_rng_below(rng, np)]]].pos++;
	for (i = 0; i < nn; i++)
		g[grp[neg[tapas_rng_below(rng, nn)]]].neg++;
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
	tapas_score_group_t *g = NULL;
	size_t	   *grp = NULL;
	size_t		ng = 0,
				np = 0,
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
	if (tapas_metrics_bootstrap_groups && n_boot > 0)
	{
		size_t		P,
					N;

		if ((st = tapas_score_groups(s, y, n, &g, &ng, &P, &N)) != TAPAS_OK)
			goto done;
		grp = tapas_malloc(n * sizeof(size_t));
		st = TAPAS_ENOMEM;
		if (grp == NULL)
			goto done;
		if (!score_group_index(s, n, g, ng, grp))
		{
			tapas_free(g);
			g = NULL;
		}
	}
	tapas_rng_seed(&rng, seed);
	for (b = 0; b < n_boot; b++)
	{
		if (b % 64 == 63 && tapas_progress_poll(progress, (double) b / (double) n_boot))
		{
			st = TAPAS_ECANCELED;
			goto done;
		}
		if (g != NULL)
		{
			resample_groups(&rng, grp, idx, np, idx + np, nn, g, ng);
			metrics_of_groups(g, ng, np, nn, tau, m);
		}
		else
		{
			resample(&rng, s, idx, np, idx + np, nn, rs, ry);
			if ((st = metrics_of(rs, ry, n, tau, m)) != TAPAS_OK)
				goto done;
		}
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
	tapas_free(g);
	tapas_free(grp);
	tapas_free(idx);
	tapas_free(rs);
	tapas_free(ry);
	tapas_free(vals);
	return st;
}
