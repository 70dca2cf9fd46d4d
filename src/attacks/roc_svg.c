/*-------------------------------------------------------------------------
 *
 * roc_svg.c
 *	  The ROC curve of an attack as a standalone SVG document.
 *
 * A 480 x 480 canvas; the unit square of (FPR, TPR) maps to a 360 x 360
 * plot area with its origin at the bottom left (SVG's y axis points down,
 * so y = top + size * (1 - TPR)).  Ticks every 0.2 on both axes, a dashed
 * chance diagonal, the curve as one polyline, and a legend with the AUC.
 * Text is XML-escaped.  tapas_roc_compare_svg draws several curves on the
 * same frame, each in its own colour with its legend line, and optionally
 * the epsilon-DP bound.  Numbers are printed with printf, whose decimal
 * point is '.' in the C numeric locale, which PostgreSQL backends always
 * use (they never set LC_NUMERIC from the environment).
 *
 * IDENTIFICATION
 *	  src/attacks/roc_svg.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "attacks/report.h"
#include "attacks/svg_buf.h"
#include "util/memory.h"

#define LEFT 70.0
#define TOP 50.0
#define SIZE 360.0

/* axes, ticks, labels and the diagonal */
static void
put_frame(tapas_svgbuf_t *b)
{
	int			k;

	tapas_svg_put(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
		LEFT, TOP, SIZE, SIZE);
	for (k = 0; k <= 5; k++)
	{
		double		t = k / 5.0,
					x = LEFT + SIZE * t,
					y = TOP + SIZE * (1 - t);

		tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
			x, TOP + SIZE, x, TOP + SIZE + 5);
		tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">%.1f</text>\n",
			x, TOP + SIZE + 20, t);
		tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
			LEFT - 5, y, LEFT, y);
		tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%.1f</text>\n",
			LEFT - 8, y + 4, t);
	}
	tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">False positive rate</text>\n",
		LEFT + SIZE / 2, TOP + SIZE + 42);
	tapas_svg_put(b, "<text x=\"20\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\" transform=\"rotate(-90 20 %.1f)\">True positive rate</text>\n",
		TOP + SIZE / 2, TOP + SIZE / 2);
	tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"gray\" stroke-dasharray=\"4 4\"/>\n",
		LEFT, TOP + SIZE, LEFT + SIZE, TOP);
}

tapas_status
tapas_roc_svg(const double *fpr, const double *tpr, size_t np, double auc,
			  const char *title, char **svg)
{
	tapas_svgbuf_t b;
	size_t		k;

	if (np == 0)
		return TAPAS_EINVAL;
	tapas_svg_init(&b, 4096 + 32 * np);
	if (b.failed)
		return TAPAS_ENOMEM;
	tapas_svg_put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"480\" height=\"480\" viewBox=\"0 0 480 480\">\n"
		"<rect width=\"480\" height=\"480\" fill=\"white\"/>\n");
	tapas_svg_put(&b, "<text x=\"%.1f\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">",
		LEFT + SIZE / 2);
	tapas_svg_put_escaped(&b, title != NULL ? title : "ROC curve");
	tapas_svg_put(&b, "</text>\n");
	put_frame(&b);
	tapas_svg_put(&b, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"");
	for (k = 0; k < np; k++)
		tapas_svg_put(&b, "%s%.2f,%.2f", k ? " " : "", LEFT + SIZE * fpr[k],
			TOP + SIZE * (1 - tpr[k]));
	tapas_svg_put(&b, "\"/>\n");
	tapas_svg_put(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n",
		LEFT + SIZE - 150, TOP + SIZE - 20, LEFT + SIZE - 125, TOP + SIZE - 20);
	tapas_svg_put(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">AUC = %.4f</text>\n",
		LEFT + SIZE - 118, TOP + SIZE - 16, auc);
	tapas_svg_put(&b, "</svg>\n");
	if (b.failed)
	{
		tapas_free(b.data);
		return TAPAS_ENOMEM;
	}
	*svg = b.data;
	return TAPAS_OK;
}

/* ----------------------------------------------------------------
 *		Several curves on one plot
 * ----------------------------------------------------------------
 */

/* the colours of matplotlib's default cycle, so plots look familiar */
static const char *const palette[10] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"
};

/* the eps-DP bound through (1/(e^eps+1), e^eps/(e^eps+1)) */
static void
put_epsilon(tapas_svgbuf_t *b, double epsilon, double legend_y)
{
	double		e = exp(epsilon),
				x = 1 / (e + 1),
				y = e / (e + 1);

	tapas_svg_put(b, "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\" points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\"/>\n",
		LEFT, TOP + SIZE, LEFT + SIZE * x, TOP + SIZE * (1 - y), LEFT + SIZE, TOP);
	tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"6 3\"/>\n",
		LEFT + SIZE - 210, legend_y - 4, LEFT + SIZE - 185, legend_y - 4);
	tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">epsilon = %.3g bound</text>\n",
		LEFT + SIZE - 178, legend_y, epsilon);
}

tapas_status
tapas_roc_compare_svg(const tapas_roc_curve_t *curves, size_t ncurves,
					  double epsilon, const char *title, char **svg)
{
	tapas_svgbuf_t b;
	size_t		c,
				k,
				total = 0;
	int			bound = epsilon >= 0 && isfinite(epsilon);
	double		legend_y;

	if (ncurves == 0)
		return TAPAS_EINVAL;
	for (c = 0; c < ncurves; c++)
	{
		if (curves[c].np == 0)
			return TAPAS_EINVAL;
		total += curves[c].np;
	}
	tapas_svg_init(&b, 4096 + 32 * total + 256 * ncurves);
	if (b.failed)
		return TAPAS_ENOMEM;
	tapas_svg_put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"480\" height=\"480\" viewBox=\"0 0 480 480\">\n"
		"<rect width=\"480\" height=\"480\" fill=\"white\"/>\n");
	tapas_svg_put(&b, "<text x=\"%.1f\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">",
		LEFT + SIZE / 2);
	tapas_svg_put_escaped(&b, title != NULL ? title : "ROC curves");
	tapas_svg_put(&b, "</text>\n");
	put_frame(&b);
	/* legend lines stack upwards from the bottom right corner */
	legend_y = TOP + SIZE - 12 - 16.0 * (double) (ncurves - 1) - (bound ? 16 : 0);
	if (bound)
		put_epsilon(&b, epsilon, legend_y + 16.0 * (double) ncurves);
	for (c = 0; c < ncurves; c++)
	{
		const tapas_roc_curve_t *cv = &curves[c];
		const char *colour = palette[c % 10];
		double		ly = legend_y + 16.0 * (double) c;

		tapas_svg_put(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
		for (k = 0; k < cv->np; k++)
			tapas_svg_put(&b, "%s%.2f,%.2f", k ? " " : "", LEFT + SIZE * cv->fpr[k],
				TOP + SIZE * (1 - cv->tpr[k]));
		tapas_svg_put(&b, "\"/>\n");
		tapas_svg_put(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			LEFT + SIZE - 210, ly - 4, LEFT + SIZE - 185, ly - 4, colour);
		tapas_svg_put(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", LEFT + SIZE - 178, ly);
		if (cv->label != NULL)
			tapas_svg_put_escaped(&b, cv->label);
		else
			tapas_svg_put(&b, "attack %zu", c + 1);
		tapas_svg_put(&b, " (AUC = %.4f)</text>\n", cv->auc);
	}
	tapas_svg_put(&b, "</svg>\n");
	if (b.failed)
	{
		tapas_free(b.data);
		return TAPAS_ENOMEM;
	}
	*svg = b.data;
	return TAPAS_OK;
}
