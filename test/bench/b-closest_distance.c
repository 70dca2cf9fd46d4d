/*
 * b-closest_distance.c
 *	  Benchmark: ClosestDistanceMIA (Hamming) of one target against one
 *	  5,000 x 17 synthetic dataset drawn from census50k.
 *
 * The reference toolbox takes 6.6 ms for this (measured on this machine,
 * see research notes).  In the same process we time a naive baseline that
 * does what the reference does: compare the target's raw (string) values
 * with every row to fill the whole distance vector, then take its minimum.
 * tapas compares integer codes stored as doubles and stops at distance 0.
 * Two targets are timed: one absent from the synthetic data (full scan) and
 * one present (the raw generator case; early exit).
 *
 * Second figure: closest-distance MIA with L2 on the one-hot encoding for
 * NMANY targets at once, per-target pruned scans (distance.c) against the
 * blocked dgemm scan (distance_blas.c); the results must be identical.
 *
 * Data: $TAPAS_DATA/census50k.csv, else ../shared/data (CI layout, beside
 * the clone), else /work/shared/data.  Without data the bench is skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "attacks/dataset.h"
#include "attacks/score_attacks.h"
#include "util/memory.h"
#include "util/rng.h"

#define NCOL 17
#define NROWS_MAX 60000
#define NSYN 5000
#define LABEL_MAX 16
#define REFERENCE_MS 6.6
#define NMANY 500

static char labels[NROWS_MAX][NCOL][LABEL_MAX];
static double codes[NROWS_MAX * NCOL];

static FILE *
open_data(void)
{
	const char *env = getenv("TAPAS_DATA");
	const char *dirs[3] = {env, "../shared/data", "/work/shared/data"};
	char		path[512];
	int			i;

	for (i = 0; i < 3; i++)
	{
		FILE	   *f;

		if (dirs[i] == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/census50k.csv", dirs[i]);
		if ((f = fopen(path, "r")) != NULL)
		{
			printf("data: %s\n", path);
			return f;
		}
	}
	return NULL;
}

/* reads the CSV; codes are per-column dictionary indices of the labels */
static size_t
read_census(FILE *f, size_t *card)
{
	static char dict[NCOL][64][LABEL_MAX];
	char		line[1024];
	size_t		n = 0,
				j;

	while (n < NROWS_MAX && fgets(line, sizeof(line), f) != NULL)
	{
		char	   *tok = strtok(line, ",\r\n");

		for (j = 0; j < NCOL && tok != NULL; j++, tok = strtok(NULL, ",\r\n"))
		{
			size_t		k;

			snprintf(labels[n][j], LABEL_MAX, "%s", tok);
			for (k = 0; k < card[j] && strcmp(dict[j][k], tok) != 0; k++)
				;
			if (k == card[j] && card[j] < 64)
				snprintf(dict[j][card[j]++], LABEL_MAX, "%s", tok);
			codes[n * NCOL + j] = (double) k;
		}
		if (j == NCOL)
			n++;
	}
	return n;
}

/* the reference's algorithm: full distance vector on raw strings, then min */
static double
naive_score(const size_t *rows, size_t n, size_t target, double *dist)
{
	size_t		i,
				j;
	double		best = INFINITY;

	for (i = 0; i < n; i++)
	{
		dist[i] = 0;
		for (j = 0; j < NCOL; j++)
			dist[i] += strcmp(labels[rows[i]][j], labels[target][j]) != 0;
	}
	for (i = 0; i < n; i++)
		best = dist[i] < best ? dist[i] : best;
	return -best;
}

/* L2 for NMANY targets: per-target scans vs the BLAS scan */
static int
many_targets(tapas_dataset_t *syn, const size_t *perm, size_t n)
{
	tapas_distance_t l2 = {TAPAS_DISTANCE_LP, 2.0, NULL, 0, NULL, 0, NULL, 0};
	size_t		e,
				a,
				m = n - NSYN < NMANY ? n - NSYN : NMANY;
	double	   *x,
			   *slow,
			   *fast,
				t0,
				t_slow,
				t_fast;

	tapas_dataset_encode(syn);
	e = syn->encoded_dim;
	x = malloc(m * e * sizeof(double));
	slow = malloc(m * sizeof(double));
	fast = malloc(m * sizeof(double));
	for (a = 0; a < m; a++)
		tapas_dataset_encode_record(syn, codes + perm[NSYN + a] * NCOL, x + a * e);
	t0 = bench_seconds();
	for (a = 0; a < m; a++)
		slow[a] = tapas_distance_min(&l2, syn, NULL, x + a * e);
	t_slow = bench_seconds() - t0;
	t0 = bench_seconds();
	tapas_distance_l2_scan(syn, x, m, -1, fast, NULL, NULL);
	t_fast = bench_seconds() - t0;
	for (a = 0; a < m; a++)
		if (slow[a] != fast[a])
		{
			printf("MISMATCH at target %zu: %.17g vs %.17g\n", a, slow[a], fast[a]);
			return 1;
		}
	printf("closest_distance_mia l2 (encoded dim %zu), %zu targets x %d rows\n",
		   e, m, NSYN);
	printf("  per-target pruned scans:  %8.1f ms (%.1f us/target)\n",
		   t_slow * 1e3, t_slow * 1e6 / m);
	printf("  blocked dgemm scan:       %8.1f ms (%.1f us/target)   %5.1fx\n",
		   t_fast * 1e3, t_fast * 1e6 / m, t_slow / t_fast);
	free(x);
	free(slow);
	free(fast);
	return 0;
}

int
main(void)
{
	FILE	   *f = open_data();
	size_t		card[NCOL] = {0},
				n,
				j,
				i,
				*perm,
				absent,
				present;
	tapas_column_spec_t specs[NCOL];
	tapas_dataset_t *syn;
	tapas_distance_t ham = {TAPAS_DISTANCE_HAMMING, 0, NULL, 0, NULL, 0, NULL, 0};
	tapas_rng_t rng;
	double	   *dist = malloc(NSYN * sizeof(double)),
				t_fast,
				t_naive,
				t_hit,
				s_fast = 0,
				s_naive = 0,
				s_hit = 0;

	if (f == NULL)
	{
		printf("census50k.csv not found: benchmark skipped\n");
		return 0;
	}
	n = read_census(f, card);
	fclose(f);
	for (j = 0; j < NCOL; j++)
		specs[j] = (tapas_column_spec_t) {TAPAS_COLUMN_CATEGORICAL, card[j], 0, 0};

	/* synthetic = the first 5,000 of a seeded permutation; targets after */
	tapas_rng_seed(&rng, 42);
	perm = malloc(n * sizeof(size_t));
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--)
	{
		size_t		k = tapas_rng_below(&rng, i + 1),
					t = perm[i];

		perm[i] = perm[k];
		perm[k] = t;
	}
	syn = tapas_dataset_create(NSYN, NCOL, specs);
	for (i = 0; i < NSYN; i++)
		memcpy(syn->values + i * NCOL, codes + perm[i] * NCOL,
			   NCOL * sizeof(double));
	/* a target whose exact record is not in the synthetic data */
	absent = perm[NSYN];
	for (i = NSYN; i < n; i++)
	{
		absent = perm[i];
		if (naive_score(perm, NSYN, absent, dist) < 0)
			break;
	}
	present = perm[NSYN / 2];

	BENCH_TIME_MEDIAN(201, t_naive, s_naive = naive_score(perm, NSYN, absent, dist));
	BENCH_TIME_MEDIAN(201, t_fast,
				tapas_closest_distance_mia(&ham, syn, codes + absent * NCOL,
										   NULL, &s_fast));
	BENCH_TIME_MEDIAN(201, t_hit,
				tapas_closest_distance_mia(&ham, syn, codes + present * NCOL,
										   NULL, &s_hit));
	if (s_fast != s_naive || s_hit != 0)
	{
		printf("MISMATCH: tapas %g naive %g present %g\n", s_fast, s_naive, s_hit);
		return 1;
	}
	printf("closest_distance_mia hamming, %d x %d synthetic, one target (score %g)\n",
		   NSYN, NCOL, s_fast);
	printf("  naive (string compare, full vector): %9.1f us\n", t_naive * 1e6);
	printf("  tapas (absent target, full scan):    %9.1f us   %6.1fx vs naive  %7.1fx vs reference %.1f ms\n",
		   t_fast * 1e6, t_naive / t_fast, REFERENCE_MS * 1e-3 / t_fast,
		   REFERENCE_MS);
	printf("  tapas (present target, early exit):  %9.1f us   %6.1fx vs naive  %7.1fx vs reference\n",
		   t_hit * 1e6, t_naive / t_hit, REFERENCE_MS * 1e-3 / t_hit);
	if (many_targets(syn, perm, n) != 0)
		return 1;
	tapas_dataset_free(syn);
	free(perm);
	free(dist);
	return 0;
}
