/*-------------------------------------------------------------------------
 *
 * step_svg_sql.c
 *	  tapas.step_svg: step curves (records isolated against queries
 *	  answered, per attacker or mode) as an SVG document, from flat arrays.
 *
 * The points come as parallel arrays: series[i] names the curve of point
 * (x[i], y[i]); curves appear in the order of their first point, and each
 * curve's points in array order (x ascending).  marked[i] draws point i as
 * a cross ("refused query") instead of a step.  Kernel: attacks/step_svg.c.
 *
 * IDENTIFICATION
 *	  src/api/step_svg_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "attacks/report.h"
#include "policy/status_error.h"
#include "util/memory.h"

PG_FUNCTION_INFO_V1(tapas_sql_step_svg);

/* elements of a one-dimensional array argument without NULLs */
static int
array_arg(FunctionCallInfo fcinfo, int argno, Oid type, const char *name,
		  Datum **elems)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(argno);
	bool	   *nulls;
	int16		len;
	bool		byval;
	char		align;
	int			n,
				i;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", name)));
	get_typlenbyvalalign(type, &len, &byval, &align);
	deconstruct_array(a, type, len, byval, align, elems, &nulls, &n);
	for (i = 0; i < n; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("element %d of %s is NULL", i + 1, name)));
	return n;
}

static char *
text_arg(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

Datum
tapas_sql_step_svg(PG_FUNCTION_ARGS)
{
	Datum	   *sd,
			   *xd,
			   *yd,
			   *md = NULL;
	int			n,
				i,
				j,
				ns = 0;
	char	  **names;
	int		   *sid;
	tapas_step_series_t *series;
	char	   *svg = NULL;
	text	   *result;
	tapas_status st;

	for (i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("series, x and y must not be NULL")));
	n = array_arg(fcinfo, 0, TEXTOID, "series", &sd);
	if (array_arg(fcinfo, 1, FLOAT8OID, "x", &xd) != n ||
		array_arg(fcinfo, 2, FLOAT8OID, "y", &yd) != n ||
		(!PG_ARGISNULL(3) && array_arg(fcinfo, 3, BOOLOID, "marked", &md) != n))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("series, x, y and marked must have the same length")));
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a step plot needs at least one point")));

	/* series ids in order of first appearance */
	names = palloc(sizeof(char *) * n);
	sid = palloc(sizeof(int) * n);
	for (i = 0; i < n; i++)
	{
		char	   *name = TextDatumGetCString(sd[i]);

		for (j = 0; j < ns && strcmp(names[j], name) != 0; j++)
			;
		if (j == ns)
			names[ns++] = name;
		sid[i] = j;
	}
	series = palloc0(sizeof(tapas_step_series_t) * ns);
	for (j = 0; j < ns; j++)
	{
		double	   *x = palloc(sizeof(double) * n),
				   *y = palloc(sizeof(double) * n);
		unsigned char *m = palloc(n);
		size_t		k = 0;

		for (i = 0; i < n; i++)
			if (sid[i] == j)
			{
				x[k] = DatumGetFloat8(xd[i]);
				y[k] = DatumGetFloat8(yd[i]);
				m[k++] = md != NULL && DatumGetBool(md[i]);
			}
		series[j].name = names[j];
		series[j].x = x;
		series[j].y = y;
		series[j].marked = m;
		series[j].n = k;
	}
	st = tapas_step_svg(series, ns, text_arg(fcinfo, 4), text_arg(fcinfo, 5),
						text_arg(fcinfo, 6), &svg);
	tapas_raise_status(st, "cannot draw the step plot",
					   st == TAPAS_EINVAL ?
					   "points must be finite and >= 0, with x ascending within each series" : NULL);
	result = cstring_to_text(svg);
	tapas_free(svg);
	PG_RETURN_TEXT_P(result);
}
