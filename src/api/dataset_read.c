/*-------------------------------------------------------------------------
 *
 * dataset_read.c
 *	  Reading a table's rows into the kernels' raw matrix, and
 *	  tapas.describe().
 *
 * One SELECT per table reads every dataset column in schema order:
 * categorical and ordinal columns as text (mapped to codes through the
 * column's dictionary), continuous ones as float8 (dates and timestamps
 * converted as in dataset.c).  Columns the table lacks, and the AIA
 * sensitive column in any table but the synthetic one, read as NULL and
 * become code 0: they are never looked at.
 *
 * IDENTIFICATION
 *	  src/api/dataset_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "api/attacks_pg.h"
#include "api/dataset_int.h"
#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		Reading rows
 * ----------------------------------------------------------------
 */

/*
 * The SELECT reading the dataset columns (and key) in schema order from
 * the FROM item from, whose columns are rc; with_optional: the AIA
 * sensitive column is read too (only from the synthetic table).
 */
static char *
read_sql(TapasAttackSchema *schema, const RelColumns *rc, bool with_optional,
		 const char *from, bool with_key)
{
	StringInfoData buf;
	int			j;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "SELECT ");
	for (j = 0; j < schema->ncols; j++)
	{
		TapasAttackColumn *col = &schema->cols[j];
		const char *qc = quote_identifier(col->name);

		if (j > 0)
			appendStringInfoString(&buf, ", ");
		if (tapas_dataset_find_name(rc, col->name) < 0 ||
			(!with_optional && schema->optional != NULL &&
			 strcmp(col->name, schema->optional) == 0))
			appendStringInfoString(&buf, "NULL::text");
		else if (col->kind == TAPAS_COLUMN_CONTINUOUS)
			appendStringInfoString(&buf, tapas_dataset_float_expr(col->typid, qc));
		else
			appendStringInfo(&buf, "(%s)::text", qc);
	}
	if (with_key)
		appendStringInfo(&buf, ", (%s)::text", quote_identifier(schema->key));
	appendStringInfo(&buf, " FROM %s", from);
	return buf.data;
}

/* raw value of column col from its datum in one SPI row */
static double
read_cell(TapasAttackColumn *col, Datum d, bool isnull, const char *role)
{
	int			code;

	if (col->kind == TAPAS_COLUMN_CONTINUOUS)
	{
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("continuous column \"%s\" of the %s table contains NULL",
							col->name, role)));
		return DatumGetFloat8(d);
	}
	/* the text datum itself: no output function, no copy unless toasted */
	if (isnull)
		code = tapas_dataset_label_code(col, NULL, 0);
	else
	{
		text	   *t = (text *) pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

		code = tapas_dataset_label_code(col, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		if (code < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("value \"%s\" of column \"%s\" is not in its dictionary",
							text_to_cstring(t), col->name)));
	}
	/* a NULL without a NULL category: a column the table lacks (AIA sensitive) */
	return code < 0 ? 0.0 : (double) code;
}

/*
 * The rows are decoded as the executor emits them, by a DestReceiver
 * given to SPI: no copy of each row into an SPI tuple table first (on a
 * 50,000-row table the copies and their deforming cost as much as the
 * decoding itself).  The matrix grows by doubling.
 */
typedef struct RowReader
{
	DestReceiver pub;
	TapasAttackSchema *schema;
	const char *role;
	MemoryContext cxt;			/* of the result */
	bool		with_key;
	double	   *values;
	char	  **keys;
	uint64		rows,
				cap;
} RowReader;

static bool
reader_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RowReader  *r = (RowReader *) self;
	int			c = r->schema->ncols,
				j;
	double	   *row;

	if (r->rows == r->cap)
	{
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->values = r->values == NULL ?
			MemoryContextAllocHuge(r->cxt, sizeof(double) * r->cap * c) :
			repalloc_huge(r->values, sizeof(double) * r->cap * c);
		if (r->with_key)
			r->keys = r->keys == NULL ?
				MemoryContextAllocHuge(r->cxt, sizeof(char *) * r->cap) :
				repalloc_huge(r->keys, sizeof(char *) * r->cap);
	}
	/* one deform per row: attribute by attribute costs O(c) each */
	slot_getallattrs(slot);
	row = r->values + r->rows * c;
	for (j = 0; j < c; j++)
		row[j] = read_cell(&r->schema->cols[j], slot->tts_values[j],
						   slot->tts_isnull[j], r->role);
	if (r->with_key)
		r->keys[r->rows] = slot->tts_isnull[c] ? NULL :
			MemoryContextStrdup(r->cxt, TextDatumGetCString(slot->tts_values[c]));
	if ((r->rows++ & 1023) == 0)
		CHECK_FOR_INTERRUPTS();
	return true;
}

static void
reader_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
reader_shutdown(DestReceiver *self)
{
}

static void
reader_destroy(DestReceiver *self)
{
}

/* runs sql (read_sql's shape) and decodes its rows; name: for errors */
static double *
read_rows(TapasAttackSchema *schema, const char *sql, const char *role,
		  const char *name, size_t *n, char ***keys, MemoryContext cxt)
{
	RowReader	r;
	SPIExecuteOptions opt;

	memset(&r, 0, sizeof(r));
	r.pub.receiveSlot = reader_receive;
	r.pub.rStartup = reader_startup;
	r.pub.rShutdown = reader_shutdown;
	r.pub.rDestroy = reader_destroy;
	r.pub.mydest = DestTuplestore;	/* not DestNone: SPI would drop the rows */
	r.schema = schema;
	r.role = role;
	r.cxt = cxt;
	r.with_key = keys != NULL;
	memset(&opt, 0, sizeof(opt));
	opt.read_only = true;
	opt.dest = &r.pub;
	if (SPI_execute_extended(sql, &opt) != SPI_OK_SELECT)
		elog(ERROR, "could not run \"%s\"", sql);
	if (r.rows == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s table \"%s\" is empty", role, name)));
	if (keys != NULL)
		*keys = r.keys;
	*n = r.rows;
	return r.values;
}

double *
tapas_attack_read_table(TapasAttackSchema *schema, Oid relid, const char *role,
						size_t *n, char ***keys, MemoryContext cxt)
{
	RelColumns	rc;
	char	   *sql;

	if (schema->rows != NULL && relid == schema->synthetic &&
		(keys == NULL || schema->rows->keys != NULL))
	{
		/* read with the dictionaries already (schema_build); taken once */
		TapasAttackRows *rows = schema->rows;

		schema->rows = NULL;
		if (rows->n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s table \"%s\" is empty", role, get_rel_name(relid))));
		if (keys != NULL)
			*keys = rows->keys;
		*n = rows->n;
		return rows->values;
	}
	rc = tapas_dataset_rel_columns(relid, "input");
	sql = read_sql(schema, &rc, relid == schema->synthetic,
				   tapas_dataset_rel_sql_name(relid), keys != NULL);
	return read_rows(schema, sql, role, get_rel_name(relid), n, keys, cxt);
}

double *
tapas_attack_read_from(TapasAttackSchema *schema, TupleDesc desc, const char *from,
					   const char *role, const char *name, size_t *n,
					   MemoryContext cxt)
{
	RelColumns	rc;
	int			i,
				j;

	rc.n = 0;
	rc.names = palloc(sizeof(char *) * (desc->natts + 1));
	rc.types = palloc(sizeof(Oid) * (desc->natts + 1));
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		rc.names[rc.n] = pstrdup(NameStr(att->attname));
		rc.types[rc.n++] = att->atttypid;
	}
	for (j = 0; j < schema->ncols; j++)
		if (tapas_dataset_find_name(&rc, schema->cols[j].name) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("%s %s has no column \"%s\"", role, name,
							schema->cols[j].name)));
	return read_rows(schema, read_sql(schema, &rc, false, from, false),
					 role, name, n, NULL, cxt);
}

/* ----------------------------------------------------------------
 *		tapas.describe(tbl regclass, params jsonb)
 * ----------------------------------------------------------------
 */

static const char *const describe_keys[] = {
	"columns", "exclude", "schema", "max_categories", "key", NULL
};

/* text[] of the labels of a categorical/ordinal column (NULL elements) */
static Datum
labels_array(TapasAttackColumn *col)
{
	Datum	   *elems = palloc(sizeof(Datum) * (col->ncat + 1));
	bool	   *nulls = palloc(sizeof(bool) * (col->ncat + 1));
	int			dims[1] = {col->ncat},
				lbs[1] = {1},
				k;

	for (k = 0; k < col->ncat; k++)
	{
		nulls[k] = col->labels[k] == NULL;
		elems[k] = nulls[k] ? (Datum) 0 : CStringGetTextDatum(col->labels[k]);
	}
	return PointerGetDatum(construct_md_array(elems, nulls, 1, dims, lbs,
											  TEXTOID, -1, false, 'i'));
}

PG_FUNCTION_INFO_V1(tapas_sql_describe);

Datum
tapas_sql_describe(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	Jsonb	   *params;
	MemoryContext cxt = CurrentMemoryContext;
	TapasAttackSchema *schema;
	tapas_dataset_t *layout;
	int			j;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table must not be NULL")));
	relid = PG_GETARG_OID(0);
	params = tapas_attack_params_arg(fcinfo, 1, "tapas.describe");
	tapas_attack_params_check(params, describe_keys, "tapas.describe");

	SPI_connect();
	schema = tapas_attack_schema_build(relid, InvalidOid, params, NULL, false, cxt);
	SPI_finish();

	/* an empty kernel dataset gives the encoded layout; nothing can raise */
	layout = tapas_dataset_create(0, schema->ncols, schema->specs);
	if (layout == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	InitMaterializedSRF(fcinfo, 0);
	for (j = 0; j < schema->ncols; j++)
	{
		TapasAttackColumn *col = &schema->cols[j];
		bool		cont = col->kind == TAPAS_COLUMN_CONTINUOUS;
		Datum		values[10];
		bool		nulls[10] = {0};

		values[0] = CStringGetTextDatum(col->name);
		values[1] = CStringGetTextDatum(format_type_be(col->typid));
		values[2] = CStringGetTextDatum(tapas_column_kind_name(col->kind));
		values[3] = CStringGetTextDatum(col->source);
		values[4] = Int32GetDatum(cont ? 0 : col->ncat);
		nulls[4] = cont;
		values[5] = Float8GetDatum(col->lower);
		nulls[5] = !cont;
		values[6] = Float8GetDatum(col->upper);
		nulls[6] = !cont;
		values[7] = Int32GetDatum((int32) layout->offset[j]);
		values[8] = Int32GetDatum((int32) layout->width[j]);
		if (cont)
			nulls[9] = true;
		else
			values[9] = labels_array(col);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	tapas_dataset_free(layout);
	return (Datum) 0;
}
