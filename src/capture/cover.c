/*-------------------------------------------------------------------------
 *
 * cover.c
 *	  tapas._cover: the resjunk capture aggregate that collects, per
 *	  output group, the covered keys of a covered set and the answers of
 *	  the cells over it.
 *
 * normalise.c adds one _cover(key, capture, v1, ..., vm) per covered set
 * of a query level (cover_build.c), in the same Agg node as the audited
 * aggregates, so grouping, grouping sets, hashing, sorting and NULL
 * semantics are exactly those of the answers.  Every row that reaches the
 * Agg for this capture (its FILTER: the non-sensitive conditions of the
 * covered set) is covered, its key collected once; vi is the row's
 * contribution to statistic i of the set (1/NULL for counts, the value for
 * sums, NULL for nothing), and answer i is the sum of the non-null vi, in
 * row order, from 0: the same double additions as one capture per
 * statistic made.  Which rows are covered does not depend on any vi, so
 * the statistics of one covered set share its keys exactly; statistics
 * whose covers differ (another FILTER: count(x) of a column with NULLs
 * filters on x IS NOT NULL) have captures of their own.  capture is a
 * constant: plan.c maps it to the table and statistics normalise.c
 * recorded for it, and the transition function ignores it.  The values
 * are VARIADIC "any" so that no array is built per row; each must be a
 * float8, checked once per state.  (One capture per statistic cost about
 * 50 ns per row and statistic at 10^6 rows, most of it the transition
 * call and the key's staging; each value shared costs an argument and an
 * addition.)
 *
 * State: CoverState in the aggregate context.  Keys in [0, 2^32), the
 * usual case, go to a Roaring bitmap (keys are unique per group: the key
 * column is unique and the joins allowed repeat no protected row), others
 * to a growable int64 array.  A plain int64 array costs 8 bytes per covered row and,
 * above a few hundred kB, fresh pages from the kernel on every statement:
 * at 50,000 rows that doubled the cost of the capture; a Roaring bitmap
 * of a key range is a few kB (Lemire et al., "Roaring bitmaps:
 * implementation of an optimized software library", SPE 2018).  Keys are
 * staged in a buffer that grows from 8 to COVER_STAGE keys and added in
 * bulk, sorted (stage_add); the bitmap is made at the first bulk add, so a
 * small group (a GROUP BY with many groups) costs about as much memory as
 * before, all of it in the aggregate context.  CRoaring allocates with
 * malloc, so a reset callback on the aggregate context frees the bitmap
 * whether the query ends or fails.
 *
 * Result: a bytea holding TapasCoverHeader, the bitmap in Roaring's
 * portable format, then the other keys as int64 (unaligned: readers
 * memcpy); tapas_cover_keys() (cover_read.c) unpacks it; cover_parallel.c has the
 * functions of partial aggregation.
 *
 * IDENTIFICATION
 *	  src/capture/cover.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <roaring/roaring.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/memutils.h"

#include "capture/capture.h"
#include "capture/cover_int.h"
#include "util/sort_u32.h"

PG_FUNCTION_INFO_V1(tapas_sql_cover_trans);
PG_FUNCTION_INFO_V1(tapas_sql_cover_trans4);
PG_FUNCTION_INFO_V1(tapas_sql_cover_final);

void
tapas_cover_free_set(void *arg)
{
	CoverState *st = arg;

	if (st->set != NULL)
		roaring_bitmap_free(st->set);
	st->set = NULL;
}

/* a state for nanswers statistics, in the aggregate context */
CoverState *
tapas_cover_create(FunctionCallInfo fcinfo, int nanswers)
{
	MemoryContext aggcxt;
	CoverState *st;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "tapas._cover_trans called in non-aggregate context");
	st = MemoryContextAllocZero(aggcxt, sizeof(CoverState));
	st->cxt = aggcxt;
	st->stage_cap = 8;
	st->staged = MemoryContextAlloc(aggcxt, st->stage_cap * sizeof(uint32));
	st->nanswers = nanswers;
	st->answers = MemoryContextAllocZero(aggcxt, Max(nanswers, 1) * sizeof(double));
	return st;
}

#define COVER_FIRST_VALUE 3		/* state, key, capture, then the values */

/*
 * The types a value may have.  A statistic's contribution is a float8
 * (basis.c); where it is a cast of an int2, int4, int8 or float4
 * expression to float8, cover_build.c passes the expression itself and
 * the conversion happens here, the C conversion the cast function does
 * (i2tod, i4tod, i8tod, ftod: (float8) x), so the sums are the same
 * without a function call per row and value.
 */
#define COVER_V_FLOAT8	0
#define COVER_V_INT2	1
#define COVER_V_INT4	2
#define COVER_V_INT8	3
#define COVER_V_FLOAT4	4

/* the COVER_V_* code of a value's type, or -1 */
static int
cover_value_type(Oid type)
{
	switch (type)
	{
		case FLOAT8OID:
			return COVER_V_FLOAT8;
		case INT2OID:
			return COVER_V_INT2;
		case INT4OID:
			return COVER_V_INT4;
		case INT8OID:
			return COVER_V_INT8;
		case FLOAT4OID:
			return COVER_V_FLOAT4;
		default:
			return -1;
	}
}

/*
 * The types of the values of a transition call, checked: one of
 * COVER_V_* each (tapas builds them so; anything else is a direct call,
 * and reading a Datum of another type as a number would be nonsense).
 */
static char *
cover_value_types(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	int			n = PG_NARGS() - COVER_FIRST_VALUE;
	char	   *vtype = MemoryContextAlloc(cxt, Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		int			t = cover_value_type(get_fn_expr_argtype(fcinfo->flinfo,
															 COVER_FIRST_VALUE + i));

		if (t < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the values of tapas._cover must be numbers of type double precision, real, bigint, integer or smallint")));
		vtype[i] = (char) t;
	}
	return vtype;
}

/* the first state of a transition call */
static CoverState *
cover_create_trans(FunctionCallInfo fcinfo)
{
	int			nanswers = PG_NARGS() - COVER_FIRST_VALUE;
	CoverState *st;

	if (nanswers < 1)
		elog(ERROR, "tapas._cover_trans needs at least one value");
	st = tapas_cover_create(fcinfo, nanswers);
	st->vtype = cover_value_types(fcinfo, st->cxt);
	return st;
}

/* a value of type code t as the double its cast to float8 gives */
static inline double
cover_value(Datum d, char t)
{
	switch (t)
	{
		case COVER_V_INT2:
			return (double) DatumGetInt16(d);
		case COVER_V_INT4:
			return (double) DatumGetInt32(d);
		case COVER_V_INT8:
			return (double) DatumGetInt64(d);
		case COVER_V_FLOAT4:
			return (double) DatumGetFloat4(d);
		default:
			return DatumGetFloat8(d);
	}
}

/* sorts the staged keys, unless they came sorted (an index scan) */
static void
stage_sort(CoverState *st)
{
	if (tapas_u32_sorted(st->staged, st->nstaged))
		return;
	if (st->scratch_cap < st->nstaged)
	{
		if (st->scratch)
			pfree(st->scratch);
		st->scratch = MemoryContextAlloc(st->cxt, st->stage_cap * sizeof(uint32));
		st->scratch_cap = st->stage_cap;
	}
	tapas_sort_u32(st->staged, st->scratch, st->nstaged);
}

/* a bitmap of the (sorted) staged keys */
static roaring_bitmap_t *
stage_bitmap(CoverState *st)
{
	roaring_bitmap_t *set = roaring_bitmap_of_ptr(st->nstaged, st->staged);

	if (set == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	return set;
}

/* whether the sorted staged keys are exactly the range staged[0] .. [n-1] */
static bool
stage_is_range(const CoverState *st)
{
	const uint32 *k = st->staged;
	int			n = st->nstaged;

	if ((uint64) k[n - 1] - k[0] + 1 != (uint64) n)
		return false;
	for (int i = 1; i < n; i++)		/* n values over n: no repeat, no gap */
		if (k[i] == k[i - 1])
			return false;
	return true;
}

/*
 * Adds the staged keys to the bitmap, sorted: a whole range (an index scan
 * over a key range) in one step; keys that all lie above the bitmap's as
 * appends; others as a bitmap of their own merged in.  Added one by one in
 * a table's physical order, keys land amid a sorted array container and
 * move half of it: 55 ns a key instead of 7 (test/bench/b-sort_u32.c).
 * Repeated keys (never expected: the key is unique and joins repeat no
 * row) are counted once, like the bitmap does.
 */
static void
stage_add(CoverState *st)
{
	roaring_bitmap_t *block;

	stage_sort(st);
	if (stage_is_range(st))
	{
		roaring_bitmap_add_range(st->set, st->staged[0], (uint64) st->staged[st->nstaged - 1] + 1);
		return;
	}
	if (roaring_bitmap_is_empty(st->set) ||
		st->staged[0] > roaring_bitmap_maximum(st->set))
	{
		roaring_bitmap_add_many(st->set, st->nstaged, st->staged);
		return;
	}
	block = stage_bitmap(st);
	roaring_bitmap_or_inplace(st->set, block);
	roaring_bitmap_free(block);
}

/* moves the staged keys into the bitmap, making it on first use */
void
tapas_cover_flush(CoverState *st)
{
	if (st->set == NULL)
	{
		st->set = roaring_bitmap_create();
		if (st->set == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
		st->free_set.func = tapas_cover_free_set;
		st->free_set.arg = st;
		MemoryContextRegisterResetCallback(st->cxt, &st->free_set);
	}
	if (st->nstaged > 0)
		stage_add(st);
	st->nstaged = 0;
}

/* the stage is full: grow it while small, else empty it into the bitmap */
static void
cover_stage_full(CoverState *st)
{
	if (st->stage_cap < COVER_STAGE)
	{
		st->stage_cap *= 2;
		st->staged = repalloc(st->staged, st->stage_cap * sizeof(uint32));
	}
	else
		tapas_cover_flush(st);
}

void
tapas_cover_add_extra(CoverState *st, int64 key)
{
	if (st->nextra == st->extra_cap)
	{
		if (st->extra_cap >= (int64) (MaxAllocHugeSize / sizeof(int64) / 2))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many rows in one cell of a protected table")));
		st->extra_cap = Max(16, st->extra_cap * 2);
		st->extra = st->extra == NULL ?
			MemoryContextAllocHuge(st->cxt, st->extra_cap * sizeof(int64)) :
			repalloc_huge(st->extra, st->extra_cap * sizeof(int64));
	}
	st->extra[st->nextra++] = key;
}

/*
 * adds one covered row: its key, once, and its contribution to each
 * statistic of the covered set (the values, from argument 3 on)
 */
static inline CoverState *
cover_trans(FunctionCallInfo fcinfo, int64 key)
{
	CoverState *st;
	const NullableDatum *v;

	/*
	 * A non-null internal state can only come from the aggregate machinery
	 * (SQL cannot make an internal value), so the call context and the
	 * value types are checked where the state is created, not again for
	 * every row; the machinery passes the same arguments for every row.
	 */
	st = PG_ARGISNULL(0) ? cover_create_trans(fcinfo) : (CoverState *) PG_GETARG_POINTER(0);
	if (key >= 0 && key <= (int64) PG_UINT32_MAX)
	{
		st->staged[st->nstaged++] = (uint32) key;
		if (st->nstaged == st->stage_cap)
			cover_stage_full(st);
	}
	else
		tapas_cover_add_extra(st, key);
	if (unlikely(st->vtype == NULL))
		st->vtype = cover_value_types(fcinfo, st->cxt);
	v = &fcinfo->args[COVER_FIRST_VALUE];
	for (int i = 0; i < st->nanswers; i++)
		if (!v[i].isnull)
			st->answers[i] += cover_value(v[i].value, st->vtype[i]);
	return st;
}

/*
 * A row with a null key covers nothing (the key column is NOT NULL, so
 * only a null-extended row of an outer join has one): the state, or the
 * null state, is passed on unchanged.
 */
#define COVER_SKIP_NULL_KEY() \
	do { \
		if (PG_ARGISNULL(1)) \
		{ \
			if (PG_ARGISNULL(0)) \
				PG_RETURN_NULL(); \
			PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
		} \
	} while (0)

/* _cover_trans(internal, int8 key, int4 capture, VARIADIC "any") returns internal */
Datum
tapas_sql_cover_trans(PG_FUNCTION_ARGS)
{
	COVER_SKIP_NULL_KEY();
	PG_RETURN_POINTER(cover_trans(fcinfo, PG_GETARG_INT64(1)));
}

/* _cover_trans(internal, int4 key, ...): int2 and int4 keys, no cast */
Datum
tapas_sql_cover_trans4(PG_FUNCTION_ARGS)
{
	COVER_SKIP_NULL_KEY();
	PG_RETURN_POINTER(cover_trans(fcinfo, PG_GETARG_INT32(1)));
}

/*
 * The bitmap of a state's keys in [0, 2^32): its own, with the stage
 * flushed, or for a small group that never needed one a temporary one
 * (*temp set; the caller frees it), so that a GROUP BY with many small
 * groups keeps no bitmap per group.
 */
roaring_bitmap_t *
tapas_cover_set(CoverState *st, bool *temp)
{
	*temp = st->set == NULL;
	if (!*temp)
	{
		tapas_cover_flush(st);
		return st->set;
	}
	stage_sort(st);
	return stage_bitmap(st);
}

/* st (NULL: an empty group) packed as a _cover result, see tapas_cover_keys */
bytea *
tapas_cover_pack(CoverState *st)
{
	TapasCoverHeader hdr = {0};
	roaring_bitmap_t *set = NULL;
	bool		temp = false;
	Size		len;
	bytea	   *out;
	char	   *p;

	if (st != NULL)
	{
		set = tapas_cover_set(st, &temp);
		roaring_bitmap_run_optimize(set);
		hdr.nanswers = st->nanswers;
		hdr.nkeys = (int64) roaring_bitmap_get_cardinality(set) + st->nextra;
		hdr.nextra = st->nextra;
		hdr.setbytes = (int64) roaring_bitmap_portable_size_in_bytes(set);
	}
	len = VARHDRSZ + sizeof(hdr) + hdr.nanswers * sizeof(double) + hdr.setbytes +
		hdr.nextra * sizeof(int64);
	if (!AllocSizeIsValid(len))
	{
		if (temp)
			roaring_bitmap_free(set);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many rows in one cell of a protected table")));
	}
	out = palloc(len);
	SET_VARSIZE(out, len);
	p = VARDATA(out);
	memcpy(p, &hdr, sizeof(hdr));
	p += sizeof(hdr);
	if (st != NULL)
	{
		memcpy(p, st->answers, st->nanswers * sizeof(double));
		p += st->nanswers * sizeof(double);
		p += roaring_bitmap_portable_serialize(set, p);
		if (st->nextra > 0)
			memcpy(p, st->extra, st->nextra * sizeof(int64));
	}
	if (temp)
		roaring_bitmap_free(set);
	return out;
}

/* _cover_final(internal) returns bytea: see tapas_cover_keys */
Datum
tapas_sql_cover_final(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(tapas_cover_pack(PG_ARGISNULL(0) ? NULL :
								 (CoverState *) PG_GETARG_POINTER(0)));
}

