/*
 * t-rowspace_basis.c
 *	  The basis rows of src/recon/rowspace*.c seen through
 *	  tapas_rowspace_basis_entry, whatever their storage, against a dense
 *	  oracle over Q.
 *
 * The kernel stores each basis row as a vector of +1, -1 and 0 (today two
 * bitmaps per row; a storage by atom must give the same entries).  On
 * random instances, after every row: every entry is in {-1, 0, 1}, the
 * kernel-rank basis rows are independent over Q, each lies in the span of
 * the logged 0/1 rows (rank of [A; B] = rank of A), with every row kept in
 * the basis (set_basis_only 1) they span it, and the whole rank equals the
 * rank of A.  A copy read in place (TAPAS_ROWSPACE_SERIAL_INPLACE) shows
 * the same entries, before and after a row appended to it privately (in
 * the default mode: set_basis_only is not part of a copy).
 */
#include <stdlib.h>
#include <string.h>

#include <flint/fmpz_mat.h>

#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"

#define MAXN	48
#define MAXM	60

static long neg_entries;		/* -1 entries seen: the -1 storage is used */
static long basis_rows;			/* basis rows compared */

/* rank over Q of the m x n signed matrix E (row-major) */
static slong
rank_q(const int8_t *E, int m, int n)
{
	fmpz_mat_t	M;
	slong		rank;
	int			i,
				j;

	if (m == 0 || n == 0)
		return 0;
	fmpz_mat_init(M, m, n);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			fmpz_set_si(fmpz_mat_entry(M, i, j), E[i * n + j]);
	rank = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return rank;
}

/* B[k * n + j] = entry j of basis row k; 0 if an entry is out of range */
static int
basis_dense(const tapas_rowspace_t *rs, int n, int8_t *B)
{
	uint32_t	r = tapas_rowspace_kernel_rank(rs),
				k;
	int			j;

	for (k = 0; k < r; k++)
		for (j = 0; j < n; j++)
		{
			int			v = tapas_rowspace_basis_entry(rs, k, (uint32_t) j);

			if (v < -1 || v > 1)
				return 0;
			B[k * n + j] = (int8_t) v;
			neg_entries += v < 0;
		}
	basis_rows += r;
	return 1;
}

/* the checks after a row: A holds the m logged rows */
static void
check_basis(const tapas_rowspace_t *rs, const int8_t *A, int m, int n,
			int basis_only, long iter)
{
	static int8_t AB[(MAXM + MAXN) * MAXN];
	int8_t		B[MAXN * MAXN];
	int			r = (int) tapas_rowspace_kernel_rank(rs);
	slong		ra = rank_q(A, m, n);

	TAPAS_CHECK(r <= n);
	if (r > n)
		return;
	TAPAS_CHECK_MSG(basis_dense(rs, n, B), "iter %ld: an entry outside {-1,0,1}", iter);
	TAPAS_CHECK_MSG(rank_q(B, r, n) == r, "iter %ld: basis rows dependent", iter);
	memcpy(AB, A, (size_t) m * n);
	memcpy(AB + (size_t) m * n, B, (size_t) r * n);
	TAPAS_CHECK_MSG(rank_q(AB, m + r, n) == ra,
					"iter %ld: a basis row outside the logged rows' span", iter);
	TAPAS_CHECK_MSG((slong) tapas_rowspace_rank(rs) == ra, "iter %ld: rank", iter);
	if (basis_only == 1)
		TAPAS_CHECK_MSG(r == ra, "iter %ld: basis does not span", iter);
}

/* 1 iff a and b have the same basis entries */
static int
same_entries(const tapas_rowspace_t *a, const tapas_rowspace_t *b, int n)
{
	uint32_t	r = tapas_rowspace_kernel_rank(a),
				k;
	int			j;

	if (r != tapas_rowspace_kernel_rank(b))
		return 0;
	for (k = 0; k < r; k++)
		for (j = 0; j < n; j++)
			if (tapas_rowspace_basis_entry(a, k, j) != tapas_rowspace_basis_entry(b, k, j))
				return 0;
	return 1;
}

static void
release_buf(void *arg)
{
	free(arg);
}

static tapas_status
add_row(tapas_rowspace_t *rs, const uint32_t *ids, size_t len)
{
	size_t		off[2] = {0, len},
				count = 0;
	const uint32_t *newly;

	return tapas_rowspace_add(rs, ids, off, 1, NULL, &newly, &count);
}

/* the in-place copy of rs shows rs's entries, also after a private row */
static void
check_inplace(tapas_rowspace_t *rs, uint64_t prime, tapas_rng_t *rng, int n)
{
	size_t		len = tapas_rowspace_serial_size(rs);
	void	   *buf = malloc(len);
	tapas_status st;
	const char *reason = NULL;
	tapas_rowspace_t *c;
	uint32_t	ids[MAXN];
	size_t		l;

	TAPAS_CHECK(buf != NULL && tapas_rowspace_serialise(rs, buf, len) == TAPAS_OK);
	c = tapas_rowspace_deserialise_ext(buf, len, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
									   release_buf, buf, &st, &reason);
	TAPAS_CHECK_MSG(c != NULL, "in place: %s", reason ? reason : "?");
	if (c == NULL)
	{
		free(buf);
		return;
	}
	TAPAS_CHECK(same_entries(rs, c, n));
	l = tapas_test_random_row(rng, (uint32_t) n, 1, (size_t) n, ids);
	TAPAS_CHECK(add_row(rs, ids, l) == add_row(c, ids, l));
	TAPAS_CHECK(same_entries(rs, c, n));
	tapas_rowspace_free(c);
}

static void
test_basis_random(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(200);

	neg_entries = basis_rows = 0;
	tapas_rng_seed(&rng, tapas_test_seed() + 11);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		int			n = 2 + (int) tapas_rng_below(&rng, MAXN - 1),
					m = 1 + (int) tapas_rng_below(&rng, MAXM),
					basis_only = (int) tapas_rng_below(&rng, 3),
					sparse = (int) tapas_rng_below(&rng, 2),
					row;
		uint64_t	prime = tapas_rowspace_prime_draw(&rng);
		static int8_t A[MAXM * MAXN];
		uint32_t	ids[MAXN];
		const char *reason = NULL;
		tapas_rowspace_t *rs = tapas_rowspace_create((uint32_t) n, prime, 0, &rng, &reason);

		TAPAS_CHECK_MSG(rs != NULL, "create: %s", reason ? reason : "?");
		if (rs == NULL)
			return;
		TAPAS_CHECK(tapas_rowspace_set_basis_only(rs, basis_only) == TAPAS_OK);
		memset(A, 0, sizeof(A));
		for (row = 0; row < m && !tapas_test_current_failed; row++)
		{
			size_t		len = tapas_test_random_row(&rng, (uint32_t) n, sparse ? 2 : 1,
													sparse && n > 4 ? 4 : (size_t) n, ids),
						i;
			tapas_status st;

			for (i = 0; i < len; i++)
				A[row * n + ids[i]] = 1;
			st = add_row(rs, ids, len);
			TAPAS_CHECK_MSG(st == TAPAS_OK, "iter %ld row %d (n %d, mode %d): status %d", iter, row, n, basis_only, st);
			check_basis(rs, A, row + 1, n, basis_only, iter);
		}
		/* the baselines' flag is not copied: only the default mode */
		if (basis_only == 0)
			check_inplace(rs, prime, &rng, n);
		tapas_rowspace_free(rs);
	}
	/* not vacuous: many rows compared, the -1 entries among them */
	TAPAS_CHECK_MSG(basis_rows > 5000 && neg_entries > 1000,
					"%ld basis rows, %ld -1 entries", basis_rows, neg_entries);
	printf("# %ld basis rows compared, %ld -1 entries\n", basis_rows, neg_entries);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_basis_random);
	TAPAS_TEST_DONE();
}
