/*-------------------------------------------------------------------------
 *
 * cover.c
 *	  tapas._cover: the resjunk capture aggregate that collects, per
 *	  output group, the covered keys and the answer of one cell.
 *
 * normalise.c adds one _cover(key::int8, v, relid, statistic) per audited
 * aggregate, in the same Agg node, so grouping, grouping sets, hashing,
 * sorting and NULL semantics are exactly those of the answer.  Every row
 * that reaches the Agg for this cell is covered (its key is collected); v
 * is the row's contribution to the statistic (1/0 for counts, the value
 * for sums, NULL for nothing), and the answer is the sum of the non-null
 * v.  The arguments relid and statistic are constants the gate reads from
 * the plan; the transition function ignores them.
 *
 * State: CoverState in the aggregate context (a growable int64 array; keys
 * are unique per group because the key column is unique and joins are
 * refused).  Result: a bytea holding TapasCoverHeader then nkeys int64,
 * unaligned (readers memcpy).  No combine function: the planner never
 * splits the capture across parallel workers.
 *
 * IDENTIFICATION
 *	  src/capture/cover.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/memutils.h"

#include "capture/capture.h"

PG_FUNCTION_INFO_V1(tapas_sql_cover_trans);
PG_FUNCTION_INFO_V1(tapas_sql_cover_final);

typedef struct CoverState
{
	int64		nkeys;			/* keys collected */
	int64		cap;			/* allocated slots in keys */
	int64	   *keys;			/* covered key values */
	double		answer;			/* sum of the non-null values */
} CoverState;

/* _cover_trans(internal, int8 key, float8 v, oid, text) returns internal */
Datum
tapas_sql_cover_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	CoverState *st;

	/*
	 * A non-null internal state can only come from the aggregate machinery
	 * (SQL cannot make an internal value), so the call context is checked
	 * where the state is created, not again for every row.
	 */
	if (PG_ARGISNULL(0))
	{
		if (!AggCheckCallContext(fcinfo, &aggcxt))
			elog(ERROR, "tapas._cover_trans called in non-aggregate context");
		st = MemoryContextAllocZero(aggcxt, sizeof(CoverState));
		st->cap = 16;
		st->keys = MemoryContextAlloc(aggcxt, st->cap * sizeof(int64));
	}
	else
		st = (CoverState *) PG_GETARG_POINTER(0);

	if (!PG_ARGISNULL(1))
	{
		if (st->nkeys == st->cap)
		{
			/* the state lives in aggcxt; repalloc keeps the chunk's context */
			if (st->cap >= (int64) (MaxAllocHugeSize / sizeof(int64) / 2))
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("too many rows in one cell of a protected table")));
			st->cap *= 2;
			st->keys = repalloc_huge(st->keys, st->cap * sizeof(int64));
		}
		st->keys[st->nkeys++] = PG_GETARG_INT64(1);
		if (!PG_ARGISNULL(2))
			st->answer += PG_GETARG_FLOAT8(2);
	}
	PG_RETURN_POINTER(st);
}

/* _cover_final(internal) returns bytea: TapasCoverHeader, then the keys */
Datum
tapas_sql_cover_final(PG_FUNCTION_ARGS)
{
	CoverState *st = PG_ARGISNULL(0) ? NULL : (CoverState *) PG_GETARG_POINTER(0);
	TapasCoverHeader hdr;
	Size		len;
	bytea	   *out;

	hdr.answer = st ? st->answer : 0.0;
	hdr.nkeys = st ? st->nkeys : 0;
	len = VARHDRSZ + sizeof(hdr) + hdr.nkeys * sizeof(int64);
	if (!AllocSizeIsValid(len))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rows in one cell of a protected table")));
	out = palloc(len);
	SET_VARSIZE(out, len);
	memcpy(VARDATA(out), &hdr, sizeof(hdr));
	if (hdr.nkeys > 0)
		memcpy(VARDATA(out) + sizeof(hdr), st->keys, hdr.nkeys * sizeof(int64));
	PG_RETURN_BYTEA_P(out);
}
