/*-------------------------------------------------------------------------
 *
 * release_stats.h
 *	  Estimators and confidence intervals of the dataset-only release audit
 *	  (release_risk.c).
 *
 * Success rates are binomial proportions k / n with the Wilson score
 * interval (Wilson 1927):
 *	centre = (p + z^2/2n) / (1 + z^2/n),
 *	half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2),
 * z the two-sided normal quantile of the confidence level.  k may be
 * fractional (an average of success probabilities).
 *
 * The residual risk attributable to the release compares the success rate
 * p_r on the training rows with the rate p_h on the holdout rows, which
 * the generator never saw: R = (p_r - p_h) / (1 - p_h), the share of the
 * holdout's failures that the release turns into successes.  Since
 * R = 1 - q_r / q_h with q = 1 - p the failure rates, its interval comes
 * from the Katz log interval of a ratio of two proportions (Katz et al.
 * 1978): log(q_r/q_h) +- z sqrt(1/f_r - 1/n_r + 1/f_h - 1/n_h), f the
 * failure counts; when a count is 0 or n every count gets +0.5 (Haldane-
 * Anscombe) for the interval only.  Trials are treated as independent:
 * the interval covers the sampling of targets or predicates, not the draw
 * of the training and holdout tables themselves, so it is somewhat narrow
 * (see the unit test's null case).  Estimate and bounds are clamped to
 * [0, 1]: a negative
 * value means the holdout fits the release at least as well as the
 * training rows, i.e. no risk attributable to it.
 *
 * Membership-type distance statistics (distance to closest record,
 * nearest-neighbour distance ratio) are compared by the probability
 * A = P(T_r < T_h) + P(T_r = T_h)/2 that a training row is closer to the
 * release than a holdout row (the Mann-Whitney AUC of the attack "smaller
 * statistic = member"; 1/2 without memorisation), with a percentile
 * bootstrap interval over both samples; the residual is 2A - 1 (the same
 * (p - p0)/(1 - p0) with p0 = 1/2), clamped to [0, 1].
 *
 * IDENTIFICATION
 *	  src/attacks/release_stats.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_RELEASE_STATS_H
#define TAPAS_RELEASE_STATS_H

#include <stddef.h>

#include "util/rng.h"
#include "util/status.h"

typedef struct tapas_estimate
{
	double		est;			/* point estimate */
	double		low;			/* lower confidence bound */
	double		high;			/* upper confidence bound */
} tapas_estimate_t;

/* z with P(|Z| <= z) = confidence for a standard normal Z; confidence in (0, 1). */
extern double tapas_normal_two_sided_z(double confidence);

/* Wilson score interval of k successes out of n (n = 0 gives 0 in [0, 1]). */
extern tapas_estimate_t tapas_wilson(double k, double n, double confidence);

/*
 * Residual risk (p_r - p_h) / (1 - p_h) of kr / nr against kh / nh with the
 * Katz log interval (see the header); clamped to [0, 1].  0 in [0, 1] when
 * nr or nh is 0.
 */
extern tapas_estimate_t tapas_residual_risk(double kr, double nr, double kh,
											double nh, double confidence);

/*
 * A = P(tr < th) + P(tr = th) / 2 over the nr values tr and nh values th,
 * and its percentile bootstrap interval from nboot resamples (both samples
 * resampled with replacement; nboot = 0 gives low = high = est).  *gini gets
 * the residual 2A - 1 with its interval, clamped to [0, 1].  TAPAS_EINVAL
 * when nr or nh is 0, TAPAS_ENOMEM.
 */
extern tapas_status tapas_closer_probability(const double *tr, size_t nr,
											 const double *th, size_t nh,
											 size_t nboot, double confidence,
											 tapas_rng_t *rng,
											 tapas_estimate_t *a,
											 tapas_estimate_t *gini);

#endif							/* TAPAS_RELEASE_STATS_H */
