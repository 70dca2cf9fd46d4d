/*-------------------------------------------------------------------------
 *
 * metrics.c
 *	  Confusion matrix, ROC curve, exact AUC, TPR at low FPR, and the
 *	  one-call summary of an attack's scores.
 *
 * Everything but the confusion matrix starts from the scores grouped by
 * distinct value in decreasing order (tapas_score_groups).  Walking the
 * groups lowers the threshold one distinct score at a time, which traces
 * the ROC curve; a group holding both labels is one diagonal step, and the
 * trapezoid under it is exactly the "ties count one half" term of the
 * Mann-Whitney statistic, so
 *
 *	AUC = (1 / (P N)) sum_k neg_k (TP_{<k} + pos_k / 2),
 *
 * where TP_{<k} is the number of positives in groups before k.  See
 * metrics.h for the definitions of every metric.
 *
 * IDENTIFICATION
 *	  src/attacks/metrics.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "attacks/metrics.h"
#include "attacks/metrics_int.h"
#include "util/memory.h"

typedef struct scored
{
	double		s;
	unsigned char y;
} scored_t;

/* qsort comparator: decreasing score */
static int
cmp_scored_desc(const void *a, const void *b)
{
	double		x = ((const scored_t *) a)->s,
				y = ((const scored_t *) b)->s;

	return (x < y) - (x > y);
}

tapas_status
tapas_score_groups(const double *s, const unsigned char *y, size_t n,
				   tapas_score_group_t **groups, size_t *ngroups,
				   size_t *npos, size_t *nneg)
{
	scored_t   *v = tapas_malloc((n + 1) * sizeof(scored_t));
	tapas_score_group_t *g = tapas_malloc((n + 1) * sizeof(tapas_score_group_t));
	size_t		i,
				k = 0,
				p = 0;

	if (v == NULL || g == NULL)
	{
		tapas_free(v);
		tapas_free(g);
		return TAPAS_ENOMEM;
	}
	for (i = 0; i < n; i++)
	{
		v[i].s = s[i];
		v[i].y = y[i] != 0;
		p += v[i].y;
	}
	qsort(v, n, sizeof(scored_t), cmp_scored_desc);
	for (i = 0; i < n; i++)
	{
		if (i == 0 || v[i].s != g[k - 1].score)
		{
			g[k].score = v[i].s;
			g[k].pos = g[k].neg = 0;
			k++;
		}
		if (v[i].y)
			g[k - 1].pos++;
		else
			g[k - 1].neg++;
	}
	tapas_free(v);
	*groups = g;
	*ngroups = k;
	*npos = p;
	*nneg = n - p;
	return TAPAS_OK;
}

tapas_confusion_t
tapas_metrics_confusion(const double *s, const unsigned char *y, size_t n,
						double tau)
{
	tapas_confusion_t cm = {0, 0, 0, 0};
	size_t		i;

	for (i = 0; i < n; i++)
	{
		int			predicted = s[i] >= tau;

		if (y[i])
		{
			if (predicted)
				cm.tp++;
			else
				cm.fn++;
		}
		else if (predicted)
			cm.fp++;
		else
			cm.tn++;
	}
	return cm;
}

tapas_status
tapas_metrics_auc(const double *s, const unsigned char *y, size_t n,
				  double *auc)
{
	tapas_score_group_t *g;
	size_t		ng,
				P,
				N,
				k;
	double		tp_before = 0,
				area = 0;
	tapas_status st = tapas_score_groups(s, y, n, &g, &ng, &P, &N);

	if (st != TAPAS_OK)
		return st;
	for (k = 0; k < ng; k++)
	{
		/* sum_k neg_k (TP_{<k} + pos_k / 2) */
		area += (double) g[k].neg * (tp_before + 0.5 * (double) g[k].pos);
		tp_before += (double) g[k].pos;
	}
	tapas_free(g);
	*auc = (P == 0 || N == 0) ? 0.5 : area / ((double) P * (double) N);
	return TAPAS_OK;
}

/* rate = count / total, 0 when total = 0 */
static double
rate(size_t count, size_t total)
{
	return total == 0 ? 0.0 : (double) count / (double) total;
}

tapas_status
tapas_metrics_roc(const double *s, const unsigned char *y, size_t n,
				  double **fpr, double **tpr, double **thr, size_t *npoints)
{
	tapas_score_group_t *g;
	size_t		ng,
				P,
				N,
				k,
				tp = 0,
				fp = 0;
	double	   *f,
			   *t,
			   *h;
	tapas_status st = tapas_score_groups(s, y, n, &g, &ng, &P, &N);

	if (st != TAPAS_OK)
		return st;
	f = tapas_malloc((ng + 1) * sizeof(double));
	t = tapas_malloc((ng + 1) * sizeof(double));
	h = tapas_malloc((ng + 1) * sizeof(double));
	if (f == NULL || t == NULL || h == NULL)
	{
		tapas_free(g);
		tapas_free(f);
		tapas_free(t);
		tapas_free(h);
		return TAPAS_ENOMEM;
	}
	f[0] = t[0] = 0.0;
	h[0] = INFINITY;
	for (k = 0; k < ng; k++)
	{
		tp += g[k].pos;
		fp += g[k].neg;
		f[k + 1] = rate(fp, N);
		t[k + 1] = rate(tp, P);
		h[k + 1] = g[k].score;
	}
	tapas_free(g);
	*fpr = f;
	*tpr = t;
	*thr = h;
	*npoints = ng + 1;
	return TAPAS_OK;
}

tapas_status
tapas_metrics_tpr_at_fpr(const double *s, const unsigned char *y, size_t n,
						 double max_fpr, double *tpr)
{
	double	   *f,
			   *t,
			   *h;
	size_t		np,
				k;
	double		best = 0.0;
	tapas_status st = tapas_metrics_roc(s, y, n, &f, &t, &h, &np);

	if (st != TAPAS_OK)
		return st;
	/* a relative slack so that e.g. FPR 1/10 counts as <= 0.1 */
	for (k = 0; k < np; k++)
		if (f[k] <= max_fpr * (1 + 1e-12) && t[k] > best)
			best = t[k];
	tapas_free(f);
	tapas_free(t);
	tapas_free(h);
	*tpr = best;
	return TAPAS_OK;
}

/* fills the confusion-based fields of out at threshold tau */
static void
fill_confusion_metrics(const double *s, const unsigned char *y, size_t n,
					   double tau, tapas_metrics_t *out)
{
	tapas_confusion_t cm = tapas_metrics_confusion(s, y, n, tau);

	out->threshold = tau;
	out->n_pos = cm.tp + cm.fn;
	out->n_neg = cm.fp + cm.tn;
	out->accuracy = (double) (cm.tp + cm.tn) / (double) n;
	out->tpr = rate(cm.tp, out->n_pos);
	out->fpr = rate(cm.fp, out->n_neg);
	out->advantage = out->tpr - out->fpr;
}

tapas_status
tapas_metrics_compute(const double *s, const unsigned char *y, size_t n,
					  double tau, double confidence, tapas_metrics_t *out)
{
	tapas_status st;

	if (n == 0 || !(confidence > 0 && confidence < 1))
		return TAPAS_EINVAL;
	if (isnan(tau))
	{
		st = tapas_threshold_select(s, y, n, TAPAS_CRITERION_ACCURACY, 0, &tau);
		if (st != TAPAS_OK)
			return st;
	}
	fill_confusion_metrics(s, y, n, tau, out);
	if ((st = tapas_metrics_auc(s, y, n, &out->auc)) != TAPAS_OK ||
		(st = tapas_metrics_tpr_at_fpr(s, y, n, 0.1,
									   &out->tpr_at_fpr_01)) != TAPAS_OK ||
		(st = tapas_metrics_tpr_at_fpr(s, y, n, 0.01,
									   &out->tpr_at_fpr_001)) != TAPAS_OK ||
		(st = tapas_metrics_effective_epsilon(s, y, n,
											  &out->epsilon)) != TAPAS_OK)
		return st;
	out->confidence = confidence;
	out->epsilon_lower = tapas_metrics_epsilon_lower(s, y, n, tau, confidence);
	return TAPAS_OK;
}
