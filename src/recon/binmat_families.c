/*-------------------------------------------------------------------------
 *
 * binmat_families.c
 *	  Runs of consecutive disjoint rows of a binary matrix: products A^T r
 *	  in F n 16-bit reads (see binmat_families.h).
 *
 * This is the sparse product for the rows of a GROUP BY: each record is
 * in one group of a statement, so a statement's rows are one family and
 * a record's column is one index per family, the "one nonzero per column
 * per block" layout of a block-diagonal incidence matrix (as ELLPACK
 * stores a fixed number of nonzeros per row: Saad, "Iterative methods
 * for sparse linear systems", 2nd ed., 2003, section 3.4, here per column
 * and with the row implicit in the family).  The packed bits of A (m n / 8
 * bytes, like the column patterns) are read once to build it; the products
 * then read F n 2-byte indices, a quarter of that for F = m / 16.
 *
 * IDENTIFICATION
 *	  src/recon/binmat_families.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/memory.h"
#include "recon/binmat_families.h"

#define FAMILIES_BLOCK	4096	/* columns per block: 32 kB of z */

/*
 * Row i of A into the families: a new family when it meets the union u of
 * the current one (u then restarts from the row), else it joins; its
 * columns get their index.  One pass over the row's words.  Returns -1
 * when a family more would exceed max_families or memory is short.
 */
static int
add_row(tapas_binmat_families_t *FA, const tapas_binmat_t *A, size_t i,
		size_t max_families, uint64_t *u)
{
	const uint64_t *row = tapas_binmat_row(A, i);
	uint64_t	hit = 0;
	uint16_t   *ix;
	uint16_t	k;

	for (size_t w = 0; w < A->words; w++)
	{
		hit |= row[w] & u[w];
		u[w] |= row[w];
	}
	if (i == 0 || hit != 0 || i - FA->start[FA->F - 1] == TAPAS_FAMILY_MAX_ROWS)
	{
		if (FA->F == max_families)
			return -1;
		if ((FA->idx[FA->F] = tapas_calloc(A->n, sizeof(uint16_t))) == NULL)
			return -1;
		FA->start[FA->F++] = i;
		memcpy(u, row, A->words * sizeof(uint64_t));
	}
	ix = FA->idx[FA->F - 1];
	k = (uint16_t) (i - FA->start[FA->F - 1] + 1);
	for (size_t w = 0; w < A->words; w++)
	{
		uint64_t	bits = row[w];

		while (bits != 0)
		{
			ix[w * 64 + (size_t) __builtin_ctzll(bits)] = k;
			bits &= bits - 1;
		}
	}
	return 0;
}

tapas_binmat_families_t *
tapas_binmat_families_create(const tapas_binmat_t *A, size_t max_families)
{
	tapas_binmat_families_t *FA;
	uint64_t   *u;

	if (A->m == 0 || A->n == 0 || max_families == 0)
		return NULL;
	if ((FA = tapas_calloc(1, sizeof(tapas_binmat_families_t))) == NULL)
		return NULL;
	FA->m = A->m;
	FA->n = A->n;
	FA->start = tapas_malloc((max_families + 1) * sizeof(size_t));
	FA->idx = tapas_calloc(max_families, sizeof(uint16_t *));
	FA->table = tapas_malloc((A->m + max_families) * sizeof(double));
	u = tapas_calloc(A->words, sizeof(uint64_t));
	if (FA->start == NULL || FA->idx == NULL || FA->table == NULL || u == NULL)
	{
		tapas_free(u);
		tapas_binmat_families_free(FA);
		return NULL;
	}
	for (size_t i = 0; i < A->m; i++)
		if (add_row(FA, A, i, max_families, u) != 0)
		{
			/* too many families (Bernoulli rows: at row max_families) */
			tapas_free(u);
			tapas_binmat_families_free(FA);
			return NULL;
		}
	FA->start[FA->F] = A->m;
	tapas_free(u);
	return FA;
}

void
tapas_binmat_families_mul_t(tapas_binmat_families_t *FA, const double *r, double *z)
{
	size_t		n = FA->n;

	/* T_f = (0, r over the family's rows), at table + start[f] + f */
	for (size_t f = 0; f < FA->F; f++)
	{
		double	   *T = FA->table + FA->start[f] + f;

		T[0] = 0.0;
		memcpy(T + 1, r + FA->start[f], (FA->start[f + 1] - FA->start[f]) * sizeof(double));
	}
	for (size_t j0 = 0; j0 < n; j0 += FAMILIES_BLOCK)
	{
		size_t		j1 = j0 + FAMILIES_BLOCK < n ? j0 + FAMILIES_BLOCK : n;
		size_t		f = 0;

		for (size_t j = j0; j < j1; j++)
			z[j] = 0.0;
		/* two families per pass over z's block */
		for (; f + 2 <= FA->F; f += 2)
		{
			const uint16_t *i0 = FA->idx[f],
					   *i1 = FA->idx[f + 1];
			const double *T0 = FA->table + FA->start[f] + f,
					   *T1 = FA->table + FA->start[f + 1] + f + 1;

			for (size_t j = j0; j < j1; j++)
				z[j] += T0[i0[j]] + T1[i1[j]];
		}
		for (; f < FA->F; f++)
		{
			const uint16_t *i0 = FA->idx[f];
			const double *T0 = FA->table + FA->start[f] + f;

			for (size_t j = j0; j < j1; j++)
				z[j] += T0[i0[j]];
		}
	}
}

void
tapas_binmat_families_add_column(const tapas_binmat_families_t *FA, size_t j,
								 double sign, double *r)
{
	for (size_t f = 0; f < FA->F; f++)
	{
		uint16_t	k = FA->idx[f][j];

		if (k != 0)
			r[FA->start[f] + k - 1] += sign;
	}
}

void
tapas_binmat_families_free(tapas_binmat_families_t *FA)
{
	if (FA == NULL)
		return;
	tapas_free(FA->start);
	for (size_t f = 0; FA->idx != NULL && f < FA->F; f++)
		tapas_free(FA->idx[f]);
	tapas_free(FA->idx);
	tapas_free(FA->table);
	tapas_free(FA);
}
