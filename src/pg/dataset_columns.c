/*-------------------------------------------------------------------------
 *
 * dataset_columns.c
 *	  The kind, dictionary and bounds of one dataset column (see dataset.c
 *	  for the rules).
 *
 * Kinds come from the type unless params "schema" declares them; integer
 * columns are categorical when their union has few distinct values.
 * Dictionaries are the distinct values over the union in the column's own
 * order (or the declared "order"), with SQL NULL as a last category;
 * lookups go through a strcmp-sorted copy of the labels.  Continuous
 * columns get observed bounds (unless declared) and refuse NULL, NaN and
 * infinities.
 *
 * IDENTIFICATION
 *	  src/pg/dataset_columns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "pg/attacks_pg.h"
#include "pg/dataset_int.h"
#include "tapas.h"

/* ----------------------------------------------------------------
 *		Column kinds
 * ----------------------------------------------------------------
 */

typedef enum TypeClass
{
	TYPE_CATEGORICAL,
	TYPE_INTEGER,
	TYPE_CONTINUOUS,
	TYPE_UNSUPPORTED
} TypeClass;

static TypeClass
type_class(Oid typid)
{
	typid = getBaseType(typid);
	switch (typid)
	{
		case BOOLOID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
		case CHAROID:
			return TYPE_CATEGORICAL;
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return TYPE_INTEGER;
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return TYPE_CONTINUOUS;
		default:
			return type_is_enum(typid) ? TYPE_CATEGORICAL : TYPE_UNSUPPORTED;
	}
}

/* SQL expression turning column expression v into float8 */
char *
tapas_ds_float_expr(Oid typid, const char *v)
{
	switch (getBaseType(typid))
	{
		case DATEOID:
			return psprintf("((%s) - DATE '2000-01-01')::float8", v);
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return psprintf("extract(epoch FROM %s)::float8", v);
		case BOOLOID:
			return psprintf("(%s)::int::float8", v);
		default:
			return psprintf("(%s)::float8", v);
	}
}

static tapas_column_kind
parse_kind(const char *s, const char *col)
{
	if (strcmp(s, "categorical") == 0)
		return TAPAS_COLUMN_CATEGORICAL;
	if (strcmp(s, "ordinal") == 0)
		return TAPAS_COLUMN_ORDINAL;
	if (strcmp(s, "continuous") == 0)
		return TAPAS_COLUMN_CONTINUOUS;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid column type \"%s\" for column \"%s\" in params schema",
					s, col),
			 errhint("Valid types are: categorical, ordinal, continuous.")));
	return TAPAS_COLUMN_CATEGORICAL;	/* keep compiler quiet */
}

/* ----------------------------------------------------------------
 *		Dictionaries and bounds
 * ----------------------------------------------------------------
 */

static int
cmp_label(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* sorts the non-NULL labels of col for lookups (in cxt) */
static void
index_labels(TapasAttackColumn *col, MemoryContext cxt)
{
	int			i,
				k = 0;
	char	  **pairs;

	col->sorted = MemoryContextAlloc(cxt, sizeof(char *) * (col->ncat + 1));
	col->sorted_code = MemoryContextAlloc(cxt, sizeof(int) * (col->ncat + 1));
	pairs = palloc(sizeof(char *) * (col->ncat + 1));
	for (i = 0; i < col->ncat; i++)
		if (col->labels[i] != NULL)
			pairs[k++] = col->labels[i];
	qsort(pairs, k, sizeof(char *), cmp_label);
	for (i = 0; i < k; i++)
	{
		int			c;

		col->sorted[i] = pairs[i];
		/* labels are few per column; a linear search for the code is fine */
		for (c = 0; c < col->ncat; c++)
			if (col->labels[c] == pairs[i])
				col->sorted_code[i] = c;
	}
	col->nsorted = k;
}

/* code of a label (NULL = SQL NULL), or -1 */
int
tapas_ds_label_code(const TapasAttackColumn *col, const char *label)
{
	int			lo = 0,
				hi = col->nsorted - 1;

	if (label == NULL)
		return col->null_code;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = strcmp(col->sorted[mid], label);

		if (c == 0)
			return col->sorted_code[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * Codes of a categorical/ordinal column: its distinct values over the union
 * in the column's order (or the declared order), NULL last.
 */
static void
build_dictionary(TapasAttackColumn *col, const char *u, List *order,
				 MemoryContext cxt)
{
	uint64		i,
				n;
	int			k = 0;
	bool		has_null = false;

	/* the output is renamed so that ORDER BY v sorts by the value, not its text */
	tapas_ds_run_query(psprintf("SELECT v::text AS label FROM %s GROUP BY v ORDER BY v NULLS LAST", u));
	n = SPI_processed;
	col->labels = MemoryContextAlloc(cxt, sizeof(char *) *
									 (n + list_length(order) + 1));
	if (order != NIL)
	{
		ListCell   *lc;

		foreach(lc, order)
			col->labels[k++] = MemoryContextStrdup(cxt, lfirst(lc));
	}
	for (i = 0; i < n; i++)
	{
		char	   *label = SPI_getvalue(SPI_tuptable->vals[i],
										 SPI_tuptable->tupdesc, 1);

		if (label == NULL)
			has_null = true;
		else if (order == NIL)
			col->labels[k++] = MemoryContextStrdup(cxt, label);
		else if (!tapas_ds_list_has_name(order, label))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("value \"%s\" of column \"%s\" is not in its declared order",
							label, col->name),
					 errhint("List every value of the column in params schema \"order\".")));
	}
	col->null_code = -1;
	if (has_null)
	{
		col->null_code = k;
		col->labels[k++] = NULL;
	}
	col->ncat = k;
	index_labels(col, cxt);
}

/* observed bounds and NULL count of a continuous column */
static void
continuous_stats(TapasAttackColumn *col, const char *u)
{
	bool		isnull;
	Datum		d;
	double		lo,
				hi;

	tapas_ds_run_query(psprintf("SELECT min(x), max(x), "
					   "count(*) FILTER (WHERE v IS NULL), "
					   "count(*) FILTER (WHERE x IN ('NaN', 'Infinity', '-Infinity')) "
					   "FROM (SELECT v, %s AS x FROM %s) s",
					   tapas_ds_float_expr(col->typid, "v"), u));
	col->nulls = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											 SPI_tuptable->tupdesc, 3, &isnull));
	if (DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									SPI_tuptable->tupdesc, 4, &isnull)) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("continuous column \"%s\" contains NaN or infinite values",
						col->name),
				 errhint("Filter those rows, or declare the column categorical in params schema.")));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	lo = isnull ? 0.0 : DatumGetFloat8(d);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	hi = isnull ? 0.0 : DatumGetFloat8(d);
	if (!col->declared || isnan(col->lower))
		col->lower = lo;
	if (!col->declared || isnan(col->upper))
		col->upper = hi;
	if (col->lower > col->upper)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bounds of column \"%s\" are empty: min %g > max %g",
						col->name, col->lower, col->upper)));
}

/* ----------------------------------------------------------------
 *		Schema overrides and the decision
 * ----------------------------------------------------------------
 */

static const char *const override_keys[] = {"type", "min", "max", "order", NULL};

/* a number from a JSON value, or an error */
static double
json_number(JsonbValue *v, const char *what, const char *col)
{
	if (v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" of column \"%s\" in params schema must be a number",
						what, col)));
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											  NumericGetDatum(v->val.numeric)));
}

/* the labels of a declared "order" (strings or numbers) */
static List *
json_order(JsonbValue *v, const char *col)
{
	List	   *order = NIL;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken r;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"order\" of column \"%s\" in params schema must be an array",
						col)));
	it = JsonbIteratorInit(v->val.binary.data);
	while ((r = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (r == WJB_ELEM)
			order = lappend(order, tapas_attack_jsonb_scalar_text(&e, "an element of \"order\""));
	return order;
}

/*
 * Applies params schema's entry for col, if any: sets col->kind, source,
 * declared bounds; returns the declared order (or NIL) and whether an
 * entry exists.
 */
static bool
apply_override(TapasAttackColumn *col, JsonbContainer *schema, List **order)
{
	JsonbValue	v,
				f;
	Jsonb	   *obj;

	*order = NIL;
	if (schema == NULL || !tapas_attack_param_find(schema, col->name, &v))
		return false;
	col->source = "schema";
	if (v.type == jbvString)
	{
		col->kind = parse_kind(pnstrdup(v.val.string.val, v.val.string.len), col->name);
		return true;
	}
	if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("entry of column \"%s\" in params schema must be a type name or an object",
						col->name)));
	obj = JsonbValueToJsonb(&v);
	tapas_attack_params_check(obj, override_keys,
							  psprintf("column \"%s\" in params schema", col->name));
	if (!tapas_attack_param_find(&obj->root, "type", &f) || f.type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("entry of column \"%s\" in params schema needs a \"type\"",
						col->name),
				 errhint("Valid types are: categorical, ordinal, continuous.")));
	col->kind = parse_kind(pnstrdup(f.val.string.val, f.val.string.len), col->name);
	if (tapas_attack_param_find(&obj->root, "min", &f))
	{
		col->lower = json_number(&f, "min", col->name);
		col->declared = true;
	}
	if (tapas_attack_param_find(&obj->root, "max", &f))
	{
		col->upper = json_number(&f, "max", col->name);
		col->declared = true;
	}
	if (tapas_attack_param_find(&obj->root, "order", &f))
		*order = json_order(&f, col->name);
	return true;
}

/* decides the kind of one column and gathers its dictionary or bounds */
void
tapas_ds_describe_column(TapasAttackColumn *col, JsonbContainer *schema,
				int max_categories, const char *u, MemoryContext cxt)
{
	List	   *order;
	TypeClass	tc = type_class(col->typid);

	col->lower = col->upper = NAN;
	if (!apply_override(col, schema, &order))
	{
		col->source = "type";
		if (tc == TYPE_UNSUPPORTED)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" has type %s, which tapas cannot encode",
							col->name, format_type_be(col->typid)),
					 errhint("Declare it in params schema, list it in params exclude, or cast it in a view.")));
		col->kind = tc == TYPE_CONTINUOUS ? TAPAS_COLUMN_CONTINUOUS :
			TAPAS_COLUMN_CATEGORICAL;
		if (tc == TYPE_INTEGER)
		{
			bool		isnull;

			tapas_ds_run_query(psprintf("SELECT count(DISTINCT v) FROM %s", u));
			col->source = "distinct count";
			if (DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											SPI_tuptable->tupdesc, 1,
											&isnull)) > max_categories)
				col->kind = TAPAS_COLUMN_CONTINUOUS;
		}
	}
	if (col->kind == TAPAS_COLUMN_CONTINUOUS)
	{
		continuous_stats(col, u);
		if (col->nulls > 0)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("continuous column \"%s\" contains NULL", col->name),
					 errhint("Filter or impute the NULLs, or declare the column categorical in params schema (NULL is then a category).")));
	}
	else
		build_dictionary(col, u, order, cxt);
}

