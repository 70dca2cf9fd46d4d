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
 * (tapas.key_text(tbl, record_key)).  The registry and its trigger are
 * key_registry.c; the key columns' checks at protect() are key_columns.c.
 *
 * IDENTIFICATION
 *	  src/policy/keys.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_key_id);
PG_FUNCTION_INFO_V1(tapas_sql_key_text_of);

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
