/*-------------------------------------------------------------------------
 *
 * dataset_int.h
 *	  Internal to dataset_sql.c, dataset_columns.c, dataset_gather.c,
 *	  dataset_labels.c and dataset_read.c.
 *
 * All functions may ereport; those running queries need an open SPI
 * connection.
 *
 * IDENTIFICATION
 *	  src/api/dataset_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DATASET_INT_H
#define TAPAS_DATASET_INT_H

#include "postgres.h"

#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "api/attacks_pg.h"

/* one relation's user columns */
typedef struct RelColumns
{
	int			n;
	char	  **names;
	Oid		   *types;
} RelColumns;

/*
 * The rows of a table as its label scan read them
 * (tapas_dataset_gather_text_labels with keep), so that a reader of the
 * same table needs no second scan: each cell as the id of its label in its
 * column (ids in order of first occurrence, labels[i][id]; -1 for SQL
 * NULL), held as a double in the matrix the codes then replace, and the
 * key column's text when key is set.
 */
typedef struct TapasLabelRows
{
	const char *key;			/* in: the key column to read too, or NULL */
	MemoryContext cxt;			/* in: where the rows and key texts go */
	int			k;				/* columns */
	uint64		n,				/* rows read */
				cap,
				expect;			/* in: rows expected (pg_class.reltuples), or 0 */
	double	   *cells;			/* n x k label ids */
	char	  **keys;			/* n key texts (NULL = SQL NULL), with key */
	char	 ***labels;			/* per column: its labels by id */
	int		  **label_len;
	uint32	   *n_labels;
} TapasLabelRows;

/* dataset_sql.c */
extern RelColumns tapas_dataset_rel_columns(Oid relid, const char *role);
extern int	tapas_dataset_find_name(const RelColumns *rc, const char *name);
extern bool tapas_dataset_list_has_name(List *names, const char *name);
extern char *tapas_dataset_rel_sql_name(Oid relid);
extern void tapas_dataset_run_query(const char *sql);

/* dataset_columns.c */

/* SQL expression turning the column expression v of type typid into float8 */
extern char *tapas_dataset_float_expr(Oid typid, const char *v);

/* dataset_label_index.c */

/* builds col's label index (in cxt) from its dictionary */
extern void tapas_dataset_index_labels(TapasAttackColumn *col, MemoryContext cxt);

/* code of a label of len bytes (NULL = SQL NULL) in col's dictionary, or -1 */
extern int	tapas_dataset_label_code(const TapasAttackColumn *col, const char *label,
									 int len);

/*
 * Decides every column's kind (from its type, or params schema) and
 * gathers dictionaries and bounds, over synthetic and, for the columns
 * with in_targets[j], the targets too (targets[0] and targets[1], each
 * skipped when InvalidOid).  Results live in cxt.  rows (may be NULL):
 * when the dictionaries come from one label scan of synthetic alone that
 * reads every column (text columns, no other table), *rows is set to the
 * rows that scan read, coded (tapas_attack_read_table's result; key text
 * read too when key is not NULL), else NULL.
 */
extern void tapas_dataset_describe_columns(TapasAttackColumn *cols, int ncols,
									  const bool *in_targets,
									  JsonbContainer *schema,
									  int max_categories, Oid synthetic,
									  const Oid targets[2], MemoryContext cxt,
									  const char *key,
									  struct TapasAttackRows **rows);

/* dataset_gather.c */

/*
 * Codes of a categorical/ordinal column from its observed distinct labels
 * (in the column's order, NULL last; see tapas_dataset_gather_labels) or
 * the declared order, which must then list every observed label.
 */
extern void tapas_dataset_build_dictionary(TapasAttackColumn *col, List *observed,
										   List *order, MemoryContext cxt);

/*
 * Appends each column idx[i]'s distinct labels (NULL for SQL NULL) over
 * synthetic and the valid targets (when targets is not NULL) to
 * observed[idx[i]].  keep (may be NULL): when one plain scan of synthetic
 * alone reads every column, it keeps the rows there too; keep->k stays 0
 * otherwise.
 */
extern void tapas_dataset_gather_labels(TapasAttackColumn *cols, const int *idx, int k,
										Oid synthetic, const Oid *targets,
										List **observed, TapasLabelRows *keep);

/* the planner's estimate of the relation's rows, 0 when there is none */
extern uint64 tapas_dataset_rel_tuples(Oid relid);

/*
 * Runs the label scans (labels) or the bounds scans (not labels) over the
 * columns with want[j], in batches of at most 31, separately for the
 * columns read from the targets too (in_targets[j]) and the others.
 */
extern void tapas_dataset_for_batches(TapasAttackColumn *cols, int ncols,
									  const bool *in_targets, const bool *want,
									  Oid synthetic, const Oid *targets,
									  List **observed, bool labels);

/* dataset_labels.c */

/*
 * The collation under which column name's distinct labels can be gathered
 * in C (text or varchar in synthetic and in each valid targets[i], one
 * deterministic collation), else InvalidOid.
 */
extern Oid	tapas_dataset_text_label_collation(const char *name, Oid synthetic,
											   const Oid *targets);

/*
 * Appends to observed[i] the distinct labels of column vi (i = 0..k-1) of
 * the FROM item from, in the order of collation collid[i], NULL last: the
 * lists tapas_dataset_gather_labels' GROUPING SETS query gives for such
 * columns.  keep
 * (may be NULL): the rows are kept there too, in scan order; with
 * keep->key set, from has a text column vk read as each row's key.
 */
extern void tapas_dataset_gather_text_labels(const char *from, const Oid *collid,
											 int k, List **observed,
											 TapasLabelRows *keep);

/*
 * The FROM item of the label scan that keeps synthetic's rows: columns
 * idx[0..k-1] of cols as v1..vk and the key's text (or NULL) as vk.
 */
extern char *tapas_dataset_kept_rows_from(TapasAttackColumn *cols, const int *idx,
										  int k, Oid synthetic, const char *key);

/*
 * The rows keep holds (columns 0..k-1 = cols, whose dictionaries are
 * built), coded in place through the dictionaries: a TapasAttackRows in
 * cxt that owns keep's matrix and key texts.
 */
extern TapasAttackRows *tapas_dataset_code_kept_rows(TapasAttackColumn *cols,
													  const TapasLabelRows *keep,
													  MemoryContext cxt);

#endif							/* TAPAS_DATASET_INT_H */
