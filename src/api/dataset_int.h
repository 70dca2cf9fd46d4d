/*-------------------------------------------------------------------------
 *
 * dataset_int.h
 *	  Internal to dataset.c, dataset_columns.c, dataset_labels.c and
 *	  dataset_read.c.
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

/* dataset.c */
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
 * skipped when InvalidOid).  Results live in cxt.
 */
extern void tapas_dataset_describe_columns(TapasAttackColumn *cols, int ncols,
									  const bool *in_targets,
									  JsonbContainer *schema,
									  int max_categories, Oid synthetic,
									  const Oid targets[2], MemoryContext cxt);

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
 * lists gather_labels' GROUPING SETS query gives for such columns.
 */
extern void tapas_dataset_gather_text_labels(const char *from, const Oid *collid,
											 int k, List **observed);

#endif							/* TAPAS_DATASET_INT_H */
