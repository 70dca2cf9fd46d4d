/*-------------------------------------------------------------------------
 *
 * release_stats.c
 *	  Wilson intervals, the residual risk with its Katz interval, and the
 *	  bootstrapped closer-than-holdout probability (see release_stats.h for
 *	  the formulas).
 *
 * IDENTIFICATION
 *	  src/attacks/release_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>

#include "attacks/metrics.h"
#include "attacks/release_stats.h"
#include "util/memory.h"

static double
clamp01(double x)
{
	return x < 0 ? 0.0 : (x > 1 ? 1.0 : x);
}

/* bisection on the tail 0.5 erfc(z / sqrt 2) = (1 - confidence) / 2 */
double
tapas_normal_two_sided_z(double confidence)
{
	double		tail = (1.0 - confidence) / 2.0,
				lo = 0,
				hi = 40;
	int			i;

	for (i = 0; i < 200; i++)
	{
		double		mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / sqrt(2.0)) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

tapas_estimate_t
tapas_wilson(double k, double n, double confidence)
{
	tapas_estimate_t e = {0, 0, 1};
	double		z,
				p,
				denom,
				centre,
				half;

	if (n <= 0)
		return e;
	z = tapas_normal_two_sided_z(confidence);
	p = k / n;
	denom = 1 + z * z / n;
	centre = (p + z * z / (2 * n)) / denom;
	half = z / denom * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
	e.est = p;
	e.low = clamp01(centre - half);
	e.high = clamp01(centre + half);
	return e;
}

tapas_estimate_t
tapas_residual_risk(double kr, double nr, double kh, double nh,
					double confidence)
{
	tapas_estimate_t e = {0, 0, 1};
	double		fr,
				fh,
				z,
				logratio,
				se;

	if (nr <= 0 || nh <= 0)
		return e;
	/* point estimate from the raw rates; p_h = 1 leaves nothing to explain */
	e.est = kh < nh ? clamp01((kr / nr - kh / nh) / (1 - kh / nh)) : 0.0;

	fr = nr - kr;
	fh = nh - kh;
	if (kr <= 0 || fr <= 0 || kh <= 0 || fh <= 0)
	{
		/* Haldane-Anscombe: +0.5 to every count keeps the logs finite */
		fr += 0.5;
		fh += 0.5;
		nr += 1;
		nh += 1;
	}
	z = tapas_normal_two_sided_z(confidence);
	logratio = log((fr / nr) / (fh / nh));
	se = sqrt(1 / fr - 1 / nr + 1 / fh - 1 / nh);
	/* R = 1 - ratio: the upper ratio bound is the lower risk bound */
	e.low = clamp01(1 - exp(logratio + z * se));
	e.high = clamp01(1 - exp(logratio - z * se));
	if (e.est < e.low)
		e.low = e.est;
	if (e.est > e.high)
		e.high = e.est;
	return e;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* A of the samples in s (first nr training, then nh holdout), as an AUC */
static tapas_status
closer_auc(double *s, unsigned char *y, size_t nr, size_t nh, double *a)
{
	return tapas_metrics_auc(s, y, nr + nh, a);
}

tapas_status
tapas_closer_probability(const double *tr, size_t nr, const double *th,
						 size_t nh, size_t nboot, double confidence,
						 tapas_rng_t *rng, tapas_estimate_t *a,
						 tapas_estimate_t *gini)
{
	size_t		n = nr + nh,
				i,
				b;
	double	   *s,
			   *boot = NULL;
	unsigned char *y;
	tapas_status st;

	if (nr == 0 || nh == 0)
		return TAPAS_EINVAL;
	s = tapas_malloc(sizeof(double) * n);
	y = tapas_malloc(n);
	if (nboot > 0)
		boot = tapas_malloc(sizeof(double) * nboot);
	if (s == NULL || y == NULL || (nboot > 0 && boot == NULL))
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	/* score -T: "larger = member" is "closer = member" */
	for (i = 0; i < n; i++)
	{
		s[i] = i < nr ? -tr[i] : -th[i - nr];
		y[i] = i < nr;
	}
	if ((st = closer_auc(s, y, nr, nh, &a->est)) != TAPAS_OK)
		goto done;
	a->low = a->high = a->est;
	for (b = 0; b < nboot; b++)
	{
		for (i = 0; i < n; i++)
			s[i] = i < nr ? -tr[tapas_rng_below(rng, nr)]
				: -th[tapas_rng_below(rng, nh)];
		if ((st = closer_auc(s, y, nr, nh, &boot[b])) != TAPAS_OK)
			goto done;
	}
	if (nboot > 0)
	{
		double		lo_q = (1 - confidence) / 2 * (double) (nboot - 1),
					hi_q = (1 + confidence) / 2 * (double) (nboot - 1);

		qsort(boot, nboot, sizeof(double), cmp_double);
		a->low = fmin(a->est, boot[(size_t) floor(lo_q)]);
		a->high = fmax(a->est, boot[(size_t) ceil(hi_q)]);
	}
	gini->est = clamp01(2 * a->est - 1);
	gini->low = clamp01(2 * a->low - 1);
	gini->high = clamp01(2 * a->high - 1);
done:
	tapas_free(s);
	tapas_free(y);
	tapas_free(boot);
	return st;
}
