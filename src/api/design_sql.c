/*-------------------------------------------------------------------------
 *
 * design_sql.c
 *	  SQL interface of the query designs and their decoders (recon/design.h):
 *	  tapas.design_size, tapas.design_member, tapas.design_info and
 *	  tapas.reconstruct.
 *
 * tapas.design_member runs once per table row inside a WHERE clause, so
 * designs are kept in a small backend-lifetime cache keyed by (method, n,
 * s, k, seed): building a BCH design costs its field tables (and, when
 * k > 0, one pass over the records per row), a lookup costs a few
 * comparisons.  Cached designs are kernel objects (malloc'd through
 * util/memory.h), owned by the cache and freed when evicted; they never
 * hold palloc'd memory.
 *
 * design_member is LEAKPROOF: the only errors it raises depend on the
 * constant design arguments, never on the record, and a record outside
 * 1..n gives false.  Kernels poll a progress callback that reads
 * the pending cancel; when they stop, the wrapper runs CHECK_FOR_INTERRUPTS.
 *
 * IDENTIFICATION
 *	  src/api/design_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "util/status.h"
#include "recon/design.h"
#include "policy/progress_pg.h"
#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_design_size);
PG_FUNCTION_INFO_V1(tapas_sql_design_member);
PG_FUNCTION_INFO_V1(tapas_sql_design_info);
PG_FUNCTION_INFO_V1(tapas_sql_reconstruct);

/* designs kept per backend (a BCH design at q = 24 holds 128 MB of tables) */
#define DESIGN_CACHE_SIZE	4

typedef struct DesignCacheEntry
{
	tapas_design_t *design;		/* NULL when the slot is free */
	bool		with_coverage;	/* coverage was computed */
	uint64		last_use;		/* for LRU eviction */
} DesignCacheEntry;

static DesignCacheEntry design_cache[DESIGN_CACHE_SIZE];
static uint64 design_cache_clock = 0;

/*
 * Kernel progress callback: stop when a cancel or termination is pending
 * (other interrupts, such as barrier requests, are served after the kernel
 * returns).  Reads flags only; never raises.
 */
static int
design_progress(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

static const tapas_progress_t design_progress_cb = {design_progress, NULL};

/* method name -> method, without allocating; raises for other names */
static int
design_parse_method(text *method)
{
	static const char *const names[] = {"hadamard", "bch", "bernoulli"};
	const char *p = VARDATA_ANY(method);
	int			len = VARSIZE_ANY_EXHDR(method);
	int			i;

	for (i = 0; i < 3; i++)
		if (len == (int) strlen(names[i]) && memcmp(p, names[i], len) == 0)
			return tapas_design_method_from_name(names[i]);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized design method \"%s\"", text_to_cstring(method)),
			 errhint("Valid methods are \"hadamard\", \"bch\" and \"bernoulli\".")));
	return -1;					/* not reached */
}

/*
 * The cached design for these arguments, built on a miss.  Raises for
 * invalid arguments.  The seed only matters for bernoulli.
 */
static tapas_design_t *
design_get(int method, int64 n, int32 s, int64 k, int64 seed, bool coverage)
{
	DesignCacheEntry *slot = &design_cache[0];
	tapas_design_t *d;
	tapas_status st;
	const char *reason = NULL;
	int			i;

	if (method != TAPAS_DESIGN_BERNOULLI)
		seed = 0;
	for (i = 0; i < DESIGN_CACHE_SIZE; i++)
	{
		DesignCacheEntry *e = &design_cache[i];

		d = e->design;
		if (d != NULL && (int) d->method == method && d->n == n && d->s == s &&
			d->k == k && d->seed == (uint64) seed &&
			(e->with_coverage || !coverage))
		{
			e->last_use = ++design_cache_clock;
			return d;
		}
		if (e->design == NULL || (slot->design != NULL && e->last_use < slot->last_use))
			slot = e;
	}
	d = tapas_design_create(method, n, s, k, (uint64) seed, coverage,
							&design_progress_cb, &st, &reason);
	tapas_raise_status(st, "cannot build the query design", reason);
	tapas_design_free(slot->design);
	slot->design = d;
	slot->with_coverage = coverage || d->coverage != NULL;
	slot->last_use = ++design_cache_clock;
	return d;
}

/* queries 1..queries of a Bernoulli design available, or an error */
static void
design_extend(tapas_design_t *d, int queries)
{
	const char *reason = NULL;
	tapas_status st = tapas_design_extend(d, queries, &design_progress_cb, &reason);

	if (st == TAPAS_ELIMIT)
		reason = "counting the coverage of these queries takes too long";
	tapas_raise_status(st, "cannot extend the query design", reason);
}

/*
 * tapas.design_size(method text, n bigint, s integer, k bigint) -> integer
 */
Datum
tapas_sql_design_size(PG_FUNCTION_ARGS)
{
	int			method = design_parse_method(PG_GETARG_TEXT_PP(0));
	tapas_design_t *d = design_get(method, PG_GETARG_INT64(1), PG_GETARG_INT32(2),
								   PG_GETARG_INT64(3), 0, false);

	PG_RETURN_INT32(d->m);
}

/*
 * tapas.design_member(method, n, s, query_no, record, k, seed) -> boolean.
 * query_no counts from 1.  Errors depend only on the design arguments and
 * query_no; any record outside 1..n is simply not a member.
 */
Datum
tapas_sql_design_member(PG_FUNCTION_ARGS)
{
	int			method = design_parse_method(PG_GETARG_TEXT_PP(0));
	int32		query_no = PG_GETARG_INT32(3);
	tapas_design_t *d = design_get(method, PG_GETARG_INT64(1), PG_GETARG_INT32(2),
								   PG_GETARG_INT64(5), PG_GETARG_INT64(6), false);

	if (query_no < 1 || (query_no > d->m && method != TAPAS_DESIGN_BERNOULLI))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query number %d is out of range for this design", query_no),
				 errdetail("The design has %d queries, numbered from 1.", d->m),
				 method == TAPAS_DESIGN_BERNOULLI ? 0 :
				 errhint("Only the bernoulli design takes any query number >= 1.")));
	/* a random design is endless: rows beyond design_size on demand */
	if (query_no > tapas_design_queries(d))
		design_extend(d, query_no);
	PG_RETURN_BOOL(tapas_design_member(d, query_no - 1, PG_GETARG_INT64(4)));
}

/*
 * tapas.design_info(method, n, s, k, seed)
 *	  -> (queries integer, min_coverage bigint, mean_coverage float8)
 */
Datum
tapas_sql_design_info(PG_FUNCTION_ARGS)
{
	int			method = design_parse_method(PG_GETARG_TEXT_PP(0));
	tapas_design_t *d = design_get(method, PG_GETARG_INT64(1), PG_GETARG_INT32(2),
								   PG_GETARG_INT64(3), PG_GETARG_INT64(4), true);
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum(d->m);
	values[1] = Int64GetDatum(d->min_coverage);
	values[2] = Float8GetDatum(d->mean_coverage);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
													  values, nulls)));
}

/*
 * The answers array as doubles: one dimension, m elements, no NULLs, and
 * integers when exact (checked on the numeric values themselves).
 */
static double *
design_answers(ArrayType *arr, int m, bool exact, int *count_out)
{
	Datum	   *elems;
	bool	   *nulls;
	int			count,
				i;
	double	   *a;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("answers must be a one-dimensional array")));
	deconstruct_array(arr, NUMERICOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &count);
	if (m < 0 && count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expected at least one answer")));
	if (m < 0)
		m = count;
	*count_out = count;
	if (count != m)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("expected %d answers, got %d", m, count),
				 errhint("Give one answer per query, in query order; tapas.design_size() gives the number of queries.")));
	a = palloc(sizeof(double) * Max(m, 1));
	for (i = 0; i < m; i++)
	{
		if ((i & 0xffff) == 0xffff)
			CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("answer %d is NULL", i + 1)));
		if (exact &&
			!DatumGetBool(DirectFunctionCall2(numeric_eq, elems[i],
											  DirectFunctionCall2(numeric_trunc, elems[i],
																  Int32GetDatum(0)))))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("answer %d is not an integer", i + 1),
					 errhint("Exact answers (noise 0) are counts or sums of integers.")));
		a[i] = DatumGetFloat8(DirectFunctionCall1(numeric_float8, elems[i]));
	}
	return a;
}

/*
 * tapas.reconstruct(method, n, answers numeric[], s, k, seed, noise)
 *	  -> TABLE(record bigint, value float8)
 */
Datum
tapas_sql_reconstruct(PG_FUNCTION_ARGS)
{
	static const char *const argnames[] = {"method", "n", "answers", "s", "k", "seed", "noise"};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	tapas_design_t *d;
	double	   *answers,
			   *values,
				noise;
	int64	   *records,
				count = 0,
				i;
	int			na;
	TapasProgressNotice pn;
	tapas_progress_t progress = {tapas_progress_notice_cb, &pn};
	tapas_status st;
	const char *reason = NULL;

	for (i = 0; i < 7; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" must not be NULL", argnames[i])));
	noise = PG_GETARG_FLOAT8(6);
	d = design_get(design_parse_method(PG_GETARG_TEXT_PP(0)), PG_GETARG_INT64(1),
				   PG_GETARG_INT32(3), PG_GETARG_INT64(4), PG_GETARG_INT64(5), false);
	/* bernoulli: any number of answers, to queries 1..na of the endless design */
	answers = design_answers(PG_GETARG_ARRAYTYPE_P(2),
							 d->method == TAPAS_DESIGN_BERNOULLI ? -1 : d->m,
							 noise == 0, &na);
	if (na > tapas_design_queries(d))
		design_extend(d, na);
	records = palloc(sizeof(int64) * d->n);
	values = palloc(sizeof(double) * d->n);

	/* the kernel raises nothing; it only allocates through tapas_malloc */
	tapas_progress_notice_init(&pn, "tapas.reconstruct", "decoding");
	st = tapas_design_decode_n(d, answers, na, noise, records, values, &count,
							   &progress, &reason);
	CHECK_FOR_INTERRUPTS();
	tapas_raise_status(st, st == TAPAS_EINVAL ? "invalid answers" :
					   "could not reconstruct the records from the answers", reason);

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < count; i++)
	{
		Datum		row[2] = {Int64GetDatum(records[i]), Float8GetDatum(values[i])};
		bool		nulls[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, nulls);
	}
	return (Datum) 0;
}
