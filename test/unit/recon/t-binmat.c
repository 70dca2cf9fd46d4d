/*
 * t-binmat.c
 *	  Unit tests for src/recon/binmat.c.
 *
 * Oracle: a plain unsigned char m x n array holding the same random
 * entries; every product is recomputed from it with the schoolbook loop.
 * Sizes straddle the word (64) and group (8) boundaries.
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/binmat.h"
#include "tapas_test.h"

static const size_t sizes[][2] = {
	{1, 1}, {7, 63}, {8, 64}, {9, 65}, {17, 129}, {33, 200}, {64, 1}, {3, 1000}
};

/* random A and its plain copy D (m * n bytes, row-major) */
static tapas_binmat_t *
random_matrix(tapas_rng_t *rng, size_t m, size_t n, unsigned char *D)
{
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	size_t		i,
				j;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
		{
			D[i * n + j] = (unsigned char) (tapas_rng_u64(rng) & 1);
			tapas_binmat_set(A, i, j, D[i * n + j]);
		}
	return A;
}

static void
test_binmat_set_get_weights(void)
{
	tapas_rng_t rng;
	size_t		c;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
	{
		size_t		m = sizes[c][0],
					n = sizes[c][1],
					i,
					j;
		unsigned char *D = malloc(m * n);
		size_t	   *cw = malloc(n * sizeof(size_t));
		tapas_binmat_t *A = random_matrix(&rng, m, n, D);
		tapas_binmat_t *C = tapas_binmat_copy(A);
		const char *reason = NULL;

		TAPAS_CHECK(tapas_binmat_validate(A, &reason));
		tapas_binmat_col_weights(A, cw);
		for (i = 0; i < m; i++)
		{
			size_t		w = 0;

			for (j = 0; j < n; j++)
			{
				w += D[i * n + j];
				TAPAS_CHECK(tapas_binmat_get(C, i, j) == D[i * n + j]);
			}
			TAPAS_CHECK_MSG(tapas_binmat_row_weight(A, i) == w, "m %zu n %zu row %zu", m, n, i);
		}
		for (j = 0; j < n; j++)
		{
			size_t		w = 0;

			for (i = 0; i < m; i++)
				w += D[i * n + j];
			TAPAS_CHECK(cw[j] == w);
		}
		/* clearing a bit works and keeps the invariants */
		tapas_binmat_set(A, m - 1, n - 1, 1);
		tapas_binmat_set(A, m - 1, n - 1, 0);
		TAPAS_CHECK(tapas_binmat_get(A, m - 1, n - 1) == 0);
		TAPAS_CHECK(tapas_binmat_validate(A, NULL));
		/* a padding bit is detected */
		if (n % 64 != 0)
		{
			tapas_binmat_row(A, 0)[A->words - 1] |= UINT64_C(1) << 63;
			TAPAS_CHECK(!tapas_binmat_validate(A, &reason));
		}
		tapas_binmat_free(A);
		tapas_binmat_free(C);
		free(D);
		free(cw);
	}
	tapas_binmat_free(NULL);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_binmat_products(void)
{
	tapas_rng_t rng;
	size_t		c;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
	{
		size_t		m = sizes[c][0],
					n = sizes[c][1],
					i,
					j;
		unsigned char *D = malloc(m * n);
		tapas_binmat_t *A = random_matrix(&rng, m, n, D);
		tapas_binmat_colbytes_t *P = tapas_binmat_colbytes_create(A);
		double	   *x = malloc(n * sizeof(double)),
				   *y = malloc(m * sizeof(double)),
				   *r = malloc(m * sizeof(double)),
				   *z = malloc(n * sizeof(double)),
				   *z2 = malloc(n * sizeof(double));
		int64_t    *xi = malloc(n * sizeof(int64_t)),
				   *yi = malloc(m * sizeof(int64_t));

		for (j = 0; j < n; j++)
		{
			x[j] = tapas_rng_normal(&rng);
			xi[j] = (int64_t) tapas_rng_below(&rng, 1000) - 500;
		}
		for (i = 0; i < m; i++)
			r[i] = tapas_rng_normal(&rng);
		tapas_binmat_mul(A, x, y);
		tapas_binmat_mul_i64(A, xi, yi);
		TAPAS_CHECK(tapas_binmat_mul_t(A, r, z) == TAPAS_OK);
		tapas_binmat_colbytes_mul_t(P, r, z2);
		{
			size_t	   *c1 = malloc(n * sizeof(size_t)),
					   *c2 = malloc(n * sizeof(size_t));

			tapas_binmat_col_weights(A, c1);
			tapas_binmat_colbytes_weights(P, c2);
			TAPAS_CHECK(memcmp(c1, c2, n * sizeof(size_t)) == 0);
			free(c1);
			free(c2);
		}
		for (i = 0; i < m; i++)
		{
			double		s = 0.0;
			int64_t		si = 0;

			for (j = 0; j < n; j++)
				if (D[i * n + j])
				{
					s += x[j];
					si += xi[j];
				}
			TAPAS_CHECK_MSG(fabs(s - y[i]) <= 1e-9 * (1 + fabs(s)), "Ax m %zu n %zu", m, n);
			TAPAS_CHECK(si == yi[i]);
			TAPAS_CHECK(fabs(s - tapas_binmat_row_dot(A, i, x)) <= 1e-9 * (1 + fabs(s)));
		}
		for (j = 0; j < n; j++)
		{
			double		s = 0.0;

			for (i = 0; i < m; i++)
				if (D[i * n + j])
					s += r[i];
			TAPAS_CHECK_MSG(fabs(s - z[j]) <= 1e-9 * (1 + fabs(s)), "A^T r m %zu n %zu col %zu", m, n, j);
			TAPAS_CHECK_MSG(fabs(s - z2[j]) <= 1e-9 * (1 + fabs(s)), "colbytes m %zu n %zu col %zu", m, n, j);
		}
		tapas_binmat_colbytes_free(P);
		tapas_binmat_free(A);
		free(D);
		free(x);
		free(y);
		free(r);
		free(z);
		free(z2);
		free(xi);
		free(yi);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_binmat_transpose_dense(void)
{
	tapas_rng_t rng;
	size_t		c;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	for (c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
	{
		size_t		m = sizes[c][0],
					n = sizes[c][1],
					i,
					j;
		unsigned char *D = malloc(m * n);
		tapas_binmat_t *A = random_matrix(&rng, m, n, D);
		tapas_binmat_t *T = tapas_binmat_transpose(A);
		double	   *dense = malloc((m + 3) * n * sizeof(double));
		double	   *col = malloc(m * sizeof(double));

		TAPAS_CHECK(T->m == n && T->n == m && tapas_binmat_validate(T, NULL));
		TAPAS_CHECK(tapas_binmat_to_dense(A, dense, m + 3) == TAPAS_OK);
		TAPAS_CHECK(tapas_binmat_to_dense(A, dense, m - 1) == TAPAS_EINVAL);
		for (j = 0; j < n; j++)
		{
			tapas_binmat_column(A, j, col);
			for (i = 0; i < m; i++)
			{
				TAPAS_CHECK(tapas_binmat_get(T, j, i) == D[i * n + j]);
				TAPAS_CHECK(dense[i + j * (m + 3)] == (double) D[i * n + j]);
				TAPAS_CHECK(col[i] == (double) D[i * n + j]);
			}
		}
		tapas_binmat_free(T);
		tapas_binmat_free(A);
		free(D);
		free(dense);
		free(col);
	}
}

static void
test_binmat_empty_and_nomem(void)
{
	tapas_binmat_t *A = tapas_binmat_create(0, 0);
	double		z[1];

	TAPAS_CHECK(A != NULL && A->words == 0);
	TAPAS_CHECK(tapas_binmat_validate(A, NULL));
	TAPAS_CHECK(tapas_binmat_mul_t(A, NULL, z) == TAPAS_OK);
	tapas_binmat_free(A);
	TAPAS_CHECK(tapas_binmat_create(SIZE_MAX / 4, 128) == NULL);
	tapas_memory_fail_after(1);
	TAPAS_CHECK(tapas_binmat_create(4, 4) == NULL);
	tapas_memory_fail_after(-1);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/*
 * Incremental patterns (tapas_binmat_colbytes_update), as the audit uses
 * them: a matrix with room for 80 rows, whose first `logged` rows only
 * grow and whose trailing "batch" rows are rewritten, fewer or more, at
 * every step.  After each update, A^T r, the column weights and every
 * column (add_column) must equal the schoolbook oracle on D.
 */
static void
test_colbytes_update(void)
{
	tapas_rng_t rng;
	const size_t n = 150,
				cap = 80;
	unsigned char *D = calloc(cap * n, 1);
	tapas_binmat_t *A = tapas_binmat_create(cap, n);
	tapas_binmat_colbytes_t *P = NULL;
	double	   *r = malloc(cap * sizeof(double)),
			   *z = malloc(n * sizeof(double)),
			   *col = malloc(cap * sizeof(double));
	size_t	   *cw = malloc(n * sizeof(size_t));
	size_t		logged = 0,
				prev = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 7);
	for (int step = 0; step < 40; step++)
	{
		size_t		add = tapas_rng_below(&rng, 5),
					batch = tapas_rng_below(&rng, 12),
					m;

		if (logged + add + batch > cap)
			break;
		logged += add;
		m = logged + batch;
		/* the new logged rows and the batch rows are rewritten */
		for (size_t i = prev; i < cap; i++)
			for (size_t j = 0; j < n; j++)
			{
				D[i * n + j] = i < m ? (unsigned char) (tapas_rng_u64(&rng) & 1) : 0;
				tapas_binmat_set(A, i, j, D[i * n + j]);
			}
		A->m = m;
		TAPAS_CHECK(tapas_binmat_colbytes_update(&P, A, step % 7 == 3 ? 0 : prev) == TAPAS_OK);
		TAPAS_CHECK(P != NULL && P->m == m && P->n == n && P->groups == (m + 7) / 8);
		for (size_t i = 0; i < m; i++)
			r[i] = tapas_rng_normal(&rng);
		tapas_binmat_colbytes_mul_t(P, r, z);
		tapas_binmat_colbytes_weights(P, cw);
		for (size_t j = 0; j < n; j++)
		{
			double		sum = 0.0;
			size_t		c = 0;

			memset(col, 0, cap * sizeof(double));
			tapas_binmat_colbytes_add_column(P, j, 1.0, col);
			for (size_t i = 0; i < m; i++)
			{
				sum += D[i * n + j] ? r[i] : 0.0;
				c += D[i * n + j];
				TAPAS_CHECK_MSG(col[i] == D[i * n + j], "add_column step %d row %zu col %zu", step, i, j);
			}
			TAPAS_CHECK_MSG(fabs(sum - z[j]) <= 1e-9 * (1 + fabs(sum)), "update A^T r step %d col %zu", step, j);
			TAPAS_CHECK_MSG(cw[j] == c, "update weights step %d col %zu", step, j);
		}
		prev = logged;
	}
	/* another column count: built afresh */
	{
		tapas_binmat_t *B = tapas_binmat_create(9, 70);

		tapas_binmat_set(B, 8, 69, 1);
		TAPAS_CHECK(tapas_binmat_colbytes_update(&P, B, 5) == TAPAS_OK);
		TAPAS_CHECK(P->n == 70 && P->groups == 2 && P->weights[69] == 1 && P->weights[0] == 0);
		tapas_binmat_free(B);
	}
	tapas_binmat_colbytes_free(P);
	tapas_binmat_free(A);
	free(D);
	free(r);
	free(z);
	free(col);
	free(cw);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_binmat_set_get_weights);
	TAPAS_TEST_RUN(test_binmat_products);
	TAPAS_TEST_RUN(test_binmat_transpose_dense);
	TAPAS_TEST_RUN(test_colbytes_update);
	TAPAS_TEST_RUN(test_binmat_empty_and_nomem);
	TAPAS_TEST_DONE();
}
