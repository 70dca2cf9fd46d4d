/*
 * t-rowspace_anchor.c
 *	  Unit tests for tapas_rowspace_anchors (src/recon/rowspace_span.c):
 *	  every short 0/1 vector of the row space touches an anchor (a pivot
 *	  or resolved atom of at most its length), so the joint audit
 *	  (audit/joint.c) may test only the records that touch one.
 *
 * Oracle: exact ranks over Q with FLINT's fmpz_mat_rank: w lies in the row
 * space iff appending it leaves the rank unchanged.  Every vector of
 * weight 1 to 3 over 20 records is checked, on states built from disjoint
 * groups (resolved atoms), differences (a row minus one or two records),
 * unions of earlier rows and random rows, committed or under an open
 * trial.  The test counts the vectors found in the row space, so that it
 * cannot pass on instances where there are none.
 */
#include <string.h>

#include <flint/fmpz_mat.h>

#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"

#define N		20
#define MAXM	64

/* rank over Q of the m x N 0/1 matrix A, with the extra row w if not NULL */
static slong
rank_q(const uint8_t *A, int m, const uint8_t *w)
{
	fmpz_mat_t	M;
	slong		rank;
	int			rows = m + (w != NULL);

	if (rows == 0)
		return 0;
	fmpz_mat_init(M, rows, N);
	for (int i = 0; i < rows; i++)
	{
		const uint8_t *row = i < m ? A + (size_t) i * N : w;

		for (int j = 0; j < N; j++)
			fmpz_set_ui(fmpz_mat_entry(M, i, j), row[j]);
	}
	rank = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return rank;
}

static void
mark(void *arg, uint32_t id)
{
	((uint8_t *) arg)[id] = 1;
}

/*
 * Every vector of weight 1..3 in the row space of A touches an anchor of
 * at most its weight; returns how many were in the row space.
 */
static long
check_anchors(const tapas_rowspace_t *rs, const uint8_t *A, int m)
{
	slong		full = rank_q(A, m, NULL);
	uint8_t		anchor[4][N];
	long		inside = 0;

	for (uint32_t s = 1; s <= 3; s++)
	{
		memset(anchor[s], 0, N);
		tapas_rowspace_anchors(rs, s, mark, anchor[s]);
	}
	for (int a = 0; a < N; a++)
		for (int b = a; b < N; b++)
			for (int c = b; c < N; c++)
			{
				uint8_t		w[N];
				int			len;

				/* a = b = c: weight 1; b = c: weight 2 */
				if (a == b && b != c)
					continue;
				memset(w, 0, N);
				w[a] = w[b] = w[c] = 1;
				len = 1 + (b != a) + (c != b);
				if (rank_q(A, m, w) != full)
					continue;
				inside++;
				TAPAS_CHECK_MSG(anchor[len][a] || anchor[len][b] || anchor[len][c],
								"vector {%d, %d, %d} of the row space touches no anchor",
								a, b, c);
			}
	return inside;
}

/* one random statement's rows into ids/off: returns their number */
static int
statement_rows(tapas_rng_t *rng, const uint8_t *A, int m, uint32_t *ids, size_t *off)
{
	int			kind = (int) tapas_rng_below(rng, 4);
	int			nrows = 0;
	size_t		len = 0;

	off[0] = 0;
	if (kind == 0)
	{
		/* a GROUP BY: disjoint groups of an attribute with 2..4 values */
		int			card = 2 + (int) tapas_rng_below(rng, 3);
		uint64_t	salt = tapas_rng_u64(rng);

		for (int g = 0; g < card; g++)
		{
			for (uint32_t j = 0; j < N; j++)
				if ((int) (((j + 1) * (salt | 1) >> 7) % (uint64_t) card) == g)
					ids[len++] = j;
			off[++nrows] = len;
		}
	}
	else if (kind == 1 && m > 0)
	{
		/* an earlier row minus one or two records: a difference */
		const uint8_t *row = A + (size_t) tapas_rng_below(rng, m) * N;
		uint32_t	drop1 = (uint32_t) tapas_rng_below(rng, N),
					drop2 = (uint32_t) tapas_rng_below(rng, N);

		for (uint32_t j = 0; j < N; j++)
			if (row[j] && j != drop1 && (tapas_rng_below(rng, 2) || j != drop2))
				ids[len++] = j;
		off[++nrows] = len;
	}
	else if (kind == 2 && m > 1)
	{
		/* the union of two earlier rows */
		const uint8_t *r1 = A + (size_t) tapas_rng_below(rng, m) * N;
		const uint8_t *r2 = A + (size_t) tapas_rng_below(rng, m) * N;

		for (uint32_t j = 0; j < N; j++)
			if (r1[j] || r2[j])
				ids[len++] = j;
		off[++nrows] = len;
	}
	else
	{
		len = tapas_test_random_row(rng, N, 1, N - 1, ids);
		off[++nrows] = len;
	}
	return nrows;
}

static void
test_anchors_against_oracle(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(12),
				inside = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 211);
	for (long iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint8_t		A[(MAXM + 8) * N];
		uint32_t	ids[8 * N];
		size_t		off[10];
		const char *reason = NULL;
		tapas_rowspace_t *rs = tapas_rowspace_create(N, tapas_rowspace_prime_draw(&rng), 0,
													 &rng, &reason);
		int			m = 0;

		TAPAS_CHECK_MSG(rs != NULL, "create: %s", reason ? reason : "?");
		memset(A, 0, sizeof(A));
		for (int stmt = 0; stmt < 10 && m < MAXM; stmt++)
		{
			const uint32_t *newly;
			size_t		cnt;
			int			nrows = statement_rows(&rng, A, m, ids, off);

			for (int i = 0; i < nrows; i++)
				for (size_t l = off[i]; l < off[i + 1]; l++)
					A[(size_t) (m + i) * N + ids[l]] = 1;
			TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, nrows, NULL, &newly, &cnt) == TAPAS_OK);
			inside += check_anchors(rs, A, m + nrows);
			if (tapas_rng_below(&rng, 4) == 0)
			{
				TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
				memset(A + (size_t) m * N, 0, (size_t) nrows * N);
			}
			else
			{
				TAPAS_CHECK(tapas_rowspace_commit(rs) == TAPAS_OK);
				m += nrows;
			}
			inside += check_anchors(rs, A, m);
		}
		tapas_rowspace_free(rs);
	}
	/* not vacuous: many short vectors were in the row space */
	TAPAS_CHECK_MSG(inside > 20 * iters, "%ld vectors in the row space", inside);
	printf("# %ld short vectors of the row space, each touching an anchor\n", inside);
}

/* a state with no row: no anchor at all; NULL arguments do nothing */
static void
test_anchors_empty(void)
{
	tapas_rng_t rng;
	const char *reason = NULL;
	tapas_rowspace_t *rs;
	uint8_t		anchor[N];

	tapas_rng_seed(&rng, 5);
	rs = tapas_rowspace_create(N, tapas_rowspace_prime_draw(&rng), 0, &rng, &reason);
	TAPAS_CHECK(rs != NULL);
	memset(anchor, 0, N);
	tapas_rowspace_anchors(rs, 64, mark, anchor);
	for (int j = 0; j < N; j++)
		TAPAS_CHECK(anchor[j] == 0);
	tapas_rowspace_anchors(NULL, 64, mark, anchor);
	tapas_rowspace_anchors(rs, 64, NULL, anchor);
	tapas_rowspace_free(rs);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_anchors_empty);
	TAPAS_TEST_RUN(test_anchors_against_oracle);
	TAPAS_TEST_DONE();
}
