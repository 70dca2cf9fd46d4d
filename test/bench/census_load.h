/*-------------------------------------------------------------------------
 *
 * census_load.h
 *	  Loads a headerless CSV with a TAPAS JSON schema of `finite` columns
 *	  (census50k) as coded records, for the attack benchmarks.
 *
 * Codes are positions in each column's "representation" list, so the
 * encoded dimension is the reference's (107 for the census).  Only the
 * subset of the schema format the census uses is understood.
 *
 * IDENTIFICATION
 *	  test/bench/census_load.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CENSUS_LOAD_H
#define CENSUS_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CENSUS_MAX_COLS 64
#define CENSUS_MAX_CATS 64

typedef struct census
{
	size_t		n,
				m;
	int			ncat[CENSUS_MAX_COLS];
	char		cat[CENSUS_MAX_COLS][CENSUS_MAX_CATS][32];
	double	   *x;				/* n x m codes */
} census;

static char *
census_slurp(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	long		len;
	char	   *buf;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len + 1);
	if (fread(buf, 1, len, f) != (size_t) len)
		len = 0;
	buf[len] = 0;
	fclose(f);
	return buf;
}

/* returns 0 on success */
static int
census_load(census *c, const char *prefix)
{
	char		path[1024];
	char	   *js,
			   *csv,
			   *p,
			   *line;
	size_t		cap = 1024;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s.json", prefix);
	js = census_slurp(path);
	if (js == NULL)
		return -1;
	for (p = js; (p = strstr(p, "\"representation\"")) != NULL;)
	{
		char	   *end;

		p = strchr(p, '[');
		end = strchr(p, ']');
		while ((p = strchr(p, '"')) != NULL && p < end)
		{
			char	   *q = strchr(p + 1, '"');

			snprintf(c->cat[c->m][c->ncat[c->m]++], 32, "%.*s", (int) (q - p - 1), p + 1);
			p = q + 1;
		}
		p = end;
		c->m++;
	}
	free(js);
	snprintf(path, sizeof(path), "%s.csv", prefix);
	csv = census_slurp(path);
	if (csv == NULL)
		return -1;
	c->x = malloc(cap * c->m * sizeof(double));
	for (line = strtok(csv, "\n"); line; line = strtok(NULL, "\n"))
	{
		size_t		j;
		char	   *f = line;

		if (c->n == cap)
		{
			cap *= 2;
			c->x = realloc(c->x, cap * c->m * sizeof(double));
		}
		for (j = 0; j < c->m; j++)
		{
			char	   *comma = strchr(f, ',');
			size_t		len = comma ? (size_t) (comma - f) : strlen(f);
			int			k;

			if (len > 0 && f[len - 1] == '\r')
				len--;
			for (k = 0; k < c->ncat[j]; k++)
				if (strlen(c->cat[j][k]) == len && strncmp(c->cat[j][k], f, len) == 0)
					break;
			if (k == c->ncat[j])
			{
				free(csv);
				return -2;
			}
			c->x[c->n * c->m + j] = k;
			f = comma ? comma + 1 : f + len;
		}
		c->n++;
	}
	free(csv);
	return 0;
}

#endif							/* CENSUS_LOAD_H */
