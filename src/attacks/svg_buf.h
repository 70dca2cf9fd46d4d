/*-------------------------------------------------------------------------
 *
 * svg_buf.h
 *	  A growing text buffer for the SVG reports (roc_svg.c, step_svg.c).
 *
 * put appends printf-formatted text; a failed allocation sets failed and
 * makes every later put a no-op, so a renderer checks once at the end.
 * Numbers print with '.' as decimal point: PostgreSQL backends keep the C
 * LC_NUMERIC.
 *
 * IDENTIFICATION
 *	  src/attacks/svg_buf.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SVG_BUF_H
#define TAPAS_SVG_BUF_H

#include <stddef.h>

typedef struct tapas_svgbuf
{
	char	   *data;			/* tapas_malloc'd, NUL-terminated */
	size_t		len;
	size_t		cap;
	int			failed;			/* an allocation failed */
} tapas_svgbuf_t;

/* starts an empty buffer of cap bytes (failed set if that fails) */
extern void tapas_svg_init(tapas_svgbuf_t *b, size_t cap);

extern void tapas_svg_put(tapas_svgbuf_t *b, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* appends s with &, <, > and " escaped */
extern void tapas_svg_put_escaped(tapas_svgbuf_t *b, const char *s);

#endif							/* TAPAS_SVG_BUF_H */
