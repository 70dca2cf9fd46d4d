/*
 * b-cs.c
 *	  Benchmark of the compressed-sensing decoders (src/recon/cs*.c).
 *
 * 1. OMP at n = 100,000, s = 10, m = 2 s log2(n / s) = 266 Bernoulli(1/2)
 *	  queries, exact answers: time per recovery and success rate over 100
 *	  seeds; the baseline in the same run is OMP re-solving the whole
 *	  least-squares problem (dgels) at every step, on the first 10 seeds.
 *	  If OMP misses 99% at that m, the success at larger m is printed too.
 * 2. The correlation step A^T r four ways (column patterns, on-the-fly
 *	  tables, naive bit walk, dense dgemv), and the decoders side by side
 *	  at n = 1000 (queries needed) and under Laplace noise.
 * 3. Queries needed by Bernoulli + OMP vs the information-theoretic bound
 *	  log2 C(n, s), n in {10^3, 10^5, 10^6}, s in {1, 5, 20}: the smallest
 *	  m on a grid (steps of x1.1 from the bound) at which every one of k
 *	  seeds is recovered (k = 10, or 3 at n = 10^6 to keep the run short).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "bench.h"
#include "util/memory.h"
#include "util/rng.h"
#include "recon/cs.h"

/* A random Bernoulli(1/2) m x n design with b = A x, x s-sparse binary */
static tapas_binmat_t *
instance(uint64_t seed, size_t m, size_t n, int s, double *x, double *b)
{
	tapas_rng_t rng;
	tapas_binmat_t *A = tapas_binmat_create(m, n);
	size_t		i,
				w;
	int			k = 0;

	tapas_rng_seed(&rng, seed);
	for (i = 0; i < m; i++)
	{
		uint64_t   *row = tapas_binmat_row(A, i);

		for (w = 0; w < A->words; w++)
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
recovered(const double *x, double *xo, size_t n)
{
	size_t		j;

	for (j = 0; j < n; j++)
		if ((xo[j] >= 0.5 ? 1.0 : 0.0) != x[j])
			return 0;
	return 1;
}

/* the decoders that trials() times: a tapas_cs_method, or OMP called directly */
#define DIRECT_OMP			(-1)	/* tapas_cs_omp */
#define DIRECT_OMP_RESOLVE	(-2)	/* tapas_cs_omp_resolve */

/*
 * Success count of decoder over seeds instances (seed0 + k), with Laplace
 * noise of scale lambda on the answers if lambda > 0; *ms = mean decoding
 * time.
 */
static int
trials(int decoder, uint64_t seed0, size_t m, size_t n, int s,
	   double lambda, int seeds, double *ms)
{
	double	   *x = tapas_malloc(n * sizeof(double)),
			   *xo = tapas_malloc(n * sizeof(double)),
			   *b = tapas_malloc(m * sizeof(double)),
				total = 0.0;
	int			k,
				ok = 0;

	for (k = 0; k < seeds; k++)
	{
		tapas_binmat_t *A = instance(seed0 + (uint64_t) k, m, n, s, x, b);
		tapas_rng_t rng;
		tapas_cs_report rep;
		double		t0;
		size_t		i;

		tapas_rng_seed(&rng, 9000 + (uint64_t) k);
		for (i = 0; i < m && lambda > 0.0; i++)
			b[i] += tapas_rng_laplace(&rng, lambda);
		t0 = bench_ms();
		if (decoder == DIRECT_OMP)
			tapas_cs_omp(A, b, s, lambda, xo, NULL, NULL);
		else if (decoder == DIRECT_OMP_RESOLVE)
			tapas_cs_omp_resolve(A, b, s, lambda, xo, NULL, NULL);
		else
			tapas_cs_recover(A, b, s, lambda, (tapas_cs_method) decoder, 1,
							 xo, &rep, NULL);
		total += bench_ms() - t0;
		ok += recovered(x, xo, n);
		tapas_binmat_free(A);
	}
	*ms = total / seeds;
	tapas_free(x);
	tapas_free(xo);
	tapas_free(b);
	return ok;
}

/* success count of tapas_cs_recover(method) over seeds, with noise */
static int
method_trials(tapas_cs_method method, size_t m, size_t n, int s,
			  double lambda, int seeds, double *ms)
{
	return trials((int) method, 5000, m, n, s, lambda, seeds, ms);
}

/*
 * Decoders side by side at n = 1000 (research B4): the smallest m on a
 * grid of 10 at which all 10 seeds are recovered, exact answers; then
 * success with Laplace noise of scale 1 at n = 2000, s = 5, m = 400.
 */
static void
decoders(void)
{
	const char *names[] = {"auto", "OMP", "NNLS", "LP"};
	int			ss[] = {10, 20},
				c,
				meth;

	printf("\nDecoders at n=1000, exact answers: smallest m (grid of 10) with 10/10 seeds recovered\n");
	printf("%4s %6s %6s %6s   (research: LP-box 50%% point 52 / ~87)\n", "s", "OMP", "NNLS", "LP");
	for (c = 0; c < 2; c++)
	{
		printf("%4d", ss[c]);
		for (meth = TAPAS_CS_OMP; meth <= TAPAS_CS_LP; meth++)
		{
			size_t		m = 20;
			double		ms;

			while (m < 1000 && method_trials(meth, m, 1000, ss[c], 0.0, 10, &ms) < 10)
				m += 10;
			printf(" %6zu", m);
		}
		printf("\n");
		fflush(stdout);
	}
	printf("Laplace noise of scale 1 on every answer, n=2000, s=5, m=400, 20 seeds:\n");
	for (meth = TAPAS_CS_OMP; meth <= TAPAS_CS_LP; meth += 2)
	{
		double		ms;
		int			ok = method_trials(meth, 400, 2000, 5, 1.0, 20, &ms);

		printf("  %-4s %2d/20 recovered, %.1f ms each\n", names[meth], ok, ms);
	}
}

/* success count over seeds at m, exact answers; *ms = mean OMP time */
static int
omp_trials(size_t m, size_t n, int s, int seeds, double *ms, int resolve)
{
	return trials(resolve ? DIRECT_OMP_RESOLVE : DIRECT_OMP, 1000, m, n, s,
				  0.0, seeds, ms);
}

static double
log2_binom(double n, double s)
{
	return (lgamma(n + 1) - lgamma(s + 1) - lgamma(n - s + 1)) / log(2.0);
}

static void
headline(void)
{
	size_t		n = 100000,
				m;
	int			s = 10,
				ok0,
				ok,
				okr;
	double		ms,
				msr;
	double		f[] = {1.25, 1.5};
	int			i;

	m = (size_t) ceil(2.0 * s * log2((double) n / s));
	ok = ok0 = omp_trials(m, n, s, 100, &ms, 0);
	okr = omp_trials(m, n, s, 10, &msr, 1);
	printf("OMP n=%zu s=%d m=%zu (2 s log2(n/s)), exact answers, 100 seeds:\n", n, s, m);
	printf("  incremental QR: %.1f ms per recovery (target < 100 ms), success %d/100 (target >= 99)\n",
		   ms, ok);
	printf("  baseline full re-solve (dgels per step, 10 seeds): %.1f ms, success %d/10; ratio baseline/incremental %.2fx\n",
		   msr, okr, msr / ms);
	ok = omp_trials(1000, 10000, 50, 5, &ms, 0);
	okr = omp_trials(1000, 10000, 50, 5, &msr, 1);
	printf("OMP n=10000 s=50 m=1000 (research B4; sklearn 0.39 s), 5 seeds: incremental %.1f ms (%d/5), full re-solve %.1f ms (%d/5); ratio %.2fx\n",
		   ms, ok, msr, okr, msr / ms);
	if (ok0 < 99)
		for (i = 0; i < 2; i++)
		{
			size_t		m2 = (size_t) ceil(f[i] * m);

			ok = omp_trials(m2, n, s, 100, &ms, 0);
			printf("  at m=%zu (%.2f x): %.1f ms, success %d/100\n", m2, f[i], ms, ok);
		}
}

/* naive A^T r: walk the set bits of every row */
static void
naive_mul_t(const tapas_binmat_t *A, const double *r, double *z)
{
	size_t		i,
				w;

	memset(z, 0, A->n * sizeof(double));
	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);

		for (w = 0; w < A->words; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				z[w * 64 + (size_t) __builtin_ctzll(bits)] += r[i];
				bits &= bits - 1;
			}
		}
	}
}

/* The correlation step A^T r, OMP's inner cost, four ways. */
static void
correlations(void)
{
	size_t		n = 100000,
				m = 266,
				i;
	double	   *x = tapas_malloc(n * sizeof(double)),
			   *b = tapas_malloc(m * sizeof(double)),
			   *z = tapas_malloc(n * sizeof(double)),
			   *D = tapas_malloc(m * n * sizeof(double));
	tapas_binmat_t *A = instance(7, m, n, 10, x, b);
	tapas_binmat_colbytes_t *P;
	double		t0,
				tbuild,
				tcol,
				tfly,
				tnaive,
				tdense;
	int			rep,
				reps = 20;

	for (i = 0; i < m; i++)
		b[i] = (double) i - 100.0;
	t0 = bench_ms();
	P = tapas_binmat_colbytes_create(A);
	tbuild = bench_ms() - t0;
	t0 = bench_ms();
	for (rep = 0; rep < reps; rep++)
		tapas_binmat_colbytes_mul_t(P, b, z);
	tcol = (bench_ms() - t0) / reps;
	t0 = bench_ms();
	for (rep = 0; rep < reps; rep++)
		tapas_binmat_mul_t(A, b, z);
	tfly = (bench_ms() - t0) / reps;
	t0 = bench_ms();
	for (rep = 0; rep < reps; rep++)
		naive_mul_t(A, b, z);
	tnaive = (bench_ms() - t0) / reps;
	tapas_binmat_to_dense(A, D, m);
	t0 = bench_ms();
	for (rep = 0; rep < reps; rep++)
		cblas_dgemv(CblasColMajor, CblasTrans, (int) m, (int) n, 1.0, D, (int) m,
					b, 1, 0.0, z, 1);
	tdense = (bench_ms() - t0) / reps;
	printf("\nA^T r at n=%zu m=%zu (OMP's correlation step), ms per product:\n", n, m);
	printf("  column patterns %.2f (built once in %.1f ms) | on-the-fly tables %.2f | naive bit walk %.2f | dense dgemv (213 MB) %.2f\n",
		   tcol, tbuild, tfly, tnaive, tdense);
	printf("  ratios vs column patterns: on-the-fly %.1fx, naive %.1fx, dense dgemv %.1fx\n",
		   tfly / tcol, tnaive / tcol, tdense / tcol);
	tapas_binmat_colbytes_free(P);
	tapas_binmat_free(A);
	tapas_free(x);
	tapas_free(b);
	tapas_free(z);
	tapas_free(D);
}

static void
table(void)
{
	double		ns[] = {1e3, 1e5, 1e6};
	int			ss[] = {1, 5, 20};
	int			a,
				c;

	printf("\nBernoulli + OMP: queries needed (all of k seeds recovered; grid x1.1) vs log2 C(n, s)\n");
	printf("%9s %4s %10s %8s %7s %3s %9s\n", "n", "s", "log2C(n,s)", "OMP m", "ratio", "k", "ms/rec");
	for (a = 0; a < 3; a++)
		for (c = 0; c < 3; c++)
		{
			size_t		n = (size_t) ns[a];
			int			s = ss[c],
						k = n >= 1000000 ? 3 : 10;
			double		bound = log2_binom((double) n, s),
						mf = ceil(bound),
						ms = 0.0;
			size_t		m = (size_t) mf;

			for (;;)
			{
				if (omp_trials(m, n, s, k, &ms, 0) == k)
					break;
				mf *= 1.1;
				m = (size_t) ceil(mf);
			}
			printf("%9zu %4d %10.1f %8zu %7.2f %3d %9.1f\n", n, s, bound, m,
				   (double) m / bound, k, ms);
			fflush(stdout);
		}
}

int
main(void)
{
	double		t0 = bench_ms();

	headline();
	correlations();
	decoders();
	fflush(stdout);
	table();
	printf("total bench time %.1f s\n", (bench_ms() - t0) / 1e3);
	return 0;
}
