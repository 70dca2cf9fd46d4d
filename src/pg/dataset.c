/*-------------------------------------------------------------------------
 *
 * dataset.c
 *	  Tables as attack datasets: column kinds, dictionaries, bounds, and
 *	  reading rows into the kernels' raw matrix; tapas.describe().
 *
 * Columns.  The dataset columns are params "columns" if given, else every
 * column of the synthetic table except the targets' key column and params
 * "exclude".  Kinds come from the PostgreSQL type (domains by their base
 * type) unless params "schema" overrides them:
 *	boolean, text, varchar, char, name, enums	categorical
 *	smallint, integer, bigint					categorical when the union
 *		of the tables has at most params "max_categories" (default 20)
 *		distinct values, else continuous
 *	real, double precision, numeric, date,		continuous, bounds = the
 *	timestamp, timestamptz						observed min and max
 *		(dates as days since 2000-01-01, timestamps as epoch seconds)
 *	anything else								an error, unless the schema
 *		declares it (categorical works for any type with equality/order)
 * Schema override: {"schema": {"col": "categorical" | "ordinal" |
 * "continuous" | {"type": ..., "min": x, "max": y, "order": [labels]}}}.
 *
 * Dictionaries.  Codes of a categorical or ordinal column are built once
 * over the union of the synthetic table and the targets, ordered by the
 * column's own ordering (or the declared "order"), so a code means the same
 * value in both tables.  Values are matched by their text output.
 *
 * NULL policy.  In a categorical or ordinal column, NULL is one more
 * category (its label is SQL NULL, placed last).  In a continuous column a
 * NULL is an error (the hint says how to declare the column categorical or
 * to filter/impute); NaN and infinities are errors too.
 *
 * All reads go through SPI as the calling user, so table privileges apply.
 *
 * IDENTIFICATION
 *	  src/pg/dataset.c
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
#include "tapas.h"

#define DEFAULT_MAX_CATEGORIES 20

/* one relation's user columns */
typedef struct RelColumns
{
	int			n;
	char	  **names;
	Oid		   *types;
} RelColumns;

/* ----------------------------------------------------------------
 *		Relations and names
 * ----------------------------------------------------------------
 */

/* the non-dropped user columns of rel (any relation kind readable by SELECT) */
static RelColumns
rel_columns(Oid relid, const char *role)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	RelColumns	rc;
	int			i;
	char		kind = rel->rd_rel->relkind;

	if (kind != RELKIND_RELATION && kind != RELKIND_VIEW &&
		kind != RELKIND_MATVIEW && kind != RELKIND_FOREIGN_TABLE &&
		kind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s relation \"%s\" is not a table or view", role,
						RelationGetRelationName(rel))));
	rc.n = 0;
	rc.names = palloc(sizeof(char *) * (desc->natts + 1));
	rc.types = palloc(sizeof(Oid) * (desc->natts + 1));
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		rc.names[rc.n] = pstrdup(NameStr(att->attname));
		rc.types[rc.n] = att->atttypid;
		rc.n++;
	}
	relation_close(rel, AccessShareLock);
	return rc;
}

static int
find_name(const RelColumns *rc, const char *name)
{
	int			i;

	for (i = 0; i < rc->n; i++)
		if (strcmp(rc->names[i], name) == 0)
			return i;
	return -1;
}

static bool
list_has_name(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp((char *) lfirst(lc), name) == 0)
		return true;
	return false;
}

/* schema-qualified, quoted name of a relation */
static char *
rel_sql_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/* the single-column primary key of rel, or NULL */
static char *
primary_key_column(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1] = {ObjectIdGetDatum(relid)};
	char	   *name = NULL;

	if (SPI_execute_with_args("SELECT a.attname::text FROM pg_catalog.pg_index i "
							  "JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid "
							  " AND a.attnum = ANY (i.indkey) "
							  "WHERE i.indrelid = $1 AND i.indisprimary",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not look up the primary key");
	if (SPI_processed == 1)
		name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	return name;
}

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
static char *
float_expr(Oid typid, const char *v)
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

/* The union of the column over the tables, as a FROM item "u(v)". */
static char *
union_sql(const char *col, Oid synthetic, Oid targets, bool in_targets)
{
	char	   *qc = (char *) quote_identifier(col);

	if (!OidIsValid(targets) || !in_targets)
		return psprintf("(SELECT %s AS v FROM %s) u", qc, rel_sql_name(synthetic));
	return psprintf("(SELECT %s AS v FROM %s UNION ALL SELECT %s FROM %s) u",
					qc, rel_sql_name(synthetic), qc, rel_sql_name(targets));
}

/* runs a read-only query that must succeed */
static void
run_query(const char *sql)
{
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not run \"%s\"", sql);
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
static int
label_code(const TapasAttackColumn *col, const char *label)
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
	run_query(psprintf("SELECT v::text AS label FROM %s GROUP BY v ORDER BY v NULLS LAST", u));
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
		else if (!list_has_name(order, label))
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

	run_query(psprintf("SELECT min(x), max(x), "
					   "count(*) FILTER (WHERE v IS NULL), "
					   "count(*) FILTER (WHERE x IN ('NaN', 'Infinity', '-Infinity')) "
					   "FROM (SELECT v, %s AS x FROM %s) s",
					   float_expr(col->typid, "v"), u));
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
 *		The schema
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
static void
describe_column(TapasAttackColumn *col, JsonbContainer *schema,
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

			run_query(psprintf("SELECT count(DISTINCT v) FROM %s", u));
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

/* the dataset's column names from params and the synthetic columns */
static List *
dataset_column_names(const RelColumns *sc, const RelColumns *tc, Jsonb *params,
					 const char *key)
{
	List	   *columns = tapas_attack_param_name_list(params, "columns");
	List	   *exclude = tapas_attack_param_name_list(params, "exclude");
	ListCell   *lc;
	int			i;

	foreach(lc, exclude)
		if (find_name(sc, lfirst(lc)) < 0 && (tc == NULL || find_name(tc, lfirst(lc)) < 0))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" in params exclude does not exist",
						(char *) lfirst(lc))));
	if (columns != NIL)
	{
		foreach(lc, columns)
			if (find_name(sc, lfirst(lc)) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" in params columns is not in the synthetic table",
							(char *) lfirst(lc))));
		return columns;
	}
	for (i = 0; i < sc->n; i++)
		if ((key == NULL || strcmp(sc->names[i], key) != 0) &&
			!list_has_name(exclude, sc->names[i]))
			columns = lappend(columns, sc->names[i]);
	if (columns == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the synthetic table has no column to attack")));
	return columns;
}

/* the targets must match the dataset columns (see the header) */
static void
check_targets(const RelColumns *sc, const RelColumns *tc, List *columns,
			  Jsonb *params, const char *key, const char *optional)
{
	List	   *exclude = tapas_attack_param_name_list(params, "exclude");
	ListCell   *lc;
	int			i;

	foreach(lc, columns)
	{
		char	   *name = lfirst(lc);
		int			t = find_name(tc, name);

		if (t < 0 && (optional == NULL || strcmp(name, optional) != 0))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("targets table lacks column \"%s\" of the synthetic table", name),
					 errhint("Add the column, or list it in params exclude.")));
		if (t >= 0 && tc->types[t] != sc->types[find_name(sc, name)])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" has type %s in the targets table but %s in the synthetic table",
							name, format_type_be(tc->types[t]),
							format_type_be(sc->types[find_name(sc, name)]))));
	}
	for (i = 0; i < tc->n; i++)
	{
		char	   *name = tc->names[i];

		if (find_name(sc, name) < 0 && (key == NULL || strcmp(name, key) != 0) &&
			!list_has_name(exclude, name))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("targets table has column \"%s\", which the synthetic table lacks", name),
					 errhint("Drop the column from the targets, or list it in params exclude.")));
	}
}

/* the key column of the targets: params "key" or the primary key */
static char *
targets_key(Oid targets, const RelColumns *tc, Jsonb *params)
{
	char	   *key = tapas_attack_param_text(params, "key", NULL);

	if (key == NULL)
		key = primary_key_column(targets);
	if (key == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("targets table \"%s\" has no single-column primary key",
						get_rel_name(targets)),
				 errhint("Name the key column with params {\"key\": \"column\"}.")));
	if (find_name(tc, key) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("key column \"%s\" does not exist in the targets table", key)));
	return key;
}

static void
require_rows(Oid relid, const char *role)
{
	run_query(psprintf("SELECT 1 FROM %s LIMIT 1", rel_sql_name(relid)));
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s table \"%s\" is empty", role, get_rel_name(relid))));
}

TapasAttackSchema *
tapas_attack_schema_build(Oid synthetic, Oid targets, Jsonb *params,
						  const char *optional_column, bool need_key,
						  MemoryContext cxt)
{
	RelColumns	sc = rel_columns(synthetic, "synthetic"),
				tc = {0, NULL, NULL};
	TapasAttackSchema *schema = MemoryContextAllocZero(cxt, sizeof(TapasAttackSchema));
	double		maxcat = tapas_attack_param_float(params, "max_categories",
												  DEFAULT_MAX_CATEGORIES);
	JsonbValue	sv;
	JsonbContainer *override = NULL;
	List	   *columns;
	ListCell   *lc;
	char	   *key = NULL;
	int			j = 0;

	if (!(maxcat >= 0 && maxcat <= INT_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"max_categories\" must be a non-negative integer")));
	if (OidIsValid(targets))
	{
		tc = rel_columns(targets, "targets");
		if (need_key)
			key = targets_key(targets, &tc, params);
	}
	else
		key = tapas_attack_param_text(params, "key", NULL);
	columns = dataset_column_names(&sc, OidIsValid(targets) ? &tc : NULL, params, key);
	if (OidIsValid(targets))
		check_targets(&sc, &tc, columns, params, key, optional_column);
	if (params != NULL && tapas_attack_param_find(&params->root, "schema", &sv))
	{
		if (sv.type != jbvBinary || !JsonContainerIsObject(sv.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parameter \"schema\" must be an object mapping column names to types")));
		override = sv.val.binary.data;
	}
	require_rows(synthetic, "synthetic");

	schema->key = key ? MemoryContextStrdup(cxt, key) : NULL;
	schema->synthetic = synthetic;
	schema->optional = optional_column ? MemoryContextStrdup(cxt, optional_column) : NULL;
	schema->ncols = list_length(columns);
	schema->cols = MemoryContextAllocZero(cxt, sizeof(TapasAttackColumn) * schema->ncols);
	schema->specs = MemoryContextAllocZero(cxt, sizeof(tapas_column_spec_t) * schema->ncols);
	foreach(lc, columns)
	{
		TapasAttackColumn *col = &schema->cols[j];
		char	   *name = lfirst(lc);
		bool		in_targets = OidIsValid(targets) && find_name(&tc, name) >= 0 &&
			(optional_column == NULL || strcmp(name, optional_column) != 0);

		col->name = MemoryContextStrdup(cxt, name);
		col->typid = sc.types[find_name(&sc, name)];
		describe_column(col, override, (int) maxcat,
						union_sql(name, synthetic, targets, in_targets), cxt);
		schema->specs[j].kind = col->kind;
		schema->specs[j].cardinality = col->kind == TAPAS_COLUMN_CONTINUOUS ? 0 : col->ncat;
		schema->specs[j].lower = col->kind == TAPAS_COLUMN_CONTINUOUS ? col->lower : 0;
		schema->specs[j].upper = col->kind == TAPAS_COLUMN_CONTINUOUS ? col->upper : 0;
		j++;
	}
	/* every column named in params schema must be a dataset column */
	if (override != NULL)
	{
		JsonbIterator *it = JsonbIteratorInit(override);
		JsonbValue	v;
		JsonbIteratorToken r;

		while ((r = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			if (r == WJB_KEY &&
				tapas_attack_schema_column(schema, pnstrdup(v.val.string.val,
															v.val.string.len)) < 0)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("column \"%s\" in params schema is not a dataset column",
								pnstrdup(v.val.string.val, v.val.string.len))));
	}
	return schema;
}

int
tapas_attack_schema_column(TapasAttackSchema *schema, const char *name)
{
	int			j;

	for (j = 0; j < schema->ncols; j++)
		if (strcmp(schema->cols[j].name, name) == 0)
			return j;
	return -1;
}

/* ----------------------------------------------------------------
 *		Reading rows
 * ----------------------------------------------------------------
 */

/* the SELECT reading rel's dataset columns (and key) in schema order */
static char *
read_sql(TapasAttackSchema *schema, Oid relid, bool with_key)
{
	RelColumns	rc = rel_columns(relid, "input");
	StringInfoData buf;
	int			j;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "SELECT ");
	for (j = 0; j < schema->ncols; j++)
	{
		TapasAttackColumn *col = &schema->cols[j];
		const char *qc = quote_identifier(col->name);

		if (j > 0)
			appendStringInfoString(&buf, ", ");
		if (find_name(&rc, col->name) < 0 ||
			(relid != schema->synthetic && schema->optional != NULL &&
			 strcmp(col->name, schema->optional) == 0))
			appendStringInfoString(&buf, "NULL::text");
		else if (col->kind == TAPAS_COLUMN_CONTINUOUS)
			appendStringInfoString(&buf, float_expr(col->typid, qc));
		else
			appendStringInfo(&buf, "(%s)::text", qc);
	}
	if (with_key)
		appendStringInfo(&buf, ", (%s)::text", quote_identifier(schema->key));
	appendStringInfo(&buf, " FROM %s", rel_sql_name(relid));
	return buf.data;
}

/* raw value of column j from one SPI row */
static double
read_cell(TapasAttackColumn *col, HeapTuple tup, TupleDesc desc, int attno,
		  const char *role)
{
	bool		isnull;
	Datum		d;
	char	   *label;
	int			code;

	if (col->kind == TAPAS_COLUMN_CONTINUOUS)
	{
		d = SPI_getbinval(tup, desc, attno, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("continuous column \"%s\" of the %s table contains NULL",
							col->name, role)));
		return DatumGetFloat8(d);
	}
	label = SPI_getvalue(tup, desc, attno);
	code = label_code(col, label);
	if (code < 0)
	{
		if (label == NULL)
			return 0.0;			/* a column the table lacks (AIA sensitive) */
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("value \"%s\" of column \"%s\" is not in its dictionary",
						label, col->name)));
	}
	return (double) code;
}

double *
tapas_attack_read_table(TapasAttackSchema *schema, Oid relid, const char *role,
						size_t *n, char ***keys, MemoryContext cxt)
{
	uint64		i,
				rows;
	int			j,
				c = schema->ncols;
	double	   *values;

	run_query(read_sql(schema, relid, keys != NULL));
	rows = SPI_processed;
	if (rows == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s table \"%s\" is empty", role, get_rel_name(relid))));
	values = MemoryContextAllocHuge(cxt, sizeof(double) * rows * c);
	if (keys != NULL)
		*keys = MemoryContextAlloc(cxt, sizeof(char *) * rows);
	for (i = 0; i < rows; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		for (j = 0; j < c; j++)
			values[i * c + j] = read_cell(&schema->cols[j], tup, desc, j + 1, role);
		if (keys != NULL)
		{
			char	   *k = SPI_getvalue(tup, desc, c + 1);

			(*keys)[i] = k ? MemoryContextStrdup(cxt, k) : NULL;
		}
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	*n = rows;
	return values;
}

/* ----------------------------------------------------------------
 *		tapas.describe(tbl regclass, params jsonb)
 * ----------------------------------------------------------------
 */

static const char *const describe_keys[] = {
	"columns", "exclude", "schema", "max_categories", "key", NULL
};

/* text[] of the labels of a categorical/ordinal column (NULL elements) */
static Datum
labels_array(TapasAttackColumn *col)
{
	Datum	   *elems = palloc(sizeof(Datum) * (col->ncat + 1));
	bool	   *nulls = palloc(sizeof(bool) * (col->ncat + 1));
	int			dims[1] = {col->ncat},
				lbs[1] = {1},
				k;

	for (k = 0; k < col->ncat; k++)
	{
		nulls[k] = col->labels[k] == NULL;
		elems[k] = nulls[k] ? (Datum) 0 : CStringGetTextDatum(col->labels[k]);
	}
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs,
											  TEXTOID, -1, false, 'i'));
}

PG_FUNCTION_INFO_V1(tapas_sql_describe);

Datum
tapas_sql_describe(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	Jsonb	   *params;
	MemoryContext cxt = CurrentMemoryContext;
	TapasAttackSchema *schema;
	tapas_dataset_t *layout;
	int			j;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table must not be NULL")));
	relid = PG_GETARG_OID(0);
	params = PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1);
	tapas_attack_params_check(params, describe_keys, "tapas.describe");

	SPI_connect();
	schema = tapas_attack_schema_build(relid, InvalidOid, params, NULL, false, cxt);
	SPI_finish();

	/* an empty kernel dataset gives the encoded layout; nothing can raise */
	layout = tapas_dataset_create(0, schema->ncols, schema->specs);
	if (layout == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	InitMaterializedSRF(fcinfo, 0);
	for (j = 0; j < schema->ncols; j++)
	{
		TapasAttackColumn *col = &schema->cols[j];
		bool		cont = col->kind == TAPAS_COLUMN_CONTINUOUS;
		Datum		values[10];
		bool		nulls[10] = {0};

		values[0] = CStringGetTextDatum(col->name);
		values[1] = CStringGetTextDatum(format_type_be(col->typid));
		values[2] = CStringGetTextDatum(tapas_column_kind_name(col->kind));
		values[3] = CStringGetTextDatum(col->source);
		values[4] = Int32GetDatum(cont ? 0 : col->ncat);
		nulls[4] = cont;
		values[5] = Float8GetDatum(col->lower);
		nulls[5] = !cont;
		values[6] = Float8GetDatum(col->upper);
		nulls[6] = !cont;
		values[7] = Int32GetDatum((int32) layout->offset[j]);
		values[8] = Int32GetDatum((int32) layout->width[j]);
		if (cont)
			nulls[9] = true;
		else
			values[9] = labels_array(col);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	tapas_dataset_free(layout);
	return (Datum) 0;
}
