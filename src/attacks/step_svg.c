/*-------------------------------------------------------------------------
 *
 * step_svg.c
 *	  Step plots of counts against a count (records isolated against
 *	  queries answered) as a standalone SVG document.
 *
 * The data are integer-valued events: a count that stays constant between
 * two x values and jumps at the next.  A straight polyline between the
 * points would draw slopes that are not in the data, so each series is a
 * path of horizontal then vertical segments ("step after": y[k] holds from
 * x[k] up to x[k + 1]), continued to the right edge of the axis.
 * Marked points (e.g. refused queries) are drawn as crosses instead.
 *
 * Layout: a 760 x 420 canvas on an opaque white rectangle (viewers that
 * render transparency as black or as a checkerboard show the same
 * picture), a 480 x 300 plot area, "nice" ticks (1, 2 or 5 times a power
 * of ten, at most 8 intervals; whole numbers when the values are) with
 * labels on both axes, the axis labels,
 * and a legend to the right.  Text is XML-escaped.
 *
 * IDENTIFICATION
 *	  src/attacks/step_svg.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/report.h"
#include "attacks/svg_buf.h"
#include "util/memory.h"

#define W		760.0
#define H		420.0
#define LEFT	80.0
#define TOP		50.0
#define PW		480.0
#define PH		300.0

static const char *const palette[] = {
	"#c0392b", "#2471a3", "#229954", "#d68910", "#7d3c98", "#616a6b"
};

/* tick interval for [0, hi]: 1, 2 or 5 x 10^e, at most 8 intervals */
static double
nice_step(double hi)
{
	double		raw = hi / 8.0,
				p = pow(10.0, floor(log10(raw))),
				f = raw / p;

	if (f <= 1)
		return p;
	if (f <= 2)
		return 2 * p;
	if (f <= 5)
		return 5 * p;
	return 10 * p;
}

typedef struct axes
{
	double		xhi;			/* x axis runs from 0 to xhi */
	double		yhi;			/* y axis runs from 0 to yhi */
	double		xstep;
	double		ystep;
} axes_t;

static double
px(const axes_t *a, double x)
{
	return LEFT + PW * x / a->xhi;
}

static double
py(const axes_t *a, double y)
{
	return TOP + PH * (1 - y / a->yhi);
}

/* axis ranges rounded up to whole ticks; fails on bad data */
static tapas_status
choose_axes(const tapas_step_series_t *s, size_t ns, axes_t *a)
{
	double		xmax = 1,
				ymax = 1;
	int			xint = 1,
				yint = 1;
	size_t		i,
				k;

	for (i = 0; i < ns; i++)
		for (k = 0; k < s[i].n; k++)
		{
			if (!isfinite(s[i].x[k]) || !isfinite(s[i].y[k]) ||
				s[i].x[k] < 0 || s[i].y[k] < 0 ||
				(k > 0 && s[i].x[k] < s[i].x[k - 1]))
				return TAPAS_EINVAL;
			xmax = fmax(xmax, s[i].x[k]);
			ymax = fmax(ymax, s[i].y[k]);
			xint &= s[i].x[k] == floor(s[i].x[k]);
			yint &= s[i].y[k] == floor(s[i].y[k]);
		}
	/* counts get whole-number ticks */
	a->xstep = xint ? fmax(1, nice_step(xmax)) : nice_step(xmax);
	a->ystep = yint ? fmax(1, nice_step(ymax)) : nice_step(ymax);
	a->xhi = ceil(xmax / a->xstep - 1e-9) * a->xstep;
	a->yhi = ceil(ymax / a->ystep - 1e-9) * a->ystep;
	return TAPAS_OK;
}

/* frame, grid, ticks and tick labels, axis labels */
static void
put_axes(tapas_svgbuf_t *b, const axes_t *a, const char *xlabel, const char *ylabel)
{
	double		t;

	tapas_svg_put(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
				  LEFT, TOP, PW, PH);
	for (t = 0; t <= a->xhi + 1e-9; t += a->xstep)
	{
		double		x = px(a, t);

		tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
					  x, TOP + PH, x, TOP + PH + 6);
		tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">%g</text>\n",
					  x, TOP + PH + 20, t);
	}
	for (t = 0; t <= a->yhi + 1e-9; t += a->ystep)
	{
		double		y = py(a, t);

		tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
					  LEFT, y, LEFT + PW, y);
		tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
					  LEFT - 6, y, LEFT, y);
		tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%g</text>\n",
					  LEFT - 9, y + 4, t);
	}
	tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">",
				  LEFT + PW / 2, TOP + PH + 44);
	tapas_svg_put_escaped(b, xlabel);
	tapas_svg_put(b, "</text>\n<text x=\"24\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\" transform=\"rotate(-90 24 %.1f)\">",
				  TOP + PH / 2, TOP + PH / 2);
	tapas_svg_put_escaped(b, ylabel);
	tapas_svg_put(b, "</text>\n");
}

/* one series: the step path of its unmarked points, crosses at marked ones */
static void
put_series(tapas_svgbuf_t *b, const axes_t *a, const tapas_step_series_t *s,
		   const char *color, int dashed)
{
	size_t		k;
	int			started = 0;

	for (k = 0; k < s->n; k++)
	{
		if (s->marked != NULL && s->marked[k])
			continue;
		if (!started)
			tapas_svg_put(b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s d=\"M%.2f %.2f",
						  color, dashed ? " stroke-dasharray=\"7 4\"" : "",
						  px(a, s->x[k]), py(a, s->y[k]));
		else
			tapas_svg_put(b, " H%.2f V%.2f", px(a, s->x[k]), py(a, s->y[k]));
		started = 1;
	}
	if (started)
		tapas_svg_put(b, " H%.2f\"/>\n", px(a, a->xhi));
	for (k = 0; s->marked != NULL && k < s->n; k++)
		if (s->marked[k])
		{
			double		x = px(a, s->x[k]),
						y = py(a, s->y[k]);

			tapas_svg_put(b, "<path stroke=\"%s\" stroke-width=\"2.5\" d=\"M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f\"/>\n",
						  color, x - 6, y - 6, x + 6, y + 6, x - 6, y + 6, x + 6, y - 6);
		}
}

static int
series_marked(const tapas_step_series_t *s)
{
	return s->marked != NULL;
}

/* the legend: a line (or a cross for marks) and the name per series */
static void
put_legend(tapas_svgbuf_t *b, const tapas_step_series_t *s, size_t ns)
{
	size_t		i,
				k;
	int			any = 0;
	double		x = LEFT + PW + 24,
				y = TOP + 10;

	for (i = 0; i < ns; i++, y += 22)
	{
		const char *color = palette[i % (sizeof(palette) / sizeof(palette[0]))];

		tapas_svg_put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
					  x, y, x + 26, y, color, i % 2 ? " stroke-dasharray=\"7 4\"" : "");
		tapas_svg_put(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", x + 32, y + 4);
		tapas_svg_put_escaped(b, s[i].name != NULL ? s[i].name : "");
		tapas_svg_put(b, "</text>\n");
	}
	for (i = 0; i < ns && !any; i++)
		for (k = 0; series_marked(&s[i]) && k < s[i].n && !any; k++)
			any = s[i].marked[k];
	if (any)
		tapas_svg_put(b, "<path stroke=\"black\" stroke-width=\"2\" d=\"M%.1f %.1f L%.1f %.1f M%.1f %.1f L%.1f %.1f\"/>\n"
					  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">refused query</text>\n",
					  x + 7, y - 6, x + 19, y + 6, x + 7, y + 6, x + 19, y - 6, x + 32, y + 4);
}

tapas_status
tapas_step_svg(const tapas_step_series_t *series, size_t ns, const char *title,
			   const char *xlabel, const char *ylabel, char **svg)
{
	tapas_svgbuf_t b;
	axes_t		a;
	tapas_status st;
	size_t		i;

	if (ns == 0)
		return TAPAS_EINVAL;
	st = choose_axes(series, ns, &a);
	if (st != TAPAS_OK)
		return st;
	tapas_svg_init(&b, 8192);
	tapas_svg_put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				  "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
				  "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H, W, H, W, H);
	tapas_svg_put(&b, "<text x=\"%.1f\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">", LEFT + PW / 2);
	tapas_svg_put_escaped(&b, title != NULL ? title : "");
	tapas_svg_put(&b, "</text>\n");
	put_axes(&b, &a, xlabel != NULL ? xlabel : "", ylabel != NULL ? ylabel : "");
	for (i = 0; i < ns; i++)
		put_series(&b, &a, &series[i], palette[i % (sizeof(palette) / sizeof(palette[0]))],
				   (int) (i % 2));
	put_legend(&b, series, ns);
	tapas_svg_put(&b, "</svg>\n");
	if (b.failed)
	{
		tapas_free(b.data);
		return TAPAS_ENOMEM;
	}
	*svg = b.data;
	return TAPAS_OK;
}
