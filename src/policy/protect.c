/*-------------------------------------------------------------------------
 *
 * protect.c
 *	  The protection catalog (tapas.protection), its SQL interface and its
 *	  per-backend cache.
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
 * Cache: a hash table relid -> TapasProtection in a child of
 * CacheMemoryContext (partitions are added when first looked up, as their
 * protected ancestor's entry, or as a "not protected" entry), loaded on first use in a transaction by a plain heap
 * scan of the catalog (no SPI: the planner hook calls us, and SPI would
 * recurse into it).  protect() and unprotect() send a relcache
 * invalidation for the table and for the catalog itself; the relcache
 * callback drops the whole cache when it hears about either, about any
 * protected table (DROP, ALTER) or about everything (InvalidOid).  A
 * dropped table's catalog row is deleted by the sql_drop event trigger;
 * an entry whose table no longer exists is skipped when loading anyway.
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

/* catalog columns of tapas.protection */
#define ANUM_PROT_RELID			1
#define ANUM_PROT_KEY_ATTNUM	3
#define ANUM_PROT_SENS_ATTNUMS	5
#define ANUM_PROT_K				6
#define ANUM_PROT_KEY_ATTNUMS	8

static HTAB *protection_cache = NULL;	/* relid -> TapasProtection */
static int	nprotected = 0;		/* entries of protected tables themselves */
static MemoryContext protection_cxt = NULL; /* owns the cache; rebuilt on inval */
static bool cache_valid = false;
static Oid	catalog_relid = InvalidOid; /* tapas.protection, once seen */
/* tapas._cover(int4, float8, int4) and tapas._cover(int8, float8, int4) */
static Oid	cover_oid[2] = {InvalidOid, InvalidOid};

static void protection_inval(Datum arg, Oid relid);
static void protection_load(void);
static Oid	protection_catalog_oid(void);

/* ----------------------------------------------------------------
 *		Cache
 * ----------------------------------------------------------------
 */

static void
protection_inval(Datum arg, Oid relid)
{
	if (!cache_valid)
		return;
	if (relid == InvalidOid || relid == catalog_relid ||
		hash_search(protection_cache, &relid, HASH_FIND, NULL) != NULL)
	{
		cache_valid = false;
		catalog_relid = InvalidOid;
		cover_oid[0] = cover_oid[1] = InvalidOid;
		tapas_key_forget_oids();
	}
}

void
tapas_protection_install(void)
{
	CacheRegisterRelcacheCallback(protection_inval, (Datum) 0);
}

/* OID of tapas.protection, or InvalidOid when the extension is not created */
static Oid
protection_catalog_oid(void)
{
	Oid			nsp = get_namespace_oid("tapas", true);

	if (!OidIsValid(nsp))
		return InvalidOid;
	return get_relname_relid("protection", nsp);
}

/*
 * The key columns of catalog row tup (key_attnums, or key_attnum for a
 * row of 0.2) and their types.  A dropped key column, or a hashed key
 * without its registry trigger (a key column retyped from an integer),
 * leaves the table unreadable (broken).
 */
static void
protection_keys(TapasProtection *p, HeapTuple tup, TupleDesc desc)
{
	bool		isnull = true;
	Datum		d = (Datum) 0;

	p->nkeys = 1;
	p->key_attnos[0] = p->key_attno;
	if (desc->natts >= ANUM_PROT_KEY_ATTNUMS)
		d = heap_getattr(tup, ANUM_PROT_KEY_ATTNUMS, desc, &isnull);
	if (!isnull)
	{
		Datum	   *elems;
		int			n;

		deconstruct_array(DatumGetArrayTypeP(d), INT2OID, 2, true, TYPALIGN_SHORT, &elems, NULL, &n);
		if (n >= 1 && n <= TAPAS_MAX_KEY_COLUMNS)
		{
			p->nkeys = n;
			for (int i = 0; i < n; i++)
				p->key_attnos[i] = DatumGetInt16(elems[i]);
		}
	}
	p->broken = false;
	for (int i = 0; i < p->nkeys; i++)
	{
		HeapTuple	atup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(p->relid),
										   Int16GetDatum(p->key_attnos[i]));

		p->key_types[i] = InvalidOid;
		if (HeapTupleIsValid(atup))
		{
			Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(atup);

			if (!att->attisdropped)
			{
				p->key_types[i] = att->atttypid;
				get_typlenbyval(att->atttypid, &p->key_typlen[i], &p->key_typbyval[i]);
			}
			ReleaseSysCache(atup);
		}
		if (!OidIsValid(p->key_types[i]))
			p->broken = true;
	}
	p->key_attno = p->key_attnos[0];
	p->key_type = p->key_types[0];
	p->key_hashed = tapas_key_is_hashed(p);
	if (p->key_hashed && !p->broken && !tapas_key_has_trigger(p->relid))
		p->broken = true;
}

/* one catalog row -> cache entry; skips tables that no longer exist */
static void
protection_add(HeapTuple tup, TupleDesc desc)
{
	bool		isnull;
	Oid			relid;
	TapasProtection *p;
	ArrayType  *arr;
	Datum	   *elems;
	int			nelems;

	relid = DatumGetObjectId(heap_getattr(tup, ANUM_PROT_RELID, desc, &isnull));
	if (isnull || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		return;
	p = hash_search(protection_cache, &relid, HASH_ENTER, NULL);
	p->relid = relid;
	p->partition = p->remapped = false;
	nprotected++;
	p->key_attno = DatumGetInt16(heap_getattr(tup, ANUM_PROT_KEY_ATTNUM, desc, &isnull));
	p->k = DatumGetInt32(heap_getattr(tup, ANUM_PROT_K, desc, &isnull));
	p->sensitive = NULL;
	arr = DatumGetArrayTypeP(heap_getattr(tup, ANUM_PROT_SENS_ATTNUMS, desc, &isnull));
	deconstruct_array(arr, INT2OID, 2, true, TYPALIGN_SHORT, &elems, NULL, &nelems);
	for (int i = 0; i < nelems; i++)
		p->sensitive = bms_add_member(p->sensitive, DatumGetInt16(elems[i]));

	protection_keys(p, tup, desc);
}

static void
protection_load(void)
{
	HASHCTL		ctl;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	MemoryContext old;

	if (protection_cxt == NULL)
		protection_cxt = AllocSetContextCreate(CacheMemoryContext,
											   "tapas protection cache",
											   ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(protection_cxt);
	protection_cache = NULL;
	nprotected = 0;

	/* the cache lives until the next invalidation of a protected table */
	old = MemoryContextSwitchTo(protection_cxt);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(TapasProtection);
	ctl.hcxt = protection_cxt;
	protection_cache = hash_create("tapas protections", 16, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	catalog_relid = protection_catalog_oid();
	if (OidIsValid(catalog_relid))
	{
		rel = table_open(catalog_relid, AccessShareLock);
		scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
			protection_add(tup, RelationGetDescr(rel));
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	MemoryContextSwitchTo(old);

	/* without the extension, look again next time (it may be created) */
	cache_valid = OidIsValid(catalog_relid);
}

/* the protected table's own entry for relid, or NULL */
static TapasProtection *
protection_own(Oid relid)
{
	TapasProtection *p = hash_search(protection_cache, &relid, HASH_FIND, NULL);

	return p != NULL && p->relid == relid && !p->partition ? p : NULL;
}

/*
 * Adds the entry of partition relid: its protected ancestor's, with the
 * partition's attribute numbers (partitions.c), or "not protected"
 * (relid InvalidOid).  Ancestors are read before the entry is made, as
 * reading them may process invalidations (which only mark the cache).
 */
static TapasProtection *
protection_add_partition(Oid relid)
{
	List	   *ancestors = get_partition_ancestors(relid);
	const TapasProtection *root = NULL;
	TapasProtection *p;
	TapasProtection derived;
	ListCell   *lc;
	MemoryContext old;

	foreach(lc, ancestors)
	{
		if ((root = protection_own(lfirst_oid(lc))) != NULL)
			break;
	}
	memset(&derived, 0, sizeof(derived));
	old = MemoryContextSwitchTo(protection_cxt);
	if (root != NULL)
		tapas_partition_derive(root, relid, &derived);
	p = hash_search(protection_cache, &relid, HASH_ENTER, NULL);
	derived.lookup_relid = relid;
	*p = derived;
	MemoryContextSwitchTo(old);
	list_free(ancestors);
	return p;
}

/*
 * The protection of relid, or NULL when it is not protected.  A partition
 * (at any depth) of a protected partitioned table is protected as that
 * table: the entry's relid is the protected table's.
 */
const TapasProtection *
tapas_protection_lookup(Oid relid)
{
	TapasProtection *p;

	if (!IsTransactionState())
		return NULL;
	if (!cache_valid)
		protection_load();
	p = hash_search(protection_cache, &relid, HASH_FIND, NULL);
	if (p == NULL)
	{
		if (!OidIsValid(relid) || !get_rel_relispartition(relid))
			return NULL;
		p = protection_add_partition(relid);
	}
	return OidIsValid(p->relid) ? p : NULL;
}

/* true when at least one table is protected (fast exit for the hooks) */
bool
tapas_protection_any(void)
{
	if (!IsTransactionState())
		return false;
	if (!cache_valid)
		protection_load();
	return nprotected > 0;
}

/*
 * OID of the capture aggregate for a key of type keytype: int8 keys use
 * tapas._cover(int8, float8, int4), int2 and int4 keys tapas._cover(int4,
 * float8, int4), which saves a cast per covered row.  Raises (so audited
 * reads fail closed) if the extension's objects are missing or are those
 * of an older version.
 */
Oid
tapas_cover_aggregate_oid(Oid keytype)
{
	int			wide = keytype == INT8OID;
	Oid			argtypes[3] = {wide ? INT8OID : INT4OID, FLOAT8OID, INT4OID};

	if (!OidIsValid(cover_oid[wide]))
		cover_oid[wide] = LookupFuncName(list_make2(makeString("tapas"), makeString("_cover")),
										 3, argtypes, true);
	if (!OidIsValid(cover_oid[wide]))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the tapas extension of this database does not match its library"),
				 errdetail("Its capture aggregate tapas._cover(key, float8, int4) is missing."),
				 errhint("Run ALTER EXTENSION tapas UPDATE.")));
	return cover_oid[wide];
}

/* whether fnoid is one of the capture aggregates */
bool
tapas_is_cover_aggregate(Oid fnoid)
{
	return fnoid == tapas_cover_aggregate_oid(INT8OID) ||
		fnoid == tapas_cover_aggregate_oid(INT4OID);
}

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
	Oid			cat = protection_catalog_oid();

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
	if (get_attnum(protection_catalog_oid(), "key_attnums") == InvalidAttrNumber)
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
