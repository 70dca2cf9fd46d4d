/*
 * t-linrel_wide.c
 *	  Unit tests for src/recon/linrel*.c with more than 64 regions (region
 *	  sets, recon/regset.h), and for the fail-closed path beyond
 *	  TAPAS_LINREL_MAX_REGIONS.
 *
 * Oracles.  Region counts: the number of distinct nonzero patterns of
 * the component's classes over the records, counted directly from the
 * dense class matrix.  End to end: classes are known 0/1 combinations of
 * hidden 0/1 generators (one per record: h_i(j) = [record j is in hidden
 * region i]); a cell of class b over Q is the row Q x C[b] over the
 * unknowns (record, hidden generator), the public count(*) adds the rows
 * e_j x (1, ..., 1), and "is the value of class b at record j
 * determined" is rank([A; e_j x C[b]]) == rank(A) over Q
 * (fmpz_mat_rank).  The kernel answers in its own region coordinates
 * with tapas_rowspace_contains (vectors of more than 64 unknowns).
 */
#include <string.h>

#include <flint/fmpz_mat.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/linrel.h"
#include "recon/rowspace.h"
#include "tapas_test.h"

#define P_TEST	UINT64_C(4611686018427387847)	/* a prime below 2^62 */

/* adds class b: records j with C[b][hid[j]] != 0, value 1 */
static void
add_class(tapas_linrel_t *lr, const uint8_t *Cb, const int *hid, int n)
{
	int64_t    *keys = tapas_malloc(sizeof(int64_t) * (size_t) n);
	double	   *val = tapas_malloc(sizeof(double) * (size_t) n);
	size_t		nnz = 0;

	for (int j = 0; j < n; j++)
		if (hid[j] >= 0 && Cb[hid[j]])
		{
			keys[nnz] = j;
			val[nnz++] = 1.0;
		}
	TAPAS_CHECK(tapas_linrel_add(lr, keys, val, nnz) == TAPAS_OK);
	tapas_free(keys);
	tapas_free(val);
}

/* distinct nonzero patterns of the classes cl (C over hidden values) at the records */
static int
count_patterns(uint8_t (*C)[2048], const int *cl, int ncl, const int *hid, int n)
{
	static uint8_t pat[2048][256];
	int			np = 0;

	for (int j = 0; j < n; j++)
	{
		uint8_t		p[256];
		int			any = 0,
					k;

		for (int i = 0; i < ncl; i++)
			any |= p[i] = hid[j] >= 0 && C[cl[i]][hid[j]];
		if (!any)
			continue;
		for (k = 0; k < np && memcmp(pat[k], p, (size_t) ncl) != 0; k++)
			;
		if (k == np)
			memcpy(pat[np++], p, (size_t) ncl);
	}
	return np;
}

/*
 * The bits of the hidden value: classes "bit k of h is 1" and "bit k of
 * h is 0" for k < nbits: the halves of nbits splits of one base (no class
 * of its own, so no cut), one component with H regions (one per hidden
 * value).  At the
 * capacity it has coordinates; one region more and it has none (the
 * caller fails closed).
 */
static void
test_capacity(void)
{
	static uint8_t C[64][2048];
	int			sizes[] = {65, 200, TAPAS_LINREL_MAX_REGIONS, TAPAS_LINREL_MAX_REGIONS + 1, 1500};

	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++)
	{
		int			H = sizes[t],
					nbits = 0,
					K,
					cl[64],
					want;
		int		   *hid = tapas_malloc(sizeof(int) * (size_t) H);
		tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
		tapas_linrel_plan_t plan;

		while ((1 << nbits) < H)
			nbits++;
		K = 2 * nbits;
		for (int j = 0; j < H; j++)
			hid[j] = j;
		for (int k = 0; k < nbits; k++)
			for (int h = 0; h < H; h++)
			{
				C[2 * k][h] = (h >> k) & 1;
				C[2 * k + 1][h] = !((h >> k) & 1);
			}
		for (int b = 0; b < K; b++)
		{
			add_class(lr, C[b], hid, H);
			cl[b] = b;
		}
		want = count_patterns(C, cl, K, hid, H);
		TAPAS_CHECK(want == H);
		TAPAS_CHECK(tapas_linrel_plan(lr, 0, &plan) == TAPAS_OK);
		TAPAS_CHECK_MSG(plan.ncomp == 1 && plan.nmembers[0] == (uint32_t) K,
						"H %d: %u systems", H, plan.ncomp);
		for (int b = 0; b < K; b++)
			TAPAS_CHECK(plan.comp[b] == 0);
		if (want <= TAPAS_LINREL_MAX_REGIONS)
		{
			TAPAS_CHECK_MSG(plan.nregions[0] == want && plan.npatterns[0] == want && !plan.split[0],
							"H %d: %d regions", H, plan.nregions[0]);
			/* the two halves of a split: every region once */
			for (int k = 0; k < nbits; k++)
				TAPAS_CHECK(tapas_regset_count(&plan.regions[2 * k]) +
							tapas_regset_count(&plan.regions[2 * k + 1]) == want);
		}
		else
			TAPAS_CHECK_MSG(plan.nregions[0] == -1 && plan.npatterns[0] == -1,
							"H %d: %d regions past the capacity", H, plan.nregions[0]);
		tapas_linrel_plan_clear(&plan);
		tapas_linrel_free(lr);
		tapas_free(hid);
	}
}

/* rank over Q of rows [0, m) of the dense m x w matrix */
static slong
rank_dense(const long *A, int m, int w)
{
	fmpz_mat_t	M;
	slong		r;

	if (m == 0)
		return 0;
	fmpz_mat_init(M, m, w);
	for (int i = 0; i < m; i++)
		for (int c = 0; c < w; c++)
			if (A[(size_t) i * w + c])
				fmpz_set_si(fmpz_mat_entry(M, i, c), A[(size_t) i * w + c]);
	r = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return r;
}

/*
 * End to end over about 70 regions: hidden regions 0..WH (each record in
 * one), WK classes, each a random set of hidden regions (more classes
 * than regions: they are dependent, one component without a bridge, of
 * full rank, so ONE lies in their span).  Without ONE (nrecords 0) the
 * component has one region per distinct column; with ONE it gets quotient
 * coordinates (one region fewer).  Cells: pairs of a class over everyone
 * and a class (often the same) over everyone but one of a few records (a
 * difference), and some random halves.  Every value the oracle calls
 * determined the kernel must find, and (0/1 classes: exact) no other.
 */
#define WN	96				/* records */
#define WH	72				/* hidden regions 0..WH */
#define WK	(WH + 6)		/* classes */
#define WM	40				/* cells */
#define WW	(WN * (WH + 1))	/* the oracle's unknowns */

static void
test_end_to_end(void)
{
	tapas_rng_t rng;
	int			tested = 0,
				determined = 0,
				wide = 0,
				quotient = 0;
	static long A[WM + WN + 1][WW];

	tapas_rng_seed(&rng, tapas_test_seed() ^ 0x3E6);
	for (int it = 0; it < 6 && !tapas_test_current_failed; it++)
	{
		int			with_one = it % 2;
		static uint8_t C[WK][2048];
		int			hid[WN];
		int			cls[WM];
		int			outs[4];
		uint8_t		cover[WM][WN];
		tapas_linrel_t *lr = tapas_linrel_create(P_TEST);
		tapas_linrel_plan_t plan;
		int			c,
					G,
					rows;
		tapas_rng_t rr;
		tapas_rowspace_t *rs;
		uint32_t   *ids = tapas_malloc(sizeof(uint32_t) * WM * WN * (WH + 1));
		size_t		off[WM + 1],
					nrows = 0,
					len = 0,
					count;
		const uint32_t *newly;
		slong		r0;

		for (int j = 0; j < WN; j++)
			hid[j] = j <= WH ? j : (int) tapas_rng_below(&rng, WH + 1);
		for (int k = 0; k < 4; k++)
			outs[k] = (int) tapas_rng_below(&rng, WN);
		memset(C, 0, sizeof(C));
		for (int b = 0; b < WK; b++)
			for (int h = 0; h <= WH; h++)
				C[b][h] = tapas_rng_below(&rng, 2);
		for (int b = 0; b < WK; b++)
			add_class(lr, C[b], hid, WN);
		TAPAS_CHECK(tapas_linrel_plan(lr, with_one ? WN : 0, &plan) == TAPAS_OK);
		c = plan.comp[0];
		TAPAS_CHECK(c >= 0 && plan.ncomp == 1);
		if (c < 0)
			break;
		for (int b = 0; b < WK; b++)
			TAPAS_CHECK_MSG(plan.comp[b] == c, "it %d class %d: system %d", it, b, plan.comp[b]);
		TAPAS_CHECK(plan.one[c] == with_one && !plan.split[c] && plan.cut[c] < 0);
		{
			int			cl[WK],
						want;

			for (int b = 0; b < WK; b++)
				cl[b] = b;
			want = count_patterns(C, cl, WK, hid, WN);
			TAPAS_CHECK_MSG(plan.npatterns[c] == want, "it %d: %d patterns, oracle %d", it,
							plan.npatterns[c], want);
			TAPAS_CHECK(plan.nregions[c] == want - with_one);
		}
		G = plan.nregions[c];
		wide += G > 64;
		quotient += with_one;
		/* cells, and the oracle's rows */
		memset(A, 0, sizeof(A));
		for (int q = 0; q < WM; q++)
		{
			int			kind = q % 2 == 0 ? 0 : tapas_rng_below(&rng, 5) ? 1 : 2,
						out = outs[tapas_rng_below(&rng, 4)];

			cls[q] = q % 2 == 1 && tapas_rng_below(&rng, 3) ? cls[q - 1]
				: (int) tapas_rng_below(&rng, WK);
			for (int j = 0; j < WN; j++)
			{
				cover[q][j] = kind == 0 ? 1 : kind == 1 ? j != out : tapas_rng_below(&rng, 2);
				for (int i = 0; i <= WH; i++)
					A[q][j * (WH + 1) + i] = cover[q][j] * C[cls[q]][i];
			}
		}
		rows = WM;
		if (with_one)
			for (int j = 0; j < WN; j++, rows++)
				for (int i = 0; i <= WH; i++)
					A[rows][j * (WH + 1) + i] = 1;
		r0 = rank_dense(&A[0][0], rows, WW);
		/* the kernel: one row per cell, Q x regions(b) */
		tapas_rng_seed(&rr, (uint64_t) it * 7901);
		rs = tapas_rowspace_create((uint32_t) (WN * G), P_TEST, 0, &rr, NULL);
		TAPAS_CHECK(rs != NULL);
		off[0] = 0;
		for (int q = 0; q < WM; q++)
		{
			if (plan.comp[cls[q]] != c)
				continue;
			TAPAS_REGSET_FOREACH(r, &plan.regions[cls[q]])
				for (int j = 0; j < WN; j++)
				if (cover[q][j])
					ids[len++] = (uint32_t) (r * WN + j);
			off[++nrows] = len;
		}
		TAPAS_CHECK(tapas_rowspace_add(rs, ids, off, nrows, NULL, &newly, &count) == TAPAS_OK);
		/* a sample of (class, record) values */
		for (int s = 0; s < 50; s++)
		{
			int			b = s % 2 ? cls[tapas_rng_below(&rng, WM)] : (int) tapas_rng_below(&rng, WK),
						j = s % 2 ? outs[tapas_rng_below(&rng, 4)] : (int) tapas_rng_below(&rng, WN);
			uint32_t	w[TAPAS_LINREL_MAX_REGIONS];
			size_t		wl = 0;
			int			mine,
						truth;

			if (plan.comp[b] != c)
				continue;
			TAPAS_REGSET_FOREACH(r, &plan.test[b])
				w[wl++] = (uint32_t) (r * WN + j);
			mine = wl > 0 && tapas_rowspace_contains(rs, w, wl) == 1;
			memset(A[rows], 0, sizeof(A[rows]));
			for (int i = 0; i <= WH; i++)
				A[rows][j * (WH + 1) + i] = C[b][i];
			truth = rank_dense(&A[0][0], rows + 1, WW) == r0;
			TAPAS_CHECK_MSG(mine == truth, "it %d class %d record %d (one %d, %d regions): kernel %d, oracle %d",
							it, b, j, with_one, G, mine, truth);
			tested++;
			determined += truth;
		}
		tapas_rowspace_free(rs);
		tapas_free(ids);
		tapas_linrel_plan_clear(&plan);
		tapas_linrel_free(lr);
	}
	printf("   # wide: %d values tested, %d determined, %d systems over 64 regions, %d with ONE\n",
		   tested, determined, wide, quotient);
	TAPAS_CHECK_MSG(wide >= 5 && quotient >= 3, "%d wide systems", wide);
	TAPAS_CHECK_MSG(determined > 10 && determined < tested, "%d of %d determined", determined, tested);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_capacity);
	TAPAS_TEST_RUN(test_end_to_end);
	TAPAS_TEST_DONE();
}
