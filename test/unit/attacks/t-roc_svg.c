/*
 * t-roc_svg.c
 *	  Unit tests for src/attacks/roc_svg.c.
 *
 * Oracles: the document's fixed parts (XML declaration, svg root, closing
 * tag), the polyline computed from the point mapping by hand, the AUC
 * legend, XML escaping of the title, balanced tags, and ENOMEM handling.
 */
#include <math.h>
#include <string.h>

#include "attacks/report.h"
#include "util/memory.h"
#include "tapas_test.h"

static int
count(const char *s, const char *needle)
{
	int			c = 0;

	while ((s = strstr(s, needle)) != NULL)
	{
		c++;
		s += strlen(needle);
	}
	return c;
}

static void
test_svg_shape(void)
{
	double		f[3] = {0, 0.5, 1},
				t[3] = {0, 1, 1};
	char	   *svg = NULL;

	TAPAS_CHECK(tapas_roc_svg(f, t, 3, 0.75, NULL, &svg) == TAPAS_OK);
	TAPAS_CHECK(strncmp(svg, "<?xml version=\"1.0\"", 19) == 0);
	TAPAS_CHECK(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
	TAPAS_CHECK(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
	/* (0,0) -> (70, 410), (0.5, 1) -> (250, 50), (1, 1) -> (430, 50) */
	TAPAS_CHECK_MSG(strstr(svg, "points=\"70.00,410.00 250.00,50.00 430.00,50.00\"") != NULL,
					"%s", svg);
	TAPAS_CHECK(strstr(svg, "AUC = 0.7500") != NULL);
	TAPAS_CHECK(strstr(svg, ">ROC curve</text>") != NULL);
	TAPAS_CHECK(strstr(svg, "False positive rate") && strstr(svg, "True positive rate"));
	/* 6 ticks per axis, 2 labels each, the diagonal and the legend swatch */
	TAPAS_CHECK(count(svg, "<line ") == 14);
	TAPAS_CHECK(count(svg, "<text ") == count(svg, "</text>"));
	TAPAS_CHECK(count(svg, "<text ") == 12 + 2 + 1 + 1);
	tapas_free(svg);
}

static void
test_svg_escaping_and_errors(void)
{
	double		f[2] = {0, 1},
				t[2] = {0, 1};
	char	   *svg = NULL;

	tapas_roc_svg(f, t, 2, 0.5, "a<b & \"c\">", &svg);
	TAPAS_CHECK_MSG(strstr(svg, ">a&lt;b &amp; &quot;c&quot;&gt;</text>") != NULL, "%s", svg);
	tapas_free(svg);
	TAPAS_CHECK(tapas_roc_svg(f, t, 0, 0.5, NULL, &svg) == TAPAS_EINVAL);
	tapas_memory_fail_after(0);
	TAPAS_CHECK(tapas_roc_svg(f, t, 2, 0.5, NULL, &svg) == TAPAS_ENOMEM);
	tapas_memory_fail_after(1);	/* the first growth fails */
	{
		static char title[10001];

		memset(title, '&', 10000);	/* 50,000 escaped bytes */
		TAPAS_CHECK(tapas_roc_svg(f, t, 2, 0.5, title, &svg) == TAPAS_ENOMEM);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(tapas_roc_svg(f, t, 2, 0.5, title, &svg) == TAPAS_OK);
		TAPAS_CHECK(count(svg, "&amp;") == 10000);
		tapas_free(svg);
	}
	tapas_memory_fail_after(-1);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/*
 * Two curves and the epsilon bound: one polyline per curve with the hand-
 * mapped points, both legends (escaped), the bound through
 * (1/(e^eps+1), e^eps/(e^eps+1)) = (0.25, 0.75) for eps = ln 3, i.e. the
 * SVG point (160, 140); no bound for a negative epsilon; errors.
 */
static void
test_compare_svg(void)
{
	double		f1[3] = {0, 0.5, 1},
				t1[3] = {0, 1, 1},
				f2[2] = {0, 1},
				t2[2] = {0, 1};
	tapas_roc_curve_t c[2] = {{f1, t1, 3, 0.75, "closest <distance>"},
	{f2, t2, 2, 0.5, NULL}};
	char	   *svg = NULL;
	long		live = tapas_memory_live(),
				k;

	TAPAS_CHECK(tapas_roc_compare_svg(c, 2, log(3.0), "two & more", &svg) == TAPAS_OK);
	TAPAS_CHECK(count(svg, "<polyline") == 3);
	TAPAS_CHECK(strstr(svg, "points=\"70.00,410.00 250.00,50.00 430.00,50.00\"") != NULL);
	TAPAS_CHECK(strstr(svg, "points=\"70.00,410.00 430.00,50.00\"") != NULL);
	TAPAS_CHECK(strstr(svg, "points=\"70.00,410.00 160.00,140.00 430.00,50.00\"") != NULL);
	TAPAS_CHECK(strstr(svg, "closest &lt;distance&gt; (AUC = 0.7500)") != NULL);
	TAPAS_CHECK(strstr(svg, "attack 2 (AUC = 0.5000)") != NULL);
	TAPAS_CHECK(strstr(svg, "epsilon = 1.1 bound") != NULL);
	TAPAS_CHECK(strstr(svg, "two &amp; more") != NULL);
	TAPAS_CHECK(strstr(svg, "stroke=\"#1f77b4\"") != NULL && strstr(svg, "stroke=\"#ff7f0e\"") != NULL);
	TAPAS_CHECK(count(svg, "<text") == count(svg, "</text>"));
	TAPAS_CHECK(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
	tapas_free(svg);
	TAPAS_CHECK(tapas_roc_compare_svg(c, 2, -1, NULL, &svg) == TAPAS_OK);
	TAPAS_CHECK(count(svg, "<polyline") == 2 && strstr(svg, "epsilon") == NULL);
	tapas_free(svg);
	TAPAS_CHECK(tapas_roc_compare_svg(c, 0, 1, NULL, &svg) == TAPAS_EINVAL);
	c[1].np = 0;
	TAPAS_CHECK(tapas_roc_compare_svg(c, 2, 1, NULL, &svg) == TAPAS_EINVAL);
	c[1].np = 2;
	for (k = 0; k < 4; k++)
	{
		tapas_status st;

		tapas_memory_fail_after(k);
		st = tapas_roc_compare_svg(c, 2, 1, NULL, &svg);
		tapas_memory_fail_after(-1);
		if (st == TAPAS_OK)
			tapas_free(svg);
		else
			TAPAS_CHECK(st == TAPAS_ENOMEM);
	}
	TAPAS_CHECK(tapas_memory_live() == live);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_svg_shape);
	TAPAS_TEST_RUN(test_svg_escaping_and_errors);
	TAPAS_TEST_RUN(test_compare_svg);
	TAPAS_TEST_DONE();
}
