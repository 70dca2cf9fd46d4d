/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  Record identity for keys that are not one integer column: uuid,
 *	  text and other types, and composite keys of several columns.
 *
 * The ledger, the capture aggregate and the auditor name a record by an
 * int64.  An int2/int4/int8 key is its own int64.  Any other key (one
 * column of another type, or several columns) is named by a 64-bit hash
 * of its binary form (tapas_key_hash): per column, the bytes of the value
 * (the Datum of a pass-by-value type, the fixed-length bytes of uuid, the
 * detoasted payload of a varlena), each hashed with PostgreSQL's
 * hash_bytes_extended (Jenkins' lookup3, 64-bit) seeded by the previous
 * columns' hash, so that ('ab', 'c') and ('a', 'bc') differ.  The hash is
 * a pure function of the key's value: stable across backends, restarts,
 * dumps and partitions, with no per-row lookup in the capture.
 *
 * A hash may collide, and a collision must never merge two records
 * silently: the registry tapas.key_registry maps (table, hash) to the
 * key's text form (tapas_key_text, record_out's quoting for several
 * columns) under a primary key, so
 *	- tapas.protect() registers every present key and refuses the table
 *	  when two of them share a hash;
 *	- an AFTER INSERT OR UPDATE row trigger (tapas._key_register, cloned
 *	  by PostgreSQL to every partition, present and future) registers
 *	  each written key and raises when its hash is registered for another
 *	  key, so the write fails instead of merging two records.
 * For n keys the chance of any collision is about n^2 / 2^65 (3e-6 at
 * n = 10^7).  Audited roles cannot write protected tables, so only a
 * trusted writer could ever meet a collision (and be refused).  The
 * registry also names records in their own type in alerts
 * (tapas.key_text(tbl, record_key)).
 *
 * IDENTIFICATION
 *	  src/policy/keys.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_key_id);
PG_FUNCTION_INFO_V1(tapas_sql_key_text_of);
PG_FUNCTION_INFO_V1(tapas_sql_key_register);
PG_FUNCTION_INFO_V1(tapas_sql_key_text);

#define KEY_HASH_SEED	UINT64CONST(0x74617061735f6b79)	/* "tapas_ky" */

static Oid	key_id_oid = InvalidOid;	/* tapas._key_id(VARIADIC "any") */

/* ----------------------------------------------------------------
 *		The hash and the text form
 * ----------------------------------------------------------------
 */

/* whether a protection's records are named by the hash of their key */
bool
tapas_key_is_hashed(const TapasProtection *p)
{
	Oid			t = p->key_type;

	return p->nkeys > 1 || !(t == INT2OID || t == INT4OID || t == INT8OID);
}

/* hash of one non-null value of a type with the given length and byval */
static uint64
value_hash(Datum d, int16 typlen, bool typbyval, uint64 seed)
{
	if (typbyval)
	{
		char		buf[sizeof(Datum)];

		store_att_byval(buf, d, typlen);
		return hash_bytes_extended((unsigned char *) buf, typlen, seed);
	}
	if (typlen > 0)
		return hash_bytes_extended((unsigned char *) DatumGetPointer(d), typlen, seed);
	if (typlen == -1)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
		uint64		h = hash_bytes_extended((unsigned char *) VARDATA_ANY(v),
											VARSIZE_ANY_EXHDR(v), seed);

		if ((Pointer) v != DatumGetPointer(d))
			pfree(v);
		return h;
	}
	return hash_bytes_extended((unsigned char *) DatumGetCString(d),
							   strlen(DatumGetCString(d)), seed);
}

/*
 * The record identity of a key of n columns: the hash of their binary
 * forms, column by column (file header).  A null column is hashed as a
 * marker (keys are NOT NULL; only an outer join's null-extended row has
 * one, and callers skip those).
 */
int64
tapas_key_hash(int n, const Datum *values, const bool *isnull,
			   const int16 *typlen, const bool *typbyval)
{
	uint64		h = KEY_HASH_SEED;

	for (int i = 0; i < n; i++)
		h = isnull[i] ? hash_bytes_uint32_extended(0x6e756c6c, h) + (uint64) i :
			value_hash(values[i], typlen[i], typbyval[i], h + (uint64) i);
	return (int64) h;
}

/* appends one column's text as record_out quotes it */
static void
append_quoted(StringInfo buf, const char *s)
{
	bool		quote = s[0] == '\0';

	for (const char *c = s; *c && !quote; c++)
		quote = *c == '"' || *c == '\\' || *c == '(' || *c == ')' || *c == ',' ||
			isspace((unsigned char) *c);
	if (!quote)
	{
		appendStringInfoString(buf, s);
		return;
	}
	appendStringInfoChar(buf, '"');
	for (const char *c = s; *c; c++)
	{
		if (*c == '"' || *c == '\\')
			appendStringInfoChar(buf, *c);
		appendStringInfoChar(buf, *c);
	}
	appendStringInfoChar(buf, '"');
}

/*
 * The key's text form: the output of its one column, or for several
 * columns the text of ROW(...) (record_out's format).
 */
char *
tapas_key_text_of(int n, const Datum *values, const bool *isnull, const Oid *types)
{
	StringInfoData buf;

	if (n == 1)
	{
		Oid			out;
		bool		varlena;

		if (isnull[0])
			return NULL;
		getTypeOutputInfo(types[0], &out, &varlena);
		return OidOutputFunctionCall(out, values[0]);
	}
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	for (int i = 0; i < n; i++)
	{
		Oid			out;
		bool		varlena;

		if (i > 0)
			appendStringInfoChar(&buf, ',');
		if (isnull[i])
			continue;
		getTypeOutputInfo(types[i], &out, &varlena);
		append_quoted(&buf, OidOutputFunctionCall(out, values[i]));
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/* ----------------------------------------------------------------
 *		SQL: tapas._key_id, tapas._key_text
 * ----------------------------------------------------------------
 */

typedef struct KeyArgs
{
	int			n;
	Oid			types[TAPAS_MAX_KEY_COLUMNS];
	int16		typlen[TAPAS_MAX_KEY_COLUMNS];
	bool		typbyval[TAPAS_MAX_KEY_COLUMNS];
} KeyArgs;

/* the argument types of a VARIADIC "any" call, cached in fn_extra */
static KeyArgs *
key_args(FunctionCallInfo fcinfo)
{
	KeyArgs    *ka = fcinfo->flinfo->fn_extra;

	if (ka != NULL)
		return ka;
	if (PG_NARGS() < 1 || PG_NARGS() > TAPAS_MAX_KEY_COLUMNS || get_fn_expr_variadic(fcinfo->flinfo))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key has 1 to %d columns, passed as separate arguments", TAPAS_MAX_KEY_COLUMNS)));
	ka = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(KeyArgs));
	ka->n = PG_NARGS();
	for (int i = 0; i < ka->n; i++)
	{
		ka->types[i] = get_fn_expr_argtype(fcinfo->flinfo, i);
		if (!OidIsValid(ka->types[i]))
			elog(ERROR, "tapas._key_id: argument %d has no type", i + 1);
		get_typlenbyval(ka->types[i], &ka->typlen[i], &ka->typbyval[i]);
	}
	fcinfo->flinfo->fn_extra = ka;
	return ka;
}

/*
 * tapas._key_id(VARIADIC "any") returns int8: the record identity of a
 * key (its columns as arguments); NULL when a column is NULL.
 */
Datum
tapas_sql_key_id(PG_FUNCTION_ARGS)
{
	KeyArgs    *ka = key_args(fcinfo);
	Datum		values[TAPAS_MAX_KEY_COLUMNS];
	bool		nulls[TAPAS_MAX_KEY_COLUMNS];

	for (int i = 0; i < ka->n; i++)
	{
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
		values[i] = PG_GETARG_DATUM(i);
		nulls[i] = false;
	}
	PG_RETURN_INT64(tapas_key_hash(ka->n, values, nulls, ka->typlen, ka->typbyval));
}

/* tapas._key_text(VARIADIC "any") returns text: the key's text form */
Datum
tapas_sql_key_text_of(PG_FUNCTION_ARGS)
{
	KeyArgs    *ka = key_args(fcinfo);
	Datum		values[TAPAS_MAX_KEY_COLUMNS];
	bool		nulls[TAPAS_MAX_KEY_COLUMNS];
	char	   *s;

	for (int i = 0; i < ka->n; i++)
	{
		nulls[i] = PG_ARGISNULL(i);
		values[i] = nulls[i] ? (Datum) 0 : PG_GETARG_DATUM(i);
	}
	s = tapas_key_text_of(ka->n, values, nulls, ka->types);
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(s));
}

/* OID of tapas._key_id(VARIADIC "any"); raises if the extension lacks it */
Oid
tapas_key_id_oid(void)
{
	Oid			argtypes[1] = {ANYOID};

	if (!OidIsValid(key_id_oid))
		key_id_oid = LookupFuncName(list_make2(makeString("tapas"), makeString("_key_id")),
									1, argtypes, true);
	if (!OidIsValid(key_id_oid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the tapas extension of this database does not match its library"),
				 errdetail("Its key function tapas._key_id is missing."),
				 errhint("Run ALTER EXTENSION tapas UPDATE.")));
	return key_id_oid;
}

/* forgets cached OIDs (the extension may have been dropped and created) */
void
tapas_key_forget_oids(void)
{
	key_id_oid = InvalidOid;
}

/* ----------------------------------------------------------------
 *		The registry
 * ----------------------------------------------------------------
 */

static SPIPlanPtr insert_plan = NULL;	/* kept: INSERT ... ON CONFLICT DO NOTHING */
static SPIPlanPtr select_plan = NULL;	/* kept: the key_text of (relid, hash) */

/* a kept plan of sql over ($1 oid, $2 int8[, $3 text]) */
static SPIPlanPtr
kept_plan(SPIPlanPtr *plan, const char *sql, int nargs)
{
	Oid			argtypes[3] = {OIDOID, INT8OID, TEXTOID};

	if (*plan == NULL)
	{
		SPIPlanPtr	p = SPI_prepare(sql, nargs, argtypes);

		if (p == NULL || SPI_keepplan(p) != 0)
			elog(ERROR, "tapas: could not prepare a key registry statement");
		*plan = p;
	}
	return *plan;
}

/*
 * Registers key text s under (relid, hash) in tapas.key_registry, within
 * the caller's SPI connection; raises when the hash is registered for
 * another key.  The trigger calls it once per written row, so its two
 * statements are planned once per backend.
 */
static void
registry_add(Oid relid, int64 hash, const char *s)
{
	Datum		values[3];
	bool		isnull;
	char	   *have;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int64GetDatum(hash);
	values[2] = CStringGetTextDatum(s);
	if (SPI_execute_plan(kept_plan(&insert_plan,
								   "INSERT INTO tapas.key_registry (relid, key_hash, key_text) "
								   "VALUES ($1, $2, $3) ON CONFLICT (relid, key_hash) DO NOTHING", 3),
						 values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not register a key of table %u", relid);
	if (SPI_processed == 1)
		return;
	if (SPI_execute_plan(kept_plan(&select_plan,
								   "SELECT key_text FROM tapas.key_registry "
								   "WHERE relid = $1 AND key_hash = $2", 2),
						 values, NULL, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read the key registry of table %u", relid);
	have = TextDatumGetCString(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (strcmp(have, s) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("key %s of protected table \"%s\" has the same 64-bit record identity as key %s",
						s, get_rel_name(relid), have),
				 errdetail("tapas names the records of this table by a hash of their key; two keys sharing one would be merged into one record."),
				 errhint("Use another key value.")));
}

/*
 * tapas._key_register() returns trigger: AFTER INSERT OR UPDATE FOR EACH
 * ROW on a protected table with a hashed key (created by tapas.protect);
 * registers the written row's key.
 */
Datum
tapas_sql_key_register(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	const TapasProtection *p;
	HeapTuple	tup;
	TupleDesc	desc;
	Datum		values[TAPAS_MAX_KEY_COLUMNS];
	bool		nulls[TAPAS_MAX_KEY_COLUMNS];

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("tapas._key_register must be an AFTER ... FOR EACH ROW trigger")));
	p = tapas_protection_lookup(RelationGetRelid(td->tg_relation));
	if (p == NULL || !tapas_key_is_hashed(p) || p->broken)
		return PointerGetDatum(NULL);
	tup = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
	desc = RelationGetDescr(td->tg_relation);
	for (int i = 0; i < p->nkeys; i++)
		values[i] = heap_getattr(tup, p->key_attnos[i], desc, &nulls[i]);
	SPI_connect();
	registry_add(p->relid,
				 tapas_key_hash(p->nkeys, values, nulls, p->key_typlen, p->key_typbyval),
				 tapas_key_text_of(p->nkeys, values, nulls, p->key_types));
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * tapas.key_text(tbl regclass, record_key bigint) returns text: a record
 * key as the ledger and alerts hold it, in the key's own type (the
 * integer itself, or the registered key of a hashed key); NULL when
 * unknown.
 */
Datum
tapas_sql_key_text(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int64		key = PG_GETARG_INT64(1);
	const TapasProtection *p = tapas_protection_lookup(relid);
	Oid			argtypes[2] = {OIDOID, INT8OID};
	Datum		values[2];
	Datum		result = (Datum) 0;
	bool		isnull = true;

	if (p != NULL && !tapas_key_is_hashed(p))
		PG_RETURN_TEXT_P(cstring_to_text(psprintf(INT64_FORMAT, key)));
	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int64GetDatum(key);
	SPI_connect();
	if (SPI_execute_with_args("SELECT key_text FROM tapas.key_registry "
							  "WHERE relid = $1 AND key_hash = $2",
							  2, argtypes, values, NULL, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (!isnull)
			result = SPI_datumTransfer(result, false, -1);
	}
	SPI_finish();
	/* an unprotected table's integer key names itself */
	if (isnull && p == NULL)
		PG_RETURN_TEXT_P(cstring_to_text(psprintf(INT64_FORMAT, key)));
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}

/* ----------------------------------------------------------------
 *		Key columns at protect()
 * ----------------------------------------------------------------
 */

/*
 * true when rel has a unique index (immediate, valid, no predicate, no
 * expression) on exactly the columns attnos[0..n-1], in any order: at
 * most one row per combination of their values.
 */
bool
tapas_columns_are_unique(Relation rel, const AttrNumber *attnos, int n)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		unique = false;

	foreach(lc, indexes)
	{
		HeapTuple	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;
		bool		same;

		if (!HeapTupleIsValid(itup))
			continue;
		idx = (Form_pg_index) GETSTRUCT(itup);
		same = idx->indisunique && idx->indimmediate && idx->indisvalid &&
			idx->indnkeyatts == n &&
			heap_attisnull(itup, Anum_pg_index_indpred, NULL) &&
			heap_attisnull(itup, Anum_pg_index_indexprs, NULL);
		for (int i = 0; i < n && same; i++)
		{
			bool		found = false;

			for (int j = 0; j < n; j++)
				found |= idx->indkey.values[j] == attnos[i];
			same = found;
		}
		unique |= same;
		ReleaseSysCache(itup);
	}
	list_free(indexes);
	return unique;
}

/* true when column attno of rel has a unique index of its own */
bool
tapas_column_is_unique(Relation rel, AttrNumber attno)
{
	return tapas_columns_are_unique(rel, &attno, 1);
}

/* "a", or "(a, b)": the key columns for messages */
static char *
key_columns_text(const Datum *names, int n)
{
	StringInfoData buf;

	if (n == 1)
		return psprintf("column \"%s\"", NameStr(*DatumGetName(names[0])));
	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "(", NameStr(*DatumGetName(names[i])));
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/*
 * Checks the key columns p->key_attnos[0 .. nkeys-1] of rel (names in
 * names) and fills in their types: NOT NULL, and unique together through
 * a unique index on exactly them (across partitions for a partitioned
 * table, whose unique indexes contain the partition key).
 */
void
tapas_key_check_columns(Relation rel, TapasProtection *p, const Datum *names)
{
	char	   *cols = key_columns_text(names, p->nkeys);

	for (int i = 0; i < p->nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), p->key_attnos[i] - 1);

		if (!att->attnotnull)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key column \"%s\" must be declared NOT NULL", NameStr(att->attname)),
					 errhint("ALTER TABLE %s ALTER COLUMN %s SET NOT NULL",
							 quote_identifier(RelationGetRelationName(rel)),
							 quote_identifier(NameStr(att->attname)))));
		p->key_types[i] = att->atttypid;
		p->key_typlen[i] = att->attlen;
		p->key_typbyval[i] = att->attbyval;
	}
	p->key_attno = p->key_attnos[0];
	p->key_type = p->key_types[0];
	p->key_hashed = tapas_key_is_hashed(p);
	if (tapas_columns_are_unique(rel, p->key_attnos, p->nkeys))
		return;
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key %s must be unique across the partitions of \"%s\"",
						cols, RelationGetRelationName(rel)),
				 errdetail("A unique index of a partitioned table must contain its partition key, and tapas needs a unique index on exactly the key columns."),
				 errhint("Partition the table by its key columns, or make the key a composite key that contains the partition key, with a PRIMARY KEY or UNIQUE constraint on it.")));
	if (p->nkeys == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key %s must have a unique index of its own", cols),
				 errhint("Declare it PRIMARY KEY or UNIQUE (not deferrable, no predicate).")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key %s must have a unique index on exactly these columns", cols),
			 errhint("Declare PRIMARY KEY %s or UNIQUE %s (not deferrable, no predicate).", cols, cols)));
}

/* ----------------------------------------------------------------
 *		The registry trigger and the registration at protect()
 * ----------------------------------------------------------------
 */

#define KEY_TRIGGER "tapas_key_registry"

/* whether relid has tapas's registry trigger */
bool
tapas_key_has_trigger(Oid relid)
{
	return OidIsValid(get_trigger_oid(relid, KEY_TRIGGER, true));
}

/* "schema.table" of relid, quoted */
static char *
qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/* "a, b": the quoted key columns of p, for SQL */
static char *
key_columns_sql(const TapasProtection *p)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < p->nkeys; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "",
						 quote_identifier(get_attname(p->relid, p->key_attnos[i], false)));
	return buf.data;
}

static void register_rows(const TapasProtection *p, Oid rows, const char *what);

static void
spi_exec(const char *sql, int expect)
{
	if (SPI_execute(sql, false, 0) != expect)
		elog(ERROR, "tapas: could not run: %s", sql);
}

/*
 * After protect() stored the protection of rel: for a hashed key, creates
 * the registry trigger (cloned to every partition, present and future),
 * registers every present key and refuses the table if two keys share a
 * hash; for an integer key, drops a trigger left by an earlier protection.
 */
void
tapas_key_protect(Relation rel, const TapasProtection *p)
{
	char	   *tbl = qualified_name(p->relid);

	SPI_connect();
	if (tapas_key_has_trigger(p->relid))
		spi_exec(psprintf("DROP TRIGGER " KEY_TRIGGER " ON %s", tbl), SPI_OK_UTILITY);
	if (!p->key_hashed)
	{
		SPI_finish();
		return;
	}
	spi_exec(psprintf("CREATE TRIGGER " KEY_TRIGGER " AFTER INSERT OR UPDATE ON %s "
					  "FOR EACH ROW EXECUTE FUNCTION tapas._key_register()", tbl), SPI_OK_UTILITY);
	register_rows(p, p->relid, RelationGetRelationName(rel));
	SPI_finish();
}

/*
 * Registers the keys of every row of table rows (the protected table, or
 * a partition attached to it) under p's protected table, in one
 * statement, and raises if a key's hash is registered for another key.
 * Runs in the caller's SPI connection.
 */
static void
register_rows(const TapasProtection *p, Oid rows, const char *what)
{
	char	   *tbl = qualified_name(rows);
	char	   *cols = key_columns_sql(p);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1];

	values[0] = ObjectIdGetDatum(p->relid);
	if (SPI_execute_with_args(psprintf("INSERT INTO tapas.key_registry (relid, key_hash, key_text) "
									   "SELECT $1, tapas._key_id(%s), tapas._key_text(%s) FROM %s "
									   "ON CONFLICT (relid, key_hash) DO NOTHING", cols, cols, tbl),
							  1, argtypes, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "tapas: could not register the keys of table %u", rows);
	if (SPI_execute_with_args(psprintf("SELECT t.k, r.key_text FROM "
									   "(SELECT tapas._key_id(%s) AS h, tapas._key_text(%s) AS k FROM %s) t "
									   "JOIN tapas.key_registry r ON r.relid = $1 AND r.key_hash = t.h "
									   "WHERE r.key_text <> t.k LIMIT 1", cols, cols, tbl),
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "tapas: could not check the keys of table %u", rows);
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("cannot protect table \"%s\": keys %s and %s have the same 64-bit record identity",
						what,
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2)),
				 errdetail("tapas names the records of this table by a hash of their key; two keys sharing one would be merged into one record."),
				 errhint("Change one of the two keys, or protect the table with another key.")));
}

/*
 * After ALTER TABLE parent ATTACH PARTITION child: the child's rows were
 * written before the registry trigger was cloned to it, so they are
 * registered now (the ATTACH fails if one collides).
 */
void
tapas_key_register_partition(Oid parent, Oid child)
{
	const TapasProtection *p = tapas_protection_lookup(parent);

	if (p == NULL || (p = tapas_protection_lookup(p->relid)) == NULL || !p->key_hashed)
		return;
	SPI_connect();
	register_rows(p, child, get_rel_name(p->relid));
	SPI_finish();
}

/* unprotect(): drops the registry trigger (the registry keeps the names) */
void
tapas_key_unprotect(Oid relid)
{
	if (!tapas_key_has_trigger(relid))
		return;
	SPI_connect();
	spi_exec(psprintf("DROP TRIGGER " KEY_TRIGGER " ON %s", qualified_name(relid)),
			 SPI_OK_UTILITY);
	SPI_finish();
}
