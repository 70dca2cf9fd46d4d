/*-------------------------------------------------------------------------
 *
 * protect.c
 *	  tapas.protect() and tapas.unprotect(): the SQL interface of the
 *	  protection catalog (tapas.protection; its cache is
 *	  protection_cache.c).
 *
 * tapas.protect() validates a table (plain or a partitioned root,
 * permanent, no inheritance children), its key column (int2/int4/int8,
 * NOT NULL, with a unique index on exactly that column), its sensitive
 * columns and k >= 1, then upserts one row of tapas.protection through
 * SPI.  A partitioned table's partitions, present and future, are
 * protected with it (partitions.c).  The catalog is an
 * extension configuration table (pg_extension_config_dump), so pg_dump
 * keeps it; it stores attribute numbers for the cache and names for
 * people.
 *
 *
 * IDENTIFICATION
 *	  src/policy/protect.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "parser/parse_func.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_protect);
PG_FUNCTION_INFO_V1(tapas_sql_protect_columns);
PG_FUNCTION_INFO_V1(tapas_sql_unprotect);
PG_FUNCTION_INFO_V1(tapas_sql_is_admin);

/* ----------------------------------------------------------------
 *		SQL interface
 * ----------------------------------------------------------------
 */

static void
require_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null", name)));
}

/* refuses relations tapas cannot protect */
static void
check_protectable(Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	char		kind = rel->rd_rel->relkind;

	if (IsCatalogRelation(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot protect system catalog \"%s\"", name)));
	if (rel->rd_rel->relispartition)
	{
		List	   *ancestors = get_partition_ancestors(RelationGetRelid(rel));

		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot protect partition \"%s\" on its own", name),
				 errhint("Protect its partitioned table \"%s\": the protection applies to every partition.",
						 get_rel_name(llast_oid(ancestors)))));
	}
	if (kind == RELKIND_PARTITIONED_TABLE)
	{
		tapas_partition_check_protectable(rel);
		return;
	}
	if (kind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot protect \"%s\" because it is not a table", name),
				 errhint("Views, materialized views and foreign tables cannot be protected; protect the table they read.")));
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot protect temporary table \"%s\"", name)));
	if (has_subclass(RelationGetRelid(rel)) || has_superclass(RelationGetRelid(rel)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot protect table \"%s\" because it takes part in inheritance or partitioning", name)));
}

/* attno of column "colname" of rel, or an error naming the role of the column */
static AttrNumber
column_attno(Relation rel, const char *colname, const char *role)
{
	AttrNumber	attno = get_attnum(RelationGetRelid(rel), colname);

	if (attno == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						colname, RelationGetRelationName(rel)),
				 errdetail("It was given as %s.", role)));
	if (attno < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("system column \"%s\" cannot be used as %s", colname, role)));
	return attno;
}

/* sensitive names -> int2[] of attnos; refuses NULLs, duplicates and the key */
static ArrayType *
sensitive_attnos(Relation rel, ArrayType *names, const AttrNumber *key_attnos, int nkeys)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	Datum	   *attnos;
	Bitmapset  *seen = NULL;

	if (ARR_NDIM(names) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("sensitive_columns must be a one-dimensional array")));
	deconstruct_array(names, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, &n);
	attnos = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		char	   *col;
		AttrNumber	a;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sensitive_columns must not contain nulls")));
		col = NameStr(*DatumGetName(elems[i]));
		a = column_attno(rel, col, "a sensitive column");
		for (int j = 0; j < nkeys; j++)
			if (a == key_attnos[j])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key column \"%s\" cannot also be a sensitive column", col)));
		if (bms_is_member(a, seen))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("column \"%s\" is listed twice in sensitive_columns", col)));
		seen = bms_add_member(seen, a);
		attnos[i] = Int16GetDatum(a);
	}
	return construct_array(attnos, n, INT2OID, 2, true, TYPALIGN_SHORT);
}

/* tells every backend (and ourselves, at command end) to reload */
static void
protection_changed(Oid relid)
{
	Oid			cat = tapas_protection_catalog_oid();

	CacheInvalidateRelcacheByRelid(relid);
	if (OidIsValid(cat))
		CacheInvalidateRelcacheByRelid(cat);
}

/* key column names (one, or an array) -> attnos; refuses NULLs and repeats */
static int
key_attnos(Relation rel, FunctionCallInfo fcinfo, bool array, AttrNumber *attnos, Datum *names)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (!array)
	{
		names[0] = PG_GETARG_DATUM(1);
		attnos[0] = column_attno(rel, NameStr(*PG_GETARG_NAME(1)), "the key column");
		return 1;
	}
	if (ARR_NDIM(PG_GETARG_ARRAYTYPE_P(1)) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("key_columns must be a one-dimensional array")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, &n);
	if (n < 1 || n > TAPAS_MAX_KEY_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key has 1 to %d columns", TAPAS_MAX_KEY_COLUMNS)));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("key_columns must not contain nulls")));
		names[i] = elems[i];
		attnos[i] = column_attno(rel, NameStr(*DatumGetName(elems[i])), "a key column");
		for (int j = 0; j < i; j++)
			if (attnos[j] == attnos[i])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("column \"%s\" is listed twice in key_columns",
								NameStr(*DatumGetName(elems[i])))));
	}
	return n;
}

/*
 * The catalog row in a catalog of before 0.3 (no key_columns): only an
 * integer key of one column fits; the library may be newer than the
 * extension's objects until ALTER EXTENSION tapas UPDATE.
 */
static void
protection_store_old(Oid relid, Datum *names, const AttrNumber *attnos, int nkeys,
					 Datum sens_names, ArrayType *sens, int32 k)
{
	Oid			argtypes[6] = {REGCLASSOID, NAMEOID, INT2OID, NAMEARRAYOID, INT2ARRAYOID, INT4OID};
	Datum		values[6];
	Oid			type = get_atttype(relid, attnos[0]);

	if (nkeys > 1 || !(type == INT2OID || type == INT4OID || type == INT8OID))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the tapas extension of this database is too old for this key"),
				 errdetail("Keys other than one integer column need the catalog of tapas 0.3."),
				 errhint("Run ALTER EXTENSION tapas UPDATE.")));
	values[0] = ObjectIdGetDatum(relid);
	values[1] = names[0];
	values[2] = Int16GetDatum(attnos[0]);
	values[3] = sens_names;
	values[4] = PointerGetDatum(sens);
	values[5] = Int32GetDatum(k);
	SPI_connect();
	if (SPI_execute_with_args("INSERT INTO tapas.protection AS p "
							  "(relid, key_column, key_attnum, sensitive_columns, sensitive_attnums, k) "
							  "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (relid) DO UPDATE "
							  "SET key_column = $2, key_attnum = $3, sensitive_columns = $4, "
							  "sensitive_attnums = $5, k = $6",
							  6, argtypes, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record the protection of table %u", relid);
	SPI_finish();
}

/* the catalog row of a protection (upsert through SPI) */
static void
protection_store(Oid relid, Datum *names, const AttrNumber *attnos, int nkeys,
				 Datum sens_names, ArrayType *sens, int32 k)
{
	Oid			argtypes[8] = {REGCLASSOID, NAMEOID, INT2OID, NAMEARRAYOID, INT2ARRAYOID, INT4OID,
	NAMEARRAYOID, INT2ARRAYOID};
	Datum		values[8];
	Datum		nums[TAPAS_MAX_KEY_COLUMNS];

	for (int i = 0; i < nkeys; i++)
		nums[i] = Int16GetDatum(attnos[i]);
	if (get_attnum(tapas_protection_catalog_oid(), "key_attnums") == InvalidAttrNumber)
	{
		protection_store_old(relid, names, attnos, nkeys, sens_names, sens, k);
		return;
	}
	values[0] = ObjectIdGetDatum(relid);
	values[1] = names[0];
	values[2] = Int16GetDatum(attnos[0]);
	values[3] = sens_names;
	values[4] = PointerGetDatum(sens);
	values[5] = Int32GetDatum(k);
	values[6] = PointerGetDatum(construct_array(names, nkeys, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR));
	values[7] = PointerGetDatum(construct_array(nums, nkeys, INT2OID, 2, true, TYPALIGN_SHORT));
	SPI_connect();
	if (SPI_execute_with_args("INSERT INTO tapas.protection AS p "
							  "(relid, key_column, key_attnum, sensitive_columns, sensitive_attnums, k, "
							  "key_columns, key_attnums) "
							  "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (relid) DO UPDATE "
							  "SET key_column = $2, key_attnum = $3, sensitive_columns = $4, "
							  "sensitive_attnums = $5, k = $6, key_columns = $7, key_attnums = $8",
							  8, argtypes, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record the protection of table %u", relid);
	SPI_finish();
}

/*
 * tapas.protect(tbl, key_column name | key_columns name[],
 *				 sensitive_columns name[], k integer) returns void
 */
static void
protect_internal(FunctionCallInfo fcinfo, bool key_array)
{
	Oid			relid;
	Relation	rel;
	TapasProtection p;
	Datum		names[TAPAS_MAX_KEY_COLUMNS];
	ArrayType  *sens;
	int32		k;

	tapas_require_admin("protect a table");
	require_arg(fcinfo, 0, "tbl");
	require_arg(fcinfo, 1, key_array ? "key_columns" : "key_column");
	require_arg(fcinfo, 2, "sensitive_columns");
	require_arg(fcinfo, 3, "k");
	relid = PG_GETARG_OID(0);
	k = PG_GETARG_INT32(3);
	if (k < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be at least 1"),
				 errdetail("k is the smallest number of rows a cell may cover.")));

	rel = try_relation_open(relid, ShareRowExclusiveLock);
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	check_protectable(rel);
	memset(&p, 0, sizeof(p));
	p.relid = p.lookup_relid = relid;
	p.nkeys = key_attnos(rel, fcinfo, key_array, p.key_attnos, names);
	tapas_key_check_columns(rel, &p, names);
	sens = sensitive_attnos(rel, PG_GETARG_ARRAYTYPE_P(2), p.key_attnos, p.nkeys);
	protection_store(relid, names, p.key_attnos, p.nkeys, PG_GETARG_DATUM(2), sens, k);
	tapas_key_protect(rel, &p);
	protection_changed(relid);
	relation_close(rel, NoLock);
}

Datum
tapas_sql_protect(PG_FUNCTION_ARGS)
{
	protect_internal(fcinfo, false);
	PG_RETURN_VOID();
}

/* tapas.protect(tbl, key_columns name[], ...): a composite key */
Datum
tapas_sql_protect_columns(PG_FUNCTION_ARGS)
{
	protect_internal(fcinfo, true);
	PG_RETURN_VOID();
}

/* tapas.unprotect(tbl regclass) returns void */
Datum
tapas_sql_unprotect(PG_FUNCTION_ARGS)
{
	Oid			relid;
	Oid			argtypes[1] = {REGCLASSOID};
	Datum		values[1];

	tapas_require_admin("unprotect a table");
	require_arg(fcinfo, 0, "tbl");
	relid = PG_GETARG_OID(0);
	values[0] = ObjectIdGetDatum(relid);
	SPI_connect();
	if (SPI_execute_with_args("DELETE FROM tapas.protection WHERE relid = $1",
							  1, argtypes, values, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not remove the protection of table %u", relid);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" is not protected", get_rel_name(relid) ? get_rel_name(relid) : "?")));
	SPI_finish();
	tapas_key_unprotect(relid);
	protection_changed(relid);
	PG_RETURN_VOID();
}

/* tapas._is_admin() returns boolean: is the session user exempt from audit */
Datum
tapas_sql_is_admin(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!tapas_session_is_audited());
}
