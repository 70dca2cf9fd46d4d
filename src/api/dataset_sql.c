/*-------------------------------------------------------------------------
 *
 * dataset_sql.c
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
 * This file chooses the columns and builds the schema; dataset_columns.c
 * decides each column's kind, and gathers its dictionary and bounds
 * through the scans of dataset_gather.c; dataset_read.c reads
 * rows and implements tapas.describe().
 *
 * IDENTIFICATION
 *	  src/api/dataset_sql.c
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

#include "api/attacks_pg.h"
#include "api/dataset_int.h"
#include "policy/policy.h"

#define DEFAULT_MAX_CATEGORIES 20

/* ----------------------------------------------------------------
 *		Relations and names
 * ----------------------------------------------------------------
 */

/* the non-dropped user columns of rel (any relation kind readable by SELECT) */
RelColumns
tapas_dataset_rel_columns(Oid relid, const char *role)
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

int
tapas_dataset_find_name(const RelColumns *rc, const char *name)
{
	int			i;

	for (i = 0; i < rc->n; i++)
		if (strcmp(rc->names[i], name) == 0)
			return i;
	return -1;
}

bool
tapas_dataset_list_has_name(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp((char *) lfirst(lc), name) == 0)
		return true;
	return false;
}

/* schema-qualified, quoted name of a relation */
char *
tapas_dataset_rel_sql_name(Oid relid)
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

/* runs a read-only query that must succeed */
void
tapas_dataset_run_query(const char *sql)
{
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not run \"%s\"", sql);
}

/* ----------------------------------------------------------------
 *		The schema
 * ----------------------------------------------------------------
 */

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
		if (tapas_dataset_find_name(sc, lfirst(lc)) < 0 && (tc == NULL || tapas_dataset_find_name(tc, lfirst(lc)) < 0))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" in params exclude does not exist",
						(char *) lfirst(lc))));
	if (columns != NIL)
	{
		foreach(lc, columns)
			if (tapas_dataset_find_name(sc, lfirst(lc)) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" in params columns is not in the synthetic table",
							(char *) lfirst(lc))));
		return columns;
	}
	for (i = 0; i < sc->n; i++)
		if ((key == NULL || strcmp(sc->names[i], key) != 0) &&
			!tapas_dataset_list_has_name(exclude, sc->names[i]))
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
			  Jsonb *params, const char *key, const char *optional,
			  const char *role)
{
	List	   *exclude = tapas_attack_param_name_list(params, "exclude");
	ListCell   *lc;
	int			i;

	foreach(lc, columns)
	{
		char	   *name = lfirst(lc);
		int			t = tapas_dataset_find_name(tc, name);

		if (t < 0 && (optional == NULL || strcmp(name, optional) != 0))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("%s table lacks column \"%s\" of the synthetic table", role, name),
					 errhint("Add the column, or list it in params exclude.")));
		if (t >= 0 && tc->types[t] != sc->types[tapas_dataset_find_name(sc, name)])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" has type %s in the %s table but %s in the synthetic table",
							name, format_type_be(tc->types[t]), role,
							format_type_be(sc->types[tapas_dataset_find_name(sc, name)]))));
	}
	for (i = 0; i < tc->n; i++)
	{
		char	   *name = tc->names[i];

		if (tapas_dataset_find_name(sc, name) < 0 && (key == NULL || strcmp(name, key) != 0) &&
			!tapas_dataset_list_has_name(exclude, name))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("%s table has column \"%s\", which the synthetic table lacks", role, name),
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
	if (tapas_dataset_find_name(tc, key) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("key column \"%s\" does not exist in the targets table", key)));
	return key;
}

static void
require_rows(Oid relid, const char *role)
{
	tapas_dataset_run_query(psprintf("SELECT 1 FROM %s LIMIT 1", tapas_dataset_rel_sql_name(relid)));
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s table \"%s\" is empty", role, get_rel_name(relid))));
}

/*
 * tapas_attack_schema_build, with a second targets table (holdout, may be
 * InvalidOid) checked and read like the targets and keyed by the same
 * column name.
 */
static TapasAttackSchema *
schema_build(Oid synthetic, Oid targets, Oid holdout, Jsonb *params,
			 const char *optional_column, bool need_key, MemoryContext cxt)
{
	RelColumns	sc = tapas_dataset_rel_columns(synthetic, "synthetic"),
				tc = {0, NULL, NULL};
	Oid			tables[2] = {targets, holdout};
	TapasAttackSchema *schema = MemoryContextAllocZero(cxt, sizeof(TapasAttackSchema));
	double		maxcat = tapas_attack_param_float(params, "max_categories",
												  DEFAULT_MAX_CATEGORIES);
	JsonbValue	sv;
	JsonbContainer *override = NULL;
	List	   *columns;
	ListCell   *lc;
	char	   *key = NULL;
	bool	   *in_targets;
	int			j = 0;

	if (!(maxcat >= 0 && maxcat <= INT_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"max_categories\" must be a non-negative integer")));
	if (OidIsValid(targets))
	{
		tc = tapas_dataset_rel_columns(targets, "targets");
		if (need_key)
			key = targets_key(targets, &tc, params);
	}
	else
		key = tapas_attack_param_text(params, "key", NULL);
	columns = dataset_column_names(&sc, OidIsValid(targets) ? &tc : NULL, params, key);
	if (OidIsValid(targets))
		check_targets(&sc, &tc, columns, params, key, optional_column,
					  OidIsValid(holdout) ? "real" : "targets");
	if (OidIsValid(holdout))
	{
		RelColumns	hc = tapas_dataset_rel_columns(holdout, "holdout");

		check_targets(&sc, &hc, columns, params, key, optional_column, "holdout");
		if (key != NULL && tapas_dataset_find_name(&hc, key) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("key column \"%s\" does not exist in the holdout table", key),
					 errhint("The holdout must be keyed by the same column as the real table.")));
		require_rows(holdout, "holdout");
	}
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
	in_targets = palloc0(sizeof(bool) * (schema->ncols + 1));
	foreach(lc, columns)
	{
		TapasAttackColumn *col = &schema->cols[j];
		char	   *name = lfirst(lc);

		col->name = MemoryContextStrdup(cxt, name);
		col->typid = sc.types[tapas_dataset_find_name(&sc, name)];
		in_targets[j] = OidIsValid(targets) && tapas_dataset_find_name(&tc, name) >= 0 &&
			(optional_column == NULL || strcmp(name, optional_column) != 0);
		j++;
	}
	/*
	 * The targets being synthetic itself (tapas.evaluate's auxiliary
	 * table), its label scan may keep its rows for tapas_attack_read_table:
	 * one scan instead of two, and rows and dictionaries of one snapshot.
	 */
	tapas_dataset_describe_columns(schema->cols, schema->ncols, in_targets, override,
								   (int) maxcat, synthetic, tables, cxt,
								   need_key ? key : NULL,
								   targets == synthetic && !OidIsValid(holdout) ?
								   &schema->rows : NULL);
	for (j = 0; j < schema->ncols; j++)
	{
		TapasAttackColumn *col = &schema->cols[j];
		bool		cont = col->kind == TAPAS_COLUMN_CONTINUOUS;

		schema->specs[j].kind = col->kind;
		schema->specs[j].cardinality = cont ? 0 : col->ncat;
		schema->specs[j].lower = cont ? col->lower : 0;
		schema->specs[j].upper = cont ? col->upper : 0;
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

TapasAttackSchema *
tapas_attack_schema_build(Oid synthetic, Oid targets, Jsonb *params,
						  const char *optional_column, bool need_key,
						  MemoryContext cxt)
{
	return schema_build(synthetic, targets, InvalidOid, params,
						optional_column, need_key, cxt);
}

TapasAttackSchema *
tapas_attack_schema_build_holdout(Oid synthetic, Oid real, Oid holdout,
								  Jsonb *params, MemoryContext cxt)
{
	return schema_build(synthetic, real, holdout, params, NULL, true, cxt);
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

