/*-------------------------------------------------------------------------
 *
 * sparse_search.h
 *	  Every binary x of weight <= 3 with A x = b, for an arbitrary binary
 *	  query matrix A: the auditor's uniqueness test for rare values.
 *
 * An attacker may map records to the columns of any design in any order,
 * so the auditor cannot rely on the design's structure: given the logged
 * (A, b) it asks which 0/1 vectors of small weight reproduce every answer,
 * and whether the true support is the only one.  See sparse_search.c for
 * the algorithm (linear column hashing, meet in the middle, pruning).
 *
 * IDENTIFICATION
 *	  src/recon/sparse_search.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_SPARSE_SEARCH_H
#define TAPAS_SPARSE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"
#include "recon/binmat.h"

#define TAPAS_SPARSE_MAX_WEIGHT	3

/* default bound on candidate pairs examined for weight 3 */
#define TAPAS_SPARSE_WORK_LIMIT	400000000.0

typedef struct tapas_sparse_result
{
	size_t		found;			/* number of solutions (all of them) */
	size_t		stored;			/* min(found, cap): rows of supports */
	int64_t    *supports;		/* stored x 3 column indices, ascending
								 * within a row, padded with -1; rows sorted
								 * by weight, then lexicographically */
	double		work;			/* candidate pairs examined (weight 3) */
} tapas_sparse_result;

/*
 * Finds every x in {0,1}^n of weight 0..max_weight (<= 3) with A x = b
 * exactly (b has m entries).  Up to cap solutions are stored in
 * res->supports (allocated here; free with tapas_sparse_result_clear);
 * res->found counts all of them, so found == 1 means the solution is
 * unique among all x of weight <= max_weight.  When found > cap the stored
 * rows are the first cap found, then sorted.
 *
 * Returns TAPAS_OK; TAPAS_EINVAL for max_weight outside 0..3; TAPAS_ELIMIT
 * when weight 3 would examine more than work_limit candidate pairs (use
 * TAPAS_SPARSE_WORK_LIMIT) -- res then holds the solutions of weight <= 2
 * and the caller must not conclude uniqueness; TAPAS_ENOMEM;
 * TAPAS_ECANCELED.
 */
extern tapas_status tapas_sparse_search(const tapas_binmat_t *A,
										const int64_t *b, int max_weight,
										size_t cap, double work_limit,
										tapas_sparse_result *res,
										const tapas_progress_t *progress);

/*
 * The column hashes h_j = sum_{i < rows} A[i][j] R_i (sparse_search.c) of
 * A's first rows, kept by a caller whose A only grows by rows (the
 * audit's logged rows): computing them reads every bit of A, the larger
 * part of a search's cost, and they only change by the rows added.
 */
typedef struct tapas_sparse_hashes
{
	size_t		rows;			/* rows of A hashed */
	size_t		n;				/* columns */
	uint64_t   *h;				/* [n] */
} tapas_sparse_hashes;

/*
 * Adds rows H->rows .. upto - 1 of A to *H (the caller guarantees that
 * rows below H->rows did not change since they were added); *H NULL or
 * of another column count is built afresh over rows 0 .. upto - 1.
 * Returns TAPAS_ENOMEM (*H then freed and NULL) or TAPAS_OK.
 */
extern tapas_status tapas_sparse_hashes_extend(tapas_sparse_hashes **H,
											   const tapas_binmat_t *A,
											   size_t upto);
extern void tapas_sparse_hashes_free(tapas_sparse_hashes *H);

/*
 * tapas_sparse_search with the hashes of A's first H->rows rows given
 * (H may be NULL, or not match A: then they are computed): the same
 * result, at the cost of hashing A's remaining rows only.
 */
extern tapas_status tapas_sparse_search_hashed(const tapas_binmat_t *A,
											   const tapas_sparse_hashes *H,
											   const int64_t *b, int max_weight,
											   size_t cap, double work_limit,
											   tapas_sparse_result *res,
											   const tapas_progress_t *progress);

/* Frees res->supports and zeroes res (res may be zeroed already). */
extern void tapas_sparse_result_clear(tapas_sparse_result *res);

/* Weight of stored solution k (0..3). */
extern int	tapas_sparse_result_weight(const tapas_sparse_result *res,
									   size_t k);

#endif							/* TAPAS_SPARSE_SEARCH_H */
