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
 * lookups go through a hash index (dataset_label_index.c).  Continuous
 * columns get observed bounds (unless declared) and refuse NULL, NaN and
 * infinities.
 *
 * IDENTIFICATION
 *	  src/api/dataset_columns.c
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
#include "optimizer/plancat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "api/attacks_pg.h"
#include "api/dataset_int.h"
#include "policy/policy.h"

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
 *		Dictionaries and bounds
 * ----------------------------------------------------------------
 */

/*
 * Codes of a categorical/ordinal column from its observed distinct labels
 * (in the column's order, NULL last; see gather_labels) or the declared
 * order, which must then list every observed label.
 */
static void
build_dictionary(TapasAttackColumn *col, List *observed, List *order,
				 MemoryContext cxt)
{
	ListCell   *lc;
	int			k = 0;
	bool		has_null = false;

	col->labels = MemoryContextAlloc(cxt, sizeof(char *) *
									 (list_length(observed) + list_length(order) + 1));
	foreach(lc, order)
		col->labels[k++] = MemoryContextStrdup(cxt, lfirst(lc));
	foreach(lc, observed)
	{
		char	   *label = lfirst(lc);

		if (label == NULL)
			has_null = true;
		else if (order == NIL)
			col->labels[k++] = MemoryContextStrdup(cxt, label);
		else if (!tapas_dataset_list_has_name(order, label))
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
	tapas_dataset_index_labels(col, cxt);
}

/*
 * The FROM item "u" holding columns idx[0..k-1] as v1..vk: the synthetic
 * table, and the targets (targets[0], and targets[1] when valid) too when
 * targets is not NULL.
 */
static char *
batch_from(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
		   const Oid *targets)
{
	StringInfoData sel,
				buf;
	int			i;

	initStringInfo(&sel);
	for (i = 0; i < k; i++)
		appendStringInfo(&sel, "%s%s AS v%d", i ? ", " : "",
						 quote_identifier(cols[idx[i]].name), i + 1);
	initStringInfo(&buf);
	appendStringInfo(&buf, "(SELECT %s FROM %s", sel.data,
					 tapas_dataset_rel_sql_name(synthetic));
	/*
	 * A table already in the union adds no value nor bound (tapas.evaluate
	 * passes its auxiliary table as both): scan it once.
	 */
	for (i = 0; targets != NULL && i < 2; i++)
		if (OidIsValid(targets[i]) && targets[i] != synthetic &&
			(i == 0 || targets[i] != targets[0]))
			appendStringInfo(&buf, " UNION ALL SELECT %s FROM %s", sel.data,
							 tapas_dataset_rel_sql_name(targets[i]));
	appendStringInfoString(&buf, ") u");
	return buf.data;
}

/*
 * Distinct values of up to 31 columns in one scan: one grouping set per
 * column; GROUPING() tells which column a row belongs to (bit k-1-i is 0
 * for column i), and ORDER BY v1, ..., vk sorts each set by its own column
 * (the others are NULL in it), NULLs last.  The outputs are renamed so
 * that ORDER BY vi means the value, not its text.  Appends each column's
 * labels (NULL for SQL NULL) to observed[idx[i]].
 */
static void
gather_labels_sql(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
				  const Oid *targets, List **observed)
{
	StringInfoData q,
				sets,
				order;
	int			i;
	uint64		r;

	initStringInfo(&q);
	initStringInfo(&sets);
	initStringInfo(&order);
	appendStringInfoString(&q, "SELECT GROUPING(");
	for (i = 0; i < k; i++)
		appendStringInfo(&q, "%sv%d", i ? ", " : "", i + 1);
	appendStringInfoString(&q, ")::int");
	for (i = 0; i < k; i++)
	{
		appendStringInfo(&q, ", v%d::text AS t%d", i + 1, i + 1);
		appendStringInfo(&sets, "%s(v%d)", i ? ", " : "", i + 1);
		appendStringInfo(&order, ", v%d", i + 1);
	}
	appendStringInfo(&q, " FROM %s GROUP BY GROUPING SETS (%s) ORDER BY 1%s",
					 batch_from(cols, idx, k, synthetic, targets), sets.data,
					 order.data);
	tapas_dataset_run_query(q.data);
	for (r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		bool		isnull;
		int			mask = DatumGetInt32(SPI_getbinval(tup, SPI_tuptable->tupdesc,
													   1, &isnull));

		for (i = 0; i < k; i++)
			if (((mask >> (k - 1 - i)) & 1) == 0)
			{
				observed[idx[i]] = lappend(observed[idx[i]],
										   SPI_getvalue(tup, SPI_tuptable->tupdesc,
														i + 2));
				break;
			}
	}
}

/*
 * The planner's estimate of the relation's rows (from its current size when
 * it was never analysed), 0 when there is none: a size hint only.
 */
static uint64
rel_tuples(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	BlockNumber pages;
	double		tuples,
				allvisfrac;

	estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	relation_close(rel, AccessShareLock);
	return tuples > 0 && tuples < 1e9 ? (uint64) tuples : 0;
}

/*
 * gather_labels_sql for columns idx[0..k-1], except that the text and
 * varchar columns under a deterministic collation are gathered by one
 * plain scan in C (dataset_labels.c), the same lists for less work.
 * keep (may be NULL): when that scan reads every column, of synthetic
 * alone (targets NULL), it keeps the rows there too; keep->k stays 0
 * otherwise.
 */
static void
gather_labels(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
			  const Oid *targets, List **observed, TapasLabelRows *keep)
{
	int		   *text_idx = palloc(sizeof(int) * k),
			   *other_idx = palloc(sizeof(int) * k);
	Oid		   *collid = palloc(sizeof(Oid) * k);
	List	  **text_observed;
	char	   *from;
	int			i,
				n_text = 0,
				n_other = 0;

	for (i = 0; i < k; i++)
	{
		Oid			c = tapas_dataset_text_label_collation(cols[idx[i]].name,
														   synthetic, targets);

		if (OidIsValid(c))
		{
			collid[n_text] = c;
			text_idx[n_text++] = idx[i];
		}
		else
			other_idx[n_other++] = idx[i];
	}
	if (n_other > 0)
		gather_labels_sql(cols, other_idx, n_other, synthetic, targets, observed);
	if (n_text == 0)
		return;
	text_observed = palloc0(sizeof(List *) * n_text);
	if (keep != NULL && n_other == 0 && targets == NULL)
		from = tapas_dataset_kept_rows_from(cols, idx, k, synthetic, keep->key);
	else
	{
		keep = NULL;
		from = batch_from(cols, text_idx, n_text, synthetic, targets);
	}
	tapas_dataset_gather_text_labels(from, collid, n_text, text_observed, keep);
	for (i = 0; i < n_text; i++)
		observed[text_idx[i]] = list_concat(observed[text_idx[i]], text_observed[i]);
}

/* sets col's bounds (unless declared) from observed min and max */
static void
set_bounds(TapasAttackColumn *col, double lo, double hi)
{
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

/*
 * Bounds, NULL counts and non-finite counts of continuous columns idx[],
 * all in one scan; NaN or infinities are an error.
 */
static void
continuous_stats(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
				 const Oid *targets)
{
	StringInfoData q,
				x;
	int			i;
	HeapTuple	tup;
	TupleDesc	desc;

	initStringInfo(&q);
	initStringInfo(&x);
	appendStringInfoString(&q, "SELECT ");
	for (i = 0; i < k; i++)
	{
		appendStringInfo(&q, "%smin(x%d), max(x%d), count(*) FILTER (WHERE v%d IS NULL), "
						 "count(*) FILTER (WHERE x%d IN ('NaN', 'Infinity', '-Infinity'))",
						 i ? ", " : "", i + 1, i + 1, i + 1, i + 1);
		appendStringInfo(&x, ", %s AS x%d",
						 tapas_dataset_float_expr(cols[idx[i]].typid, psprintf("v%d", i + 1)),
						 i + 1);
	}
	appendStringInfo(&q, " FROM (SELECT *%s FROM %s) s", x.data,
					 batch_from(cols, idx, k, synthetic, targets));
	tapas_dataset_run_query(q.data);
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	for (i = 0; i < k; i++)
	{
		TapasAttackColumn *col = &cols[idx[i]];
		bool		nl,
					nh,
					isnull;
		Datum		lo = SPI_getbinval(tup, desc, 4 * i + 1, &nl);
		Datum		hi = SPI_getbinval(tup, desc, 4 * i + 2, &nh);

		col->nulls = DatumGetInt64(SPI_getbinval(tup, desc, 4 * i + 3, &isnull));
		if (DatumGetInt64(SPI_getbinval(tup, desc, 4 * i + 4, &isnull)) > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("continuous column \"%s\" contains NaN or infinite values",
							col->name),
					 errhint("Filter those rows, or declare the column categorical in params schema.")));
		if (col->nulls > 0)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("continuous column \"%s\" contains NULL", col->name),
					 errhint("Filter or impute the NULLs, or declare the column categorical in params schema (NULL is then a category).")));
		set_bounds(col, nl ? 0.0 : DatumGetFloat8(lo), nh ? 0.0 : DatumGetFloat8(hi));
	}
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
 * Runs fn over the columns of cols that satisfy want(), in batches of at
 * most 31 (the limit of GROUPING()), separately for the columns read from
 * both tables and those read from the synthetic table only.
 */
static void
for_batches(TapasAttackColumn *cols, int ncols, const bool *in_targets,
			const bool *want, Oid synthetic, const Oid *targets,
			List **observed, bool labels)
{
	int		   *idx = palloc(sizeof(int) * (ncols + 1));
	int			pass,
				j;

	for (pass = 0; pass < 2; pass++)
	{
		int			k = 0;

		for (j = 0; j <= ncols; j++)
		{
			if (j < ncols && want[j] && in_targets[j] == (pass == 0))
				idx[k++] = j;
			if (k > 0 && (k == 31 || j == ncols))
			{
				const Oid  *t = pass == 0 ? targets : NULL;

				if (labels)
					gather_labels(cols, idx, k, synthetic, t, observed, NULL);
				else
					continuous_stats(cols, idx, k, synthetic, t);
				k = 0;
			}
		}
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
	keep.expect = rel_tuples(synthetic);
	if (one_scan)
	{
		int		   *idx = palloc(sizeof(int) * ncols);

		for (j = 0; j < ncols; j++)
			idx[j] = j;
		gather_labels(cols, idx, ncols, synthetic, NULL, observed, &keep);
	}
	else
		for_batches(cols, ncols, in_targets, want, synthetic, targets, observed, true);
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
			build_dictionary(&cols[j], observed[j], order[j], cxt);
	}
	for_batches(cols, ncols, in_targets, want, synthetic, targets, NULL, false);
	if (rows != NULL)
		*rows = keep.k == ncols && one_scan ? tapas_dataset_code_kept_rows(cols, &keep, cxt) : NULL;
}
