/*-------------------------------------------------------------------------
 *
 * epsilon.c
 *	  Effective epsilon of an attack: Clopper-Pearson lower bounds and the
 *	  TAPAS point estimate.
 *
 * Clopper-Pearson (1934): with k successes in m trials, the exact one-sided
 * lower bound at confidence c is the (1 - c) quantile of Beta(k, m - k + 1)
 * and the upper bound the c quantile of Beta(k + 1, m - k).  The quantile
 * is found by bisection on the regularised incomplete beta function I_x(a,
 * b), which is evaluated with the continued fraction of Numerical Recipes
 * (section 6.4, modified Lentz), using the symmetry I_x(a, b) = 1 -
 * I_{1-x}(b, a) to stay in the fast-converging region.
 *
 * The epsilon bound (metrics.h) takes two-sided intervals for TPR and FPR at
 * level 1 - (1 - c)/2 each, so both hold with probability >= c; then every
 * one of the four DP ratio bounds holds, and their maximum is a valid lower
 * bound.  Choosing tau on the test samples breaks that guarantee, which is
 * why tapas_metrics_epsilon_split() picks tau on a validation prefix.
 *
 * IDENTIFICATION
 *	  src/attacks/epsilon.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "attacks/metrics.h"
#include "attacks/metrics_int.h"
#include "util/memory.h"

/* continued fraction for I_x(a, b) (Numerical Recipes betacf) */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double		c = 1.0,
				d = 1.0 - (a + b) * x / (a + 1.0),
				h;
	int			m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= 1000; m++)
	{
		double		m2 = 2.0 * m,
					aa,
					del;

		/* even step */
		aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		/* odd step */
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));
		d = 1.0 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return h;
}

double
tapas_incomplete_beta(double a, double b, double x)
{
	double		lbt;

	if (x <= 0)
		return 0.0;
	if (x >= 1)
		return 1.0;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lbt) * beta_cf(b, a, 1.0 - x) / b;
}

/* the p quantile of Beta(a, b) by bisection (I_x is increasing in x) */
static double
beta_quantile(double a, double b, double p)
{
	double		lo = 0.0,
				hi = 1.0;
	int			i;

	for (i = 0; i < 200 && hi - lo > 1e-15; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (tapas_incomplete_beta(a, b, mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double
tapas_clopper_pearson_lower(size_t k, size_t m, double confidence)
{
	if (m == 0 || k == 0)
		return 0.0;
	if (k > m)
		k = m;
	return beta_quantile((double) k, (double) (m - k + 1), 1.0 - confidence);
}

double
tapas_clopper_pearson_upper(size_t k, size_t m, double confidence)
{
	if (m == 0 || k >= m)
		return 1.0;
	return beta_quantile((double) (k + 1), (double) (m - k), confidence);
}

/*
 * The epsilon lower bound from a confusion matrix (see the file header).
 * *which gets the ratio attaining it: 0 TPR/FPR, 1 TNR/FNR, 2 FPR/TPR,
 * 3 FNR/TNR, -1 when the bound is 0.
 */
static double
epsilon_bound(size_t tp, size_t fn, size_t fp, size_t tn, double confidence,
			  int *which)
{
	size_t		P = tp + fn,
				N = fp + tn;
	double		c1 = 1.0 - (1.0 - confidence) / 4.0;
	double		tpr_lo,
				tpr_hi,
				fpr_lo,
				fpr_hi,
				r[4],
				best = 0.0;
	int			i;

	*which = -1;
	if (P == 0 || N == 0)
		return 0.0;
	tpr_lo = tapas_clopper_pearson_lower(tp, P, c1);
	tpr_hi = tapas_clopper_pearson_upper(tp, P, c1);
	fpr_lo = tapas_clopper_pearson_lower(fp, N, c1);
	fpr_hi = tapas_clopper_pearson_upper(fp, N, c1);
	/* TNR = 1 - FPR and FNR = 1 - TPR, so their bounds swap roles */
	r[0] = tpr_lo / fpr_hi;
	r[1] = (1.0 - fpr_hi) / (1.0 - tpr_lo);
	r[2] = fpr_lo / tpr_hi;
	r[3] = (1.0 - tpr_hi) / (1.0 - fpr_lo);
	for (i = 0; i < 4; i++)
	{
		if (r[i] > 0 && log(r[i]) > best)
		{
			best = log(r[i]);
			*which = i;
		}
	}
	return best;
}

double
tapas_metrics_epsilon_lower(const double *s, const unsigned char *y, size_t n,
							double tau, double confidence)
{
	tapas_confusion_t cm = tapas_metrics_confusion(s, y, n, tau);
	int			which;

	return epsilon_bound(cm.tp, cm.fn, cm.fp, cm.tn, confidence, &which);
}

tapas_status
tapas_metrics_epsilon_split(const double *s, const unsigned char *y, size_t n,
							double validation_fraction, double confidence,
							double *eps_lower, double *tau, int *inverse)
{
	tapas_score_group_t *g;
	size_t		v,
				ng,
				P,
				N,
				k,
				tp = 0,
				fp = 0;
	double		best = -1.0,
				best_tau = INFINITY;
	int			which;
	tapas_status st;
	tapas_confusion_t cm;

	if (!(validation_fraction > 0 && validation_fraction < 1) ||
		!(confidence > 0 && confidence < 1))
		return TAPAS_EINVAL;
	v = (size_t) ceil(validation_fraction * (double) n);
	if (v == 0 || v >= n)
		return TAPAS_EINVAL;

	/* choose tau on the validation prefix (bound at 0.9, as TAPAS does) */
	st = tapas_score_groups(s, y, v, &g, &ng, &P, &N);
	if (st != TAPAS_OK)
		return st;
	for (k = 0; k < ng; k++)
	{
		double		e;

		tp += g[k].pos;
		fp += g[k].neg;
		e = epsilon_bound(tp, P - tp, fp, N - fp, 0.9, &which);
		if (e > best)
		{
			best = e;
			best_tau = g[k].score;
		}
	}
	tapas_free(g);

	/* bound on the held-out samples only */
	cm = tapas_metrics_confusion(s + v, y + v, n - v, best_tau);
	*eps_lower = epsilon_bound(cm.tp, cm.fn, cm.fp, cm.tn, confidence, &which);
	if (tau != NULL)
		*tau = best_tau;
	if (inverse != NULL)
		*inverse = which >= 2;
	return TAPAS_OK;
}

tapas_status
tapas_metrics_effective_epsilon(const double *s, const unsigned char *y,
								size_t n, double *eps)
{
	tapas_score_group_t *g;
	size_t		ng,
				P,
				N,
				k,
				trim,
				seen = 0,
				tp = 0,
				fp = 0;
	double		best = 0.0;
	int			infinite = 0;
	tapas_status st = tapas_score_groups(s, y, n, &g, &ng, &P, &N);

	if (st != TAPAS_OK)
		return st;
	/* k = max(min(10, int(0.1 n)), 1) extreme scores are left out each side */
	trim = (size_t) (0.1 * (double) n);
	trim = trim > 10 ? 10 : trim;
	trim = trim < 1 ? 1 : trim;
	for (k = 0; k < ng && P > 0 && N > 0; k++)
	{
		double		TP,
					FP;

		/* candidate thresholds: distinct scores among sorted[trim : n-trim] */
		tp += g[k].pos;
		fp += g[k].neg;
		seen += g[k].pos + g[k].neg;
		if (seen <= trim || seen - (g[k].pos + g[k].neg) >= n - trim)
			continue;
		TP = (double) tp / (double) P;
		FP = (double) fp / (double) N;
		if ((FP == 0 && TP > 0) || (TP == 1 && FP < 1))
			infinite = 1;
		if (FP > 0 && TP / FP > 1 && log(TP / FP) > best)
			best = log(TP / FP);
		if (TP < 1 && (1 - FP) / (1 - TP) > 1 && log((1 - FP) / (1 - TP)) > best)
			best = log((1 - FP) / (1 - TP));
	}
	tapas_free(g);
	*eps = infinite ? INFINITY : best;
	return TAPAS_OK;
}
