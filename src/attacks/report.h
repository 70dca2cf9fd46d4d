/*-------------------------------------------------------------------------
 *
 * report.h
 *	  Human-readable reports of attack results: the ROC curve as SVG.
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

#endif							/* TAPAS_REPORT_H */
