/*-------------------------------------------------------------------------
 *
 * report.h
 *	  Human-readable reports of attack results as SVG: the ROC curve,
 *	  several attacks compared on one ROC plot with an epsilon-DP bound, and
 *	  step plots of counts (records isolated against queries answered).
 *
 * IDENTIFICATION
 *	  src/attacks/report.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_REPORT_H
#define TAPAS_REPORT_H

#include <stddef.h>

#include "util/status.h"

/*
 * A standalone SVG 1.1 document (UTF-8 text, NUL-terminated) drawing the
 * ROC curve given by np points (fpr[k], tpr[k]) (as from tapas_metrics_roc):
 * axes with ticks every 0.2 and their labels, the chance diagonal, the
 * curve, and a legend with the AUC; title (may be NULL) on top, XML-escaped.
 * *svg is tapas_malloc'd, the caller frees it.  TAPAS_EINVAL if np == 0.
 */
extern tapas_status tapas_roc_svg(const double *fpr, const double *tpr,
								  size_t np, double auc, const char *title,
								  char **svg);

/* one curve of a comparison: its ROC points, AUC and legend label */
typedef struct tapas_roc_curve
{
	const double *fpr;
	const double *tpr;
	size_t		np;				/* >= 1 points */
	double		auc;
	const char *label;			/* may be NULL ("attack k") */
} tapas_roc_curve_t;

/*
 * Several attacks on one ROC plot (the reference's ROCReport): the frame of
 * tapas_roc_svg, one polyline per curve in a palette of 10 colours (then
 * repeated), a legend "label (AUC = x)" per curve, and, when epsilon >= 0,
 * the epsilon-DP bound as a dashed red polyline (0, 0) -> (1 / (e^eps + 1),
 * e^eps / (e^eps + 1)) -> (1, 1): no attack on an eps-DP generator has a
 * ROC point above it (TPR <= e^eps FPR and 1 - FPR >= e^eps (1 - TPR)).
 * Pass a negative or NaN epsilon for none.  TAPAS_EINVAL if ncurves == 0
 * or a curve has no point; TAPAS_ENOMEM.
 */
extern tapas_status tapas_roc_compare_svg(const tapas_roc_curve_t *curves,
										  size_t ncurves, double epsilon,
										  const char *title, char **svg);

/* one curve of a step plot: n points, x ascending; marked may be NULL */
typedef struct tapas_step_series
{
	const char *name;			/* legend text */
	const double *x;			/* n values >= 0, ascending */
	const double *y;			/* n values >= 0 */
	const unsigned char *marked;	/* nonzero: a cross here, not a step */
	size_t		n;
} tapas_step_series_t;

/*
 * A standalone SVG 1.1 document of ns step curves ("step after": y[k]
 * holds from x[k] to the next point, and the last value to the right
 * edge): opaque white background, axes from 0 with ticks and tick labels,
 * axis labels, a legend, marked points as crosses (legend "refused
 * query").  Strings may be NULL; all text is XML-escaped.  *svg is
 * tapas_malloc'd.  TAPAS_EINVAL when ns == 0 or for a non-finite or
 * negative value or a decreasing x; TAPAS_ENOMEM.
 */
extern tapas_status tapas_step_svg(const tapas_step_series_t *series, size_t ns,
								   const char *title, const char *xlabel,
								   const char *ylabel, char **svg);

#endif							/* TAPAS_REPORT_H */
