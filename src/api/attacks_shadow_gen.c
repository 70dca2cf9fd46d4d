/*-------------------------------------------------------------------------
 *
 * attacks_shadow_gen.c
 *	  User SQL generators for tapas.evaluate, called through SPI.
 *
 * Signature: fn(training regclass, num_rows integer, seed bigint) RETURNS
 * SETOF <a row type with the dataset's columns> (RETURNS TABLE or SETOF a
 * table type; extra columns are ignored, missing ones are an error).  For
 * each dataset the training rows are written, decoded to their original
 * values, into one temporary table with the auxiliary table's column types
 * (created once per call, truncated and refilled per dataset, dropped at
 * the end), and the function's result is read straight from a SELECT on
 * the call with the auxiliary table's dictionaries (a value the auxiliary
 * table never has is an error).  Everything runs as the calling user.
 *
 * No relation is created per dataset: each CREATE/DROP takes locks that
 * are held until the transaction ends, so a table per dataset filled the
 * shared lock table ("out of shared memory") after about a thousand
 * datasets (max_locks_per_transaction x max_connections entries).  With
 * one table the call holds a fixed handful of locks whatever the number
 * of datasets.  This costs a few SPI round trips per dataset, which only
 * user generators pay: the built-in ones never leave C.
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow_gen.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/snapmgr.h"

#include "api/attacks_pg.h"
#include "api/attacks_shadow.h"

static int	usergen_counter = 0;

/* runs sql (must succeed with the expected code) */
static void
run_sql(const char *sql, int expect)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expect)
		elog(ERROR, "SPI_execute failed (%d): %s", rc, sql);
	if (SPI_tuptable != NULL)
		SPI_freetuptable(SPI_tuptable);
}

/* oid of a temp table by its bare name */
static Oid
temp_table_oid(const char *name)
{
	char	   *sql = psprintf("SELECT %s::regclass::oid",
							   quote_literal_cstr(psprintf("pg_temp.%s", name)));
	bool		isnull;
	Oid			oid;

	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not find temporary table \"%s\"", name);
	oid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
										 SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	return oid;
}

/* the dataset columns as a quoted select list */
static char *
column_list(TapasAttackSchema *schema)
{
	StringInfoData buf;
	int			j;

	initStringInfo(&buf);
	for (j = 0; j < schema->ncols; j++)
		appendStringInfo(&buf, "%s%s", j ? ", " : "",
						 quote_identifier(schema->cols[j].name));
	return buf.data;
}

/* the columns of fn's rows (RETURNS TABLE, OUT parameters or SETOF a row type) */
static TupleDesc
result_desc(Oid fn, const char *sig)
{
	TupleDesc	desc = NULL;

	if (get_func_result_type(fn, NULL, &desc) != TYPEFUNC_COMPOSITE || desc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("generator function %s must return rows of a named row type", sig),
				 errhint("Declare it RETURNS TABLE (...) with the dataset's columns, or RETURNS SETOF a table type.")));
	return CreateTupleDescCopy(desc);
}

void
tapas_shadow_usergen_init(ShadowUserGen *gen, const char *fname,
						  TapasAttackSchema *schema, Oid auxiliary)
{
	char	   *sig = psprintf("%s(regclass, integer, bigint)", fname);
	Oid			argtypes[3] = {REGCLASSOID, INT4OID, INT8OID};

	memset(gen, 0, sizeof(*gen));
	gen->fn = LookupFuncName(stringToQualifiedNameList(fname), 3, argtypes, true);
	if (!OidIsValid(gen->fn))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("generator \"%s\" is neither raw, marginals nor a function %s",
						fname, sig),
				 errhint("A generator function takes (training regclass, num_rows integer, seed bigint) and returns a set of rows with the dataset's columns.")));
	if (!get_func_retset(gen->fn))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("generator function %s must return a set of rows", sig)));
	gen->out_desc = result_desc(gen->fn, sig);
	gen->fn_sql = quote_qualified_identifier(get_namespace_name(get_func_namespace(gen->fn)),
											 get_func_name(gen->fn));
	gen->schema = schema;
	gen->train_name = psprintf("tapas_evaluate_train_%d_%d", MyProcPid, ++usergen_counter);
	run_sql(psprintf("CREATE TEMP TABLE %s ON COMMIT DROP AS SELECT %s FROM %s LIMIT 0",
					 quote_identifier(gen->train_name), column_list(schema),
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(auxiliary)),
												get_rel_name(auxiliary))),
			SPI_OK_UTILITY);
	gen->train_rel = temp_table_oid(gen->train_name);
	gen->cxt = AllocSetContextCreate(CurrentMemoryContext, "tapas generator",
									 ALLOCSET_DEFAULT_SIZES);
}

/* INSERT statement with the n coded rows decoded to literals */
static char *
insert_sql(ShadowUserGen *gen, const double *rows, size_t n)
{
	TapasAttackSchema *s = gen->schema;
	StringInfoData buf;
	size_t		i;
	int			j;

	initStringInfo(&buf);
	appendStringInfo(&buf, "INSERT INTO pg_temp.%s VALUES ", quote_identifier(gen->train_name));
	for (i = 0; i < n; i++)
	{
		appendStringInfoString(&buf, i ? ", (" : "(");
		for (j = 0; j < s->ncols; j++)
		{
			TapasAttackColumn *col = &s->cols[j];
			double		v = rows[i * s->ncols + j];
			const char *label;

			if (j)
				appendStringInfoString(&buf, ", ");
			if (col->kind == TAPAS_COLUMN_CONTINUOUS)
			{
				appendStringInfo(&buf, "'%.17g'", v);
				continue;
			}
			label = col->labels[(int) v];
			appendStringInfoString(&buf, label ? quote_literal_cstr(label) : "NULL");
		}
		appendStringInfoChar(&buf, ')');
	}
	return buf.data;
}

size_t
tapas_shadow_usergen_run(ShadowUserGen *gen, const double *rows, size_t n,
						 size_t num_rows, int64 seed, double *out, size_t cap)
{
	MemoryContext old = MemoryContextSwitchTo(gen->cxt);
	char	   *call;
	double	   *syn;
	size_t		n_out;

	run_sql(psprintf("TRUNCATE pg_temp.%s", quote_identifier(gen->train_name)),
			SPI_OK_UTILITY);
	run_sql(insert_sql(gen, rows, n), SPI_OK_INSERT);
	call = psprintf("%s(%u::oid::regclass, %zu, " INT64_FORMAT ") AS g",
					gen->fn_sql, gen->train_rel, num_rows, seed);
	/*
	 * The reader runs read-only SPI, which uses the active snapshot: make it
	 * one that sees the rows this transaction just wrote.
	 */
	CommandCounterIncrement();
	PushCopiedSnapshot(GetActiveSnapshot());
	UpdateActiveSnapshotCommandId();
	syn = tapas_attack_read_from(gen->schema, gen->out_desc, call,
								 "generator output", gen->fn_sql, &n_out, gen->cxt);
	PopActiveSnapshot();
	if (n_out > cap)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("generator %s returned %zu rows, more than the %zu requested",
						gen->fn_sql, n_out, cap)));
	memcpy(out, syn, n_out * gen->schema->ncols * sizeof(double));
	MemoryContextSwitchTo(old);
	MemoryContextReset(gen->cxt);
	return n_out;
}

void
tapas_shadow_usergen_finish(ShadowUserGen *gen)
{
	run_sql(psprintf("DROP TABLE IF EXISTS pg_temp.%s", quote_identifier(gen->train_name)),
			SPI_OK_UTILITY);
	MemoryContextDelete(gen->cxt);
}
