/*
 * t-rowspace.c
 *	  Unit tests for src/recon/rowspace.c, rowspace_trial.c and
 *	  rowspace_check.c.
 *
 * Oracles: exact ranks over Q with FLINT's fmpz_mat_rank (record j is
 * determined iff deleting column j of A lowers the rank), and for larger
 * ranks the dense incremental RREF modulo the same prime.  Instances: random small matrices with rows of every size, sparse
 * rows (n = 40, rows of 2..4) with a p = 3 negative control, GROUP BY statements
 * as trial batches committed or rolled back, difference attacks (n up to
 * 100,000), Denning and Schlorer trackers, complements of small sets,
 * Hadamard rows (everything determined exactly at row n), Bernoulli designs
 * on n = 20,000 (atom-rich regime, block search), trial/rollback leaving the
 * fingerprint unchanged, and every error status including allocation
 * failures.  tapas_rowspace_validate runs after each change.
 */
#include <string.h>

#include <flint/fmpz_mat.h>
#include <flint/nmod_vec.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"

#define MAXN	64
#define MAXM	80

/* a fixed test prime near 2^62 and a fresh state */
static tapas_rowspace_t *
make_rs(uint32_t n, uint64_t seed, uint32_t rank_limit)
{
	tapas_rng_t rng;
	uint64_t	p;
	const char *reason = NULL;
	tapas_rowspace_t *rs;

	tapas_rng_seed(&rng, seed);
	p = tapas_rowspace_prime_draw(&rng);
	rs = tapas_rowspace_create(n, p, rank_limit, &rng, &reason);
	TAPAS_CHECK_MSG(rs != NULL, "create: %s", reason ? reason : "?");
	return rs;
}

/* adds one row, returns the number of newly determined records */
static size_t
add1(tapas_rowspace_t *rs, const uint32_t *ids, size_t len)
{
	size_t		off[2] = {0, len},
				count = 0;
	const uint32_t *newly;
	tapas_status st = tapas_rowspace_add(rs, ids, off, 1, NULL, &newly, &count);

	TAPAS_CHECK_MSG(st == TAPAS_OK, "add: status %d", st);
	return count;
}

static void
check_valid(const tapas_rowspace_t *rs)
{
	const char *reason = NULL;

	TAPAS_CHECK_MSG(tapas_rowspace_validate(rs, 96, &reason), "invalid: %s",
					reason ? reason : "?");
}

/* ---------------------------------------------------------------------
 * The oracle over Q
 * ---------------------------------------------------------------------
 */

/* rank over Q of the m x n 0/1 matrix A (row-major bytes) without column
 * skip (skip = n keeps every column) */
static slong
rank_q(const uint8_t *A, int m, int n, int skip)
{
	fmpz_mat_t	M;
	slong		rank;
	int			i,
				j,
				c;

	if (m == 0 || n - (skip < n) == 0)
		return 0;
	fmpz_mat_init(M, m, n - (skip < n));
	for (i = 0; i < m; i++)
		for (j = 0, c = 0; j < n; j++)
			if (j != skip)
				fmpz_set_ui(fmpz_mat_entry(M, i, c++), A[i * n + j]);
	rank = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return rank;
}

/* det[j] = 1 iff e_j in rowspace_Q(A); returns the number determined */
static int
oracle_determined(const uint8_t *A, int m, int n, uint8_t *det)
{
	slong		full = rank_q(A, m, n, n);
	int			j,
				k,
				i,
				count = 0;

	for (j = 0; j < n; j++)
	{
		int			dup = 0;

		/* a column equal to another one never lowers the rank (shortcut) */
		for (k = 0; k < n && !dup; k++)
		{
			if (k == j)
				continue;
			for (i = 0; i < m && A[i * n + j] == A[i * n + k]; i++)
				;
			dup = i == m;
		}
		det[j] = !dup && full > 0 && rank_q(A, m, n, j) < full;
		count += det[j];
	}
	return count;
}

/* 1 iff the kernel's determined set equals det[] */
static int
same_as_oracle(const tapas_rowspace_t *rs, const uint8_t *det, int n)
{
	size_t		count,
				i;
	const uint32_t *list = tapas_rowspace_determined(rs, &count);
	int			j,
				expect = 0;

	for (j = 0; j < n; j++)
	{
		expect += det[j];
		if (det[j] != tapas_rowspace_is_determined(rs, j))
			return 0;
	}
	for (i = 0; i < count; i++)
		if (!det[list[i]])
			return 0;
	return (size_t) expect == count;
}

/*
 * Random instances against the oracle, checking after every row (small n)
 * or every few rows; sizes in [lo, hi] (hi = 0: up to n).  Returns the
 * number of instances that disagreed with the oracle at some checkpoint.
 */
static long oracle_total;		/* determined records seen by the oracle */
static long oracle_checks;		/* oracle checkpoints */

static int
run_random(uint64_t seed, long iters, uint32_t maxn, size_t lo, size_t hi,
		   uint64_t prime, int strict)
{
	tapas_rng_t rng;
	long		iter;
	int			mismatches = 0;

	tapas_rng_seed(&rng, seed);
	for (iter = 0; iter < iters; iter++)
	{
		uint32_t	nmin = hi ? (uint32_t) hi : 1;
		uint32_t	n = nmin + (uint32_t) tapas_rng_below(&rng, maxn - nmin + 1);
		int			m = 1 + (int) tapas_rng_below(&rng, n + 8);
		uint8_t		A[MAXM * MAXN],
					det[MAXN];
		uint32_t	ids[MAXN];
		tapas_rowspace_t *rs;
		int			row,
					bad = 0;
		const char *reason = NULL;

		if (prime)
		{
			rs = tapas_rowspace_create(n, prime, 0, &rng, &reason);
			TAPAS_CHECK(rs != NULL);
		}
		else
			rs = make_rs(n, tapas_rng_u64(&rng), 0);
		if (rs == NULL)
			return -1;
		memset(A, 0, sizeof(A));
		for (row = 0; row < m && !bad; row++)
		{
			size_t		len = tapas_test_random_row(&rng, n, lo, hi && hi < n ? hi : n, ids),
						i;

			for (i = 0; i < len; i++)
				A[row * n + ids[i]] = 1;
			add1(rs, ids, len);
			if (strict)
				check_valid(rs);
			if (n <= 24 || row % 6 == 5 || row == m - 1)
			{
				oracle_total += oracle_determined(A, row + 1, n, det);
				oracle_checks++;
				bad = !same_as_oracle(rs, det, n);
				if (bad && strict)
					TAPAS_CHECK_MSG(0, "iter %ld n=%u row=%d mismatch", iter, n, row);
			}
		}
		mismatches += bad;
		tapas_rowspace_free(rs);
		if (strict && tapas_test_current_failed)
			break;
	}
	return mismatches;
}

static void
test_rowspace_random_small(void)
{
	oracle_total = oracle_checks = 0;
	run_random(tapas_test_seed(), tapas_test_iters(300), 60, 1, 0, 0, 1);
	/* the comparison is not vacuous: many checkpoints, many determinations */
	TAPAS_CHECK_MSG(oracle_checks > 2000 && oracle_total > 2000,
					"%ld checks, %ld determined", oracle_checks, oracle_total);
	printf("# random: %ld oracle checkpoints, %ld determined records\n",
		   oracle_checks, oracle_total);
}

/* n = 40, rows of size 2..4, many exact compromises */
static void
test_rowspace_sparse_rows(void)
{
	oracle_total = oracle_checks = 0;
	run_random(tapas_test_seed() + 7, tapas_test_iters(100), 40, 2, 4, 0, 1);
	TAPAS_CHECK_MSG(oracle_total > 1000, "%ld determined", oracle_total);
	printf("# sparse: %ld oracle checkpoints, %ld determined records\n",
		   oracle_checks, oracle_total);
}

/* negative control: with p = 3 the same comparison must catch mismatches */
static void
test_rowspace_small_prime_mismatches(void)
{
	int			bad = run_random(tapas_test_seed() + 9, 60, 40, 2, 4, 3, 0);

	TAPAS_CHECK_MSG(bad > 0, "p = 3 agreed with Q on every instance");
}

/* ---------------------------------------------------------------------
 * Second oracle for larger ranks: the dense incremental RREF mod p
 * ---------------------------------------------------------------------
 */

#define DN	300

/* adds row q to the dense RREF R (r rows of DN entries); det[] = records
 * whose pivot row has weight 1 */
static void
dense_rref_add(uint64_t *R, int *r, int *rowof, int *piv, nmod_t mod,
			   const uint32_t *q, size_t len, uint8_t *det)
{
	uint64_t	v[DN];
	size_t		i;
	int			c,
				k,
				j;

	memset(v, 0, sizeof(v));
	for (i = 0; i < len; i++)
		v[q[i]] = 1;
	for (i = 0; i < len; i++)
		if (rowof[q[i]] >= 0 && v[q[i]] != 0)
			_nmod_vec_scalar_addmul_nmod(v, R + (size_t) rowof[q[i]] * DN, DN,
										 nmod_neg(v[q[i]], mod), mod);
	for (c = 0; c < DN && v[c] == 0; c++)
		;
	if (c < DN)
	{
		_nmod_vec_scalar_mul_nmod(v, v, DN, n_invmod(v[c], mod.n), mod);
		for (k = 0; k < *r; k++)
			if (R[(size_t) k * DN + c] != 0)
				_nmod_vec_scalar_addmul_nmod(R + (size_t) k * DN, v, DN,
											 nmod_neg(R[(size_t) k * DN + c], mod), mod);
		memcpy(R + (size_t) *r * DN, v, sizeof(v));
		piv[*r] = c;
		rowof[c] = (*r)++;
	}
	memset(det, 0, DN);
	for (k = 0; k < *r; k++)
	{
		int			w = 0;

		for (j = 0; j < DN; j++)
			w += R[(size_t) k * DN + j] != 0;
		det[piv[k]] = w == 1;
	}
}

/*
 * n = 300, 420 rows mixing Bernoulli rows, small rows, differences of an
 * earlier row and one record, and complements: ranks up to 300 (capacity
 * growth, block searches), checked every 10 rows against the dense
 * RREF modulo the same prime.
 */
static void
test_rowspace_vs_dense_rref(void)
{
	tapas_rng_t rng;
	uint64_t	p;
	tapas_rowspace_t *rs;
	uint64_t   *R = tapas_malloc((size_t) DN * DN * sizeof(uint64_t));
	uint8_t    *rows = tapas_calloc(420, DN);
	int			rowof[DN],
				piv[DN],
				r = 0,
				m,
				j;
	uint8_t		det[DN];
	nmod_t		mod;
	uint32_t	ids[DN];

	tapas_rng_seed(&rng, tapas_test_seed() + 51);
	p = tapas_rowspace_prime_draw(&rng);
	nmod_init(&mod, p);
	rs = tapas_rowspace_create(DN, p, 0, &rng, NULL);
	for (j = 0; j < DN; j++)
		rowof[j] = -1;
	for (m = 0; m < 420 && !tapas_test_current_failed; m++)
	{
		int			kind = (int) tapas_rng_below(&rng, 4);
		uint8_t    *row = rows + (size_t) m * DN;
		size_t		len = 0;

		if (kind == 0 || m == 0)
			for (j = 0; j < DN; j++)
				row[j] = tapas_rng_below(&rng, 2);
		else if (kind == 1)
			for (j = 0; j < 1 + (int) tapas_rng_below(&rng, 3); j++)
				row[tapas_rng_below(&rng, DN)] = 1;
		else
		{
			const uint8_t *old = rows + tapas_rng_below(&rng, m) * DN;

			for (j = 0; j < DN; j++)
				row[j] = kind == 2 ? old[j] : !old[j];
			if (kind == 2)
				row[tapas_rng_below(&rng, DN)] ^= 1;
		}
		for (j = 0; j < DN; j++)
			if (row[j])
				ids[len++] = j;
		add1(rs, ids, len);
		dense_rref_add(R, &r, rowof, piv, mod, ids, len, det);
		if (m % 10 == 9)
		{
			TAPAS_CHECK(tapas_rowspace_rank(rs) == (uint32_t) r);
			TAPAS_CHECK_MSG(same_as_oracle(rs, det, DN), "row %d rank %d", m, r);
			check_valid(rs);
		}
	}
	{
		size_t		ndet;

		tapas_rowspace_stats_t st;

		tapas_rowspace_determined(rs, &ndet);
		tapas_rowspace_stats(rs, &st);
		/* high rank, a mix of determined and undetermined records, and the
		 * block search (5 blocks of 64 records here) was exercised */
		TAPAS_CHECK_MSG(r >= 250 && ndet >= 20 && ndet < DN, "rank %d, %zu determined", r, ndet);
		TAPAS_CHECK(st.block_searches >= 5);
		printf("# dense rref: rank %d, %zu determined, %llu block searches\n", r, ndet,
			   (unsigned long long) st.block_searches);
	}
	tapas_rowspace_free(rs);
	tapas_free(R);
	tapas_free(rows);
}

/* ---------------------------------------------------------------------
 * Attacks with a known answer
 * ---------------------------------------------------------------------
 */

/* difference attack: S then S + {j} determines exactly j, at the 2nd row */
static void
test_rowspace_difference_attack(void)
{
	static const uint32_t sizes[] = {1000, 100000};
	tapas_rng_t rng;
	int			s;

	tapas_rng_seed(&rng, tapas_test_seed() + 11);
	for (s = 0; s < 2; s++)
	{
		uint32_t	n = sizes[s];
		uint32_t   *ids = tapas_malloc((n / 2 + 1) * sizeof(uint32_t));
		uint32_t	target = (uint32_t) tapas_rng_below(&rng, n / 2) * 2 + 1;
		tapas_rowspace_t *rs = make_rs(n, tapas_rng_u64(&rng), 0);
		size_t		len = 0,
					off[2],
					count;
		const uint32_t *newly;
		uint32_t	j;

		/* S = the even records */
		for (j = 0; j < n; j += 2)
			ids[len++] = j;
		TAPAS_CHECK(add1(rs, ids, len) == 0);
		ids[len++] = target;
		off[0] = 0;
		off[1] = len;
		TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, 1, NULL, &newly, &count) == TAPAS_OK);
		TAPAS_CHECK_MSG(count == 1 && newly[0] == target, "n=%u count=%zu", n, count);
		TAPAS_CHECK(tapas_rowspace_rank(rs) == 2 && tapas_rowspace_natoms(rs) == 3);
		if (n <= 1000)
			check_valid(rs);
		tapas_rowspace_free(rs);
		tapas_free(ids);
	}
}

/* fills ids with the records of 0..n-1 for which keep(j) holds */
static size_t
select_ids(uint32_t n, uint32_t *ids, uint32_t t, uint32_t target, int mode)
{
	size_t		len = 0;
	uint32_t	j;

	for (j = 0; j < n; j++)
	{
		int			inT = j < t;
		int			keep = mode == 0 ? inT : mode == 1 ? !inT :
			mode == 2 ? (inT || j == target) : (!inT || j == target);

		if (keep)
			ids[len++] = j;
	}
	return len;
}

/*
 * Denning's general tracker (Denning, Denning and Schwartz, ACM TODS 1979)
 * with C = {target}, T = records 0..499: queries T, not T, C or T, C or
 * not T each cover at least 499 records.  With the target in T (77) the 3rd
 * query equals T and the 4th
 * determines exactly the target; with the target outside T (777), C or T is
 * T plus the target, so the 3rd query already does (a difference).  The
 * tracker's own order C or T, C or not T, All also flags at the 3rd.  Then
 * Schlorer's individual tracker and the complement of a small set.
 */
static void
test_rowspace_trackers(void)
{
	static const int orders[3][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {2, 3, 4, -1}};
	static const uint32_t targets[3] = {77, 777, 777};
	static const int flag_at[3] = {3, 2, 2};
	uint32_t	n = 1000,
				ids[1000];
	tapas_rowspace_t *rs;
	size_t		len;
	int			v,
				q;

	for (v = 0; v < 3; v++)
	{
		rs = make_rs(n, tapas_test_seed() + 13 + v, 0);
		for (q = 0; q < 4 && orders[v][q] >= 0; q++)
		{
			size_t		got;

			if (orders[v][q] == 4)
				len = select_ids(n, ids, n, n, 0);	/* All */
			else
				len = select_ids(n, ids, 500, targets[v], orders[v][q]);
			TAPAS_CHECK(len >= 499);
			got = add1(rs, ids, len);
			TAPAS_CHECK_MSG(got == (size_t) (q == flag_at[v]),
							"variant %d query %d flagged %zu", v, q, got);
		}
		TAPAS_CHECK(tapas_rowspace_is_determined(rs, targets[v]));
		TAPAS_CHECK(!tapas_rowspace_is_determined(rs, targets[v] - 1));
		check_valid(rs);
		tapas_rowspace_free(rs);
	}

	/* Schlorer: C1 (records 0..99), then C1 without the target 42 */
	rs = make_rs(n, tapas_test_seed() + 14, 0);
	len = select_ids(n, ids, 100, n, 0);
	TAPAS_CHECK(add1(rs, ids, len) == 0);
	len = select_ids(n, ids, 100, n, 0);
	memmove(ids + 42, ids + 43, (len - 43) * sizeof(uint32_t));
	TAPAS_CHECK(add1(rs, ids, len - 1) == 1);
	TAPAS_CHECK(tapas_rowspace_is_determined(rs, 42));
	tapas_rowspace_free(rs);

	/* complement of a small set: All, then All minus {3, 5}, then minus {3} */
	rs = make_rs(n, tapas_test_seed() + 15, 0);
	len = select_ids(n, ids, n, n, 0);
	TAPAS_CHECK(add1(rs, ids, len) == 0);
	memmove(ids + 5, ids + 6, (len - 6) * sizeof(uint32_t));
	memmove(ids + 3, ids + 4, (len - 5) * sizeof(uint32_t));
	TAPAS_CHECK(add1(rs, ids, len - 2) == 0);
	len = select_ids(n, ids, n, n, 0);
	memmove(ids + 3, ids + 4, (len - 4) * sizeof(uint32_t));
	TAPAS_CHECK(add1(rs, ids, len - 1) == 2);
	TAPAS_CHECK(tapas_rowspace_is_determined(rs, 3) && tapas_rowspace_is_determined(rs, 5));
	check_valid(rs);
	tapas_rowspace_free(rs);
}

/* rows of (H + J) / 2, Sylvester order: row i holds j iff |i & j| is even */
static void
test_rowspace_hadamard(void)
{
	static const uint32_t sizes[] = {16, 64, 256};
	int			s;

	for (s = 0; s < 3; s++)
	{
		uint32_t	n = sizes[s],
					i,
					j,
					ids[256];
		tapas_rowspace_t *rs = make_rs(n, tapas_test_seed() + 17 + s, 0);

		for (i = 0; i < n; i++)
		{
			size_t		len = 0,
						got;

			for (j = 0; j < n; j++)
				if (__builtin_popcount(i & j) % 2 == 0)
					ids[len++] = j;
			got = add1(rs, ids, len);
			TAPAS_CHECK_MSG(got == (i + 1 == n ? n : 0),
							"n=%u row %u flagged %zu", n, i, got);
		}
		TAPAS_CHECK(tapas_rowspace_rank(rs) == n);
		if (n <= 64)
			check_valid(rs);
		tapas_rowspace_free(rs);
	}
}

/* ---------------------------------------------------------------------
 * Regimes, trials, errors
 * ---------------------------------------------------------------------
 */

/* a Bernoulli(1/2) row of 0..n-1 */
static size_t
bernoulli_row(tapas_rng_t *rng, uint32_t n, uint32_t *ids)
{
	size_t		len = 0;
	uint32_t	j;

	for (j = 0; j < n; j += 64)
	{
		uint64_t	bits = tapas_rng_u64(rng);
		uint32_t	b;

		for (b = 0; b < 64 && j + b < n; b++)
			if ((bits >> b) & 1)
				ids[len++] = j + b;
	}
	return len;
}

/*
 * Atom-rich regime: n = 20000, 60 Bernoulli rows (all atoms singletons,
 * full row rank, nothing determined: a unit vector in the span of 60 random
 * rows over 20000 columns would need a combination vanishing on 19999 of
 * them), then a difference row determines exactly its extra record; a
 * duplicate of an old row is dependent.
 */
/*
 * basis_only = 1 keeps the first row in the basis, so that the differences
 * below have a residual e_target that no atom of the row or sampled atom
 * carries (the block search); with blocks (0) the first row is a block,
 * the difference's kernel part is e_target itself and no search is needed.
 */
static void
bernoulli_large(int basis_only)
{
	uint32_t	n = 20000,
				i;
	uint32_t   *ids = tapas_malloc((n + 1) * sizeof(uint32_t));
	uint32_t   *first = tapas_malloc((n + 1) * sizeof(uint32_t));
	tapas_rng_t rng;
	tapas_rowspace_t *rs = make_rs(n, tapas_test_seed() + 21, 0);
	size_t		len,
				flen = 0,
				got = 0;
	uint32_t	target;

	TAPAS_CHECK(tapas_rowspace_set_basis_only(rs, basis_only) == TAPAS_OK);
	tapas_rng_seed(&rng, tapas_test_seed() + 22);
	for (i = 0; i < 60; i++)
	{
		len = bernoulli_row(&rng, n, ids);
		if (i == 0)
			memcpy(first, ids, (flen = len) * sizeof(uint32_t));
		got += add1(rs, ids, len);
	}
	TAPAS_CHECK(got == 0);
	TAPAS_CHECK(tapas_rowspace_rank(rs) == 60);
	TAPAS_CHECK(tapas_rowspace_natoms(rs) == n);
	check_valid(rs);
	/* the first row again: dependent, rank unchanged */
	TAPAS_CHECK(add1(rs, first, flen) == 0 && tapas_rowspace_rank(rs) == 60);
	/*
	 * The first row plus one record outside it, for 10 such records: each
	 * determines exactly its record.  The residual is e_target when the
	 * target is not a pivot, and no atom splits, so at least one of these
	 * needs the block search.
	 */
	{
		tapas_rowspace_stats_t st0,
					st1;
		int			done = 0;

		tapas_rowspace_stats(rs, &st0);
		/* with blocks the first row is one outside the basis; the others cross it */
		TAPAS_CHECK(st0.independent == tapas_rowspace_kernel_rank(rs) &&
					tapas_rowspace_kernel_rank(rs) == 60 - !basis_only && st0.rows == 61);
		for (target = 0; target < n && done < 10; target++)
		{
			size_t		l;
			int			in = 0;

			for (l = 0; l < flen; l++)
				in |= first[l] == target;
			if (in)
				continue;
			first[flen] = target;
			TAPAS_CHECK(add1(rs, first, flen + 1) == 1);
			TAPAS_CHECK(tapas_rowspace_is_determined(rs, target));
			done++;
		}
		tapas_rowspace_stats(rs, &st1);
		TAPAS_CHECK(st1.rows == st0.rows + 10 && st1.independent == st0.independent + 10);
		TAPAS_CHECK_MSG(!basis_only || st1.block_searches > st0.block_searches,
						"block search never used");
	}
	check_valid(rs);
	tapas_rowspace_free(rs);
	tapas_free(ids);
	tapas_free(first);
}

static void
test_rowspace_bernoulli_large(void)
{
	bernoulli_large(1);
	bernoulli_large(0);
}

/*
 * Trials: on random states, a random batch's trial reports what adding it
 * reports; rollback restores the fingerprint and the determined set; a
 * commit equals adding the rows.  Checked against the oracle too.
 */
static void
test_rowspace_trial_rollback(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(80);

	tapas_rng_seed(&rng, tapas_test_seed() + 31);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 2 + (uint32_t) tapas_rng_below(&rng, 40);
		uint64_t	seed = tapas_rng_u64(&rng);
		tapas_rowspace_t *a = make_rs(n, seed, 0);
		tapas_rowspace_t *b = make_rs(n, seed, 0);
		uint32_t	ids[8 * MAXN];
		size_t		off[9],
					cnt_a,
					cnt_b,
					det_before,
					i;
		const uint32_t *new_a,
				   *new_b;
		int			row,
					nbatch = 1 + (int) tapas_rng_below(&rng, 8);
		uint64_t	fp;

		for (row = 0; row < (int) tapas_rng_below(&rng, n); row++)
		{
			size_t		len = tapas_test_random_row(&rng, n, 1, n, ids);

			add1(a, ids, len);
			add1(b, ids, len);
		}
		off[0] = 0;
		for (row = 0; row < nbatch; row++)
			off[row + 1] = off[row] +
				tapas_test_random_row(&rng, n, tapas_rng_below(&rng, 2), n, ids + off[row]);
		fp = tapas_rowspace_fingerprint(a);
		tapas_rowspace_determined(a, &det_before);
		TAPAS_CHECK(tapas_rowspace_trial(a, ids, off, nbatch, NULL, &new_a, &cnt_a) == TAPAS_OK);
		check_valid(a);
		TAPAS_CHECK(tapas_rowspace_trial(a, ids, off, nbatch, NULL, &new_b, &cnt_b) == TAPAS_EINVAL);
		TAPAS_CHECK(tapas_rowspace_rollback(a) == TAPAS_OK);
		TAPAS_CHECK(tapas_rowspace_rollback(a) == TAPAS_EINVAL);
		TAPAS_CHECK_MSG(tapas_rowspace_fingerprint(a) == fp, "iter %ld", iter);
		tapas_rowspace_determined(a, &i);
		TAPAS_CHECK(i == det_before);
		check_valid(a);
		/* the same trial again, committed, equals b adding the batch */
		TAPAS_CHECK(tapas_rowspace_trial(a, ids, off, nbatch, NULL, &new_a, &cnt_a) == TAPAS_OK);
		TAPAS_CHECK(tapas_rowspace_commit(a) == TAPAS_OK);
		TAPAS_CHECK(tapas_rowspace_commit(a) == TAPAS_EINVAL);
		TAPAS_CHECK(tapas_rowspace_add(b, ids, off, nbatch, NULL, &new_b, &cnt_b) == TAPAS_OK);
		TAPAS_CHECK(cnt_a == cnt_b);
		for (i = 0; i < cnt_a && i < cnt_b; i++)
			TAPAS_CHECK(new_a[i] == new_b[i]);
		TAPAS_CHECK(tapas_rowspace_fingerprint(a) == tapas_rowspace_fingerprint(b));
		check_valid(a);
		tapas_rowspace_free(a);
		tapas_rowspace_free(b);
	}
}

/*
 * GROUP BY statements as trial batches (deny mode): records with three
 * categorical attributes, each statement one cell per group of a random
 * subset of them (optionally under WHERE on another), cells below k not
 * answered.  Each trial must report exactly the records the oracle adds;
 * it is then committed or (at random) rolled back, and the committed state
 * must match the oracle on the committed rows.
 */
static void
test_rowspace_groupby_trials(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(12),
				reported_total = 0,
				rollbacks = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 41);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 60;
		uint8_t		attr[3][60],
					A[MAXM * MAXN],
					before[MAXN],
					after[MAXN];
		static const int card[3] = {3, 4, 5};
		uint32_t	ids[8 * MAXN];
		size_t		off[MAXN + 1];
		int			m = 0,
					stmt,
					k = 1 + (int) tapas_rng_below(&rng, 3);
		uint32_t	j;
		tapas_rowspace_t *rs = make_rs(n, tapas_rng_u64(&rng), 0);

		for (j = 0; j < n; j++)
			for (stmt = 0; stmt < 3; stmt++)
				attr[stmt][j] = (uint8_t) tapas_rng_below(&rng, card[stmt]);
		memset(A, 0, sizeof(A));
		oracle_determined(A, 0, n, before);
		for (stmt = 0; stmt < 12 && m < MAXM - 60; stmt++)
		{
			int			mask = 1 + (int) tapas_rng_below(&rng, 7);
			int			wcol = (int) tapas_rng_below(&rng, 4) - 1;	/* -1: none */
			int			wval = (int) tapas_rng_below(&rng, 3);
			int			key,
						c,
						nrows = 0;
			size_t		len = 0,
						cnt,
						i;
			const uint32_t *newly;

			if (wcol >= 0 && (mask & (1 << wcol)))
				wcol = -1;
			for (key = 0; key < 60; key++)
			{
				size_t		start = len;

				for (j = 0; j < n; j++)
				{
					int			kj = 0;

					if (wcol >= 0 && attr[wcol][j] != wval)
						continue;
					for (c = 0; c < 3; c++)
						if (mask & (1 << c))
							kj = kj * card[c] + attr[c][j];
					if (kj == key)
						ids[len++] = j;
				}
				if (len - start < (size_t) k)
					len = start;	/* empty or below k: not answered */
				else
				{
					off[nrows] = start;
					for (i = start; i < len; i++)
						A[(m + nrows) * n + ids[i]] = 1;
					nrows++;
				}
			}
			off[nrows] = len;
			TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, nrows, NULL, &newly, &cnt) == TAPAS_OK);
			reported_total += (long) cnt;
			oracle_determined(A, m + nrows, n, after);
			for (j = 0; j < n; j++)
			{
				int			reported = 0;

				for (i = 0; i < cnt; i++)
					reported |= newly[i] == j;
				TAPAS_CHECK_MSG(reported == (after[j] && !before[j]),
								"iter %ld stmt %d record %u", iter, stmt, j);
			}
			if (tapas_rng_below(&rng, 3) == 0)
			{
				TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
				memset(A + m * n, 0, (size_t) nrows * n);
				rollbacks++;
			}
			else
			{
				TAPAS_CHECK(tapas_rowspace_commit(rs) == TAPAS_OK);
				m += nrows;
				memcpy(before, after, n);
			}
			TAPAS_CHECK(same_as_oracle(rs, before, n));
			check_valid(rs);
		}
		tapas_rowspace_free(rs);
	}
	TAPAS_CHECK_MSG(reported_total > 20 && rollbacks > 5,
					"%ld reported, %ld rollbacks", reported_total, rollbacks);
	printf("# groupby: %ld records reported by trials, %ld rollbacks\n",
		   reported_total, rollbacks);
}

static int
cancel_now(void *arg, double fraction)
{
	return ++*(int *) arg > 1;
}

static void
test_rowspace_errors(void)
{
	tapas_rng_t rng;
	const char *reason = NULL;
	tapas_rowspace_t *rs;
	uint32_t	ids[6] = {1, 2, 3, 3, 10, 0};
	size_t		off[3] = {0, 3, 4},
				count,
				k;
	const uint32_t *newly;
	uint64_t	fp;
	long		base = tapas_memory_live();
	int			calls = 0;
	tapas_progress_t progress = {cancel_now, &calls};

	tapas_rng_seed(&rng, 5);
	TAPAS_CHECK(tapas_rowspace_create(0, 1000003, 0, &rng, &reason) == NULL && reason);
	TAPAS_CHECK(tapas_rowspace_create(10, 1000001, 0, &rng, &reason) == NULL);	/* 101 * 9901 */
	TAPAS_CHECK(tapas_rowspace_create(10, 2, 0, &rng, &reason) == NULL);
	TAPAS_CHECK(tapas_rowspace_create(10, UINT64_C(1) << 62, 0, &rng, &reason) == NULL);
	TAPAS_CHECK(tapas_rowspace_create(10, 1000003, TAPAS_ROWSPACE_RANK_MAX + 1, &rng, &reason) == NULL);
	TAPAS_CHECK(tapas_memory_live() == base);
	rs = tapas_rowspace_create(10, 1000003, 2, &rng, &reason);
	TAPAS_CHECK(rs != NULL);
	TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, 1, NULL, &newly, &count) == TAPAS_OK);
	fp = tapas_rowspace_fingerprint(rs);
	/* duplicate id in a row, id out of range, decreasing offsets */
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids + 1, off, 2, NULL, &newly, &count) == TAPAS_EINVAL);
	off[1] = 2;
	off[2] = 1;
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids + 3, off, 2, NULL, &newly, &count) == TAPAS_EINVAL);
	off[2] = 3;
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids + 3, off, 2, NULL, &newly, &count) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_rowspace_commit(rs) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
	/*
	 * Rank limit 2 bounds the basis only: after {1, 2, 3}, the rows {0} and
	 * {2} resolve atoms outside it (rank 3, no basis row); {3, 4} cuts the
	 * resolved block {1, 2, 3} and leaves it a block (its base {1, 2} is
	 * outside the row); {3, 4}, {4, 5} and {5, 6} overlap in a chain, so
	 * the basis would need three rows.
	 */
	off[1] = 1;
	off[2] = 2;
	ids[0] = 0;
	ids[1] = 2;
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, 2, NULL, &newly, &count) == TAPAS_OK);
	TAPAS_CHECK(tapas_rowspace_rank(rs) == 3 && tapas_rowspace_kernel_rank(rs) == 0);
	TAPAS_CHECK(count == 2);	/* records 0 and 2 */
	TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
	TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
	{
		uint32_t	chain[6] = {3, 4, 4, 5, 5, 6};
		size_t		coff[4] = {0, 2, 4, 6};

		TAPAS_CHECK(tapas_rowspace_trial(rs, chain, coff, 2, NULL, &newly, &count) == TAPAS_OK);
		TAPAS_CHECK(tapas_rowspace_rank(rs) == 3 && tapas_rowspace_kernel_rank(rs) == 2);
		TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
		TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
		TAPAS_CHECK(tapas_rowspace_trial(rs, chain, coff, 3, NULL, &newly, &count) == TAPAS_ELIMIT);
		TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
		/* cancellation at the second row */
		TAPAS_CHECK(tapas_rowspace_trial(rs, chain, coff, 3, &progress, &newly, &count) == TAPAS_ECANCELED);
	}
	TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
	check_valid(rs);
	tapas_rowspace_free(rs);
	TAPAS_CHECK(tapas_memory_live() == base);
	/* allocation failures: create fails cleanly; a trial fails cleanly */
	for (k = 0; k < 40; k++)
	{
		tapas_memory_fail_after((long) k);
		rs = tapas_rowspace_create(100, 1000003, 0, &rng, &reason);
		tapas_memory_fail_after(-1);
		tapas_rowspace_free(rs);
		TAPAS_CHECK(tapas_memory_live() == base);
	}
	rs = make_rs(3000, 99, 0);
	{
		uint32_t	big[3000];
		size_t		boff[2] = {0, 0};
		uint32_t	j;

		for (j = 0; j < 3000; j += 2)
			big[boff[1]++] = j;
		add1(rs, big, boff[1]);
		fp = tapas_rowspace_fingerprint(rs);
		for (k = 0; k < 4; k++)
		{
			for (j = 0; j < 70; j++)
			{
				big[j] = j * 41 % 3000;
			}
			boff[1] = 70;
			tapas_memory_fail_after((long) k);
			/* 70 distinct rows of one record each: rank grows past 64 */
			{
				size_t		o[71];

				for (j = 0; j <= 70; j++)
					o[j] = j;
				count = 0;
				if (tapas_rowspace_trial(rs, big, o, 70, NULL, &newly, &count) == TAPAS_OK)
					tapas_rowspace_rollback(rs);
			}
			tapas_memory_fail_after(-1);
			TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
			check_valid(rs);
		}
	}
	tapas_rowspace_free(rs);
	TAPAS_CHECK(tapas_memory_live() == base);
}

/*
 * A NULL ids with offsets that end where they start but are not monotonic
 * ({0, 2, 0}: a first row of two records, then a row "of -2"): the batch is
 * malformed and must be refused, never read through the NULL pointer.
 */
static void
test_rowspace_null_ids_non_monotonic(void)
{
	tapas_rowspace_t *rs = make_rs(10, 7, 0);
	size_t		off[3] = {0, 2, 0},
				count = 0;
	const uint32_t *newly = NULL;
	uint64_t	fp = tapas_rowspace_fingerprint(rs);

	TAPAS_CHECK(tapas_rowspace_trial(rs, NULL, off, 2, NULL, &newly, &count) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_rowspace_add(rs, NULL, off, 2, NULL, &newly, &count) == TAPAS_EINVAL);
	/* the same with a row that starts past zero and comes back */
	off[0] = 1;
	off[1] = 3;
	off[2] = 1;
	TAPAS_CHECK(tapas_rowspace_trial(rs, NULL, off, 2, NULL, &newly, &count) == TAPAS_EINVAL);
	/* empty rows with a NULL ids stay valid */
	off[0] = off[1] = off[2] = 0;
	TAPAS_CHECK(tapas_rowspace_add(rs, NULL, off, 2, NULL, &newly, &count) == TAPAS_OK);
	TAPAS_CHECK(tapas_rowspace_fingerprint(rs) == fp);
	tapas_rowspace_free(rs);
}

static void
test_rowspace_prime_draw(void)
{
	tapas_rng_t rng;
	uint64_t	prev = 0;
	int			i;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < 20; i++)
	{
		uint64_t	p = tapas_rowspace_prime_draw(&rng);

		TAPAS_CHECK(p >= (UINT64_C(1) << 61) && p < (UINT64_C(1) << 62));
		TAPAS_CHECK(n_is_prime(p));
		TAPAS_CHECK(p != prev);
		prev = p;
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_rowspace_prime_draw);
	TAPAS_TEST_RUN(test_rowspace_random_small);
	TAPAS_TEST_RUN(test_rowspace_sparse_rows);
	TAPAS_TEST_RUN(test_rowspace_small_prime_mismatches);
	TAPAS_TEST_RUN(test_rowspace_vs_dense_rref);
	TAPAS_TEST_RUN(test_rowspace_difference_attack);
	TAPAS_TEST_RUN(test_rowspace_trackers);
	TAPAS_TEST_RUN(test_rowspace_hadamard);
	TAPAS_TEST_RUN(test_rowspace_bernoulli_large);
	TAPAS_TEST_RUN(test_rowspace_trial_rollback);
	TAPAS_TEST_RUN(test_rowspace_groupby_trials);
	TAPAS_TEST_RUN(test_rowspace_errors);
	TAPAS_TEST_RUN(test_rowspace_null_ids_non_monotonic);
	TAPAS_TEST_DONE();
}
