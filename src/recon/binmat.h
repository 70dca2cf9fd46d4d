/*-------------------------------------------------------------------------
 *
 * binmat.h
 *	  Binary m x n matrices packed 64 columns to a word: the common
 *	  representation of a query matrix A.
 *
 * Row i of A is the set of records query i covers: A[i][j] = 1 iff record
 * (column) j is in query i.  Rows are stored one after another, each as
 * words = ceil(n / 64) 64-bit words; column j of a row is bit (j % 64) of
 * word (j / 64).  The padding bits past column n - 1 in the last word of a
 * row are always zero (every mutator keeps that invariant, and
 * tapas_binmat_validate checks it), so popcounts and products may run over
 * whole words.
 *
 * Products with a real vector, y = A x and z = A^T r, are what the
 * decoders of cs.c need; tapas_binmat_mul_t uses 8-row lookup tables
 * (Kronrod's "four Russians" trick over the reals: for each group of 8
 * rows, the 256 subset sums of r are tabulated once, and each column adds
 * one table entry per group), so A^T r costs about m n / 8 additions
 * instead of m n / 2.
 *
 * IDENTIFICATION
 *	  src/recon/binmat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_BINMAT_H
#define TAPAS_BINMAT_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

typedef struct tapas_binmat
{
	size_t		m;				/* rows (queries) */
	size_t		n;				/* columns (records) */
	size_t		words;			/* 64-bit words per row, ceil(n / 64) */
	uint64_t   *bits;			/* m * words words, row-major, 64-byte aligned */
} tapas_binmat_t;

/*
 * Creates an all-zero m x n matrix (m or n may be 0).  Returns NULL when
 * memory is short or m * words overflows.  Free with tapas_binmat_free.
 */
extern tapas_binmat_t *tapas_binmat_create(size_t m, size_t n);

/* Frees A and its words; A may be NULL. */
extern void tapas_binmat_free(tapas_binmat_t *A);

/* Deep copy, or NULL when memory is short. */
extern tapas_binmat_t *tapas_binmat_copy(const tapas_binmat_t *A);

/* Pointer to the first word of row i (i < m assumed, not checked). */
static inline uint64_t *
tapas_binmat_row(const tapas_binmat_t *A, size_t i)
{
	return A->bits + i * A->words;
}

/* A[i][j] in {0, 1}; i < m and j < n assumed, not checked. */
static inline int
tapas_binmat_get(const tapas_binmat_t *A, size_t i, size_t j)
{
	return (int) ((tapas_binmat_row(A, i)[j >> 6] >> (j & 63)) & 1);
}

/* Sets A[i][j] to (v != 0); i < m and j < n assumed, not checked. */
static inline void
tapas_binmat_set(tapas_binmat_t *A, size_t i, size_t j, int v)
{
	uint64_t   *w = &tapas_binmat_row(A, i)[j >> 6];
	uint64_t	bit = UINT64_C(1) << (j & 63);

	*w = v ? (*w | bit) : (*w & ~bit);
}

/* Number of ones in row i (the query's coverage). */
extern size_t tapas_binmat_row_weight(const tapas_binmat_t *A, size_t i);

/* Number of ones in every column: counts[j], j < n (caller's array). */
extern void tapas_binmat_col_weights(const tapas_binmat_t *A, size_t *counts);

/* Sum of x[j] over the ones of row i: the answer of query i to x. */
extern double tapas_binmat_row_dot(const tapas_binmat_t *A, size_t i,
								   const double *x);

/* y = A x (x has n entries, y has m; they must not alias). */
extern void tapas_binmat_mul(const tapas_binmat_t *A, const double *x,
							 double *y);

/*
 * y = A x for integer x, exactly (int64 arithmetic; the caller makes sure
 * no sum overflows, e.g. |x| <= 2^62 / n).
 */
extern void tapas_binmat_mul_i64(const tapas_binmat_t *A, const int64_t *x,
								 int64_t *y);

/*
 * z = A^T r (r has m entries, z has n; they must not alias).  Uses the
 * 8-row table method described above, gathering the 8-bit column patterns
 * on the fly; returns TAPAS_ENOMEM if its 2 kB table cannot be allocated,
 * else TAPAS_OK.
 */
extern tapas_status tapas_binmat_mul_t(const tapas_binmat_t *A,
									   const double *r, double *z);

/*
 * Column patterns of A for repeated A^T r products: groups = ceil(m / 8)
 * and p[g * n + j] holds bit t = A[8g + t][j].  Building them costs one
 * pass over A (8 x 8 bit-matrix transposes); each product then costs
 * groups * n table additions and 256 * groups table entries, and is
 * several times faster than tapas_binmat_mul_t.  The patterns are a
 * snapshot: later changes to A are not seen.
 */
typedef struct tapas_binmat_colbytes
{
	size_t		m;				/* rows of A */
	size_t		n;				/* columns of A */
	size_t		groups;			/* ceil(m / 8) */
	size_t		cap_groups;		/* groups p and tables have room for */
	uint8_t    *p;				/* groups * n patterns, group-major */
	double	   *tables;			/* scratch: groups * 256 subset sums */
	uint32_t   *weights;		/* [n] column weights, kept with the patterns */
} tapas_binmat_colbytes_t;

/* Builds the patterns of A, or NULL when memory is short. */
extern tapas_binmat_colbytes_t *tapas_binmat_colbytes_create(const tapas_binmat_t *A);

/*
 * Brings *P up to date with A when only rows from..A->m - 1 changed since
 * *P was built from A (rows appended, or the trailing rows rewritten, or
 * fewer of them): the groups from from / 8 on are rebuilt, the room grows
 * by doubling.  *P NULL, or of another column count, is built afresh.  So
 * a cache of patterns costs (rows changed / 8 + 1) n bytes per update
 * instead of m n / 8.  Returns TAPAS_ENOMEM (*P then freed and NULL) or
 * TAPAS_OK.
 */
extern tapas_status tapas_binmat_colbytes_update(tapas_binmat_colbytes_t **P,
												 const tapas_binmat_t *A,
												 size_t from);

/* r += sign a_j (column j of A, m entries) from the patterns. */
extern void tapas_binmat_colbytes_add_column(const tapas_binmat_colbytes_t *P,
											 size_t j, double sign, double *r);

/* Frees P; P may be NULL. */
extern void tapas_binmat_colbytes_free(tapas_binmat_colbytes_t *P);

/* Column weights of A from its patterns: counts[j], j < n (a copy: O(n)). */
extern void tapas_binmat_colbytes_weights(const tapas_binmat_colbytes_t *P,
										  size_t *counts);

/*
 * z = A^T r with the patterns of A (r has m entries, z has n; no
 * aliasing).  Not thread-safe on one P (it uses P->tables as scratch).
 */
extern void tapas_binmat_colbytes_mul_t(tapas_binmat_colbytes_t *P,
										const double *r, double *z);

/*
 * The transpose (n x m), or NULL when memory is short.  Useful when many
 * A^T r products are needed with large n: rows of the transpose are the
 * columns of A.
 */
extern tapas_binmat_t *tapas_binmat_transpose(const tapas_binmat_t *A);

/*
 * Writes A as a dense column-major m x n matrix of doubles with leading
 * dimension ld >= m (LAPACK layout): out[i + j * ld] = A[i][j].  out must
 * hold ld * n doubles.  Returns TAPAS_EINVAL when ld < m.
 */
extern tapas_status tapas_binmat_to_dense(const tapas_binmat_t *A,
										  double *out, size_t ld);

/* Writes column j of A as m doubles (0.0 or 1.0); j < n assumed. */
extern void tapas_binmat_column(const tapas_binmat_t *A, size_t j,
								double *col);

/*
 * Checks the invariants (padding bits zero, words == ceil(n / 64)).
 * Returns 1 if A is valid, else 0 and sets *reason (if not NULL) to a
 * static string.
 */
extern int	tapas_binmat_validate(const tapas_binmat_t *A, const char **reason);

#endif							/* TAPAS_BINMAT_H */
