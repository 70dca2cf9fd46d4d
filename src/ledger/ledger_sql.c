/*-------------------------------------------------------------------------
 *
 * ledger_sql.c
 *	  SQL-callable functions of the ledger (admin only).
 *
 * Every function checks tapas_require_admin() itself, on top of the
 * REVOKE FROM PUBLIC / GRANT TO tapas_admin of the install script: an
 * audited role reads no cover, no answer and no query text, and can
 * neither append, remove nor alter a ledger row.  Set-returning functions
 * materialise into a tuplestore (InitMaterializedSRF) in the caller's
 * per-query context; ledger data is copied out under the shared lock.
 *
 * IDENTIFICATION
 *	  src/ledger/ledger_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "ledger/ledger.h"
#include "ledger/ledger_int.h"
#include "policy/policy.h"
#include "util/compare.h"

PG_FUNCTION_INFO_V1(tapas_sql_query_log);
PG_FUNCTION_INFO_V1(tapas_sql_query_matrix);
PG_FUNCTION_INFO_V1(tapas_sql_reset);
PG_FUNCTION_INFO_V1(tapas_sql_ledger_record);
PG_FUNCTION_INFO_V1(tapas_sql_ledger_usage);

#define QUERY_LOG_COLS		10
#define QUERY_MATRIX_COLS	4
#define USAGE_COLS			11

/* the table argument: not NULL, a valid OID */
static Oid
table_arg(FunctionCallInfo fcinfo, int argno)
{
	Oid			relid;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table must not be NULL")));
	relid = PG_GETARG_OID(argno);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid table OID 0")));
	return relid;
}

/* one query_log row of cell c */
static void
query_log_row(Tuplestorestate *ts, TupleDesc desc, const tapas_ledger_store_t *store,
			  const tapas_ledger_store_cell_t *c)
{
	Datum		values[QUERY_LOG_COLS];
	bool		nulls[QUERY_LOG_COLS] = {0};
	uint32		len;
	const char *stat = tapas_ledger_store_stat_text(store, c, &len);
	const char *query = tapas_ledger_store_query_text(store, c);

	values[0] = Int64GetDatum(c->log_id);
	values[1] = TimestampTzGetDatum(c->logged_at);
	values[2] = ObjectIdGetDatum(c->role);
	values[3] = Int32GetDatum(c->pid);
	values[4] = TimestampTzGetDatum(c->session_start);
	values[5] = ObjectIdGetDatum(TAPAS_LEDGER_TABLE_REL(c->table_id));
	values[6] = PointerGetDatum(cstring_to_text_with_len(stat, len));
	values[7] = Float8GetDatum(c->answer);
	values[8] = Int64GetDatum((int64) c->ncovered);
	if (query)
		values[9] = PointerGetDatum(cstring_to_text(query));
	else
		nulls[9] = true;
	tuplestore_putvalues(ts, desc, values, nulls);
}

Datum
tapas_sql_query_log(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TapasLedgerShared *sh;
	tapas_ledger_store_t *store;
	uint64		i;

	tapas_require_admin("read the tapas ledger");
	sh = tapas_ledger_shared();
	store = TAPAS_LEDGER_STORE(sh);
	InitMaterializedSRF(fcinfo, 0);
	LWLockAcquire(sh->lock, LW_SHARED);
	/* the current database's cells, and the shared ones of 0.2 */
	for (i = 0; i < store->ncells; i++)
		if (TAPAS_LEDGER_TABLE_VISIBLE(tapas_ledger_store_cell(store, i)->table_id))
			query_log_row(rsinfo->setResult, rsinfo->setDesc, store,
						  tapas_ledger_store_cell(store, i));
	LWLockRelease(sh->lock);
	return (Datum) 0;
}

/* the covered keys of row i of snap, sorted, as an int8[] */
static Datum
cover_keys_array(const TapasLedgerSnapshot *snap, int i)
{
	uint64		m = roaring_bitmap_get_cardinality(snap->covers[i]);
	uint32	   *idx = palloc(sizeof(uint32) * Max(m, 1));
	Datum	   *elems = palloc(sizeof(Datum) * Max(m, 1));
	int64	   *keys = palloc(sizeof(int64) * Max(m, 1));
	uint64		k;

	roaring_bitmap_to_uint32_array(snap->covers[i], idx);
	for (k = 0; k < m; k++)
		keys[k] = snap->keys[idx[k]];
	qsort(keys, m, sizeof(int64), tapas_cmp_int64);
	for (k = 0; k < m; k++)
		elems[k] = Int64GetDatum(keys[k]);
	pfree(idx);
	pfree(keys);
	return PointerGetDatum(construct_array(elems, (int) m, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

Datum
tapas_sql_query_matrix(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TapasLedgerFilter filter = {0};
	TapasLedgerSnapshot *snap;
	int			i;

	tapas_require_admin("read the tapas ledger");
	filter.relid = table_arg(fcinfo, 0);
	filter.statistic = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	filter.roleid = PG_ARGISNULL(2) ? InvalidOid : PG_GETARG_OID(2);
	filter.after_log_id = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT64(3);
	InitMaterializedSRF(fcinfo, 0);
	snap = tapas_ledger_snapshot(&filter);
	for (i = 0; i < snap->nrows; i++)
	{
		Datum		values[QUERY_MATRIX_COLS];
		bool		nulls[QUERY_MATRIX_COLS] = {0};

		CHECK_FOR_INTERRUPTS();
		values[0] = Int64GetDatum(snap->log_ids[i]);
		values[1] = CStringGetTextDatum(snap->statistics[i]);
		values[2] = Float8GetDatum(snap->answers[i]);
		values[3] = cover_keys_array(snap, i);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	tapas_ledger_snapshot_free(snap);
	return (Datum) 0;
}

Datum
tapas_sql_reset(PG_FUNCTION_ARGS)
{
	Oid			relid;

	tapas_require_admin("reset the tapas ledger");
	relid = table_arg(fcinfo, 0);
	PG_RETURN_INT64((int64) tapas_ledger_reset(relid));
}

/* the keys argument: a one-dimensional int8[] without NULLs */
static int64 *
keys_arg(ArrayType *arr, int *nkeys)
{
	Datum	   *elems;
	bool	   *nulls;
	int64	   *keys;
	int			i;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys must be a one-dimensional array")));
	deconstruct_array(arr, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, nkeys);
	keys = palloc(sizeof(int64) * Max(*nkeys, 1));
	for (i = 0; i < *nkeys; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("keys must not contain NULL")));
		keys[i] = DatumGetInt64(elems[i]);
	}
	return keys;
}

Datum
tapas_sql_ledger_record(PG_FUNCTION_ARGS)
{
	TapasCell	cell;
	int			nkeys;
	char	   *query;

	tapas_require_admin("record answers in the tapas ledger");
	memset(&cell, 0, sizeof(cell));
	cell.relid = table_arg(fcinfo, 0);
	if (get_rel_name(cell.relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", cell.relid)));
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("statistic, answer and keys must not be NULL")));
	cell.statistic = text_to_cstring(PG_GETARG_TEXT_PP(1));
	cell.answer = PG_GETARG_FLOAT8(2);
	cell.keys = keys_arg(PG_GETARG_ARRAYTYPE_P(3), &nkeys);
	cell.nkeys = nkeys;
	query = PG_ARGISNULL(4) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(4));
	/* the gate's sequence: check (builds the cover), then append (reuses it) */
	tapas_ledger_check_capacity(&cell, 1);
	PG_RETURN_INT64(tapas_ledger_append(&cell, 1, query));
}

Datum
tapas_sql_ledger_usage(PG_FUNCTION_ARGS)
{
	TapasLedgerShared *sh;
	tapas_ledger_store_t *store;
	TupleDesc	desc;
	Datum		values[USAGE_COLS];
	bool		nulls[USAGE_COLS] = {0};

	tapas_require_admin("read the tapas ledger");
	sh = tapas_ledger_shared();
	store = TAPAS_LEDGER_STORE(sh);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	LWLockAcquire(sh->lock, LW_SHARED);
	values[0] = Int64GetDatum((int64) store->ncells);
	values[1] = Int64GetDatum((int64) store->lim.max_cells);
	values[2] = Int64GetDatum((int64) store->nrecords);
	values[3] = Int64GetDatum((int64) store->lim.max_records);
	values[4] = Int64GetDatum((int64) store->arena_used);
	values[5] = Int64GetDatum((int64) store->lim.arena_bytes);
	values[6] = Int32GetDatum((int32) store->ntables);
	values[7] = Int64GetDatum((int64) store->nstats);
	values[8] = Int64GetDatum((int64) sh->file_size);
	values[9] = Int64GetDatum((int64) (sh->store_size + MAXALIGN(sizeof(TapasLedgerShared))));
	LWLockRelease(sh->lock);
	/* heap_form_tuple reads desc->natts values: a 0.1 catalog has 10 */
	values[10] = Int64GetDatum((int64) tapas_ledger_persist_synced(sh));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}
