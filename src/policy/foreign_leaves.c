/*-------------------------------------------------------------------------
 *
 * foreign_leaves.c
 *	  Foreign partitions (postgres_fdw, or any FDW) of a protected
 *	  partitioned table: the structure that keeps record keys unique, the
 *	  read of their rows by a query tapas writes, and a digest of their
 *	  content that stands in for the change counters a remote server does
 *	  not report here.
 *
 * The capture is exact wherever the Agg runs on this server over the rows
 * a ForeignScan returns: the rows carry their keys like any scan's, and
 * the normal form keeps every sensitive condition in the Agg's FILTERs,
 * so a remote server only evaluates conditions on non-sensitive columns.
 * A plan that pushes an aggregate or a join of a protected leaf to the
 * remote server (postgres_fdw's upper-relation and join pushdown, a
 * ForeignScan with scanrelid 0) is refused (capture/plan_verify.c).
 *
 * The record key must be unique over every leaf, and PostgreSQL cannot
 * build the unique index that proves it for a table with foreign
 * partitions.  So, instead:
 *	- every level's partition key is made of key columns (a partition
 *	  bound then separates the keys of two leaves);
 *	- every local leaf has a unique index on exactly the key columns;
 *	- the key is one integer column (other keys are hashed, and the key
 *	  registry that refuses hash collisions sees local writes only);
 *	- every foreign leaf is checked by a query each time its digest is
 *	  taken (at protect, and once per audited statement that reads the
 *	  table's truth): its keys are distinct and inside its partition bound,
 *	  which a remote server does not enforce.
 * A failure of any of these is an error: the statement fails closed.
 *
 * Both queries run as the protected table's owner (its user mapping
 * connects to the remote server), with tapas_internal_read raised so that
 * tapas's own hooks let that one read through, and only around the SPI
 * calls, so an error cannot leave the session unaudited.  The query text
 * is built by tapas from catalog names (quote_identifier), never from
 * analyst input.
 *
 * IDENTIFICATION
 *	  src/policy/foreign_leaves.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "partitioning/partdesc.h"
#include "utils/builtins.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "parser/parse_coerce.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "policy/policy.h"

/* rows fetched from a foreign leaf per SPI call */
#define FOREIGN_FETCH	1000

/* ----------------------------------------------------------------
 *		Structure
 * ----------------------------------------------------------------
 */

/* whether attno (of rel) is one of the protection's key columns of root */
static bool
is_key_column(Oid root, const TapasProtection *p, Relation rel, AttrNumber attno)
{
	char	   *name = get_attname(RelationGetRelid(rel), attno, false);

	for (int i = 0; i < p->nkeys; i++)
	{
		char	   *key = get_attname(root, p->key_attnos[i], false);

		if (strcmp(name, key) == 0)
			return true;
	}
	return false;
}

/* the leaf's attribute numbers of root's key columns */
static void
leaf_key_attnos(Oid root, const TapasProtection *p, Oid leaf, AttrNumber *out)
{
	for (int i = 0; i < p->nkeys; i++)
		out[i] = get_attnum(leaf, get_attname(root, p->key_attnos[i], false));
}

static void
check_partition_key(Oid root, const TapasProtection *p, Relation rel)
{
	PartitionKey key = RelationGetPartitionKey(rel);

	for (int i = 0; i < key->partnatts; i++)
		if (key->partattrs[i] == 0 || !is_key_column(root, p, rel, key->partattrs[i]))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("protected table \"%s\" has foreign partitions, so \"%s\" must be partitioned by key columns only",
							get_rel_name(root), RelationGetRelationName(rel)),
					 errdetail("A foreign partition cannot have a unique index here; tapas proves the key unique across partitions from their bounds instead.")));
}

static void
check_local_leaf(Oid root, const TapasProtection *p, Relation leaf)
{
	AttrNumber	attnos[TAPAS_MAX_KEY_COLUMNS];

	leaf_key_attnos(root, p, RelationGetRelid(leaf), attnos);
	if (!tapas_columns_are_unique(leaf, attnos, p->nkeys))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("partition \"%s\" of protected table \"%s\" has no unique index on its key",
						RelationGetRelationName(leaf), get_rel_name(root)),
				 errdetail("A table with foreign partitions has no unique index of its own, so each local partition needs one."),
				 errhint("Add a PRIMARY KEY or UNIQUE constraint on the key columns of \"%s\".",
						 RelationGetRelationName(leaf))));
}

/*
 * Whether the partitioned table root has a foreign leaf; if so, checks
 * the structure that keeps p's key unique (raises when it does not hold).
 * Catalog reads only: the remote content is checked by the digest.
 */
bool
tapas_foreign_check_structure(Oid root, const TapasProtection *p)
{
	List	   *members = find_all_inheritors(root, AccessShareLock, NULL);
	ListCell   *lc;
	bool		foreign = false;

	foreach(lc, members)
		foreign |= get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE;
	if (foreign && p->key_hashed)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("protected table \"%s\" has foreign partitions, so its key must be one integer column",
						get_rel_name(root)),
				 errdetail("Other keys are named by a hash whose collisions the key registry refuses on local writes; rows written on a remote server never reach it.")));
	if (foreign)
	{
		foreach(lc, members)
		{
			Relation	rel = table_open(lfirst_oid(lc), AccessShareLock);

			if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
				check_partition_key(root, p, rel);
			else if (rel->rd_rel->relkind == RELKIND_RELATION)
				check_local_leaf(root, p, rel);
			table_close(rel, AccessShareLock);
		}
	}
	list_free(members);
	return foreign;
}

/* ----------------------------------------------------------------
 *		Queries as the owner, through tapas's own hooks
 * ----------------------------------------------------------------
 */

/* SQL for one live column of root (attribute att, number i + 1) */
typedef void (*ColumnSql) (StringInfo buf, Form_pg_attribute att, int i);

/* fn of every live column of root, in order, separated by sep */
static char *
live_columns(Relation root, const char *sep, ColumnSql fn)
{
	TupleDesc	desc = RelationGetDescr(root);
	StringInfoData buf;
	bool		first = true;

	initStringInfo(&buf);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (!first)
			appendStringInfoString(&buf, sep);
		fn(&buf, att, i);
		first = false;
	}
	return buf.data;
}

static void
column_name(StringInfo buf, Form_pg_attribute att, int i)
{
	appendStringInfoString(buf, quote_identifier(NameStr(att->attname)));
}

/* "a, b, c": root's live columns, in order */
static char *
column_list(Relation root)
{
	return live_columns(root, ", ", column_name);
}

static char *
leaf_name(Oid leaf)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(leaf)), get_rel_name(leaf));
}

/*
 * Every name in the queries below resolves in pg_catalog: the session's
 * search_path is the analyst's, and a function or operator of the
 * analyst's schema found first would run as the owner while tapas's
 * hooks stand aside.  The deparsed partition bound is written under the
 * same path, so it names its operators as they will be resolved.
 */
static int
catalog_path_begin(void)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return level;
}

static void
catalog_path_end(int level)
{
	AtEOXact_GUC(true, level);
}

typedef enum SpiCall
{
	SPI_CALL_EXECUTE,
	SPI_CALL_OPEN,
	SPI_CALL_FETCH
} SpiCall;

/*
 * One SPI call as root's owner with tapas's hooks standing aside; the
 * user and tapas_internal_read are restored on every exit.
 */
static Portal
as_owner(Oid root, SpiCall call, const char *sql, Portal portal)
{
	Oid			saved_user;
	int			saved_sec;
	Oid			owner;
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(root));

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", root);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	GetUserIdAndSecContext(&saved_user, &saved_sec);
	SetUserIdAndSecContext(owner, saved_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	tapas_internal_read++;
	PG_TRY();
	{
		if (call == SPI_CALL_EXECUTE)
		{
			if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
				elog(ERROR, "tapas: query on a foreign partition failed: %s", sql);
		}
		else if (call == SPI_CALL_OPEN)
			portal = SPI_cursor_open_with_args(NULL, sql, 0, NULL, NULL, NULL, true, 0);
		else
			SPI_cursor_fetch(portal, true, FOREIGN_FETCH);
	}
	PG_FINALLY();
	{
		tapas_internal_read--;
		SetUserIdAndSecContext(saved_user, saved_sec);
	}
	PG_END_TRY();
	return portal;
}

/* ----------------------------------------------------------------
 *		The digest: a change stamp, and the key checks
 * ----------------------------------------------------------------
 */

/* the leaf's partition bound (with its ancestors') as SQL over its columns */
static char *
bound_text(Oid leaf)
{
	Expr	   *qual = get_partition_qual_relid(leaf);

	if (qual == NULL)
		return pstrdup("true");
	return deparse_expression((Node *) qual, deparse_context_for(get_rel_name(leaf), leaf), false, false);
}

static char *
key_list(Oid root, const TapasProtection *p)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < p->nkeys; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(get_attname(root, p->key_attnos[i], false)));
	return buf.data;
}

/* the first argument type of a built-in extended hash function, or InvalidOid */
static Oid
hash_argument(Oid proc)
{
	Oid		   *argtypes;
	int			nargs;

	if (!OidIsValid(proc) || proc >= FirstGenbkiObjectId)
		return InvalidOid;
	(void) get_func_signature(proc, &argtypes, &nargs);
	return nargs == 2 ? argtypes[0] : InvalidOid;
}

/*
 * A 64-bit hash of a row, as SQL: the columns' own extended hash
 * functions (their types' default hash opclass) with one seed per column,
 * XORed, NULL as the column's seed; two constants for a boolean; text of
 * the column for a type without one.  Built-in hash functions are
 * shippable, so postgres_fdw can run the whole digest remotely as one
 * aggregate.
 */
static void
column_hash(StringInfo buf, Form_pg_attribute att, int i)
{
	const char *col = quote_identifier(NameStr(att->attname));
	TypeCacheEntry *tc = lookup_type_cache(att->atttypid, TYPECACHE_HASH_EXTENDED_PROC);
	Oid			arg;

	/* CASE, not coalesce: postgres_fdw ships CASE */
	appendStringInfo(buf, "CASE WHEN %s IS NULL THEN %d ELSE ", col, i + 1);
	if (att->atttypid == BOOLOID)	/* its hash takes "char", no cast */
		appendStringInfo(buf, "CASE WHEN %s THEN %d ELSE %d END", col, 2 * i + 3, 2 * i + 5);
	else if ((arg = hash_argument(tc->hash_extended_proc)) != InvalidOid &&
			 can_coerce_type(1, &att->atttypid, &arg, COERCION_IMPLICIT))
		appendStringInfo(buf, "%s(%s::%s, %d)",
						 quote_qualified_identifier("pg_catalog", get_func_name(tc->hash_extended_proc)),
						 col, format_type_be_qualified(arg), i + 1);
	else
		appendStringInfo(buf, "hashtextextended(%s::text, %d)", col, i + 1);
	appendStringInfoString(buf, " END");
}

static char *
row_hash(Relation root)
{
	return live_columns(root, " # ", column_hash);
}

static int64
int8_at(int col, bool *isnull)
{
	Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, isnull);

	return *isnull ? 0 : DatumGetInt64(d);
}

/*
 * The content stamp of foreign leaf `leaf` of protected table root (63
 * bits): its row count and the sum of a 64-bit hash of every row's text.
 * Raises unique_violation when its keys are not distinct or a row lies
 * outside its partition bound.  One query, which postgres_fdw can run
 * remotely as one aggregate.
 */
int64
tapas_foreign_leaf_stamp(Oid root, const TapasProtection *p, Oid leaf)
{
	int			level = catalog_path_begin();
	Relation	rel = table_open(root, AccessShareLock);
	char	   *keys = key_list(root, p);
	char	   *sql = psprintf("SELECT count(*)::int8, count(DISTINCT (%s))::int8, "
						   "(sum(%s) %% 9223372036854775807)::int8, "
						   "sum(CASE WHEN %s THEN 0 ELSE 1 END)::int8 FROM ONLY %s",
						   keys, row_hash(rel), bound_text(leaf), leaf_name(leaf));
	bool		isnull;
	int64		rows,
				distinct,
				hash,
				outside;
	MemoryContext caller = CurrentMemoryContext;
	bool		pushed = false;

	table_close(rel, AccessShareLock);
	SPI_connect();
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed = true;
	}
	as_owner(root, SPI_CALL_EXECUTE, sql, NULL);
	rows = int8_at(1, &isnull);
	distinct = int8_at(2, &isnull);
	hash = int8_at(3, &isnull);
	outside = int8_at(4, &isnull);
	if (pushed)
		PopActiveSnapshot();
	SPI_finish();
	MemoryContextSwitchTo(caller);
	catalog_path_end(level);
	if (distinct != rows)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("foreign partition \"%s\" of protected table \"%s\" holds %lld rows with only %lld distinct keys",
						get_rel_name(leaf), get_rel_name(root), (long long) rows, (long long) distinct),
				 errdetail("tapas needs the key to name one row; the remote server does not enforce it.")));
	if (outside != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("foreign partition \"%s\" of protected table \"%s\" holds %lld rows outside its partition bound",
						get_rel_name(leaf), get_rel_name(root), (long long) outside),
				 errdetail("Their keys could repeat keys of another partition; the remote server does not enforce the bound.")));
	return (int64) (((uint64) rows * UINT64CONST(0x9E3779B97F4A7C15) + (uint64) hash) &
					~(UINT64CONST(1) << 63));
}

/* ----------------------------------------------------------------
 *		Reading a foreign leaf's rows
 * ----------------------------------------------------------------
 */

struct TapasForeignRead
{
	Oid			root;
	Relation	rootrel;
	Portal		portal;
	SPITupleTable *rows;		/* the last fetch, or NULL */
	uint64		nrows;
	uint64		next;			/* row of rows to return next */
	bool		done;
	Datum	   *values;			/* one fetched row, in the query's columns */
	bool	   *nulls;
	MemoryContext cxt;			/* the caller's */
};

/* Starts reading every row of foreign leaf `leaf` of root (open, locked). */
TapasForeignRead *
tapas_foreign_read_begin(Relation root, Oid leaf)
{
	TapasForeignRead *r = palloc0(sizeof(TapasForeignRead));
	char	   *sql = psprintf("SELECT %s FROM ONLY %s", column_list(root), leaf_name(leaf));
	bool		pushed = !ActiveSnapshotSet();
	int			level;

	r->root = RelationGetRelid(root);
	r->rootrel = root;
	r->cxt = CurrentMemoryContext;
	r->values = palloc(sizeof(Datum) * RelationGetDescr(root)->natts);
	r->nulls = palloc(sizeof(bool) * RelationGetDescr(root)->natts);
	SPI_connect();
	MemoryContextSwitchTo(r->cxt);
	if (pushed)
		PushActiveSnapshot(GetTransactionSnapshot());
	level = catalog_path_begin();
	r->portal = as_owner(r->root, SPI_CALL_OPEN, sql, NULL);
	catalog_path_end(level);
	if (pushed)
		PopActiveSnapshot();	/* the cursor registered its own */
	return r;
}

/*
 * The next row stored into rootslot (a virtual slot of root's
 * descriptor), or false at the end.  The slot's values live until the
 * next call.
 */
bool
tapas_foreign_read_next(TapasForeignRead *r, TupleTableSlot *rootslot)
{
	TupleDesc	desc = RelationGetDescr(r->rootrel);
	int			col = 0;

	if (r->done)
		return false;
	if (r->rows == NULL || r->next >= r->nrows)
	{
		if (r->rows != NULL)
			SPI_freetuptable(r->rows);
		as_owner(r->root, SPI_CALL_FETCH, NULL, r->portal);
		MemoryContextSwitchTo(r->cxt);
		r->rows = SPI_tuptable;
		r->nrows = SPI_processed;
		r->next = 0;
		if (r->nrows == 0)
		{
			r->done = true;
			return false;
		}
		CHECK_FOR_INTERRUPTS();
	}
	heap_deform_tuple(r->rows->vals[r->next++], r->rows->tupdesc, r->values, r->nulls);
	ExecClearTuple(rootslot);
	for (int i = 0; i < desc->natts; i++)
	{
		if (TupleDescAttr(desc, i)->attisdropped)
		{
			rootslot->tts_values[i] = (Datum) 0;
			rootslot->tts_isnull[i] = true;
			continue;
		}
		rootslot->tts_values[i] = r->values[col];
		rootslot->tts_isnull[i] = r->nulls[col];
		col++;
	}
	ExecStoreVirtualTuple(rootslot);
	return true;
}

void
tapas_foreign_read_end(TapasForeignRead *r)
{
	if (r->rows != NULL)
		SPI_freetuptable(r->rows);
	SPI_cursor_close(r->portal);
	SPI_finish();
	MemoryContextSwitchTo(r->cxt);
	pfree(r->values);
	pfree(r->nulls);
	pfree(r);
}
