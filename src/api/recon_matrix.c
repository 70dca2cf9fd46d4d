/*-------------------------------------------------------------------------
 *
 * recon_matrix.c
 *	  SQL wrappers of the generic decoders: tapas.reconstruct_matrix for a
 *	  caller-given 0/1 query matrix, as an array or as a query.
 *
 * Both forms build a tapas_binmat_t A (rows = queries 1..m, columns =
 * records) and the answer vector b, run one decoder of src/recon/
 * (cs.h: omp, nnls, lp; sparse_search.h: sparse; exact.h: exact) and
 * return (record, value) rows.  In the array form records are the column
 * numbers 1..n; in the query form the query returns (query_no, record)
 * pairs, the distinct record ids become the columns in ascending order,
 * and query_no i refers to answers[i].
 *
 * As every wrapper of a kernel does, every input is converted and checked
 * first (palloc'd), the kernel runs with nothing that can raise in between
 * (its progress callback, policy/progress_pg.h, reads interrupt flags and
 * reports NOTICEs, which never jump), its memory is freed, and only then
 * CHECK_FOR_INTERRUPTS() and the status is mapped to ereport.
 *
 * IDENTIFICATION
 *	  src/api/recon_matrix.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "recon/binmat.h"
#include "recon/cs.h"
#include "recon/exact.h"
#include "recon/sparse_search.h"
#include "policy/policy.h"
#include "util/compare.h"
#include "policy/progress_pg.h"

PG_FUNCTION_INFO_V1(tapas_sql_reconstruct_matrix);
PG_FUNCTION_INFO_V1(tapas_sql_reconstruct_matrix_query);

/* largest matrix accepted, in entries (bits) */
#define RECON_MATRIX_MAX_ENTRIES	((double) 1e10)

/* the method argument */
typedef enum recon_method
{
	RM_OMP,
	RM_NNLS,
	RM_LP,
	RM_BHTP,
	RM_SPARSE,
	RM_EXACT
} recon_method;

/* checked arguments shared by both forms */
typedef struct recon_args
{
	recon_method method;
	int			s;
	double		noise;
	bool		binary;
	int			m;				/* number of answers */
	double	   *b;				/* answers as doubles */
	int64	   *bi;				/* answers as integers (sparse, exact) */
} recon_args;

static recon_method
parse_method(text *t)
{
	char	   *name = text_to_cstring(t);

	if (strcmp(name, "omp") == 0)
		return RM_OMP;
	if (strcmp(name, "nnls") == 0)
		return RM_NNLS;
	if (strcmp(name, "lp") == 0)
		return RM_LP;
	if (strcmp(name, "bhtp") == 0)
		return RM_BHTP;
	if (strcmp(name, "sparse") == 0)
		return RM_SPARSE;
	if (strcmp(name, "exact") == 0)
		return RM_EXACT;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized reconstruction method \"%s\"", name),
			 errhint("Valid methods are \"omp\", \"nnls\", \"lp\", \"bhtp\", \"sparse\" and \"exact\".")));
	return RM_OMP;				/* keep compiler quiet */
}

/* Checks arguments 1.. (answers, method, s, noise, binary) into a. */
static void
parse_common(FunctionCallInfo fcinfo, recon_args *a)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			i,
				k;
	const char *names[] = {"rows", "answers", "method", "s", "noise", "binary"};

	for (k = 0; k < 6; k++)
		if (PG_ARGISNULL(k))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("argument \"%s\" must not be null", names[k])));
	a->method = parse_method(PG_GETARG_TEXT_PP(2));
	a->s = PG_GETARG_INT32(3);
	a->noise = PG_GETARG_FLOAT8(4);
	a->binary = PG_GETARG_BOOL(5);
	if (a->s < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("s must be at least 1")));
	if (a->method == RM_SPARSE && a->s > TAPAS_SPARSE_MAX_WEIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("s must be at most %d for method \"sparse\"",
						TAPAS_SPARSE_MAX_WEIGHT)));
	if (!(a->noise >= 0.0) || isinf(a->noise))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("noise must be a finite non-negative number")));
	arr = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(arr) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("answers must be a one-dimensional array")));
	deconstruct_array(arr, NUMERICOID, -1, false, TYPALIGN_INT, &elems, &nulls,
					  &a->m);
	a->b = palloc(sizeof(double) * a->m);
	a->bi = palloc(sizeof(int64) * a->m);
	for (i = 0; i < a->m; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("answers must not contain nulls"),
					 errdetail("Answer %d is null.", i + 1)));
		a->b[i] = DatumGetFloat8(DirectFunctionCall1(numeric_float8, elems[i]));
		if (!isfinite(a->b[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("answers must be finite numbers")));
		if ((a->method == RM_SPARSE || a->method == RM_EXACT) &&
			(a->b[i] != floor(a->b[i]) || fabs(a->b[i]) > 1e15))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("method \"%s\" needs integer answers",
							a->method == RM_SPARSE ? "sparse" : "exact"),
					 errdetail("Answer %d is %g.", i + 1, a->b[i])));
		a->bi[i] = (int64) a->b[i];
	}
}

static void
check_size(double m, double n)
{
	if (m * n > RECON_MATRIX_MAX_ENTRIES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("query matrix of %.0f x %.0f entries is too large", m, n)));
}

/* the kernel's result, in palloc'd memory, before any ereport */
typedef struct recon_out
{
	tapas_status st;
	double	   *x;				/* n values (NaN = not returned) */
	tapas_cs_report cs;			/* omp, nnls, lp */
	size_t		found;			/* sparse: number of solutions */
	double		work;			/* sparse: pairs examined */
	tapas_exact_result ex;		/* exact */
	unsigned char *det;			/* exact: scratch, n */
} recon_out;

/* palloc's the outputs for n records (before the kernel memory exists) */
static void
prepare_out(recon_out *o, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->x = palloc0(sizeof(double) * (n ? n : 1));
	o->det = palloc0(n ? n : 1);
}

/* Runs the decoder; frees A.  Raises nothing. */
static void
run_kernel(tapas_binmat_t *A, const recon_args *a, recon_out *o)
{
	TapasProgressNotice pn;
	tapas_progress_t progress = {tapas_progress_notice_cb, &pn};
	size_t		j;

	tapas_progress_notice_init(&pn, "tapas.reconstruct_matrix", "decoding");

	if (a->method == RM_SPARSE)
	{
		tapas_sparse_result res;

		o->st = tapas_sparse_search(A, a->bi, a->s, 1, TAPAS_SPARSE_WORK_LIMIT,
									&res, &progress);
		o->found = res.found;
		o->work = res.work;
		for (j = 0; j < A->n; j++)
			o->x[j] = NAN;
		if (o->st == TAPAS_OK && res.found == 1)
			for (j = 0; j < 3; j++)
				if (res.supports[j] >= 0)
					o->x[res.supports[j]] = 1.0;
		tapas_sparse_result_clear(&res);
	}
	else if (a->method == RM_EXACT)
	{
		tapas_rng_t rng;

		/* fresh secret primes for each call (exact.c) */
		tapas_rng_seed(&rng, pg_prng_uint64(&pg_global_prng_state));
		o->st = tapas_exact_solve(A, a->bi, &rng, o->x, o->det, &o->ex,
								  &progress);
	}
	else
	{
		tapas_cs_method cm = a->method == RM_OMP ? TAPAS_CS_OMP :
			a->method == RM_NNLS ? TAPAS_CS_NNLS :
			a->method == RM_BHTP ? TAPAS_CS_BHTP : TAPAS_CS_LP;

		o->st = tapas_cs_recover(A, a->b, a->s, a->noise, cm, a->binary, o->x,
								 &o->cs, &progress);
		for (j = 0; j < A->n; j++)
			if (o->x[j] == 0.0)
				o->x[j] = NAN;
	}
	tapas_binmat_free(A);
}

/* Maps a failed status or an unusable result to ereport. */
static void
report_failure(const recon_args *a, const recon_out *o)
{
	CHECK_FOR_INTERRUPTS();
	if (o->st == TAPAS_ELIMIT)
		ereport(ERROR,
				(errcode(tapas_status_errcode(o->st)),
				 errmsg("reconstruction problem is too large for method \"%s\"",
						a->method == RM_SPARSE ? "sparse" : "exact"),
				 a->method == RM_SPARSE ?
				 errdetail("The weight-3 search would examine %.0f candidate pairs.", o->work) : 0));
	tapas_raise_status(o->st, "reconstruction failed", NULL);
	if (a->method == RM_SPARSE && o->found != 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 o->found == 0 ?
				 errmsg("no binary vector of weight at most %d is consistent with the answers", a->s) :
				 errmsg("answers do not determine a unique binary vector of weight at most %d", a->s),
				 o->found ? errdetail("%zu binary vectors of weight at most %d are consistent with the answers.", o->found, a->s) : 0));
	if (a->method == RM_EXACT && !o->ex.consistent)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("answers are inconsistent with the query matrix"),
				 errdetail("No real x satisfies every answer.")));
	if (a->method != RM_SPARSE && a->method != RM_EXACT && !o->cs.consistent)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("decoded values are inconsistent with the answers"),
				 errdetail("Residual norm %g, largest residual %g, %d nonzero values.",
						   o->cs.residual_norm, o->cs.max_residual, o->cs.support),
				 errhint("More queries, a larger s or another method may help.")));
}

/* Emits (record, value) for every returned x[j]; ids NULL = j + 1. */
static void
emit(FunctionCallInfo fcinfo, const recon_out *o, size_t n, const int64 *ids)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	size_t		j;

	InitMaterializedSRF(fcinfo, 0);
	for (j = 0; j < n; j++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if (isnan(o->x[j]))
			continue;
		values[0] = Int64GetDatum(ids ? ids[j] : (int64) j + 1);
		values[1] = Float8GetDatum(o->x[j]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

Datum
tapas_sql_reconstruct_matrix(PG_FUNCTION_ARGS)
{
	recon_args	a;
	recon_out	o;
	ArrayType  *rows;
	Datum	   *elems;
	bool	   *nulls;
	int			nelem,
				m,
				n,
				i,
				j;
	tapas_binmat_t *A;

	parse_common(fcinfo, &a);
	rows = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(rows) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rows must be a two-dimensional array"),
				 errhint("Pass one inner array per query, all of the same length.")));
	m = ARR_DIMS(rows)[0];
	n = ARR_DIMS(rows)[1];
	if (m != a.m)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("answers has %d elements but rows has %d queries", a.m, m)));
	check_size(m, n);
	deconstruct_array(rows, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &nelem);
	for (i = 0; i < nelem; i++)
		if (nulls[i] || (DatumGetInt64(elems[i]) != 0 && DatumGetInt64(elems[i]) != 1))
			ereport(ERROR,
					(errcode(nulls[i] ? ERRCODE_NULL_VALUE_NOT_ALLOWED : ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rows must contain only 0 and 1"),
					 errdetail("Query %d, record %d is %s.", i / n + 1, i % n + 1,
							   nulls[i] ? "null" : "another value")));
	prepare_out(&o, (size_t) n);
	if ((A = tapas_binmat_create((size_t) m, (size_t) n)) == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			tapas_binmat_set(A, i, j, DatumGetInt64(elems[(size_t) i * n + j]) != 0);
	run_kernel(A, &a, &o);
	report_failure(&a, &o);
	emit(fcinfo, &o, (size_t) n, NULL);
	return (Datum) 0;
}

/* an integer column value of the SPI result, or an error */
static int64
spi_int(HeapTuple tup, TupleDesc desc, int col, const char *what)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);
	Oid			type = SPI_gettypeid(desc, col);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("query returned a null %s", what)));
	if (type == INT8OID)
		return DatumGetInt64(d);
	if (type == INT4OID)
		return DatumGetInt32(d);
	return DatumGetInt16(d);
}

/*
 * Runs the query and returns its (query_no, record) pairs in palloc'd
 * arrays of the caller's memory context.
 */
static uint64
read_pairs(text *query, int m, int64 **qno, int64 **rec)
{
	MemoryContext outer = CurrentMemoryContext;
	char	   *sql = text_to_cstring(query);
	uint64		k,
				cnt;
	TupleDesc	desc;
	int			c;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query must be a SELECT returning (query_no, record)")));
	desc = SPI_tuptable->tupdesc;
	for (c = 1; c <= 2 && desc->natts == 2; c++)
	{
		Oid			t = SPI_gettypeid(desc, c);

		if (t != INT8OID && t != INT4OID && t != INT2OID)
			break;
	}
	if (desc->natts != 2 || c != 3)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("query must return two integer columns (query_no, record)")));
	cnt = SPI_processed;
	*qno = MemoryContextAlloc(outer, sizeof(int64) * (cnt ? cnt : 1));
	*rec = MemoryContextAlloc(outer, sizeof(int64) * (cnt ? cnt : 1));
	for (k = 0; k < cnt; k++)
	{
		HeapTuple	tup = SPI_tuptable->vals[k];

		(*qno)[k] = spi_int(tup, desc, 1, "query_no");
		(*rec)[k] = spi_int(tup, desc, 2, "record");
		if ((*qno)[k] < 1 || (*qno)[k] > m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("query_no %lld is out of range", (long long) (*qno)[k]),
					 errdetail("There are %d answers, so query_no must be between 1 and %d.", m, m)));
		if ((k & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	SPI_finish();
	return cnt;
}

/* Sorts the distinct record ids into ids; returns their number. */
static size_t
distinct_ids(const int64 *rec, uint64 cnt, int64 *ids)
{
	size_t		n = 0;
	uint64		k;

	memcpy(ids, rec, sizeof(int64) * cnt);
	qsort(ids, cnt, sizeof(int64), tapas_cmp_int64);
	for (k = 0; k < cnt; k++)
		if (n == 0 || ids[n - 1] != ids[k])
			ids[n++] = ids[k];
	return n;
}

Datum
tapas_sql_reconstruct_matrix_query(PG_FUNCTION_ARGS)
{
	recon_args	a;
	recon_out	o;
	int64	   *qno,
			   *rec,
			   *ids;
	uint64		cnt,
				k;
	size_t		n;
	tapas_binmat_t *A;

	parse_common(fcinfo, &a);
	if (a.m == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("answers must not be empty")));
	cnt = read_pairs(PG_GETARG_TEXT_PP(0), a.m, &qno, &rec);
	ids = palloc(sizeof(int64) * (cnt ? cnt : 1));
	n = distinct_ids(rec, cnt, ids);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query returned no (query_no, record) pairs")));
	check_size(a.m, (double) n);
	prepare_out(&o, n);
	if ((A = tapas_binmat_create((size_t) a.m, n)) == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (k = 0; k < cnt; k++)
	{
		int64	   *pos = bsearch(&rec[k], ids, n, sizeof(int64), tapas_cmp_int64);

		tapas_binmat_set(A, (size_t) (qno[k] - 1), (size_t) (pos - ids), 1);
	}
	run_kernel(A, &a, &o);
	report_failure(&a, &o);
	emit(fcinfo, &o, n, ids);
	return (Datum) 0;
}
