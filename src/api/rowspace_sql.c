/*-------------------------------------------------------------------------
 *
 * rowspace_sql.c
 *	  SQL wrappers of the row-space kernel: which records a set of queries
 *	  determines (tapas.rowspace_determined) and at which query each one
 *	  becomes determined (tapas.rowspace_trace).
 *
 * Both take the queries as an m x n 0/1 matrix (one inner array per query,
 * records are the column numbers 1..n), the convention of
 * tapas.reconstruct_matrix.  Each call draws its own secret prime near 2^62
 * from pg_strong_random, so it never reveals the server's prime; errors are
 * one-sided and below about 1e-10 (src/recon/rowspace.h).
 *
 * As every wrapper of a kernel does, the matrix is converted and checked
 * first and every output buffer is palloc'd before the kernel is created;
 * between create and free nothing can raise (the progress callback only
 * reads the pending cancel); then CHECK_FOR_INTERRUPTS() and the status is
 * mapped to ereport.  Admin only: these functions serve auditors checking a
 * query set by hand.
 *
 * IDENTIFICATION
 *	  src/api/rowspace_sql.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/tuplestore.h"

#include "recon/rowspace.h"
#include "policy/policy.h"
#include "util/compare.h"

PG_FUNCTION_INFO_V1(tapas_sql_rowspace_determined);
PG_FUNCTION_INFO_V1(tapas_sql_rowspace_trace);

/* the queries as CSR rows of 0-based record indices */
typedef struct rowspace_rows
{
	int			m;				/* queries */
	int			n;				/* records */
	uint32_t   *ids;			/* covered records, row by row */
	size_t	   *off;			/* [m + 1] row starts in ids */
} rowspace_rows;

/* what the kernel found: record j + 1 determined at query at[j] (1-based) */
typedef struct rowspace_result
{
	int			count;
	int32	   *record;			/* [n] records, 1-based */
	int32	   *query;			/* [n] the query that determined it */
} rowspace_result;

static int
rowspace_interrupt(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

/* Checks and converts the rows argument (a 2-D 0/1 bigint array). */
static void
parse_rows(ArrayType *arr, rowspace_rows *rows)
{
	Datum	   *elems;
	bool	   *nulls;
	int			nelems,
				i,
				j;
	size_t		len = 0;

	rows->m = rows->n = 0;
	if (ARR_NDIM(arr) == 0)
		return;
	if (ARR_NDIM(arr) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rows must be a two-dimensional array"),
				 errhint("Pass one inner array of 0/1 entries per query, one entry per record.")));
	rows->m = ARR_DIMS(arr)[0];
	rows->n = ARR_DIMS(arr)[1];
	if (rows->n >= INT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many records: %d", rows->n)));
	deconstruct_array(arr, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &nelems);
	rows->off = palloc(sizeof(size_t) * (rows->m + 1));
	rows->ids = palloc(sizeof(uint32_t) * Max(nelems, 1));
	for (i = 0; i < rows->m; i++)
	{
		rows->off[i] = len;
		for (j = 0; j < rows->n; j++)
		{
			int			k = i * rows->n + j;
			int64		v = nulls[k] ? -1 : DatumGetInt64(elems[k]);

			if (v != 0 && v != 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("rows must contain only 0 and 1"),
						 errdetail("Entry [%d][%d] is %s.", i + 1, j + 1,
								   nulls[k] ? "null" : "neither 0 nor 1")));
			if (v == 1)
				rows->ids[len++] = (uint32_t) j;
		}
	}
	rows->off[rows->m] = len;
}

/* runs the kernel over the rows one query at a time; no ereport inside */
static tapas_status
run_kernel(const rowspace_rows *rows, uint64_t seed, rowspace_result *res)
{
	tapas_progress_t progress = {rowspace_interrupt, NULL};
	tapas_rowspace_t *rs;
	tapas_rng_t rng;
	tapas_status st = TAPAS_OK;
	uint32_t	limit = rows->m < TAPAS_ROWSPACE_RANK_MAX ?
		(uint32_t) Max(rows->m, 1) : TAPAS_ROWSPACE_RANK_MAX;
	int			i;

	tapas_rng_seed(&rng, seed);
	rs = tapas_rowspace_create((uint32_t) rows->n,
							   tapas_rowspace_prime_draw(&rng), limit, &rng,
							   NULL);
	if (rs == NULL)
		return TAPAS_ENOMEM;
	for (i = 0; i < rows->m && st == TAPAS_OK; i++)
	{
		const uint32_t *newly;
		size_t		count,
					k;

		st = tapas_rowspace_add(rs, rows->ids, rows->off + i, 1, &progress,
								&newly, &count);
		for (k = 0; st == TAPAS_OK && k < count; k++)
		{
			res->record[res->count] = (int32) newly[k] + 1;
			res->query[res->count++] = i + 1;
		}
	}
	tapas_rowspace_free(rs);
	return st;
}

/* Orders (query, record) pairs; records within a query ascending. */
static int
cmp_pairs(const void *a, const void *b)
{
	const int32 *x = a,
			   *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Checks, runs and maps the status; returns (query, record) pairs sorted. */
static int32 *
rowspace_compute(FunctionCallInfo fcinfo, const char *what, int *npairs)
{
	rowspace_rows rows;
	rowspace_result res;
	uint64_t	seed;
	tapas_status st;
	int32	   *pairs;
	int			k;

	tapas_require_admin(what);
	parse_rows(PG_GETARG_ARRAYTYPE_P(0), &rows);
	*npairs = 0;
	if (rows.m == 0 || rows.n == 0)
		return NULL;
	if (!pg_strong_random(&seed, sizeof(seed)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random prime")));
	res.count = 0;
	res.record = palloc(sizeof(int32) * rows.n);
	res.query = palloc(sizeof(int32) * rows.n);
	st = run_kernel(&rows, seed, &res);
	CHECK_FOR_INTERRUPTS();
	if (st == TAPAS_ELIMIT)
		ereport(ERROR,
				(errcode(tapas_status_errcode(st)),
				 errmsg("rank of the query matrix exceeds %d",
						TAPAS_ROWSPACE_RANK_MAX)));
	if (st == TAPAS_ENOMEM)
		ereport(ERROR,
				(errcode(tapas_status_errcode(st)),
				 errmsg("out of memory"),
				 errdetail("The row-space test of %d queries over %d records did not fit.",
						   rows.m, rows.n)));
	tapas_raise_status(st, "row-space kernel failed", NULL);
	pairs = palloc(sizeof(int32) * 2 * Max(res.count, 1));
	for (k = 0; k < res.count; k++)
	{
		pairs[2 * k] = res.query[k];
		pairs[2 * k + 1] = res.record[k];
	}
	qsort(pairs, res.count, 2 * sizeof(int32), cmp_pairs);
	*npairs = res.count;
	return pairs;
}

/*
 * tapas.rowspace_determined(rows bigint[][]) RETURNS SETOF integer: the
 * records (columns 1..n) whose value the queries determine, ascending.
 */
Datum
tapas_sql_rowspace_determined(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	int32	   *records;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcontext;
		int32	   *pairs;
		int			npairs,
					k;

		funcctx = SRF_FIRSTCALL_INIT();
		/* the result must outlive this call: build it in the SRF context */
		oldcontext = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		pairs = rowspace_compute(fcinfo, "run tapas.rowspace_determined", &npairs);
		records = palloc(sizeof(int32) * Max(npairs, 1));
		for (k = 0; k < npairs; k++)
			records[k] = pairs[2 * k + 1];
		qsort(records, npairs, sizeof(int32), tapas_cmp_int32);
		funcctx->user_fctx = records;
		funcctx->max_calls = npairs;
		MemoryContextSwitchTo(oldcontext);
	}
	funcctx = SRF_PERCALL_SETUP();
	records = funcctx->user_fctx;
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		/* SRF_RETURN_NEXT advances call_cntr before using its argument */
		Datum		result = Int32GetDatum(records[funcctx->call_cntr]);

		SRF_RETURN_NEXT(funcctx, result);
	}
	SRF_RETURN_DONE(funcctx);
}

/*
 * tapas.rowspace_trace(rows bigint[][]) RETURNS TABLE(query integer,
 * record integer): for each query (1..m) the records it makes determined.
 */
Datum
tapas_sql_rowspace_trace(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32	   *pairs;
	int			npairs,
				k;

	pairs = rowspace_compute(fcinfo, "run tapas.rowspace_trace", &npairs);
	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < npairs; k++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int32GetDatum(pairs[2 * k]);
		values[1] = Int32GetDatum(pairs[2 * k + 1]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
