/*
 * b-bch.c
 *	  Benchmark of the BCH syndrome decoder (src/recon/bch_decode.c), and
 *	  the table of queries needed against the information-theoretic bound.
 *
 * Decode at n = 2^20 - 1 for s in {1, 8, 64} with supports of full weight
 * s (median over random supports, robust to preemption on the shared box;
 * target < 1 ms at s = 64), compared in the
 * same run with a Chien search (evaluating the locator at all n points),
 * the textbook root finder the trace algorithm replaces.  Then, for
 * n in {10^3, 10^5, 10^6} and s in {1, 5, 20}: BCH queries s * q (+1 total
 * query when k forces complements) against log2 C(n, s), the bound for
 * parity answers, and log2 C(n, s) / log2(s + 1), the bound for integer
 * COUNT answers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "util/memory.h"
#include "util/rng.h"
#include "recon/bch.h"

/* distinct random positions in 1..n */
static void
support(tapas_rng_t *rng, int64_t n, int w, int64_t *c)
{
	int			i,
				k,
				dup;

	for (i = 0; i < w; i++)
		do
		{
			c[i] = 1 + (int64_t) tapas_rng_below(rng, (uint64_t) n);
			dup = 0;
			for (k = 0; k < i; k++)
				dup |= c[k] == c[i];
		} while (dup);
}

/* roots of the locator by evaluating sum_i syn-derived Lambda at all n */
static int
chien_count(const tapas_bch_t *bch, const int64_t *c, int w)
{
	/* Lambda(z) = prod (1 + alpha^j z); evaluate at alpha^-i for all i */
	uint32_t	lam[130] = {1};
	int			i,
				k,
				found = 0;
	int64_t		x;

	for (i = 0; i < w; i++)
	{
		uint32_t	X = tapas_gf2m_pow_alpha(bch->gf, c[i]);

		for (k = i + 1; k >= 1; k--)
			lam[k] ^= tapas_gf2m_mul(bch->gf, lam[k - 1], X);
	}
	for (x = 1; x <= bch->n; x++)
	{
		uint32_t	v = 0,
					e = (uint32_t) (bch->gf->N - x % bch->gf->N) % bch->gf->N;

		for (k = 0; k <= w; k++)
			v ^= tapas_gf2m_mul(bch->gf, lam[k],
								bch->gf->exp[(uint64_t) e * k % bch->gf->N]);
		found += v == 0;
	}
	return found;
}

static void
bench_decode(int64_t n, int s, int reps, int chien)
{
	tapas_status st;
	tapas_bch_t *bch = tapas_bch_create(n, s, &st);
	tapas_rng_t rng;
	int64_t		c[128],
				got[128];
	uint32_t	syn[128];
	double		total = 0,
				worst = 0,
				tc = 0,
				times[256],
				median;
	int			found = 0;
	int			r,
				t,
				i,
				gw,
				ok = 0;

	tapas_rng_seed(&rng, 1234 + s);
	for (r = 0; r < reps; r++)
	{
		double		t0;

		support(&rng, n, s, c);
		for (t = 0; t < s; t++)
		{
			syn[t] = 0;
			for (i = 0; i < s; i++)
				syn[t] ^= tapas_gf2m_pow_alpha(bch->gf, (uint64_t) (2 * t + 1) * c[i]);
		}
		t0 = bench_seconds();
		st = tapas_bch_decode(bch, syn, got, &gw);
		t0 = bench_seconds() - t0;
		ok += st == TAPAS_OK && gw == s;
		times[r] = t0;
		total += t0;
		if (t0 > worst)
			worst = t0;
	}
	if (chien)
	{
		double		t0 = bench_seconds();

		found = chien_count(bch, c, s);
		tc = bench_seconds() - t0;
	}
	median = bench_median(times, (size_t) reps);
	printf("bch decode n=%lld s=%d: median %.1f us, mean %.1f us, worst %.1f us, %d/%d exact",
		   (long long) n, s, median * 1e6, total / reps * 1e6, worst * 1e6, ok, reps);
	if (chien)
		printf(" | Chien search %.1f ms (%d roots) = %.0fx the median decode",
			   tc * 1e3, found, tc / median);
	printf("%s\n", s == 64 ? (median < 1e-3 ? " (target < 1 ms: met)" : " (target < 1 ms: MISSED)") : "");
	tapas_bch_free(bch);
}

static double
log2_binom(double n, double s)
{
	return (lgamma(n + 1) - lgamma(s + 1) - lgamma(n - s + 1)) / log(2.0);
}

int
main(void)
{
	static const double ns[] = {1e3, 1e5, 1e6};
	static const int ss[] = {1, 5, 20};
	int			i,
				j;

	bench_decode((1 << 20) - 1, 1, 200, 0);
	bench_decode((1 << 20) - 1, 8, 200, 1);
	bench_decode((1 << 20) - 1, 64, 50, 1);

	printf("\n%8s %4s %10s %14s %16s %18s\n", "n", "s", "BCH s*q", "(+1 if k>0)",
		   "log2 C(n,s)", "/ log2(s+1) (COUNT)");
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
		{
			int			q = tapas_bch_degree((int64_t) ns[i]);
			double		lb = log2_binom(ns[i], ss[j]);

			printf("%8.0f %4d %10d %14d %16.1f %18.1f\n", ns[i], ss[j],
				   ss[j] * q, ss[j] * q + 1, lb, lb / log2(ss[j] + 1.0));
		}
	return 0;
}
