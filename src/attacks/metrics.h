/*-------------------------------------------------------------------------
 *
 * metrics.h
 *	  Success metrics of a score-based attack, and threshold selection.
 *
 * Input everywhere: n scores s[i] (finite doubles; larger means "more
 * likely positive") and n binary labels y[i] (nonzero = positive, e.g. the
 * target is a member).  The decision at threshold tau is "positive iff
 * s[i] >= tau".  P and N are the numbers of positive and negative labels.
 *
 *	TPR(tau) = #{y=1, s>=tau} / P		FPR(tau) = #{y=0, s>=tau} / N
 *	accuracy = (TP + TN) / n			advantage = TPR - FPR (Stadler et al.)
 *	AUC = P(s+ > s-) + P(s+ = s-)/2 over all positive/negative pairs (exact,
 *		  ties count one half; the Mann-Whitney statistic), 0.5 if P or N = 0.
 *	ROC = the points (FPR(tau), TPR(tau)) for tau = +inf and every distinct
 *		  score in decreasing order, so it runs from (0,0) to (1,1) and tied
 *		  scores form one (diagonal) step.
 *	TPR at FPR <= a: the largest TPR of a ROC point with FPR <= a (no
 *		  interpolation, so it is achievable by a threshold).
 *
 * A rate with an empty denominator (P = 0 or N = 0) is 0.
 *
 * Effective epsilon (Jagielski et al. 2020; TAPAS EffectiveEpsilonReport):
 * an (epsilon, 0)-DP mechanism forces TPR <= e^eps FPR, FPR <= e^eps TPR,
 * TNR <= e^eps FNR and FNR <= e^eps TNR for every test.  From one
 * threshold's confusion matrix, with two-sided Clopper-Pearson intervals for
 * TPR and for FPR at level 1 - (1 - confidence) / 2 each (each one-sided
 * bound at 1 - (1 - confidence) / 4; the intervals hold together with
 * probability >= confidence, Bonferroni; the same levels as TAPAS):
 *	eps_lower = max(0, ln(TPR_low / FPR_high), ln(TNR_low / FNR_high),
 *					   ln(FPR_low / TPR_high), ln(FNR_low / TNR_high)).
 * The bound is valid only if the threshold was not chosen on the same
 * samples; tapas_metrics_epsilon_split() chooses it on a validation prefix.
 * The point estimate tapas_metrics_effective_epsilon() follows the TAPAS
 * AttackSummary rule (trim k = max(min(10, n/10), 1) extreme scores; +inf
 * when a threshold separates perfectly) and has no confidence guarantee.
 *
 * Threshold selection ("criteria" of TAPAS' TrainableThresholdAttack; the
 * reference's names "tp"/"fp" crash, ours accept both spellings at the SQL
 * level): the ROC point is chosen, then the returned tau is the midpoint
 * between its score and the next lower distinct score (a margin; the
 * decisions on the training scores are the same), the lowest score itself
 * for the last point, +inf for the "never positive" point.
 *	accuracy	maximise TPR - FPR (Youden J); ties -> highest threshold
 *	tpr v		minimise |TPR - v|; ties -> lowest FPR
 *	fpr v		minimise |FPR - v|; ties -> highest TPR
 *	threshold v	tau = v (no training; the no-box setting)
 *
 * All functions are pure: they allocate only scratch they free, never
 * modify their inputs, and are O(n log n) (sorting) unless said otherwise.
 *
 * IDENTIFICATION
 *	  src/attacks/metrics.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_METRICS_H
#define TAPAS_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"

typedef struct tapas_confusion
{
	size_t		tp;
	size_t		fp;
	size_t		tn;
	size_t		fn;
} tapas_confusion_t;

typedef struct tapas_metrics
{
	size_t		n_pos;			/* P */
	size_t		n_neg;			/* N */
	double		threshold;		/* the tau used for the confusion-based ones */
	double		accuracy;
	double		tpr;
	double		fpr;
	double		advantage;		/* tpr - fpr */
	double		auc;
	double		tpr_at_fpr_01;	/* TPR at FPR <= 0.1 */
	double		tpr_at_fpr_001; /* TPR at FPR <= 0.01 */
	double		epsilon;		/* point estimate (TAPAS rule), may be +inf */
	double		epsilon_lower;	/* Clopper-Pearson lower bound at tau */
	double		confidence;		/* level of epsilon_lower */
} tapas_metrics_t;

typedef enum tapas_criterion
{
	TAPAS_CRITERION_ACCURACY,
	TAPAS_CRITERION_TPR,
	TAPAS_CRITERION_FPR,
	TAPAS_CRITERION_THRESHOLD
} tapas_criterion;

/* Counts of the decision "positive iff s >= tau". */
extern tapas_confusion_t tapas_metrics_confusion(const double *s,
												 const unsigned char *y,
												 size_t n, double tau);

/* Exact AUC with ties counted one half; 0.5 when P = 0 or N = 0. */
extern tapas_status tapas_metrics_auc(const double *s, const unsigned char *y,
									  size_t n, double *auc);

/*
 * ROC curve: *npoints points (fpr[k], tpr[k]) and the threshold thr[k] that
 * produces each (+inf for the first, (0,0)).  The three arrays are allocated
 * with tapas_malloc and owned by the caller (free with tapas_free).  FPR and
 * TPR are non-decreasing in k.  At most n + 1 points.
 */
extern tapas_status tapas_metrics_roc(const double *s, const unsigned char *y,
									  size_t n, double **fpr, double **tpr,
									  double **thr, size_t *npoints);

/* Largest TPR of a ROC point with FPR <= max_fpr. */
extern tapas_status tapas_metrics_tpr_at_fpr(const double *s,
											 const unsigned char *y, size_t n,
											 double max_fpr, double *tpr);

/*
 * One-sided Clopper-Pearson bounds for a binomial proportion with k
 * successes out of m trials at the given confidence in (0, 1):
 * lower = the (1-confidence) quantile of Beta(k, m-k+1) (0 when k = 0),
 * upper = the confidence quantile of Beta(k+1, m-k) (1 when k = m).
 * m = 0 gives [0, 1].  Accurate to about 1e-10.
 */
extern double tapas_clopper_pearson_lower(size_t k, size_t m,
										  double confidence);
extern double tapas_clopper_pearson_upper(size_t k, size_t m,
										  double confidence);

/* Regularised incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]. */
extern double tapas_incomplete_beta(double a, double b, double x);

/*
 * Clopper-Pearson lower bound on epsilon for the decision at tau (see the
 * header comment); 0 when P or N is 0.
 */
extern double tapas_metrics_epsilon_lower(const double *s,
										  const unsigned char *y, size_t n,
										  double tau, double confidence);

/*
 * The TAPAS EffectiveEpsilonReport procedure: the first
 * ceil(validation_fraction * n) samples choose the threshold and direction
 * maximising the Clopper-Pearson lower bound at confidence 0.9; the bound at
 * `confidence` is then computed on the remaining samples only.  *tau gets
 * the chosen threshold and *inverse 1 if the best bound came from the
 * inverse decision "positive iff s < tau", i.e. FPR/TPR or FNR/TNR (either
 * may be NULL).  TAPAS_EINVAL if
 * validation_fraction is not in (0, 1) or either part is empty.
 */
extern tapas_status tapas_metrics_epsilon_split(const double *s,
												const unsigned char *y,
												size_t n,
												double validation_fraction,
												double confidence,
												double *eps_lower,
												double *tau, int *inverse);

/* Point estimate of epsilon (TAPAS AttackSummary rule); may be +inf. */
extern tapas_status tapas_metrics_effective_epsilon(const double *s,
													const unsigned char *y,
													size_t n, double *eps);

/*
 * Chooses a threshold by criterion (value is the target rate for TPR/FPR,
 * in [0, 1], or tau itself for THRESHOLD).  TAPAS_EINVAL when n = 0 for a
 * trained criterion or value is out of range.
 */
extern tapas_status tapas_threshold_select(const double *s,
										   const unsigned char *y, size_t n,
										   tapas_criterion criterion,
										   double value, double *tau);

/*
 * All metrics at threshold tau, or at the accuracy-criterion threshold
 * chosen on these same samples when tau is NaN (then accuracy, TPR, FPR and
 * epsilon_lower are optimistic: the threshold saw the test labels).
 * confidence in (0, 1) is the level of epsilon_lower.  TAPAS_EINVAL when
 * n = 0 or confidence is out of range; TAPAS_ENOMEM.
 */
extern tapas_status tapas_metrics_compute(const double *s,
										  const unsigned char *y, size_t n,
										  double tau, double confidence,
										  tapas_metrics_t *out);

/* metrics_bootstrap.c */

/* a point estimate and its bootstrap interval [low, high] */
typedef struct tapas_interval
{
	double		est;
	double		low;
	double		high;
} tapas_interval_t;

typedef struct tapas_metrics_ci
{
	tapas_interval_t accuracy;	/* at the fixed threshold tau */
	tapas_interval_t auc;
	tapas_interval_t tpr_at_fpr_01;
	tapas_interval_t tpr_at_fpr_001;
	size_t		n_boot;
	double		level;
} tapas_metrics_ci_t;

/*
 * Stratified percentile bootstrap (Efron and Tibshirani 1993, ch. 13) of
 * accuracy at tau, AUC and TPR at FPR <= 0.1 and 0.01: n_boot resamples,
 * each drawing P positives from the positives and N negatives from the
 * negatives with replacement (so every resample has both classes when the
 * sample has, and the AUC is always defined), the metric of each resample,
 * and the interval between the (1 - level)/2 and (1 + level)/2 order
 * statistics (ranks floor and ceil of q (n_boot - 1)).  The interval is
 * then widened, if needed, to contain the point estimate of the whole
 * sample (for TPR at a low FPR the resamples are biased upwards: a
 * resample that misses the highest negative scores lets the threshold
 * drop), so it never excludes the value it accompanies.  n_boot = 0 gives
 * low = high = est; a sample whose every resample has the same metric (all
 * scores of a class equal, say) gives width 0.  Draws come from one
 * generator seeded with seed.  progress (may be NULL) is polled every 64
 * resamples.  TAPAS_EINVAL when n = 0 or level is not in (0, 1);
 * TAPAS_ENOMEM; TAPAS_ECANCELED.  Cost O(n_boot n log n).
 */
extern tapas_status tapas_metrics_bootstrap(const double *s,
											const unsigned char *y, size_t n,
											double tau, size_t n_boot,
											double level, uint64_t seed,
											const tapas_progress_t *progress,
											tapas_metrics_ci_t *out);

#endif							/* TAPAS_METRICS_H */
