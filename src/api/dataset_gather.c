/*-------------------------------------------------------------------------
 *
 * dataset_gather.c
 *	  The scans that gather the dictionaries and bounds of dataset columns.
 *
 * Distinct labels come from one GROUPING SETS query per batch of up to 31
 * columns (the limit of GROUPING()), or, for text and varchar columns
 * under a deterministic collation, from one plain scan in C
 * (dataset_labels.c); a dictionary is then built from them in the
 * column's order (or the declared "order"), SQL NULL last.  Bounds, NULL
 * and non-finite counts of continuous columns come from one aggregate
 * query per batch.  The kinds, and which columns need which scan, are
 * decided by dataset_columns.c.
 *
 * IDENTIFICATION
 *	  src/api/dataset_gather.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relation.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "optimizer/plancat.h"
#include "utils/builtins.h"
#include "utils/rel.h"

#include "api/attacks_pg.h"
#include "api/dataset_int.h"


/* ----------------------------------------------------------------
 *		Dictionaries and bounds
 * ----------------------------------------------------------------
 */

/*
 * Codes of a categorical/ordinal column from its observed distinct labels
 * (in the column's order, NULL last; see tapas_dataset_gather_labels) or
 * the declared order, which must then list every observed label.
 */
void
tapas_dataset_build_dictionary(TapasAttackColumn *col, List *observed,
							   List *order, MemoryContext cxt)
{
	ListCell   *lc;
	int			k = 0;
	bool		has_null = false;

	col->labels = MemoryContextAlloc(cxt, sizeof(char *) *
									 (list_length(observed) + list_length(order) + 1));
	foreach(lc, order)
		col->labels[k++] = MemoryContextStrdup(cxt, lfirst(lc));
	foreach(lc, observed)
	{
		char	   *label = lfirst(lc);

		if (label == NULL)
			has_null = true;
		else if (order == NIL)
			col->labels[k++] = MemoryContextStrdup(cxt, label);
		else if (!tapas_dataset_list_has_name(order, label))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("value \"%s\" of column \"%s\" is not in its declared order",
							label, col->name),
					 errhint("List every value of the column in params schema \"order\".")));
	}
	col->null_code = -1;
	if (has_null)
	{
		col->null_code = k;
		col->labels[k++] = NULL;
	}
	col->ncat = k;
	tapas_dataset_index_labels(col, cxt);
}

/*
 * The FROM item "u" holding columns idx[0..k-1] as v1..vk: the synthetic
 * table, and the targets (targets[0], and targets[1] when valid) too when
 * targets is not NULL.
 */
static char *
batch_from(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
		   const Oid *targets)
{
	StringInfoData sel,
				buf;
	int			i;

	initStringInfo(&sel);
	for (i = 0; i < k; i++)
		appendStringInfo(&sel, "%s%s AS v%d", i ? ", " : "",
						 quote_identifier(cols[idx[i]].name), i + 1);
	initStringInfo(&buf);
	appendStringInfo(&buf, "(SELECT %s FROM %s", sel.data,
					 tapas_dataset_rel_sql_name(synthetic));
	/*
	 * A table already in the union adds no value nor bound (tapas.evaluate
	 * passes its auxiliary table as both): scan it once.
	 */
	for (i = 0; targets != NULL && i < 2; i++)
		if (OidIsValid(targets[i]) && targets[i] != synthetic &&
			(i == 0 || targets[i] != targets[0]))
			appendStringInfo(&buf, " UNION ALL SELECT %s FROM %s", sel.data,
							 tapas_dataset_rel_sql_name(targets[i]));
	appendStringInfoString(&buf, ") u");
	return buf.data;
}

/*
 * Distinct values of up to 31 columns in one scan: one grouping set per
 * column; GROUPING() tells which column a row belongs to (bit k-1-i is 0
 * for column i), and ORDER BY v1, ..., vk sorts each set by its own column
 * (the others are NULL in it), NULLs last.  The outputs are renamed so
 * that ORDER BY vi means the value, not its text.  Appends each column's
 * labels (NULL for SQL NULL) to observed[idx[i]].
 */
static void
gather_labels_sql(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
				  const Oid *targets, List **observed)
{
	StringInfoData q,
				sets,
				order;
	int			i;
	uint64		r;

	initStringInfo(&q);
	initStringInfo(&sets);
	initStringInfo(&order);
	appendStringInfoString(&q, "SELECT GROUPING(");
	for (i = 0; i < k; i++)
		appendStringInfo(&q, "%sv%d", i ? ", " : "", i + 1);
	appendStringInfoString(&q, ")::int");
	for (i = 0; i < k; i++)
	{
		appendStringInfo(&q, ", v%d::text AS t%d", i + 1, i + 1);
		appendStringInfo(&sets, "%s(v%d)", i ? ", " : "", i + 1);
		appendStringInfo(&order, ", v%d", i + 1);
	}
	appendStringInfo(&q, " FROM %s GROUP BY GROUPING SETS (%s) ORDER BY 1%s",
					 batch_from(cols, idx, k, synthetic, targets), sets.data,
					 order.data);
	tapas_dataset_run_query(q.data);
	for (r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		bool		isnull;
		int			mask = DatumGetInt32(SPI_getbinval(tup, SPI_tuptable->tupdesc,
													   1, &isnull));

		for (i = 0; i < k; i++)
			if (((mask >> (k - 1 - i)) & 1) == 0)
			{
				observed[idx[i]] = lappend(observed[idx[i]],
										   SPI_getvalue(tup, SPI_tuptable->tupdesc,
														i + 2));
				break;
			}
	}
}

/*
 * The planner's estimate of the relation's rows (from its current size when
 * it was never analysed), 0 when there is none: a size hint only.
 */
uint64
tapas_dataset_rel_tuples(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	BlockNumber pages;
	double		tuples,
				allvisfrac;

	estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	relation_close(rel, AccessShareLock);
	return tuples > 0 && tuples < 1e9 ? (uint64) tuples : 0;
}

/*
 * gather_labels_sql for columns idx[0..k-1], except that the text and
 * varchar columns under a deterministic collation are gathered by one
 * plain scan in C (dataset_labels.c), the same lists for less work.
 * keep (may be NULL): when that scan reads every column, of synthetic
 * alone (targets NULL), it keeps the rows there too; keep->k stays 0
 * otherwise.
 */
void
tapas_dataset_gather_labels(TapasAttackColumn *cols, const int *idx, int k,
							Oid synthetic, const Oid *targets, List **observed,
							TapasLabelRows *keep)
{
	int		   *text_idx = palloc(sizeof(int) * k),
			   *other_idx = palloc(sizeof(int) * k);
	Oid		   *collid = palloc(sizeof(Oid) * k);
	List	  **text_observed;
	char	   *from;
	int			i,
				n_text = 0,
				n_other = 0;

	for (i = 0; i < k; i++)
	{
		Oid			c = tapas_dataset_text_label_collation(cols[idx[i]].name,
														   synthetic, targets);

		if (OidIsValid(c))
		{
			collid[n_text] = c;
			text_idx[n_text++] = idx[i];
		}
		else
			other_idx[n_other++] = idx[i];
	}
	if (n_other > 0)
		gather_labels_sql(cols, other_idx, n_other, synthetic, targets, observed);
	if (n_text == 0)
		return;
	text_observed = palloc0(sizeof(List *) * n_text);
	if (keep != NULL && n_other == 0 && targets == NULL)
		from = tapas_dataset_kept_rows_from(cols, idx, k, synthetic, keep->key);
	else
	{
		keep = NULL;
		from = batch_from(cols, text_idx, n_text, synthetic, targets);
	}
	tapas_dataset_gather_text_labels(from, collid, n_text, text_observed, keep);
	for (i = 0; i < n_text; i++)
		observed[text_idx[i]] = list_concat(observed[text_idx[i]], text_observed[i]);
}

/* sets col's bounds (unless declared) from observed min and max */
static void
set_bounds(TapasAttackColumn *col, double lo, double hi)
{
	if (!col->declared || isnan(col->lower))
		col->lower = lo;
	if (!col->declared || isnan(col->upper))
		col->upper = hi;
	if (col->lower > col->upper)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bounds of column \"%s\" are empty: min %g > max %g",
						col->name, col->lower, col->upper)));
}

/*
 * Bounds, NULL counts and non-finite counts of continuous columns idx[],
 * all in one scan; NaN or infinities are an error.
 */
static void
continuous_stats(TapasAttackColumn *cols, const int *idx, int k, Oid synthetic,
				 const Oid *targets)
{
	StringInfoData q,
				x;
	int			i;
	HeapTuple	tup;
	TupleDesc	desc;

	initStringInfo(&q);
	initStringInfo(&x);
	appendStringInfoString(&q, "SELECT ");
	for (i = 0; i < k; i++)
	{
		appendStringInfo(&q, "%smin(x%d), max(x%d), count(*) FILTER (WHERE v%d IS NULL), "
						 "count(*) FILTER (WHERE x%d IN ('NaN', 'Infinity', '-Infinity'))",
						 i ? ", " : "", i + 1, i + 1, i + 1, i + 1);
		appendStringInfo(&x, ", %s AS x%d",
						 tapas_dataset_float_expr(cols[idx[i]].typid, psprintf("v%d", i + 1)),
						 i + 1);
	}
	appendStringInfo(&q, " FROM (SELECT *%s FROM %s) s", x.data,
					 batch_from(cols, idx, k, synthetic, targets));
	tapas_dataset_run_query(q.data);
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	for (i = 0; i < k; i++)
	{
		TapasAttackColumn *col = &cols[idx[i]];
		bool		nl,
					nh,
					isnull;
		Datum		lo = SPI_getbinval(tup, desc, 4 * i + 1, &nl);
		Datum		hi = SPI_getbinval(tup, desc, 4 * i + 2, &nh);

		col->nulls = DatumGetInt64(SPI_getbinval(tup, desc, 4 * i + 3, &isnull));
		if (DatumGetInt64(SPI_getbinval(tup, desc, 4 * i + 4, &isnull)) > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("continuous column \"%s\" contains NaN or infinite values",
							col->name),
					 errhint("Filter those rows, or declare the column categorical in params schema.")));
		if (col->nulls > 0)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("continuous column \"%s\" contains NULL", col->name),
					 errhint("Filter or impute the NULLs, or declare the column categorical in params schema (NULL is then a category).")));
		set_bounds(col, nl ? 0.0 : DatumGetFloat8(lo), nh ? 0.0 : DatumGetFloat8(hi));
	}
}

/*
 * Runs fn over the columns of cols that satisfy want(), in batches of at
 * most 31 (the limit of GROUPING()), separately for the columns read from
 * both tables and those read from the synthetic table only.
 */
void
tapas_dataset_for_batches(TapasAttackColumn *cols, int ncols,
						  const bool *in_targets, const bool *want, Oid synthetic,
						  const Oid *targets, List **observed, bool labels)
{
	int		   *idx = palloc(sizeof(int) * (ncols + 1));
	int			pass,
				j;

	for (pass = 0; pass < 2; pass++)
	{
		int			k = 0;

		for (j = 0; j <= ncols; j++)
		{
			if (j < ncols && want[j] && in_targets[j] == (pass == 0))
				idx[k++] = j;
			if (k > 0 && (k == 31 || j == ncols))
			{
				const Oid  *t = pass == 0 ? targets : NULL;

				if (labels)
					tapas_dataset_gather_labels(cols, idx, k, synthetic, t, observed, NULL);
				else
					continuous_stats(cols, idx, k, synthetic, t);
				k = 0;
			}
		}
	}
}
