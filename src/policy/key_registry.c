/*-------------------------------------------------------------------------
 *
 * key_registry.c
 *	  The key registry tapas.key_registry: (table, hash) -> the key's text,
 *	  filled at protect() and by the tapas_key_registry trigger on every write,
 *	  refusing a hash collision instead of merging two records (keys.c).
 *
 * IDENTIFICATION
 *	  src/policy/key_registry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_key_register);
PG_FUNCTION_INFO_V1(tapas_sql_key_text);

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
