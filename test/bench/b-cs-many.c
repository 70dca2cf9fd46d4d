/*
 * b-cs-many.c
 *	  Benchmark of the decoders for many positives: binary hard-thresholding
 *	  pursuit (src/recon/cs_bhtp.c) against OMP (cs_omp.c, the decoder the
 *	  audit used up to 32 positives), same instances, same run.
 *
 * n = 100,000 records, s = 32, 64, 128, 256 positives, m = ceil(2 s
 * log2(n / s)) Bernoulli(1/2) queries with exact answers (the attack size
 * of issue 11).  Prints per s: the mean decode time and the success rate
 * (exact recovery) of each decoder over a few seeds, and the time ratio.
 * OMP runs on fewer seeds at large s to keep the run short (it needs s
 * products A^T r, BHTP a few tens).  BENCH_SEEDS overrides the seed count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/memory.h"
#include "util/rng.h"
#include "recon/cs.h"

static tapas_binmat_t *
instance(uint64_t seed, size_t m, size_t n, int s, double *x, double *b)
{
	tapas_rng_t rng;
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	int			k = 0;

	tapas_rng_seed(&rng, seed);
	for (size_t i = 0; i < m; i++)
	{
		uint64_t   *row = tapas_binmat_row(A, i);

		for (size_t w = 0; w < A->words; w++)
			row[w] = tapas_rng_u64(&rng);
		if (n & 63)
			row[A->words - 1] &= (UINT64_C(1) << (n & 63)) - 1;
	}
	memset(x, 0, n * sizeof(double));
	while (k < s)
	{
		size_t		j = tapas_rng_below(&rng, n);

		if (x[j] == 0.0)
		{
			x[j] = 1.0;
			k++;
		}
	}
	tapas_binmat_mul(A, x, b);
	return A;
}

static int
recovered(const double *x, const double *xo, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if ((xo[j] >= 0.5 ? 1.0 : 0.0) != x[j])
			return 0;
	return 1;
}

int
main(void)
{
	const size_t n = 100000;
	const int	ss[] = {32, 64, 128, 256};
	int			seeds = getenv("BENCH_SEEDS") ? atoi(getenv("BENCH_SEEDS")) : 5;
	double	   *x = tapas_malloc(n * sizeof(double));
	double	   *xo = tapas_malloc(n * sizeof(double));

	printf("decoders for many positives, n = %zu, m = ceil(2 s log2(n / s)), exact answers\n", n);
	printf("%5s %6s | %-34s | %-22s | %s\n", "s", "m", "bhtp: ok/seeds  ms  steps  patterns", "omp: ok/seeds  ms", "omp/bhtp time");
	for (int t = 0; t < 4; t++)
	{
		int			s = ss[t];
		size_t		m = (size_t) ceil(2.0 * s * log2((double) n / s));
		double	   *b = tapas_malloc(m * sizeof(double));
		int			ok_b = 0,
					ok_o = 0,
					omp_seeds = s >= 128 ? 1 : (seeds < 3 ? seeds : 3);
		double		ms_b = 0,
					ms_o = 0,
					ms_p = 0;
		int			steps = 0,
					its;

		for (int k = 0; k < seeds; k++)
		{
			tapas_binmat_t *A = instance(1000 + 17 * (uint64_t) s + (uint64_t) k, m, n, s, x, b);
			double		t0 = bench_ms();

			tapas_cs_bhtp(A, b, s, xo, &its, NULL);
			ms_b += bench_ms() - t0;
			{
				/* of which: the column patterns (shared by the audit's samples) */
				double		t1 = bench_ms();
				tapas_binmat_colbytes_t *P = tapas_binmat_colbytes_create(A);

				ms_p += bench_ms() - t1;
				tapas_binmat_colbytes_free(P);
			}
			steps += its;
			ok_b += recovered(x, xo, n);
			if (k < omp_seeds)
			{
				t0 = bench_ms();
				tapas_cs_omp(A, b, s, 0.0, xo, NULL, NULL);
				ms_o += bench_ms() - t0;
				ok_o += recovered(x, xo, n);
			}
			tapas_binmat_free(A);
		}
		ms_b /= seeds;
		ms_p /= seeds;
		ms_o /= omp_seeds;
		printf("%5d %6zu | %3d/%-3d %9.1f ms %4.1f %7.1f ms | %3d/%-3d %10.1f ms | %.1fx\n",
			   s, m, ok_b, seeds, ms_b, (double) steps / seeds, ms_p, ok_o, omp_seeds, ms_o,
			   ms_o / ms_b);
		fflush(stdout);
		tapas_free(b);
	}
	tapas_free(x);
	tapas_free(xo);
	return 0;
}
