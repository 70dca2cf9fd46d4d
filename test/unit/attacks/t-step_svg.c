/*
 * t-step_svg.c
 *	  Unit tests for src/attacks/step_svg.c.
 *
 * Oracles: the step path computed by hand from the documented layout
 * (plot area x 80..560, y 50..350; axes rounded up to whole "nice" ticks),
 * tick labels, the opaque background, crosses for marked points, XML
 * escaping, balanced tags, and the refusals of bad data.
 */
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
test_step_shape(void)
{
	/* x in 0..16 -> nice step 2, axis 0..16; y in 0..1, whole numbers -> step 1 */
	double		x[3] = {0, 8, 16},
				y[3] = {0, 0, 1};
	unsigned char m[3] = {0, 1, 0};
	tapas_step_series_t s[2] = {
		{"log <mode>", x, y, NULL, 3},
		{"deny", x, y, m, 3}
	};
	char	   *svg = NULL;

	TAPAS_CHECK(tapas_step_svg(s, 2, "t & t", "queries", "records", &svg) == TAPAS_OK);
	if (svg == NULL)
		return;
	TAPAS_CHECK(strncmp(svg, "<?xml version=\"1.0\"", 19) == 0);
	TAPAS_CHECK(strstr(svg, "<rect width=\"760\" height=\"420\" fill=\"white\"/>") != NULL);
	/* (0,0) -> (80, 350); step to x 8 -> 320, then 16 -> 560 up to y 1 -> 50 */
	TAPAS_CHECK_MSG(strstr(svg, "d=\"M80.00 350.00 H320.00 V350.00 H560.00 V50.00 H560.00\"") != NULL,
					"%s", svg);
	/* the marked point is not a step of the second curve: a cross at (320, 350) */
	TAPAS_CHECK(strstr(svg, "d=\"M80.00 350.00 H560.00 V50.00 H560.00\"") != NULL);
	TAPAS_CHECK(strstr(svg, "M314.00 344.00 L326.00 356.00") != NULL);
	TAPAS_CHECK(strstr(svg, "refused query") != NULL);
	/* ticks 0, 2, ..., 16 on x and 0, 1 on y (counts: no fractional ticks) */
	TAPAS_CHECK(strstr(svg, ">16</text>") != NULL && strstr(svg, ">1</text>") != NULL &&
				strstr(svg, ">0.5</text>") == NULL);
	TAPAS_CHECK(count(svg, "text-anchor=\"middle\" font-size=\"12\"") == 9);
	TAPAS_CHECK(strstr(svg, "t &amp; t") != NULL && strstr(svg, "log &lt;mode&gt;") != NULL);
	TAPAS_CHECK(count(svg, "<text") == count(svg, "</text>"));
	TAPAS_CHECK(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
	tapas_free(svg);

	/* fractional values keep fractional ticks */
	y[2] = 0.5;
	TAPAS_CHECK(tapas_step_svg(s, 1, NULL, NULL, NULL, &svg) == TAPAS_OK);
	TAPAS_CHECK(svg != NULL && strstr(svg, ">0.2</text>") != NULL);
	tapas_free(svg);
}

static void
test_step_errors(void)
{
	double		x[2] = {2, 1},
				y[2] = {0, 1},
				bad[2] = {0, -1};
	tapas_step_series_t s = {"a", x, y, NULL, 2},
				t = {"b", y, bad, NULL, 2};
	char	   *svg = NULL;

	TAPAS_CHECK(tapas_step_svg(&s, 0, NULL, NULL, NULL, &svg) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_step_svg(&s, 1, NULL, NULL, NULL, &svg) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_step_svg(&t, 1, NULL, NULL, NULL, &svg) == TAPAS_EINVAL);
	TAPAS_CHECK(svg == NULL);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_step_shape);
	TAPAS_TEST_RUN(test_step_errors);
	TAPAS_TEST_DONE();
}
