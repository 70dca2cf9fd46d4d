/*
 * t-rowspace_resolved.c
 *	  Unit tests for src/recon/rowspace_resolved.c: atoms whose indicator
 *	  lies in the row space, kept outside the basis.
 *
 * Oracle: exact ranks over Q with FLINT's fmpz_mat_rank.  Record j is
 * determined iff deleting column j of A lowers the rank; a vector w lies
 * in the row space iff appending it leaves the rank unchanged; and the
 * kernel's rank (resolved atoms plus basis rows) must equal rank_Q(A).
 * Instances: GROUP BY statements over random attributes, refined by WHERE,
 * mixed with random rows, differences (a group minus one record) and
 * complements, as trials committed or rolled back; a wide GROUP BY (10,000
 * groups of 10 at n = 100,000) under a basis limit of 64.  Crossings:
 * GROUP BYs over two or three independent partitions (some under a WHERE)
 * with random rows and differences on top, against the same oracle; two
 * crossing partitions against the graph oracle (rank |P| + |Q| - the
 * components of the intersection graph, a meet atom in the span iff its
 * edge is a bridge); and a GROUP BY region after 10,000 groups at
 * n = 100,000 under a basis limit of 64.
 */
#include <string.h>

#include <flint/fmpz_mat.h>

#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"

#define N		48
#define MAXM	400

/* cardinalities of the four attributes of the GROUP BY instances */
static const int card[4] = {2, 3, 4, 3};

/* rank over Q of the m x n 0/1 matrix A, with the extra row w if not NULL */
static slong
rank_q(const uint8_t *A, int m, int n, int skip, const uint8_t *w)
{
	fmpz_mat_t	M;
	slong		rank;
	int			i,
				j,
				c,
				rows = m + (w != NULL);

	if (rows == 0)
		return 0;
	fmpz_mat_init(M, rows, n);
	for (i = 0; i < rows; i++)
	{
		const uint8_t *row = i < m ? A + (size_t) i * n : w;

		for (j = 0, c = 0; j < n; j++, c++)
			if (j != skip)
				fmpz_set_ui(fmpz_mat_entry(M, i, c), row[j]);
	}
	rank = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return rank;
}

static void
check_valid_rs(const tapas_rowspace_t *rs)
{
	const char *reason = NULL;

	TAPAS_CHECK_MSG(tapas_rowspace_validate(rs, 96, &reason), "invalid: %s",
					reason ? reason : "?");
}

static tapas_rowspace_t *
make_rs(uint32_t n, uint64_t seed, uint32_t rank_limit)
{
	tapas_rng_t rng;
	const char *reason = NULL;
	tapas_rowspace_t *rs;

	tapas_rng_seed(&rng, seed);
	rs = tapas_rowspace_create(n, tapas_rowspace_prime_draw(&rng), rank_limit,
							   &rng, &reason);
	TAPAS_CHECK_MSG(rs != NULL, "create: %s", reason ? reason : "?");
	return rs;
}

/* the kernel agrees with the oracle on A: determined set, rank, spans */
static void
check_against_oracle(const tapas_rowspace_t *rs, const uint8_t *A, int m,
					 tapas_rng_t *rng, long iter)
{
	slong		full = rank_q(A, m, N, -1, NULL);
	uint8_t		w[N];
	uint32_t	wid[8];
	int			j,
				t;
	const char *reason = NULL;

	TAPAS_CHECK_MSG(tapas_rowspace_rank(rs) == (uint32_t) full,
					"iter %ld: rank %u, oracle %ld", iter, tapas_rowspace_rank(rs),
					(long) full);
	for (j = 0; j < N; j++)
	{
		int			det = full > 0 && rank_q(A, m, N, j, NULL) < full;

		TAPAS_CHECK_MSG(tapas_rowspace_is_determined(rs, (uint32_t) j) == det,
						"iter %ld record %d: kernel %d, oracle %d", iter, j,
						tapas_rowspace_is_determined(rs, (uint32_t) j), det);
	}
	/* a few small vectors: inside the row space exactly when the oracle says */
	for (t = 0; t < 6; t++)
	{
		size_t		len = tapas_test_random_row(rng, N, 1, 8, wid),
					i;

		memset(w, 0, sizeof(w));
		for (i = 0; i < len; i++)
			w[wid[i]] = 1;
		TAPAS_CHECK_MSG(tapas_rowspace_contains(rs, wid, len) ==
						(rank_q(A, m, N, -1, w) == full), "iter %ld contains", iter);
	}
	TAPAS_CHECK_MSG(tapas_rowspace_validate(rs, 96, &reason), "invalid: %s",
					reason ? reason : "?");
}

/* one statement: GROUP BY a subset of 3 attributes, maybe WHERE on another */
static size_t
groupby_rows(tapas_rng_t *rng, const uint8_t attr[4][N], uint32_t *ids,
			 size_t *off, int *nrows)
{
	int			mask = 1 + (int) tapas_rng_below(rng, 7);
	int			wcol = (int) tapas_rng_below(rng, 5) - 1;
	int			wval = (int) tapas_rng_below(rng, 2);
	int			key,
				c;
	size_t		len = 0;
	uint32_t	j;

	if (wcol >= 0 && (mask & (1 << wcol)))
		wcol = -1;
	*nrows = 0;
	for (key = 0; key < 2 * 3 * 4 * 3; key++)
	{
		size_t		start = len;

		for (j = 0; j < N; j++)
		{
			int			kj = 0;

			if (wcol >= 0 && attr[wcol][j] != wval)
				continue;
			for (c = 0; c < 4; c++)
				if (mask & (1 << c))
					kj = kj * card[c] + attr[c][j];
			if (kj == key)
				ids[len++] = j;
		}
		if (len > start)
			off[(*nrows)++] = start;
	}
	off[*nrows] = len;
	return len;
}

/* one statement of another shape: a random row, a group minus one of its
 * records (a difference), or the complement of a few records */
static size_t
other_rows(tapas_rng_t *rng, const uint8_t *A, int m, uint32_t *ids,
		   size_t *off, int *nrows)
{
	int			kind = (int) tapas_rng_below(rng, 3);
	size_t		len = 0;
	uint32_t	j;

	off[0] = 0;
	*nrows = 1;
	if (kind == 0 || m == 0)
		len = tapas_test_random_row(rng, N, 1, N, ids);
	else if (kind == 1)
	{
		const uint8_t *row = A + (size_t) tapas_rng_below(rng, m) * N;
		int			skipped = 0;

		for (j = 0; j < N; j++)
			if (row[j] && (skipped || tapas_rng_below(rng, 3) != 0))
				ids[len++] = j;
			else if (row[j])
				skipped = 1;
	}
	else
	{
		uint32_t	a = (uint32_t) tapas_rng_below(rng, N),
					b = (uint32_t) tapas_rng_below(rng, N);

		for (j = 0; j < N; j++)
			if (j != a && j != b)
				ids[len++] = j;
	}
	off[1] = len;
	return len;
}

/*
 * Statements as trials against the oracle.  Also checks that the instances
 * exercise both sides: rows resolved outside the basis and rows the kernel
 * takes (after giving cut resolved atoms back to it).
 */
static void
test_resolved_statements_vs_oracle(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(40),
				outside = 0,
				inside = 0,
				determined = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 101);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint8_t		attr[4][N],
					A[MAXM * N];
		uint32_t	ids[4 * 24 * N];
		size_t		off[4 * 24 + 2];
		tapas_rowspace_t *rs = make_rs(N, tapas_rng_u64(&rng), 0);
		int			m = 0,
					stmt,
					c,
					nrows,
					i;
		uint32_t	j;

		for (c = 0; c < 4; c++)
			for (j = 0; j < N; j++)
				attr[c][j] = (uint8_t) tapas_rng_below(&rng, card[c]);
		memset(A, 0, sizeof(A));
		for (stmt = 0; stmt < 16 && m < MAXM - 72; stmt++)
		{
			const uint32_t *newly;
			size_t		cnt;
			uint64_t	fp = tapas_rowspace_fingerprint(rs);

			if (tapas_rng_below(&rng, 3) != 0)
				groupby_rows(&rng, attr, ids, off, &nrows);
			else
				other_rows(&rng, A, m, ids, off, &nrows);
			for (i = 0; i < nrows; i++)
			{
				size_t		l;

				for (l = off[i]; l < off[i + 1]; l++)
					A[(size_t) (m + i) * N + ids[l]] = 1;
			}
			TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, nrows, NULL, &newly, &cnt) == TAPAS_OK);
			check_against_oracle(rs, A, m + nrows, &rng, iter);
			if (tapas_rng_below(&rng, 4) == 0)
			{
				TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
				TAPAS_CHECK_MSG(tapas_rowspace_fingerprint(rs) == fp, "iter %ld rollback", iter);
				memset(A + (size_t) m * N, 0, (size_t) nrows * N);
			}
			else
			{
				TAPAS_CHECK(tapas_rowspace_commit(rs) == TAPAS_OK);
				m += nrows;
				determined += (long) cnt;
			}
			check_against_oracle(rs, A, m, &rng, iter);
		}
		outside += tapas_rowspace_rank(rs) - tapas_rowspace_kernel_rank(rs);
		inside += tapas_rowspace_kernel_rank(rs);
		tapas_rowspace_free(rs);
	}
	TAPAS_CHECK_MSG(outside > 3 * iters && inside > iters && determined > iters,
					"%ld resolved, %ld basis rows, %ld determined", outside, inside,
					determined);
	printf("# statements: %ld resolved atoms, %ld basis rows, %ld determined\n",
		   outside, inside, determined);
}

/*
 * 10,000 groups of 10 records at n = 100,000, with a basis of at most 64
 * rows: answered without one basis row, nothing determined; each group
 * refined by a WHERE (its first 3 records) is too; then one group minus
 * its last record determines exactly that record.
 */
static void
test_resolved_wide_groupby(void)
{
	enum { NG = 10000, G = 10 };
	static uint32_t ids[NG * G];
	static size_t off[NG + 1];
	tapas_rowspace_t *rs = make_rs(100000, tapas_test_seed() + 7, 64);
	const uint32_t *newly;
	size_t		cnt;
	uint32_t	g,
				i,
				w[G];

	for (g = 0; g < NG; g++)
	{
		off[g] = (size_t) g * G;
		for (i = 0; i < G; i++)
			ids[g * G + i] = g + NG * i;	/* group g: records g, g + NG, ... */
	}
	off[NG] = (size_t) NG * G;
	TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, NG, NULL, &newly, &cnt) == TAPAS_OK);
	TAPAS_CHECK(cnt == 0);
	TAPAS_CHECK(tapas_rowspace_rank(rs) == NG && tapas_rowspace_kernel_rank(rs) == 0);
	for (i = 0; i < G; i++)
		w[i] = 17 + NG * i;
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, G) == 1);	/* group 17 */
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, G - 1) == 0);
	/* WHERE on another column: the first 3 records of every group */
	for (g = 0; g < NG; g++)
		off[g] = (size_t) g * 3;
	for (g = 0; g < NG; g++)
		for (i = 0; i < 3; i++)
			ids[g * 3 + i] = g + NG * i;
	off[NG] = (size_t) NG * 3;
	TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, NG, NULL, &newly, &cnt) == TAPAS_OK);
	TAPAS_CHECK(cnt == 0);
	TAPAS_CHECK(tapas_rowspace_rank(rs) == 2 * NG && tapas_rowspace_kernel_rank(rs) == 0);
	TAPAS_CHECK(tapas_rowspace_atom_size(rs, 5) == 3 && tapas_rowspace_atom_size(rs, 5 + 5 * NG) == 7);
	/* group 17 without its last record: the difference isolates it */
	off[0] = 0;
	off[1] = G - 1;
	for (i = 0; i < G - 1; i++)
		ids[i] = 17 + NG * i;
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, 1, NULL, &newly, &cnt) == TAPAS_OK);
	TAPAS_CHECK_MSG(cnt == 1 && newly[0] == 17 + NG * (G - 1), "%zu determined", cnt);
	TAPAS_CHECK(tapas_rowspace_kernel_rank(rs) == 0);
	TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
	TAPAS_CHECK(!tapas_rowspace_is_determined(rs, 17 + NG * (G - 1)));
	tapas_rowspace_free(rs);
}

/* rows of a GROUP BY over the partition part[] (values < card), records
 * with keep[j] only (keep may be NULL) */
static int
partition_rows(const uint8_t *part, int card, const uint8_t *keep, uint32_t *ids,
			   size_t *off)
{
	int			v,
				nrows = 0;
	size_t		len = 0;
	uint32_t	j;

	for (v = 0; v < card; v++)
	{
		size_t		start = len;

		for (j = 0; j < N; j++)
			if (part[j] == v && (keep == NULL || keep[j]))
				ids[len++] = j;
		if (len > start)
			off[nrows++] = start;
	}
	off[nrows] = len;
	return nrows;
}

/*
 * Two or three independent partitions, each a GROUP BY (a third of them
 * under a WHERE on a random half), in random order with random rows and
 * differences between them, as trials committed or rolled back: the
 * determined set, the rank and membership agree with exact ranks over Q
 * after every statement, also in the baseline mode 2 of
 * tapas_rowspace_set_basis_only.  Also counts the statements that kept crossed
 * blocks outside the basis (rank - basis rows above the first GROUP BY's
 * groups), so that the test fails if crossings are never exercised.
 */
static void
test_crossing_partitions_vs_oracle(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(60),
				kept = 0,
				determined = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 211);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint8_t		part[3][N],
					keep[N],
					A[MAXM * N];
		int			card[3],
					np = 2 + (int) tapas_rng_below(&rng, 2),
					m = 0,
					stmt,
					c,
					nrows,
					i,
					first = 0;
		uint32_t	ids[4 * 24 * N],
					j;
		size_t		off[4 * 24 + 2];
		tapas_rowspace_t *rs = make_rs(N, tapas_rng_u64(&rng), 0);

		/* one in four: the benchmarks' baseline without crossed blocks */
		TAPAS_CHECK(tapas_rowspace_set_basis_only(rs, iter % 4 == 3 ? 2 : 0) == TAPAS_OK);
		for (c = 0; c < np; c++)
		{
			card[c] = 2 + (int) tapas_rng_below(&rng, 7);
			for (j = 0; j < N; j++)
				part[c][j] = (uint8_t) tapas_rng_below(&rng, card[c]);
		}
		memset(A, 0, sizeof(A));
		for (stmt = 0; stmt < 10 && m < MAXM - 72; stmt++)
		{
			const uint32_t *newly;
			size_t		cnt;
			uint64_t	fp = tapas_rowspace_fingerprint(rs);

			c = stmt < np ? stmt : (int) tapas_rng_below(&rng, np + 1);
			if (c < np)
			{
				int			where = tapas_rng_below(&rng, 3) == 0;

				for (j = 0; j < N; j++)
					keep[j] = (uint8_t) tapas_rng_below(&rng, 2);
				nrows = partition_rows(part[c], card[c], where ? keep : NULL, ids, off);
			}
			else
				other_rows(&rng, A, m, ids, off, &nrows);
			for (i = 0; i < nrows; i++)
			{
				size_t		l;

				for (l = off[i]; l < off[i + 1]; l++)
					A[(size_t) (m + i) * N + ids[l]] = 1;
			}
			TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, nrows, NULL, &newly, &cnt) == TAPAS_OK);
			check_against_oracle(rs, A, m + nrows, &rng, iter);
			if (stmt == 0)
				first = nrows;
			if (stmt > 0 && tapas_rowspace_rank(rs) - tapas_rowspace_kernel_rank(rs) >= (uint32_t) first &&
				tapas_rowspace_kernel_rank(rs) > 0)
				kept++;
			if (tapas_rng_below(&rng, 4) == 0)
			{
				TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
				TAPAS_CHECK_MSG(tapas_rowspace_fingerprint(rs) == fp, "iter %ld rollback", iter);
				memset(A + (size_t) m * N, 0, (size_t) nrows * N);
			}
			else
			{
				TAPAS_CHECK(tapas_rowspace_commit(rs) == TAPAS_OK);
				m += nrows;
				determined += (long) cnt;
			}
			check_against_oracle(rs, A, m, &rng, iter);
		}
		tapas_rowspace_free(rs);
	}
	TAPAS_CHECK_MSG(kept > iters && determined > iters,
					"%ld statements kept crossed blocks, %ld determined", kept, determined);
	printf("# crossings: %ld statements kept crossed blocks, %ld determined\n", kept, determined);
}

/* union-find root of v */
static int
uf_find(int *up, int v)
{
	while (up[v] != v)
		v = up[v] = up[up[v]];
	return v;
}

/* components of the graph on nv vertices with the edges (ea[e], eb[e]),
 * edge skip left out */
static int
components(int nv, const int *ea, const int *eb, int ne, int skip, int *up)
{
	int			v,
				e,
				count = nv;

	for (v = 0; v < nv; v++)
		up[v] = v;
	for (e = 0; e < ne; e++)
	{
		int			x,
					y;

		if (e == skip)
			continue;
		x = uf_find(up, ea[e]);
		y = uf_find(up, eb[e]);
		if (x != y)
		{
			up[x] = y;
			count--;
		}
	}
	return count;
}

/*
 * GROUP BY P then GROUP BY Q over two random partitions of N records: the
 * rank is |P| + |Q| - (components of the intersection graph), the basis
 * holds at most one row per group of Q, and a meet atom X n Y lies in the
 * span (contains) iff its edge is a bridge, so a singleton meet atom is
 * determined iff it is one.  The graph oracle shares nothing with the
 * kernel.
 */
static void
test_crossing_bridges(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(200),
				bridges = 0,
				cycles = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 223);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint8_t		part[2][N];
		int			card[2],
					edge[16][16],
					ea[256],
					eb[256],
					up[32],
					ne = 0,
					used[32],
					nv = 0,
					c,
					e,
					nrows,
					v;
		uint32_t	ids[N],
					j;
		size_t		off[17],
					cnt;
		const uint32_t *newly;
		tapas_rowspace_t *rs = make_rs(N, tapas_rng_u64(&rng), 0);

		for (c = 0; c < 2; c++)
		{
			card[c] = 2 + (int) tapas_rng_below(&rng, 14);
			for (j = 0; j < N; j++)
				part[c][j] = (uint8_t) tapas_rng_below(&rng, card[c]);
		}
		for (c = 0; c < 2; c++)
		{
			nrows = partition_rows(part[c], card[c], NULL, ids, off);
			TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, nrows, NULL, &newly, &cnt) == TAPAS_OK);
			if (c == 1)
				TAPAS_CHECK_MSG(tapas_rowspace_kernel_rank(rs) <= (uint32_t) nrows,
								"iter %ld: %u basis rows for %d groups", iter,
								tapas_rowspace_kernel_rank(rs), nrows);
		}
		/* the graph: a vertex per nonempty block, an edge per meet atom */
		memset(edge, 0xff, sizeof(edge));
		memset(used, 0, sizeof(used));
		for (j = 0; j < N; j++)
		{
			int			x = part[0][j],
						y = part[1][j];

			used[x] = used[16 + y] = 1;
			if (edge[x][y] < 0)
			{
				edge[x][y] = ne;
				ea[ne] = x;
				eb[ne++] = 16 + y;
			}
		}
		for (v = 0; v < 32; v++)
			nv += used[v];
		/* unused vertices are isolated: subtract them from the count */
		TAPAS_CHECK_MSG(tapas_rowspace_rank(rs) ==
						(uint32_t) (nv - (components(32, ea, eb, ne, -1, up) - (32 - nv))),
						"iter %ld: rank %u", iter, tapas_rowspace_rank(rs));
		for (e = 0; e < ne; e++)
		{
			int			bridge = components(32, ea, eb, ne, e, up) >
				components(32, ea, eb, ne, -1, up);
			size_t		len = 0;

			for (j = 0; j < N; j++)
				if (part[0][j] == ea[e] && part[1][j] == eb[e] - 16)
					ids[len++] = j;
			TAPAS_CHECK_MSG(tapas_rowspace_contains(rs, ids, len) == bridge,
							"iter %ld edge %d: contains %d, bridge %d", iter, e,
							tapas_rowspace_contains(rs, ids, len), bridge);
			if (len == 1)
				TAPAS_CHECK_MSG(tapas_rowspace_is_determined(rs, ids[0]) == bridge,
								"iter %ld record %u: determined %d, bridge %d", iter,
								ids[0], tapas_rowspace_is_determined(rs, ids[0]), bridge);
			bridges += bridge;
			cycles += !bridge;
		}
		check_valid_rs(rs);
		tapas_rowspace_free(rs);
	}
	TAPAS_CHECK_MSG(bridges > iters && cycles > iters, "%ld bridges, %ld on cycles",
					bridges, cycles);
	printf("# bridges: %ld meet atoms on bridges, %ld on cycles\n", bridges, cycles);
}

/*
 * 10,000 groups of 10 at n = 100,000, then GROUP BY region (40 regions
 * crossing every group) under a basis limit of 64: answered with at most
 * 40 basis rows (the kernel gave each cut group back to the basis and
 * failed closed), nothing determined (every meet atom is on a cycle);
 * then one group minus one record determines exactly that record.
 */
static void
test_crossing_wide(void)
{
	enum { NG = 10000, G = 10, NR = 40, NN = NG * G };
	static uint32_t ids[NN];
	static size_t off[NG + 1];
	tapas_rowspace_t *rs = make_rs(NN, tapas_test_seed() + 9, 64);
	const uint32_t *newly;
	size_t		cnt,
				len = 0;
	uint32_t	g,
				i,
				r;
	const char *reason = NULL;

	for (g = 0; g < NG; g++)
	{
		off[g] = (size_t) g * G;
		for (i = 0; i < G; i++)
			ids[g * G + i] = g + NG * i;
	}
	off[NG] = NN;
	TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, NG, NULL, &newly, &cnt) == TAPAS_OK);
	for (r = 0; r < NR; r++)
	{
		off[r] = len;
		for (i = 0; i < NN; i++)
			if ((i * 2654435761u >> 7) % NR == r)
				ids[len++] = i;
	}
	off[NR] = len;
	TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, NR, NULL, &newly, &cnt) == TAPAS_OK);
	TAPAS_CHECK_MSG(cnt == 0, "%zu determined", cnt);
	TAPAS_CHECK_MSG(tapas_rowspace_kernel_rank(rs) <= NR &&
					tapas_rowspace_rank(rs) == NG + NR - 1,
					"rank %u, basis rows %u", tapas_rowspace_rank(rs),
					tapas_rowspace_kernel_rank(rs));
	TAPAS_CHECK_MSG(tapas_rowspace_validate(rs, 0, &reason), "invalid: %s",
					reason ? reason : "?");
	/* group 17 without its last record */
	off[0] = 0;
	off[1] = G - 1;
	for (i = 0; i < G - 1; i++)
		ids[i] = 17 + NG * i;
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, 1, NULL, &newly, &cnt) == TAPAS_OK);
	TAPAS_CHECK_MSG(cnt == 1 && newly[0] == 17 + NG * (G - 1), "%zu determined", cnt);
	TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
	TAPAS_CHECK(!tapas_rowspace_is_determined(rs, 17 + NG * (G - 1)));
	tapas_rowspace_free(rs);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_resolved_statements_vs_oracle);
	TAPAS_TEST_RUN(test_resolved_wide_groupby);
	TAPAS_TEST_RUN(test_crossing_partitions_vs_oracle);
	TAPAS_TEST_RUN(test_crossing_bridges);
	TAPAS_TEST_RUN(test_crossing_wide);
	TAPAS_TEST_DONE();
}
