/*-------------------------------------------------------------------------
 *
 * protection_cache.c
 *	  The per-backend cache of the protection catalog (tapas.protection),
 *	  and the OIDs of the capture aggregates.
 *
 * Cache: a hash table relid -> TapasProtection in a child of
 * CacheMemoryContext (partitions are added when first looked up, as their
 * protected ancestor's entry, or as a "not protected" entry), loaded on first use in a transaction by a plain heap
 * scan of the catalog (no SPI: the planner hook calls us, and SPI would
 * recurse into it).  protect() and unprotect() send a relcache
 * invalidation for the table and for the catalog itself; the relcache
 * callback drops the whole cache when it hears about either, about any
 * protected table (DROP, ALTER) or about everything (InvalidOid); the
 * dropped cache stays readable until the end of the transaction, since
 * entries handed out earlier in it may still be in use.  A
 * dropped table's catalog row is deleted by the sql_drop event trigger;
 * an entry whose table no longer exists is skipped when loading anyway.
 *
 * IDENTIFICATION
 *	  src/policy/protection_cache.c
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
Oid
tapas_protection_catalog_oid(void)
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

	/*
	 * The old cache is retired, not reset: a caller of this transaction may
	 * still hold an entry of it (normalise.c keeps the level's protection
	 * while it looks up other tables, and any catalog access in between may
	 * process an invalidation, a whole reset under load).  It lives on
	 * under TopTransactionContext and is freed with the transaction.
	 */
	if (protection_cxt != NULL)
		MemoryContextSetParent(protection_cxt, TopTransactionContext);
	protection_cxt = AllocSetContextCreate(CacheMemoryContext,
										   "tapas protection cache",
										   ALLOCSET_SMALL_SIZES);
	protection_cache = NULL;
	nprotected = 0;

	/* the cache lives until the next invalidation of a protected table */
	old = MemoryContextSwitchTo(protection_cxt);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(TapasProtection);
	ctl.hcxt = protection_cxt;
	protection_cache = hash_create("tapas protections", 16, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	catalog_relid = tapas_protection_catalog_oid();
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
 * tapas._cover(int8, int4, VARIADIC "any"), int2 and int4 keys
 * tapas._cover(int4, int4, VARIADIC "any"), which saves a cast per covered
 * row.  Raises (so audited
 * reads fail closed) if the extension's objects are missing or are those
 * of an older version.
 */
Oid
tapas_cover_aggregate_oid(Oid keytype)
{
	int			wide = keytype == INT8OID;
	Oid			argtypes[3] = {wide ? INT8OID : INT4OID, INT4OID, ANYOID};

	if (!OidIsValid(cover_oid[wide]))
		cover_oid[wide] = LookupFuncName(list_make2(makeString("tapas"), makeString("_cover")),
										 3, argtypes, true);
	if (!OidIsValid(cover_oid[wide]))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the tapas extension of this database does not match its library"),
				 errdetail("Its capture aggregate tapas._cover(key, int4, VARIADIC \"any\") is missing."),
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
