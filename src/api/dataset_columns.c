/*-------------------------------------------------------------------------
 *
 * dataset_columns.c
 *	  The kind of each dataset column, and the driver that gathers the
 *	  columns' dictionaries and bounds (see dataset_sql.c for the rules).
 *
 * Kinds come from the type unless params "schema" declares them; integer
 * columns are categorical when their union has few distinct values.
 * Dictionaries are the distinct values over the union in the column's own
 * order (or the declared "order"), with SQL NULL as a last category;
 * lookups go through a hash index (dataset_label_index.c).  Continuous
 * columns get observed bounds (unless declared) and refuse NULL, NaN and
 * infinities.
 *
 * The scans that gather the dictionaries and bounds are dataset_gather.c.
 *
 * IDENTIFICATION
 *	  src/api/dataset_columns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "api/attacks_pg.h"
#include "api/dataset_int.h"

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
tapas_dataset_float_expr(Oid typid, const char *v)
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

/* the kind of col from params schema or its type; integers are pending */
static void
classify(TapasAttackColumn *col, JsonbContainer *schema, List **order,
		 bool *integer)
{
	TypeClass	tc = type_class(col->typid);

	col->lower = col->upper = NAN;
	*integer = false;
	if (apply_override(col, schema, order))
		return;
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
		col->source = "distinct count";
		*integer = true;
	}
}

/*
 * Decides the kind of every column and gathers dictionaries and bounds:
 * one scan for the distinct values of all non-continuous (and integer)
 * columns, one for the bounds of the continuous ones.  in_targets[j] says
 * whether column j is read from the targets (targets[0] and, when valid,
 * targets[1]) too.  rows: see dataset_int.h; the label scan keeps the
 * rows only when it is the one scan of synthetic alone (every column a
 * text label column in one batch, the targets synthetic itself or none).
 */
void
tapas_dataset_describe_columns(TapasAttackColumn *cols, int ncols,
						  const bool *in_targets, JsonbContainer *schema,
						  int max_categories, Oid synthetic,
						  const Oid targets[2], MemoryContext cxt,
						  const char *key, TapasAttackRows **rows)
{
	List	  **order = palloc0(sizeof(List *) * ncols);
	List	  **observed = palloc0(sizeof(List *) * ncols);
	bool	   *integer = palloc(sizeof(bool) * ncols);
	bool	   *want = palloc(sizeof(bool) * ncols);
	TapasLabelRows keep;
	bool		one_scan = rows != NULL && ncols > 0 && ncols <= 31;
	int			j;

	for (j = 0; j < ncols; j++)
	{
		classify(&cols[j], schema, &order[j], &integer[j]);
		want[j] = cols[j].kind != TAPAS_COLUMN_CONTINUOUS;
		one_scan &= want[j] && in_targets[j] == in_targets[0];
	}
	for (j = 0; j < 2 && one_scan; j++)
		one_scan = !OidIsValid(targets[j]) || targets[j] == synthetic;
	memset(&keep, 0, sizeof(keep));
	keep.key = key;
	keep.cxt = cxt;
	keep.expect = tapas_dataset_rel_tuples(synthetic);
	if (one_scan)
	{
		int		   *idx = palloc(sizeof(int) * ncols);

		for (j = 0; j < ncols; j++)
			idx[j] = j;
		tapas_dataset_gather_labels(cols, idx, ncols, synthetic, NULL, observed, &keep);
	}
	else
		tapas_dataset_for_batches(cols, ncols, in_targets, want, synthetic, targets,
								  observed, true);
	for (j = 0; j < ncols; j++)
	{
		ListCell   *lc;
		int			distinct = 0;

		/* an integer with many distinct (non-NULL) values is continuous */
		foreach(lc, observed[j])
			distinct += lfirst(lc) != NULL;
		if (integer[j] && distinct > max_categories)
			cols[j].kind = TAPAS_COLUMN_CONTINUOUS;
		want[j] = cols[j].kind == TAPAS_COLUMN_CONTINUOUS;
		if (!want[j])
			tapas_dataset_build_dictionary(&cols[j], observed[j], order[j], cxt);
	}
	tapas_dataset_for_batches(cols, ncols, in_targets, want, synthetic, targets,
							  NULL, false);
	if (rows != NULL)
		*rows = keep.k == ncols && one_scan ? tapas_dataset_code_kept_rows(cols, &keep, cxt) : NULL;
}
