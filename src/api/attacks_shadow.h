/*-------------------------------------------------------------------------
 *
 * attacks_shadow.h
 *	  Server side of tapas.evaluate: the user SQL generator called
 *	  through SPI.
 *
 * attacks_shadow.c runs one evaluation: attacks_shadow_request.c and
 * attacks_shadow_params.c parse the arguments and params,
 * attacks_shadow_data.c reads the auxiliary table once (with
 * api/dataset_sql.c), and the kernels of src/attacks/ run on row numbers;
 * it returns the metrics or the per-dataset scores.  attacks_shadow_gen.c handles generators that are SQL functions;
 * built-in generators never leave C.
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_PG_ATTACKS_SHADOW_H
#define TAPAS_PG_ATTACKS_SHADOW_H

#include "postgres.h"

#include "fmgr.h"

#include "attacks/metrics.h"
#include "api/attacks_pg.h"

/*
 * What one evaluation returns (attacks_shadow.c), per target t: metrics
 * m[t], bootstrap intervals ci[t] (n_boot 0: none), and the test datasets'
 * scores[t * n_test + i] and labels[t * n_test + i].
 */
typedef struct EvalResult
{
	size_t		n_targets;
	char	  **target_keys;	/* n_targets */
	tapas_metrics_t *m;
	tapas_metrics_ci_t *ci;
	size_t		n_train;
	size_t		n_test;
	size_t		n_features;
	double		seconds;
	double	   *scores;			/* palloc'd */
	unsigned char *labels;		/* palloc'd */
	bool		multivalue;		/* AIA over more than two values: scores are
								 * 1/0 correct guesses, labels all 1 */
	double		baseline;		/* multivalue: the prior's most likely value */
} EvalResult;

/*
 * attacks_shadow.c: the whole evaluation of tapas.evaluate (many false:
 * argument 3 is one key) or tapas.evaluate_targets (many: an array of keys
 * sharing one set of datasets).
 */
extern void tapas_shadow_evaluate(FunctionCallInfo fcinfo, bool many, EvalResult *res);

/* A user generator: fn(training regclass, num_rows integer, seed bigint). */
typedef struct ShadowUserGen
{
	Oid			fn;				/* the function */
	char	   *fn_sql;			/* its quoted, qualified name */
	TupleDesc	out_desc;		/* the columns of its rows */
	TapasAttackSchema *schema;	/* dataset columns and dictionaries */
	char	   *train_name;		/* name of the temp training table */
	Oid			train_rel;
	MemoryContext cxt;			/* per-dataset scratch, reset each call */
} ShadowUserGen;

/* attacks_shadow_gen.c */

/*
 * Resolves and checks the function named fname (arguments (regclass,
 * integer, bigint), returning a set) and creates the temp training table
 * with the dataset columns' names and types (copied from auxiliary).
 * Errors on a bad function.  Between SPI_connect and SPI_finish.
 */
extern void tapas_shadow_usergen_init(ShadowUserGen *gen, const char *fname,
									  TapasAttackSchema *schema, Oid auxiliary);

/*
 * Writes the n coded rows into the training table, calls the function for
 * num_rows rows with seed, and reads its result coded into out (at most
 * cap rows).  Returns the number of rows; errors when the function returns
 * no row, more than cap rows, or values the auxiliary table never has.
 */
extern size_t tapas_shadow_usergen_run(ShadowUserGen *gen, const double *rows,
									   size_t n, size_t num_rows, int64 seed,
									   double *out, size_t cap);

/* Drops the temp table. */
extern void tapas_shadow_usergen_finish(ShadowUserGen *gen);

#endif							/* TAPAS_PG_ATTACKS_SHADOW_H */
