/*-------------------------------------------------------------------------
 *
 * attacks_shadow_gen.c
 *	  User SQL generators for tapas.evaluate, called through SPI.
 *
 * Signature: fn(training regclass, num_rows integer, seed bigint) RETURNS
 * SETOF <a row type with the dataset's columns> (RETURNS TABLE or SETOF a
 * table type; extra columns are ignored, missing ones are an error).  For
 * each dataset the training rows are written, decoded to their original
 * values, into a temporary table with the auxiliary table's column types
 * (created once per call, ON COMMIT DROP); the function's result is
 * materialised into a second temporary table, read back with the
 * auxiliary table's dictionaries (a value the auxiliary table never has is
 * an error) and dropped.  Everything runs as the calling user.
 * This costs a few SPI round trips per dataset, which only user
 * generators pay: the built-in ones never leave C.
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
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/snapmgr.h"

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
	char	   *out_name = psprintf("tapas_evaluate_out_%d_%d", MyProcPid, usergen_counter);
	double	   *syn;
	size_t		n_out;

	run_sql(psprintf("TRUNCATE pg_temp.%s", quote_identifier(gen->train_name)),
			SPI_OK_UTILITY);
	run_sql(insert_sql(gen, rows, n), SPI_OK_INSERT);
	run_sql(psprintf("CREATE TEMP TABLE %s ON COMMIT DROP AS SELECT * FROM %s(%u::oid::regclass, %zu, " INT64_FORMAT ")",
					 quote_identifier(out_name), gen->fn_sql, gen->train_rel,
					 num_rows, seed),
			SPI_OK_UTILITY);
	/*
	 * The reader runs read-only SPI, which uses the active snapshot: make it
	 * one that sees the rows this transaction just wrote.
	 */
	CommandCounterIncrement();
	PushCopiedSnapshot(GetActiveSnapshot());
	UpdateActiveSnapshotCommandId();
	syn = tapas_attack_read_table(gen->schema, temp_table_oid(out_name),
								  "generator output", &n_out, NULL, gen->cxt);
	PopActiveSnapshot();
	if (n_out > cap)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("generator %s returned %zu rows, more than the %zu requested",
						gen->fn_sql, n_out, cap)));
	memcpy(out, syn, n_out * gen->schema->ncols * sizeof(double));
	run_sql(psprintf("DROP TABLE pg_temp.%s", quote_identifier(out_name)), SPI_OK_UTILITY);
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
