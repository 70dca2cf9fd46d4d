/*-------------------------------------------------------------------------
 *
 * cover_parallel.c
 *	  Partial aggregation of the capture aggregate tapas._cover: its
 *	  serial, deserial and combine functions.
 *
 * Parallel and partition-wise aggregation: the serial function writes a
 * state in that same format, the deserial function reads it back into a
 * state, and the combine function merges two states: the union of the
 * bitmaps (roaring_bitmap_or_inplace), the extra keys concatenated, the
 * answers summed.  A group's rows are split between partial states without
 * repeats, so the combined state covers exactly the rows a serial Agg
 * would have seen.  The gate sits above the Finalize Agg only (plan.c).
 *
 * IDENTIFICATION
 *	  src/capture/cover_parallel.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <roaring/roaring.h>

#include "fmgr.h"
#include "utils/memutils.h"

#include "capture/capture.h"
#include "capture/cover_int.h"

PG_FUNCTION_INFO_V1(tapas_sql_cover_serial);
PG_FUNCTION_INFO_V1(tapas_sql_cover_deserial);
PG_FUNCTION_INFO_V1(tapas_sql_cover_combine);

/*
 * _cover_serial(internal) returns bytea, strict: a worker's partial state,
 * in the format of the final result (the planner calls it instead of the
 * final function in a Partial Agg).
 */
Datum
tapas_sql_cover_serial(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(tapas_cover_pack((CoverState *) PG_GETARG_POINTER(0)));
}

/*
 * _cover_deserial(bytea, internal) returns internal, strict.  nodeAgg calls
 * it in the per-input-tuple context, so the state is made there, with a
 * reset callback on that context freeing its (malloc'd) bitmap; the
 * combine function copies what it keeps into the aggregate context.
 */
Datum
tapas_sql_cover_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *cover = PG_GETARG_BYTEA_PP(0);
	TapasCoverHeader hdr;
	const char *answers = tapas_cover_unpack_header(cover, &hdr);
	const char *p = cover_keys_start(answers, &hdr);
	CoverState *st;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "tapas._cover_deserial called in non-aggregate context");
	st = palloc0(sizeof(CoverState));
	st->cxt = CurrentMemoryContext;
	st->nanswers = (int) hdr.nanswers;
	st->answers = palloc(Max(st->nanswers, 1) * sizeof(double));
	memcpy(st->answers, answers, st->nanswers * sizeof(double));
	if (hdr.setbytes > 0)
	{
		st->set = tapas_cover_unpack_set(p, &hdr);
		st->free_set.func = tapas_cover_free_set;
		st->free_set.arg = st;
		MemoryContextRegisterResetCallback(st->cxt, &st->free_set);
	}
	st->nextra = st->extra_cap = hdr.nextra;
	if (hdr.nextra > 0)
	{
		st->extra = palloc_extended(hdr.nextra * sizeof(int64), MCXT_ALLOC_HUGE);
		memcpy(st->extra, p + hdr.setbytes, hdr.nextra * sizeof(int64));
	}
	PG_RETURN_POINTER(st);
}

/* merges the keys and answers of src into dst (a state of this aggregate) */
static void
cover_merge(CoverState *dst, CoverState *src)
{
	if (dst->nanswers != src->nanswers)
		elog(ERROR, "tapas: malformed capture");
	tapas_cover_flush(dst);			/* makes dst->set */
	if (src->set != NULL || src->nstaged > 0)
	{
		bool		temp;
		roaring_bitmap_t *set = tapas_cover_set(src, &temp);

		roaring_bitmap_or_inplace(dst->set, set);
		if (temp)
			roaring_bitmap_free(set);
	}
	for (int64 i = 0; i < src->nextra; i++)
		tapas_cover_add_extra(dst, src->extra[i]);
	for (int i = 0; i < dst->nanswers; i++)
		dst->answers[i] += src->answers[i];
}

/*
 * _cover_combine(internal, internal) returns internal, not strict (the
 * state is internal): state 1 absorbs state 2; a NULL state 1 is made in
 * the aggregate context first, so nothing of state 2 (possibly in a
 * shorter-lived context) is kept by reference.
 */
Datum
tapas_sql_cover_combine(PG_FUNCTION_ARGS)
{
	CoverState *st;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	st = PG_ARGISNULL(0) ?
		tapas_cover_create(fcinfo, ((CoverState *) PG_GETARG_POINTER(1))->nanswers) :
		(CoverState *) PG_GETARG_POINTER(0);
	cover_merge(st, (CoverState *) PG_GETARG_POINTER(1));
	PG_RETURN_POINTER(st);
}

