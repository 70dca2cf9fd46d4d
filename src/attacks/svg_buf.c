/*-------------------------------------------------------------------------
 *
 * svg_buf.c
 *	  The text buffer of the SVG reports (svg_buf.h).
 *
 * IDENTIFICATION
 *	  src/attacks/svg_buf.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>

#include "attacks/svg_buf.h"
#include "util/memory.h"

void
tapas_svg_init(tapas_svgbuf_t *b, size_t cap)
{
	b->len = 0;
	b->cap = cap;
	b->failed = 0;
	b->data = tapas_malloc(cap);
	if (b->data == NULL)
		b->failed = 1;
	else
		b->data[0] = '\0';
}

void
tapas_svg_put(tapas_svgbuf_t *b, const char *fmt,...)
{
	va_list		ap;
	int			need;

	if (b->failed)
		return;
	for (;;)
	{
		va_start(ap, fmt);
		need = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (need < 0)
		{
			b->failed = 1;
			return;
		}
		if ((size_t) need < b->cap - b->len)
		{
			b->len += (size_t) need;
			return;
		}
		{
			size_t		cap = 2 * b->cap + (size_t) need;
			char	   *p = tapas_realloc(b->data, cap);

			if (p == NULL)
			{
				b->failed = 1;
				return;
			}
			b->data = p;
			b->cap = cap;
		}
	}
}

void
tapas_svg_put_escaped(tapas_svgbuf_t *b, const char *s)
{
	for (; *s; s++)
	{
		switch (*s)
		{
			case '&':
				tapas_svg_put(b, "&amp;");
				break;
			case '<':
				tapas_svg_put(b, "&lt;");
				break;
			case '>':
				tapas_svg_put(b, "&gt;");
				break;
			case '"':
				tapas_svg_put(b, "&quot;");
				break;
			default:
				tapas_svg_put(b, "%c", *s);
		}
	}
}
