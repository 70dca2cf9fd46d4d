/*
 * b-sparse_search.c
 *	  Benchmark of the generic weight <= 3 support search
 *	  (src/recon/sparse_search.c), the auditor's uniqueness test.
 *
 * Bernoulli(1/2) designs at n = 100,000 with m = f log2 C(n, w) + 4
 * queries (f = 1: near the counting bound, where other solutions may
 * exist; f = 2: unique in practice) and a planted x of weight w = 1, 2,
 * 3; time of the full search (all solutions of weight <= 3) against the
 * baseline of one pass over A in the same run (tapas_binmat_mul, the
 * O(m n) floor any search must pay), printed as a ratio.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "util/memory.h"
#include "util/rng.h"
#include "recon/sparse_search.h"

static tapas_binmat_t *
instance(uint64_t seed, size_t m, size_t n, int w, int64_t *b, int64_t *support)
{
	tapas_rng_t rng;
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	int64_t    *x = tapas_calloc(n, sizeof(int64_t));
	size_t		i,
				k;
	int			t = 0;

	tapas_rng_seed(&rng, seed);
	for (i = 0; i < m; i++)
		for (k = 0; k < A->words; k++)
			tapas_binmat_row(A, i)[k] = tapas_rng_u64(&rng);
	if (n & 63)
		for (i = 0; i < m; i++)
			tapas_binmat_row(A, i)[A->words - 1] &= (UINT64_C(1) << (n & 63)) - 1;
	while (t < w)
	{
		size_t		j = tapas_rng_below(&rng, n);

		if (!x[j])
		{
			x[j] = 1;
			support[t++] = (int64_t) j;
		}
	}
	tapas_binmat_mul_i64(A, x, b);
	tapas_free(x);
	return A;
}

int
main(void)
{
	size_t		n = 100000;
	int			w,
				f,
				k;

	printf("weight <= 3 support search, Bernoulli(1/2), n=%zu (5 seeds each)\n", n);
	printf("%2s %4s %9s %9s %7s %12s %6s\n", "w", "m", "search ms", "A x ms", "ratio", "pairs(w=3)", "unique");
	for (k = 0; k < 6; k++)
	{
		double		bound = 0.0;
		size_t		m;
		double		ts = 0,
					tm = 0,
					work = 0;
		int			seed,
					unique = 0;

		f = 1 + k / 3;
		w = 1 + k % 3;
		bound = (lgamma(n + 1.0) - lgamma(w + 1.0) - lgamma(n - w + 1.0)) / log(2.0);
		m = (size_t) ceil(f * bound) + 4;

		for (seed = 0; seed < 5; seed++)
		{
			int64_t		b[200],
						supp[3];
			tapas_binmat_t *A = instance(77 + (uint64_t) seed, m, n, w, b, supp);
			double	   *xd = tapas_calloc(n, sizeof(double)),
						yd[200];
			tapas_sparse_result res;
			double		t0 = bench_ms();

			tapas_sparse_search(A, b, 3, 16, TAPAS_SPARSE_WORK_LIMIT, &res, NULL);
			ts += bench_ms() - t0;
			work += res.work;
			unique += res.found == 1;
			t0 = bench_ms();
			tapas_binmat_mul(A, xd, yd);
			tm += bench_ms() - t0;
			tapas_sparse_result_clear(&res);
			tapas_free(xd);
			tapas_binmat_free(A);
		}
		printf("%2d %4zu %9.2f %9.2f %7.2f %12.0f %4d/5\n", w, m, ts / 5, tm / 5,
			   ts / tm, work / 5, unique);
	}
	return 0;
}
