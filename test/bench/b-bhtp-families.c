/*
 * b-bhtp-families.c
 *	  Benchmark of the simulated greedy trial (tapas_cs_bhtp_trial, as
 *	  audit/simulated.c runs it: 6 steps, stop at half the positives) on a
 *	  GROUP BY crossing, with the products over the column patterns (the
 *	  baseline) and over the families of disjoint rows (binmat_families.c,
 *	  their construction included), interleaved.
 *
 * The design of test/bench/benign-workload.sh --cross at n = 100,000:
 * 1,000 zip groups of 100 records (zip = 7919 id mod 1,000), then 40
 * GROUP BYs of one or two of age band, sex, region, education on a random
 * range of another; s positives drawn uniformly (the crossing's s is 188
 * to 486).  Prints one product of each form, then per s the median time
 * of each side's trial, their ratio, and whether both gave the same
 * support (they must: the products are exact for integer residuals).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/memory.h"
#include "util/rng.h"
#include "recon/binmat_families.h"
#include "recon/cs.h"

#define N		100000
#define STMTS	40

/* the crossing's rows: groups over the records whose attribute is in range */
static tapas_binmat_t *
crossing(tapas_rng_t *rng)
{
	static int	attr[5][N];		/* age, sex, region, edu, zip */
	const int	lo[4] = {18, 0, 0, 0},
				hi[4] = {89, 1, 7, 3};
	/* group keys: one or two attributes (age in bands of 10) */
	const int	keys[8][2] = {{0, -1}, {1, -1}, {2, -1}, {3, -1}, {1, 3}, {2, 1}, {3, 0}, {2, 3}};
	size_t		m = 0,
				cap = 1000 + STMTS * 64;
	int		   *gid = malloc(sizeof(int) * N);
	tapas_binmat_t *A = tapas_binmat_create(cap, N);

	for (int j = 0; j < N; j++)
	{
		for (int a = 0; a < 4; a++)
			attr[a][j] = lo[a] + (int) tapas_rng_below(rng, (uint64_t) (hi[a] - lo[a] + 1));
		attr[4][j] = (int) (((int64_t) (j + 1) * 7919) % 1000);
		tapas_binmat_set(A, (size_t) attr[4][j], (size_t) j, 1);
	}
	m = 1000;
	for (int q = 0; q < STMTS; q++)
	{
		int			k = (int) tapas_rng_below(rng, 8);
		int			col = (int) tapas_rng_below(rng, 3) == 0 ? 0 : 2 + (int) tapas_rng_below(rng, 2);
		int			a = lo[col] + (int) tapas_rng_below(rng, (uint64_t) (hi[col] - lo[col] + 1));
		int			b = a + (int) tapas_rng_below(rng, (uint64_t) (hi[col] - a + 1));
		int			ng = 0;
		int			map[64 * 16];

		memset(map, -1, sizeof(map));
		for (int j = 0; j < N; j++)
		{
			int			g = 0;

			if (attr[col][j] < a || attr[col][j] > b)
				continue;
			for (int t = 0; t < 2; t++)
				if (keys[k][t] >= 0)
				{
					int			v = attr[keys[k][t]][j];

					g = g * 16 + (keys[k][t] == 0 ? v / 10 : v);
				}
			if (map[g] < 0)
				map[g] = ng++;
			tapas_binmat_set(A, m + (size_t) map[g], (size_t) j, 1);
		}
		m += (size_t) ng;
	}
	A->m = m;
	free(gid);
	return A;
}

int
main(void)
{
	const int	ss[] = {184, 275, 360, 486};
	int			reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3;
	tapas_rng_t rng;
	tapas_binmat_t *A;
	tapas_binmat_colbytes_t *P;
	double	   *x = tapas_malloc(N * sizeof(double));
	double	   *x1 = tapas_malloc(N * sizeof(double));
	double	   *x2 = tapas_malloc(N * sizeof(double));
	double	   *b,
			   *z = tapas_malloc(N * sizeof(double));
	tapas_binmat_families_t *FA;
	double		tb;

	tapas_rng_seed(&rng, 4242);
	A = crossing(&rng);
	P = tapas_binmat_colbytes_create(A);
	b = tapas_malloc(A->m * sizeof(double));
	tb = bench_ms();
	FA = tapas_binmat_families_create(A, A->m / 16);
	tb = bench_ms() - tb;
	if (FA == NULL)
	{
		printf("no families: the crossing's rows are not runs of disjoint rows\n");
		return 1;
	}
	printf("simulated greedy trial on a GROUP BY crossing: n %d, m %zu, %zu families (built in %.1f ms)\n",
		   N, A->m, FA->F, tb);
	{
		double		tp = 1e9,
					tr = 1e9;

		for (size_t i = 0; i < A->m; i++)
			b[i] = (double) (i % 7);
		for (int r = 0; r < 5; r++)
		{
			double		t0 = bench_ms();

			tapas_binmat_colbytes_mul_t(P, b, z);
			t0 = bench_ms() - t0;
			tp = t0 < tp ? t0 : tp;
			t0 = bench_ms();
			tapas_binmat_families_mul_t(FA, b, z);
			t0 = bench_ms() - t0;
			tr = t0 < tr ? t0 : tr;
		}
		printf("one product A^T r (best of 5): patterns %.2f ms, families %.2f ms, ratio families / patterns %.2f\n",
			   tp, tr, tr / tp);
	}
	printf("%5s | %-12s | %-12s | %s\n", "s", "patterns ms", "families ms", "families / patterns, same support");
	for (int t = 0; t < 4; t++)
	{
		int			s = ss[t];
		double		tp[16],
					tr[16];
		int			same = 1;

		for (int r = 0; r < reps && r < 16; r++)
		{
			int			k = 0,
						f1,
						f2;
			double		t0;

			memset(x, 0, N * sizeof(double));
			while (k < s)
			{
				size_t		j = tapas_rng_below(&rng, N);

				if (x[j] == 0.0)
				{
					x[j] = 1.0;
					k++;
				}
			}
			tapas_binmat_mul(A, x, b);
			t0 = bench_ms();
			tapas_cs_bhtp_trial_families(P, NULL, b, s, x, (s + 1) / 2, 6, x1, NULL, &f1, NULL);
			tp[r] = bench_ms() - t0;
			t0 = bench_ms();
			{
				/* built per trial, as the audit does */
				tapas_binmat_families_t *F2 = tapas_binmat_families_create(A, A->m / 16);

				tapas_cs_bhtp_trial_families(P, F2, b, s, x, (s + 1) / 2, 6, x2, NULL, &f2, NULL);
				tapas_binmat_families_free(F2);
			}
			tr[r] = bench_ms() - t0;
			same = same && f1 == f2 && memcmp(x1, x2, N * sizeof(double)) == 0;
		}
		{
			double		mp = bench_median(tp, (size_t) reps),
						mr = bench_median(tr, (size_t) reps);

			printf("%5d | %12.1f | %12.1f | %.2f, %s\n", s, mp, mr, mr / mp, same ? "yes" : "NO");
		}
	}
	tapas_binmat_families_free(FA);
	tapas_binmat_colbytes_free(P);
	tapas_binmat_free(A);
	tapas_free(x);
	tapas_free(x1);
	tapas_free(x2);
	tapas_free(b);
	tapas_free(z);
	return 0;
}
