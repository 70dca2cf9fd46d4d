/*
 * t-linrel.c
 *	  Unit tests for src/recon/linrel.c (relations between class truth
 *	  vectors, components, 0/1 region coordinates) and
 *	  src/recon/rowspace_span.c (membership of a 0/1 vector).
 *
 * Oracles: exact ranks over Q (fmpz_mat_rank).  The rank of the classes;
 * a class is in no relation iff it is zero or a coloop (removing it lowers
 * the rank); every record's pattern is a region.  End to end: classes are
 * built as known 0/1 combinations (times a class scale) of hidden
 * generators with disjoint supports and random integer values; a cell of
 * class b over Q is the row Q x C[b] over the unknowns (record, hidden
 * generator), and "is the value of class b at record j determined" is
 * rank([A; e_j x C[b]]) == rank(A) over Q.  The kernel answers the same
 * question in its own region coordinates with tapas_rowspace_contains.
 */
#include <string.h>

#include <flint/fmpz_mat.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/linrel.h"
#include "recon/rowspace.h"
#include "tapas_test.h"

#define P_TEST	UINT64_C(4611686018427387847)	/* a prime below 2^62 */

/* regions of the small end-to-end systems (at most their records) */
#define TEST_REGIONS	64

/* the region set {bits of low}, for comparisons */
static int
set_is(const tapas_regset_t *s, uint64_t low)
{
	if (s->w[0] != low)
		return 0;
	for (int i = 1; i < TAPAS_REGSET_WORDS; i++)
		if (s->w[i] != 0)
			return 0;
	return 1;
}

/* rank over Q of the K x n integer matrix V, without row skip (-1: none) */
static slong
rank_rows(const long *V, int K, int n, int skip)
{
	fmpz_mat_t	M;
	slong		r;
	int			i,
				j,
				c = 0;

	if (K - (skip >= 0) <= 0)
		return 0;
	fmpz_mat_init(M, K - (skip >= 0), n);
	for (i = 0; i < K; i++)
	{
		if (i == skip)
			continue;
		for (j = 0; j < n; j++)
			fmpz_set_si(fmpz_mat_entry(M, c, j), V[i * n + j]);
		c++;
	}
	r = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return r;
}

/* the set {0} */
static tapas_regset_t
one_set(void)
{
	tapas_regset_t s;

	tapas_regset_clear(&s);
	tapas_regset_add(&s, 0);
	return s;
}

/* adds the K x n dense rows of V as classes (records 1..n as keys) */
static tapas_linrel_t *
make_lr(const long *V, int K, int n)
{
	tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
	int64_t		keys[64];
	double		val[64];

	TAPAS_CHECK(lr != NULL);
	for (int b = 0; b < K; b++)
	{
		size_t		nnz = 0;

		for (int j = 0; j < n; j++)
			if (V[b * n + j] != 0)
			{
				keys[nnz] = 10 * j + 3;
				val[nnz++] = (double) V[b * n + j];
			}
		TAPAS_CHECK(tapas_linrel_add(lr, keys, val, nnz) == TAPAS_OK);
	}
	return lr;
}

/* checks rank, coloops and patterns of a plan against the oracle */
static void
check_plan(const long *V, int K, int n)
{
	tapas_linrel_t *lr = make_lr(V, K, n);
	tapas_linrel_plan_t plan;
	slong		full = rank_rows(V, K, n, -1);

	TAPAS_CHECK(tapas_linrel_rank(lr) == (uint32_t) full);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	for (int b = 0; b < K; b++)
	{
		int			zero = 1;

		for (int j = 0; j < n; j++)
			zero &= V[b * n + j] == 0;
		if (zero || rank_rows(V, K, n, b) < full)
			TAPAS_CHECK_MSG(plan.comp[b] == -1, "class %d is in no relation", b);
		else
			TAPAS_CHECK_MSG(plan.comp[b] >= 0, "class %d is in a relation", b);
	}
	/*
	 * every record's pattern within a component is exactly one region (in
	 * split coordinates, at least one: the ratios refine the patterns)
	 */
	for (uint32_t c = 0; c < plan.ncomp; c++)
	{
		if (plan.nregions[c] < 0)
			continue;
		for (int j = 0; j < n; j++)
		{
			uint64_t	inter[TAPAS_REGSET_WORDS];
			int			any = 0,
						ninter = 0;

			memset(inter, 0xFF, sizeof(inter));
			for (int b = 0; b < K; b++)
				if (plan.comp[b] == (int32_t) c)
				{
					if (V[b * n + j] != 0)
					{
						for (int w = 0; w < TAPAS_REGSET_WORDS; w++)
							inter[w] &= plan.regions[b].w[w];
						any = 1;
					}
				}
			if (!any)
				continue;
			for (int b = 0; b < K; b++)
				if (plan.comp[b] == (int32_t) c && V[b * n + j] == 0)
					for (int w = 0; w < TAPAS_REGSET_WORDS; w++)
						inter[w] &= ~plan.regions[b].w[w];
			for (int w = 0; w < TAPAS_REGSET_WORDS; w++)
				ninter += __builtin_popcountll(inter[w]);
			TAPAS_CHECK_MSG(plan.split[c] ? ninter >= 1 : ninter == 1,
							"record %d: %d regions match its pattern", j, ninter);
		}
	}
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);
}

/* the three relations of the issue, and their negative controls */
static void
test_named_relations(void)
{
	/* records: 0..3 rare with income > 3000, 4..5 rare with less, 6..9 not rare */
	long		V1[3 * 10] = {
		1, 1, 1, 1, 0, 0, 0, 0, 0, 0,	/* rare AND income > 3000 */
		0, 0, 0, 0, 1, 1, 0, 0, 0, 0,	/* rare AND NOT income > 3000 */
		1, 1, 1, 1, 1, 1, 0, 0, 0, 0};	/* rare */
	long		V2[3 * 10] = {
		5, 7, 9, 4, 0, 0, 0, 0, 0, 0,	/* income FILTER rare */
		0, 0, 0, 0, 3, 8, 2, 6, 1, 5,	/* income FILTER NOT rare */
		5, 7, 9, 4, 3, 8, 2, 6, 1, 5};	/* income */
	long		V3[2 * 10] = {
		2, 2, 2, 2, 2, 2, 0, 0, 0, 0,	/* rare::int * 2 */
		1, 1, 1, 1, 1, 1, 0, 0, 0, 0};	/* count FILTER rare */
	long		V4[3 * 10] = {
		1, 1, 1, 1, 1, 1, 1, 1, 0, 0,	/* r1 + r2 */
		1, 1, 1, 1, 1, 1, 2, 2, 0, 0,	/* r1 + 2 r2: the scales of r1 and r2 disagree */
		1, 1, 1, 1, 1, 1, 0, 0, 0, 0};	/* r1: no 0/1 coordinates */
	long		V5[2 * 10] = {
		1, 1, 1, 1, 1, 1, 0, 0, 0, 0,	/* rare */
		5, 7, 9, 4, 3, 8, 2, 6, 1, 5};	/* income: independent */
	tapas_linrel_t *lr;
	tapas_linrel_plan_t plan;

	check_plan(V1, 3, 10);
	check_plan(V2, 3, 10);
	check_plan(V3, 2, 10);
	check_plan(V4, 3, 10);
	check_plan(V5, 2, 10);

	lr = make_lr(V1, 3, 10);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	TAPAS_CHECK(plan.ncomp == 1 && plan.nregions[0] == 2 && plan.nmembers[0] == 3 && plan.split[0] == 0);
	TAPAS_CHECK(tapas_regset_count(&plan.regions[2]) == 2);
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);

	lr = make_lr(V2, 3, 10);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	TAPAS_CHECK(plan.ncomp == 1 && plan.nregions[0] == 2);
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);

	lr = make_lr(V3, 2, 10);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	TAPAS_CHECK(plan.ncomp == 1 && plan.nregions[0] == 1);
	TAPAS_CHECK(set_is(&plan.regions[0], 1) && set_is(&plan.regions[1], 1));
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);

	/* no scales: split coordinates, the patterns refined by the ratios (r1: 1, 1, 1; r2: 1, 2) */
	lr = make_lr(V4, 3, 10);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	TAPAS_CHECK(plan.ncomp == 1 && plan.nregions[0] == 2 && plan.split[0] == 1);
	TAPAS_CHECK(set_is(&plan.regions[0], 3) && set_is(&plan.regions[1], 3) &&
				set_is(&plan.regions[2], 1));
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);

	lr = make_lr(V5, 2, 10);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	TAPAS_CHECK(plan.ncomp == 0 && plan.comp[0] == -1 && plan.comp[1] == -1);
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);
}

/* binary fractions, zero classes and bad input */
static void
test_values(void)
{
	tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
	int64_t		k[3] = {1, 2, 3},
				bad[2] = {2, 1};
	double		a[3] = {0.5, 1.25, -3.0},
				b[3] = {1.0, 2.5, -6.0},
				c[3] = {0.0, 0.0, 0.0},
				inf[1] = {1.0 / 0.0};
	tapas_linrel_plan_t plan;

	TAPAS_CHECK(tapas_linrel_create(4) == NULL);
	TAPAS_CHECK(tapas_linrel_add(lr, k, a, 3) == TAPAS_OK);
	TAPAS_CHECK(tapas_linrel_add(lr, k, b, 3) == TAPAS_OK);	/* 2 a */
	TAPAS_CHECK(tapas_linrel_add(lr, k, c, 3) == TAPAS_OK);	/* zero */
	TAPAS_CHECK(tapas_linrel_add(lr, bad, a, 2) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_linrel_add(lr, k, inf, 1) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_linrel_add(lr, NULL, NULL, 0) == TAPAS_OK);
	TAPAS_CHECK(tapas_linrel_count(lr) == 6);
	TAPAS_CHECK(tapas_linrel_rank(lr) == 1);
	TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
	TAPAS_CHECK(plan.comp[0] == 0 && plan.comp[1] == 0);
	TAPAS_CHECK(plan.comp[2] == -1 && plan.comp[3] == -1 && plan.comp[4] == -1 && plan.comp[5] == -1);
	TAPAS_CHECK(plan.nregions[0] == 1);
	tapas_linrel_plan_clear(&plan);
	tapas_linrel_free(lr);
}

/* random class systems: rank, coloops and patterns against the oracle */
static void
test_random_plans(void)
{
	tapas_rng_t rng;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (int it = 0; it < 300; it++)
	{
		int			n = 4 + (int) tapas_rng_below(&rng, 12);
		int			K = 1 + (int) tapas_rng_below(&rng, 7);
		long		V[8 * 16];

		for (int b = 0; b < K; b++)
		{
			int			mode = (int) tapas_rng_below(&rng, 3);

			for (int j = 0; j < n; j++)
			{
				if (mode == 0 || b < 2)
					V[b * n + j] = (long) tapas_rng_below(&rng, 3) == 0;
				else if (mode == 1)
					V[b * n + j] = V[0 * n + j] + V[1 * n + j];	/* a relation */
				else
					V[b * n + j] = (long) tapas_rng_below(&rng, 5) - 2;
			}
		}
		check_plan(V, K, n);
	}
}

/* ---------------------------------------------------------------------
 * End to end: the product system against the oracle over Q
 * ---------------------------------------------------------------------
 */

#define EN	9				/* records */
#define EH	3				/* hidden generators */
#define EK	5				/* classes */
#define EM	7				/* cells */

/* rank over Q of the m x (EN EH) rows, plus optionally one more row */
static slong
rank_cells(long A[][EN * EH], int m, const long *extra)
{
	fmpz_mat_t	M;
	slong		r;
	int			rows = m + (extra != NULL);

	if (rows == 0)
		return 0;
	fmpz_mat_init(M, rows, EN * EH);
	for (int i = 0; i < rows; i++)
		for (int c = 0; c < EN * EH; c++)
			fmpz_set_si(fmpz_mat_entry(M, i, c), i < m ? A[i][c] : extra[c]);
	r = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return r;
}

static void
test_product_system(void)
{
	tapas_rng_t rng;
	int			agreed = 0,
				determined = 0,
				split_tested = 0,
				split_open = 0;

	tapas_rng_seed(&rng, tapas_test_seed() ^ 0x5A5A);
	for (int it = 0; it < 200; it++)
	{
		int			region[EN];		/* hidden generator of each record, or -1 */
		long		h[EH][EN];
		int			C[EK][EH];
		long		V[EK * EN];
		long		A[EM][EN * EH];
		uint8_t		cover[EM][EN];
		int			cls[EM];
		tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
		tapas_linrel_plan_t plan;
		int64_t		keys[EN];
		double		val[EN];

		memset(h, 0, sizeof(h));
		for (int j = 0; j < EN; j++)
		{
			/* every hidden generator is nonzero somewhere: else classes that
			 * differ only there are equal by value, and related */
			region[j] = j < EH ? j : (int) tapas_rng_below(&rng, EH + 1) - 1;
			if (region[j] >= 0)
				h[region[j]][j] = 1 + (long) tapas_rng_below(&rng, 4);
		}
		for (int b = 0; b < EK; b++)
		{
			long		scale = 1 + (long) tapas_rng_below(&rng, 2);
			int			nz = 0;

			/* weights 0, 1 or 2: classes with unequal weights have no scales (split) */
			for (int i = 0; i < EH; i++)
			{
				int			w = (int) tapas_rng_below(&rng, 5);

				nz += C[b][i] = w < 2 ? 0 : w < 4 ? 1 : 2;
			}
			if (!nz)
				C[b][tapas_rng_below(&rng, EH)] = 1;
			for (int j = 0; j < EN; j++)
			{
				V[b * EN + j] = 0;
				for (int i = 0; i < EH; i++)
					V[b * EN + j] += scale * C[b][i] * h[i][j];
			}
			/* the class's vector */
			{
				size_t		nnz = 0;

				for (int j = 0; j < EN; j++)
					if (V[b * EN + j] != 0)
					{
						keys[nnz] = j;
						val[nnz++] = (double) V[b * EN + j];
					}
				TAPAS_CHECK(tapas_linrel_add(lr, keys, val, nnz) == TAPAS_OK);
			}
		}
		TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
		/* cells, and the oracle's rows over (record, hidden generator) */
		for (int q = 0; q < EM; q++)
		{
			cls[q] = (int) tapas_rng_below(&rng, EK);
			for (int j = 0; j < EN; j++)
			{
				cover[q][j] = tapas_rng_below(&rng, 3) != 0;
				for (int i = 0; i < EH; i++)
					A[q][j * EH + i] = cover[q][j] * C[cls[q]][i];
			}
		}
		/*
		 * The kernel's side, per component: the cells of its classes over
		 * (region, record); classes in no relation are their own system,
		 * which the oracle covers too (its unknowns split the same way).
		 */
		for (int b = 0; b < EK; b++)
		{
			int32_t		c = plan.comp[b];
			int			G;
			tapas_rng_t rr;
			tapas_rowspace_t *rs;
			uint32_t	ids[EM * EN * TEST_REGIONS];
			size_t		off[EM * TEST_REGIONS + 1];
			int			split = c >= 0 && plan.split[c];
			size_t		nrows = 0,
						len = 0,
						count;
			const uint32_t *newly;

			if (c >= 0 && plan.nregions[c] < 0)
				continue;
			G = c >= 0 ? plan.nregions[c] : 1;
			TAPAS_CHECK(G <= TEST_REGIONS);
			tapas_rng_seed(&rr, (uint64_t) it * 7919 + b);
			rs = tapas_rowspace_create(EN * G, P_TEST, 0, &rr, NULL);
			off[0] = 0;
			for (int q = 0; q < EM; q++)
			{
				tapas_regset_t mask;

				if (c >= 0 ? plan.comp[cls[q]] != c : cls[q] != b)
					continue;
				tapas_regset_clear(&mask);
				if (c >= 0)
					mask = plan.regions[cls[q]];
				else
					tapas_regset_add(&mask, 0);
				/* one row, or one row per region in split coordinates */
				for (int r = 0; r < G; r++)
					if (tapas_regset_has(&mask, r))
					{
						for (int j = 0; j < EN; j++)
							if (cover[q][j])
								ids[len++] = (uint32_t) (r * EN + j);
						if (split && off[nrows] < len)
							off[++nrows] = len;
					}
				if (!split)
					off[++nrows] = len;
			}
			TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, nrows, NULL, &newly, &count) == TAPAS_OK);
			for (int j = 0; j < EN; j++)
			{
				tapas_regset_t mask = c >= 0 ? plan.regions[b] : one_set();
				uint32_t	w[TEST_REGIONS];
				size_t		wl = 0;
				long		target[EN * EH];
				int			mine,
							truth;
				slong		r0;
				long		Ab[EM][EN * EH];
				int			mb = 0;

				for (int r = 0; r < G; r++)
					if (tapas_regset_has(&mask, r))
						w[wl++] = (uint32_t) (r * EN + j);
				mine = tapas_rowspace_contains(rs, w, wl);
				/* the oracle over the cells of b's system (all cells when related) */
				for (int q = 0; q < EM; q++)
					if (c >= 0 ? plan.comp[cls[q]] == c : cls[q] == b)
						memcpy(Ab[mb++], A[q], sizeof(A[q]));
				memset(target, 0, sizeof(target));
				for (int i = 0; i < EH; i++)
					target[j * EH + i] = C[b][i];
				r0 = rank_cells(Ab, mb, NULL);
				truth = rank_cells(Ab, mb, target) == r0;
				/* split coordinates credit the attacker with more: sound, never fewer */
				if (split)
					TAPAS_CHECK_MSG(mine || !truth, "it %d class %d record %d: split kernel 0, oracle 1",
									it, b, j);
				else
					TAPAS_CHECK_MSG(mine == truth, "it %d class %d record %d: kernel %d, oracle %d",
									it, b, j, mine, truth);
				split_tested += split;
				split_open += split && !mine;
				agreed += mine == truth;
				determined += truth;
			}
			tapas_rowspace_free(rs);
		}
		tapas_linrel_plan_clear(&plan);
		tapas_linrel_free(lr);
	}
	TAPAS_CHECK_MSG(determined > 25, "only %d determined values: the test is too weak", determined);
	TAPAS_CHECK_MSG(split_tested > 50, "only %d values tested in split coordinates", split_tested);
	/* and they are not all taken as determined (the over-approximation is not "everything") */
	TAPAS_CHECK_MSG(split_open > split_tested / 4, "split coordinates left %d of %d values open",
					split_open, split_tested);
	(void) agreed;
}

/*
 * The quotient by ONE: every record is in exactly one hidden 0/1 region
 * (h_i(j) = 1), so ONE = sum_i h_i and the attacker knows the public rows
 * e_j x (1, ..., 1) for every record.  The oracle ranks the cells of a
 * system together with all EN public rows; the kernel, planned with
 * nrecords = EN, answers in its quotient coordinates (exactly for 0/1
 * components, at least as often in split ones), and a class it calls
 * public must be a multiple of ONE.
 */
#define ON	8				/* records */
#define OH	3				/* hidden regions */
#define OK	5				/* classes */
#define OM	7				/* cells */

static slong
rank_dense(long *A, int m, int w)
{
	fmpz_mat_t	M;
	slong		r;

	if (m == 0)
		return 0;
	fmpz_mat_init(M, m, w);
	for (int i = 0; i < m; i++)
		for (int c = 0; c < w; c++)
			fmpz_set_si(fmpz_mat_entry(M, i, c), A[i * w + c]);
	r = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return r;
}

/* is e_j x C lies in the span of the m rows of A (width ON OH), with or without the public rows? */
static int
oracle_one(const long *A, int m, const int *C, int j, int with_public)
{
	static long B[(OM + ON + 1) * ON * OH];
	int			w = ON * OH,
				rows = 0;
	slong		r0;

	memcpy(B, A, sizeof(long) * m * w);
	rows = m;
	if (with_public)
		for (int i = 0; i < ON; i++, rows++)
			for (int c = 0; c < w; c++)
				B[rows * w + c] = c / OH == i;
	r0 = rank_dense(B, rows, w);
	for (int c = 0; c < w; c++)
		B[rows * w + c] = c / OH == j ? C[c % OH] : 0;
	return rank_dense(B, rows + 1, w) == r0;
}

static void
test_quotient_by_one(void)
{
	tapas_rng_t rng;
	int			tested = 0,
				by_public = 0,
				quotients = 0,
				publics = 0,
				split_tested = 0;

	tapas_rng_seed(&rng, tapas_test_seed() ^ 0x0111);
	for (int it = 0; it < 300; it++)
	{
		int			region[ON];
		int			C[OK][OH];
		long		scale[OK];
		long		A[OM][ON * OH];
		uint8_t		cover[OM][ON];
		int			cls[OM];
		tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
		tapas_linrel_plan_t plan;
		int64_t		keys[ON];
		double		val[ON];

		for (int j = 0; j < ON; j++)
			region[j] = j < OH ? j : (int) tapas_rng_below(&rng, OH);
		for (int b = 0; b < OK; b++)
		{
			int			nz = 0;
			/* mostly 0/1 classes (exact in the quotient), some weights 2 (split) */
			int			wmax = tapas_rng_below(&rng, 4) == 0 ? 3 : 2;
			size_t		nnz = 0;

			scale[b] = 1 + (long) tapas_rng_below(&rng, 2);
			for (int i = 0; i < OH; i++)
				nz += C[b][i] = (int) tapas_rng_below(&rng, (uint64_t) wmax);
			if (!nz)
				C[b][tapas_rng_below(&rng, OH)] = 1;
			for (int j = 0; j < ON; j++)
				if (C[b][region[j]] != 0)
				{
					keys[nnz] = j;
					val[nnz++] = (double) (scale[b] * C[b][region[j]]);
				}
			TAPAS_CHECK(tapas_linrel_add(lr, keys, val, nnz) == TAPAS_OK);
		}
		TAPAS_CHECK(tapas_linrel_plan(lr, ON, &plan) == TAPAS_OK);
		for (int q = 0; q < OM; q++)
		{
			cls[q] = (int) tapas_rng_below(&rng, OK);
			for (int j = 0; j < ON; j++)
			{
				cover[q][j] = tapas_rng_below(&rng, 3) != 0;
				for (int i = 0; i < OH; i++)
					A[q][j * OH + i] = cover[q][j] * C[cls[q]][i];
			}
		}
		for (int b = 0; b < OK; b++)
		{
			int32_t		c = plan.comp[b];
			int			G,
						split = c >= 0 && plan.split[c];
			long		Ab[OM][ON * OH];
			int			mb = 0;
			tapas_rng_t rr;
			tapas_rowspace_t *rs;
			uint32_t	ids[OM * ON * TEST_REGIONS];
			size_t		off[OM * TEST_REGIONS + 1];
			size_t		nrows = 0,
						len = 0,
						count;
			const uint32_t *newly;

			if (plan.is_one[b])
			{
				int			same = 1;

				for (int i = 1; i < OH; i++)
					same &= C[b][i] == C[b][0];
				TAPAS_CHECK_MSG(same && C[b][0] != 0, "it %d class %d called public", it, b);
				publics++;
				continue;
			}
			if (c >= 0 && plan.nregions[c] < 0)
				continue;
			quotients += c >= 0 && plan.one[c];
			/* the cells of b's system, for the oracle */
			for (int q = 0; q < OM; q++)
				if (c >= 0 ? plan.comp[cls[q]] == c : cls[q] == b)
					memcpy(Ab[mb++], A[q], sizeof(A[q]));
			G = c >= 0 ? plan.nregions[c] : 1;
			TAPAS_CHECK(G <= TEST_REGIONS);
			tapas_rng_seed(&rr, (uint64_t) it * 104729 + b);
			rs = tapas_rowspace_create(ON * (G ? G : 1), P_TEST, 0, &rr, NULL);
			off[0] = 0;
			for (int q = 0; q < OM; q++)
			{
				tapas_regset_t mask;

				if (c >= 0 ? plan.comp[cls[q]] != c : cls[q] != b)
					continue;
				tapas_regset_clear(&mask);
				if (c >= 0)
					mask = plan.regions[cls[q]];
				else
					tapas_regset_add(&mask, 0);
				for (int r = 0; r < G; r++)
					if (tapas_regset_has(&mask, r))
					{
						for (int j = 0; j < ON; j++)
							if (cover[q][j])
								ids[len++] = (uint32_t) (r * ON + j);
						if (split && off[nrows] < len)
							off[++nrows] = len;
					}
				if (!split && off[nrows] < len)
					off[++nrows] = len;
			}
			TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, nrows, NULL, &newly, &count) == TAPAS_OK);
			for (int j = 0; j < ON; j++)
			{
				tapas_regset_t mask = c >= 0 ? plan.test[b] : one_set();
				uint32_t	w[TEST_REGIONS];
				size_t		wl = 0;
				int			mine,
							truth = oracle_one(&Ab[0][0], mb, C[b], j, 1);

				for (int r = 0; r < G; r++)
					if (tapas_regset_has(&mask, r))
						w[wl++] = (uint32_t) (r * ON + j);
				mine = wl > 0 && tapas_rowspace_contains(rs, w, wl) == 1;
				if (split)
					TAPAS_CHECK_MSG(mine || !truth, "it %d class %d record %d: split kernel 0, oracle 1",
									it, b, j);
				else
					TAPAS_CHECK_MSG(mine == truth, "it %d class %d record %d (comp %d, one %d): kernel %d, oracle %d",
									it, b, j, c, c >= 0 ? plan.one[c] : -1, mine, truth);
				tested++;
				split_tested += split;
				by_public += truth && !oracle_one(&Ab[0][0], mb, C[b], j, 0);
			}
			tapas_rowspace_free(rs);
		}
		tapas_linrel_plan_clear(&plan);
		tapas_linrel_free(lr);
	}
	TAPAS_CHECK_MSG(by_public > 20, "only %d values determined through ONE: the test is too weak", by_public);
	TAPAS_CHECK_MSG(quotients > 100, "only %d classes in quotient coordinates", quotients);
	TAPAS_CHECK_MSG(publics > 5 && split_tested > 50, "publics %d, split %d", publics, split_tested);
	printf("   # ONE: %d values tested, %d determined through ONE, %d in quotient coordinates, %d public classes, %d split\n",
		   tested, by_public, quotients, publics, split_tested);
}

/*
 * Cuts at a bridge class: two attribute families f1, f2 over values
 * {0, 1, 2, S} where f1 = S exactly when f2 = S (a census's "health = -9"
 * and "religion = -9"), so 1[f1 = S] is one class of both.  The hidden
 * 0/1 regions are the ten (f1, f2) combinations, ONE is their sum, and
 * classes are indicators of sets of values of one attribute.  The kernel
 * must cut the component at the shared class and stay sound against the
 * oracle over every cell and every public row; and it must not call
 * everything determined.
 */
#define CN	14				/* records */
#define CH	10				/* hidden combinations: 3 x 3 and (S, S) */
#define CK	8				/* classes */
#define CM	8				/* cells */

static void
test_cut_bridge(void)
{
	tapas_rng_t rng;
	int			cuts = 0,
				tested = 0,
				open = 0,
				determined = 0;

	tapas_rng_seed(&rng, tapas_test_seed() ^ 0xC07);
	for (int it = 0; it < 120; it++)
	{
		int			combo[CN];
		int			C[CK][CH];
		long		A[CM][CN * CH];
		uint8_t		cover[CM][CN];
		int			cls[CM];
		tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
		tapas_linrel_plan_t plan;
		int64_t		keys[CN];
		double		val[CN];
		int			any_cut = 0;

		for (int j = 0; j < CN; j++)
			combo[j] = j < CH ? j : (int) tapas_rng_below(&rng, CH);
		for (int b = 0; b < CK; b++)
		{
			/* class 0: the shared value; 1..4: sets of f1 values; 5..7: of f2 values */
			int			fam = b == 0 ? 0 : b <= 4 ? 1 : 2;
			int			set = b == 0 ? 8 : 1 + (int) tapas_rng_below(&rng, fam == 1 ? 15 : 7);
			size_t		nnz = 0;

			for (int h = 0; h < CH; h++)
			{
				int			v = h == 9 ? 3 : fam == 2 ? h % 3 : h / 3;

				C[b][h] = (set >> v) & 1;
			}
			for (int j = 0; j < CN; j++)
				if (C[b][combo[j]])
				{
					keys[nnz] = j;
					val[nnz++] = 1.0;
				}
			TAPAS_CHECK(tapas_linrel_add(lr, keys, val, nnz) == TAPAS_OK);
		}
		TAPAS_CHECK(tapas_linrel_plan(lr, CN, &plan) == TAPAS_OK);
		for (int q = 0; q < CM; q++)
		{
			/* everyone, everyone but one (a difference), or a random half */
			int			kind = (int) tapas_rng_below(&rng, 3);
			int			out = (int) tapas_rng_below(&rng, CN);

			cls[q] = (int) tapas_rng_below(&rng, CK);
			for (int j = 0; j < CN; j++)
			{
				cover[q][j] = kind == 0 ? 1 : kind == 1 ? j != out : tapas_rng_below(&rng, 2);
				for (int h = 0; h < CH; h++)
					A[q][j * CH + h] = cover[q][j] * C[cls[q]][h];
			}
		}
		for (uint32_t c = 0; c < plan.ncomp; c++)
			any_cut |= plan.cut[c] >= 0;
		cuts += any_cut;
		for (int b = 0; b < CK; b++)
		{
			int32_t		c = plan.comp[b];
			int			G;
			tapas_rng_t rr;
			tapas_rowspace_t *rs;
			uint32_t	ids[CM * CN * TEST_REGIONS];
			size_t		off[CM * TEST_REGIONS + 1];
			size_t		nrows = 0,
						len = 0,
						count;
			const uint32_t *newly;

			if (plan.is_one[b] || c < 0 || plan.nregions[c] < 1)
				continue;
			G = plan.nregions[c];
			TAPAS_CHECK(G <= TEST_REGIONS);
			tapas_rng_seed(&rr, (uint64_t) it * 7907 + b);
			rs = tapas_rowspace_create(CN * G, P_TEST, 0, &rr, NULL);
			off[0] = 0;
			for (int q = 0; q < CM; q++)
			{
				tapas_regset_t mask;

				tapas_regset_clear(&mask);
				if (plan.comp[cls[q]] == c)
					mask = plan.regions[cls[q]];
				for (uint32_t x = 0; x < plan.nextra; x++)
					if (plan.extra[x].comp == (uint32_t) c && plan.extra[x].cls == (uint32_t) cls[q])
						mask = plan.extra[x].regions;
				if (tapas_regset_empty(&mask))
					continue;
				for (int r = 0; r < G; r++)
					if (tapas_regset_has(&mask, r))
					{
						for (int j = 0; j < CN; j++)
							if (cover[q][j])
								ids[len++] = (uint32_t) (r * CN + j);
						if (plan.split[c] && off[nrows] < len)
							off[++nrows] = len;
					}
				if (!plan.split[c] && off[nrows] < len)
					off[++nrows] = len;
			}
			TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, nrows, NULL, &newly, &count) == TAPAS_OK);
			for (int j = 0; j < CN; j++)
			{
				uint32_t	w[TEST_REGIONS];
				size_t		wl = 0;
				int			mine,
							truth;
				static long B[(CM + CN + 1) * CN * CH];
				int			rows = CM,
							width = CN * CH;
				slong		r0;

				for (int r = 0; r < G; r++)
					if (tapas_regset_has(&plan.test[b], r))
						w[wl++] = (uint32_t) (r * CN + j);
				mine = wl > 0 && tapas_rowspace_contains(rs, w, wl) == 1;
				/* the oracle: every cell, every public row */
				memcpy(B, A, sizeof(A));
				for (int i = 0; i < CN; i++, rows++)
					for (int col = 0; col < width; col++)
						B[rows * width + col] = col / CH == i;
				r0 = rank_dense(B, rows, width);
				for (int col = 0; col < width; col++)
					B[rows * width + col] = col / CH == j ? C[b][col % CH] : 0;
				truth = rank_dense(B, rows + 1, width) == r0;
				TAPAS_CHECK_MSG(mine || !truth, "it %d class %d record %d (system %d, cut %d): kernel 0, oracle 1",
								it, b, j, c, plan.cut[c]);
				tested++;
				open += !mine;
				determined += truth;
			}
			tapas_rowspace_free(rs);
		}
		tapas_linrel_plan_clear(&plan);
		tapas_linrel_free(lr);
	}
	printf("   # cuts: %d of 120 plans cut, %d values tested, %d determined, %d left open\n",
		   cuts, tested, determined, open);
	TAPAS_CHECK_MSG(cuts > 30, "only %d plans were cut", cuts);
	TAPAS_CHECK_MSG(determined > 20 && open > tested / 4, "determined %d, open %d of %d",
					determined, open, tested);
}

/* tapas_rowspace_contains on its own: bad input, atoms, a difference */
static void
test_contains(void)
{
	tapas_rng_t rng;
	tapas_rowspace_t *rs;
	uint32_t	all[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
				w[2];
	size_t		off[3] = {0, 10, 19},
				count;
	const uint32_t *newly;
	uint32_t	ids[19];

	tapas_rng_seed(&rng, 17);
	rs = tapas_rowspace_create(10, P_TEST, 0, &rng, NULL);
	TAPAS_CHECK(tapas_rowspace_contains(rs, NULL, 1) == -1);
	w[0] = 10;
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, 1) == -1);
	w[0] = w[1] = 3;
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, 2) == -1);
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, 0) == 1);
	/* everyone, then everyone but 9: e_9 is in, e_9 + e_8 is not, 0..9 is */
	memcpy(ids, all, sizeof(all));
	memcpy(ids + 10, all, 9 * sizeof(uint32_t));
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, 2, NULL, &newly, &count) == TAPAS_OK);
	w[0] = 9;
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, 1) == 1);
	w[1] = 8;
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, 2) == 0);
	TAPAS_CHECK(tapas_rowspace_contains(rs, all, 10) == 1);
	TAPAS_CHECK(tapas_rowspace_contains(rs, all, 9) == 1);
	TAPAS_CHECK(tapas_rowspace_contains(rs, all, 8) == 0);
	TAPAS_CHECK(tapas_rowspace_rollback(rs) == TAPAS_OK);
	w[0] = 9;
	TAPAS_CHECK(tapas_rowspace_contains(rs, w, 1) == 0);
	tapas_rowspace_free(rs);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_named_relations);
	TAPAS_TEST_RUN(test_values);
	TAPAS_TEST_RUN(test_random_plans);
	TAPAS_TEST_RUN(test_product_system);
	TAPAS_TEST_RUN(test_quotient_by_one);
	TAPAS_TEST_RUN(test_cut_bridge);
	TAPAS_TEST_RUN(test_contains);
	TAPAS_TEST_DONE();
}
