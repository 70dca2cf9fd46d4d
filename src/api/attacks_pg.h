/*-------------------------------------------------------------------------
 *
 * attacks_pg.h
 *	  Server-side helpers of the attack functions: jsonb parameters and
 *	  datasets read from tables.
 *
 * attacks_params.c reads the params jsonb of the SQL functions: every
 * function lists its valid keys, and an unknown key is an error whose hint
 * lists them.  dataset.c turns one or two tables (the synthetic data and
 * the targets) into one shared schema and plain double matrices that the
 * kernels of src/attacks/ read (see the header of dataset.c for the rules:
 * kinds from types, overrides, NULL policy, dictionaries over the union).
 *
 * Everything here pallocs in CurrentMemoryContext and may ereport; kernel
 * objects (tapas_malloc) are created by the callers only after these
 * helpers have returned.
 *
 * IDENTIFICATION
 *	  src/api/attacks_pg.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_ATTACKS_PG_H
#define TAPAS_ATTACKS_PG_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "fmgr.h"
#include "utils/jsonb.h"

#include "attacks/dataset.h"
#include "attacks/distance.h"

/* attacks_params.c */

/*
 * Raises an error unless params (may be NULL = empty) is an object whose
 * keys are all in valid (NULL-terminated); `what` names the function or
 * attack in the message.
 */
extern void tapas_attack_params_check(Jsonb *params, const char *const *valid,
									  const char *what);

/*
 * The params argument argno of a SQL function (CALLED ON NULL INPUT): a
 * NULL params is an error (22004), as every NULL argument is; '{}' gives
 * the defaults.  `what` names the function.
 */
extern Jsonb *tapas_attack_params_arg(FunctionCallInfo fcinfo, int argno,
									  const char *what);

/* The value of key in an object container, or false if absent or null. */
extern bool tapas_attack_param_find(JsonbContainer *obj, const char *key,
									JsonbValue *out);

/* Typed getters on params' top level; dflt when absent, error if mistyped. */
extern double tapas_attack_param_float(Jsonb *params, const char *key,
									   double dflt);
extern char *tapas_attack_param_text(Jsonb *params, const char *key,
									 const char *dflt);

/* A JSON string or number as a palloc'd C string; error otherwise. */
extern char *tapas_attack_jsonb_scalar_text(JsonbValue *v, const char *what);

/* The elements of a JSON array of strings (key in params); NIL if absent. */
extern List *tapas_attack_param_name_list(Jsonb *params, const char *key);

/* dataset.c */

typedef struct TapasAttackColumn
{
	char	   *name;			/* attribute name */
	Oid			typid;			/* attribute type */
	tapas_column_kind kind;
	const char *source;			/* why this kind: "type", "distinct count",
								 * "schema" */
	int			ncat;			/* categorical/ordinal: number of codes */
	char	  **labels;			/* ncat text labels; NULL entry = SQL NULL */
	int		   *label_len;		/* byte length of each non-NULL label */
	int		   *slot;			/* hash index: code + 1, or 0 (empty) */
	uint32		slot_mask;		/* slots - 1 (a power of 2, minus 1) */
	int			null_code;		/* code of SQL NULL, or -1 */
	double		lower;			/* continuous bounds */
	double		upper;
	bool		declared;		/* bounds declared in params schema */
	int64		nulls;			/* NULLs seen over the tables */
} TapasAttackColumn;

/*
 * A table's rows read with its dictionaries, in one scan (dataset.c):
 * n x ncols codes, and the key texts (NULL without a key).
 */
typedef struct TapasAttackRows
{
	size_t		n;
	double	   *values;
	char	  **keys;
} TapasAttackRows;

typedef struct TapasAttackSchema
{
	int			ncols;
	TapasAttackColumn *cols;
	tapas_column_spec_t *specs; /* ncols kernel specifications */
	char	   *key;			/* key column of the targets, or NULL */
	Oid			synthetic;		/* the synthetic table */
	char	   *optional;		/* column never read from other tables (the
								 * AIA sensitive column), or NULL */
	TapasAttackRows *rows;		/* synthetic's rows from its label scan,
								 * taken by tapas_attack_read_table; or NULL */
} TapasAttackSchema;

/*
 * Builds the schema shared by synthetic (required) and targets (may be
 * InvalidOid).  Dataset columns: params "columns" if given, else every
 * column of synthetic but the key and params "exclude".  The targets must
 * have every dataset column except optional_column (the AIA sensitive
 * column, may be NULL) and no other column but the key and the excluded
 * ones.  need_key: find the targets' key (params "key" or primary key).
 * optional_column's dictionary comes from the synthetic table alone, and
 * it is never read from the targets (an attribute inference attack must
 * not see the target's own value).  Must be called between SPI_connect
 * and SPI_finish; the result lives in cxt.
 */
extern TapasAttackSchema *tapas_attack_schema_build(Oid synthetic,
													Oid targets,
													Jsonb *params,
													const char *optional_column,
													bool need_key,
													MemoryContext cxt);

/*
 * The schema of a dataset-only release audit: synthetic plus two targets
 * tables, real and holdout, both checked like the targets above; the key
 * (params "key" or real's primary key) must be a column of both.
 * Dictionaries and bounds are built over the three tables.
 */
extern TapasAttackSchema *tapas_attack_schema_build_holdout(Oid synthetic,
															Oid real,
															Oid holdout,
															Jsonb *params,
															MemoryContext cxt);

/*
 * Reads table rel as an n x ncols raw matrix (palloc'd in cxt, row-major,
 * codes as doubles); when keys is not NULL the key column's text is read
 * too.  A dataset column missing from rel (only optional_column may be)
 * reads as code 0 / 0.0.  Errors on an empty table or NULL continuous
 * values.  Between SPI_connect and SPI_finish.
 */
extern double *tapas_attack_read_table(TapasAttackSchema *schema, Oid rel,
									   const char *role, size_t *n,
									   char ***keys, MemoryContext cxt);

/*
 * tapas_attack_read_table on the rows of the FROM item from (a function
 * call, say) whose columns are desc; every dataset column must be one of
 * them.  role and name (from's name) are for errors.  The caller makes
 * from's writes visible to the active snapshot (the query is read-only).
 */
extern double *tapas_attack_read_from(TapasAttackSchema *schema, TupleDesc desc,
									  const char *from, const char *role,
									  const char *name, size_t *n,
									  MemoryContext cxt);

/* Index of a dataset column by name, or -1. */
extern int	tapas_attack_schema_column(TapasAttackSchema *schema,
									   const char *name);

/* attacks_params.c: the "distance" parameter */

/*
 * Reads params "distance": "hamming" (default) | "l1" | "l2" | {"type":
 * "lp", "p": 3, "columns": [names], "scale": 2} | an array of those (the
 * sum of the terms, kind TAPAS_DISTANCE_SUM: resolve its terms with
 * tapas_attack_distance_resolve_terms) into d's kind and p (d->columns is
 * reset to NULL = all columns).  *columns gets the column names (NIL if
 * none) and *has_columns whether "columns" was given at all; resolve them
 * with tapas_attack_distance_columns once the schema is known.  Returns
 * NULL, or an unrecognized distance name, which the caller reports (each
 * SQL function words that error its own way).  Other errors are raised.
 */
extern const char *tapas_attack_param_distance(Jsonb *params,
											   tapas_distance_t *d,
											   List **columns,
											   bool *has_columns);

/*
 * Sets d->weights (palloc'd, one per dataset column, 1 unless listed) from
 * params "distance": {"weights": {"col": w, ...}} (w >= 0); leaves NULL
 * when absent.  "scale" is read by tapas_attack_param_distance.
 */
extern void tapas_attack_distance_weights(TapasAttackSchema *schema,
										  Jsonb *params, tapas_distance_t *d);

/*
 * A sum of distances (params "distance" an array of names and objects,
 * read by tapas_attack_param_distance into d->terms): resolves each
 * object term's "columns" and "weights" against the schema.  Nothing for
 * any other distance.
 */
extern void tapas_attack_distance_resolve_terms(TapasAttackSchema *schema,
												Jsonb *params,
												tapas_distance_t *d);

/*
 * Sets d->columns (palloc'd) and d->ncolumns to the dataset columns named
 * in names; an error names a column that is not a dataset column.
 */
extern void tapas_attack_distance_columns(TapasAttackSchema *schema,
										  List *names, tapas_distance_t *d);

#endif							/* TAPAS_ATTACKS_PG_H */
