/*
 * b-rowspace-wide.c
 *	  Benchmark of the row-space kernel on wide GROUP BYs: many disjoint
 *	  groups, the statements an analyst writes over a fine quasi-identifier
 *	  (zip code, district), which used to fill the basis one row per group.
 *
 * Workload at n records (100,000 and 1,000,000): records carry a fine key
 * g (G groups of n / G records, G = 2,000, 5,000 and 20,000), a coarse key g / 10,
 * sex, a 40-value region and a 10-value age band crossing them.  Statements:
 *	1. GROUP BY g;	2. GROUP BY g WHERE sex = 'f';	3. GROUP BY g / 10;
 *	4. GROUP BY g, sex;	5. one group minus one record (a difference: the
 *	record is determined, the statement refused, i.e. rolled back);
 *	6. GROUP BY region (crosses every group); 7. GROUP BY age band (10
 *	bands, crossing both); 8. GROUP BY region again WHERE sex = 'f'.
 * Each is a trial, then a commit (5: a rollback).  Printed per statement:
 * time, rank, basis rows, records determined, kernel memory; for the
 * kernel and, in the same process, two baselines (tapas_rowspace_set_basis_only):
 * 2, resolved atoms only, every block a row cuts given back to the basis
 * (the kernel before crossed blocks were kept), and 1, every row in the
 * basis (the kernel before rowspace_resolved.c).  A baseline stops at the
 * basis limit (TAPAS_ELIMIT: the audit then fails closed).  All must
 * report the same ranks and determined records wherever they finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/rng.h"
#include "recon/rowspace.h"

#define NSTMT	8
#define NKERNEL	3
#define REGIONS	40
#define BANDS	10

typedef struct stmt
{
	uint32_t   *ids;
	size_t	   *off;
	size_t		nrows;
} stmt_t;

typedef struct result
{
	tapas_status st;
	double		ms;
	uint32_t	rank,
				basis;
	size_t		det;
	size_t		mem;
} result_t;

static uint32_t
group_of(uint32_t j, uint32_t G)
{
	return j % G;
}

static int
is_f(uint32_t j)
{
	return (j / 7) % 2 == 0;
}

static uint32_t
region_of(uint32_t j)
{
	return (j * 2654435761u >> 7) % REGIONS;
}

/* rows of a GROUP BY with key(j) in 0..nkeys-1, records with keep(j) */
static void
groupby(stmt_t *s, uint32_t n, uint32_t nkeys, uint32_t (*key) (uint32_t, void *),
		int (*keep) (uint32_t), void *arg)
{
	size_t	   *count = calloc(nkeys + 1, sizeof(size_t));
	uint32_t	j,
				k;
	size_t		len = 0;

	for (j = 0; j < n; j++)
		if (keep == NULL || keep(j))
			count[key(j, arg) + 1]++;
	for (k = 0; k < nkeys; k++)
		count[k + 1] += count[k];
	s->ids = malloc((count[nkeys] + 1) * sizeof(uint32_t));
	s->off = malloc((nkeys + 1) * sizeof(size_t));
	for (k = 0; k <= nkeys; k++)
		s->off[k] = count[k];
	for (j = 0; j < n; j++)
		if (keep == NULL || keep(j))
			s->ids[count[key(j, arg)]++] = j;
	s->nrows = nkeys;
	(void) len;
	free(count);
}

static uint32_t
key_g(uint32_t j, void *arg)
{
	return group_of(j, *(uint32_t *) arg);
}

static uint32_t
key_coarse(uint32_t j, void *arg)
{
	return group_of(j, *(uint32_t *) arg) / 10;
}

static uint32_t
key_g_sex(uint32_t j, void *arg)
{
	return 2 * group_of(j, *(uint32_t *) arg) + (uint32_t) is_f(j);
}

static uint32_t
key_region(uint32_t j, void *arg)
{
	(void) arg;
	return region_of(j);
}

static uint32_t
key_band(uint32_t j, void *arg)
{
	(void) arg;
	return (j * 40503u >> 5) % BANDS;
}

static void
make_statements(stmt_t *s, uint32_t n, uint32_t G)
{
	uint32_t	i,
				len = 0;

	groupby(&s[0], n, G, key_g, NULL, &G);
	groupby(&s[1], n, G, key_g, is_f, &G);
	groupby(&s[2], n, G / 10, key_coarse, NULL, &G);
	groupby(&s[3], n, 2 * G, key_g_sex, NULL, &G);
	/* group 17 without its last record */
	s[4].ids = malloc((n / G) * sizeof(uint32_t));
	s[4].off = malloc(2 * sizeof(size_t));
	for (i = 17; i + G < n; i += G)
		s[4].ids[len++] = i;
	s[4].off[0] = 0;
	s[4].off[1] = len;
	s[4].nrows = 1;
	groupby(&s[5], n, REGIONS, key_region, NULL, NULL);
	groupby(&s[6], n, BANDS, key_band, NULL, NULL);
	groupby(&s[7], n, REGIONS, key_region, is_f, NULL);
}

static void
run(uint32_t n, const stmt_t *s, int mode, result_t *res)
{
	tapas_rng_t rng;
	const char *reason = NULL;
	tapas_rowspace_t *rs;
	int			i;

	tapas_rng_seed(&rng, 42);
	rs = tapas_rowspace_create(n, tapas_rowspace_prime_draw(&rng),
							   TAPAS_ROWSPACE_RANK_MAX, &rng, &reason);
	if (rs == NULL || tapas_rowspace_set_basis_only(rs, mode) != TAPAS_OK)
	{
		fprintf(stderr, "create: %s\n", reason ? reason : "?");
		exit(1);
	}
	for (i = 0; i < NSTMT; i++)
	{
		const uint32_t *newly;
		size_t		cnt = 0;
		double		t0 = bench_ms();

		res[i].st = tapas_rowspace_trial(rs, s[i].ids, s[i].off, s[i].nrows,
										 NULL, &newly, &cnt);
		res[i].det = cnt;
		res[i].rank = tapas_rowspace_rank(rs);
		res[i].basis = tapas_rowspace_kernel_rank(rs);
		if (res[i].st == TAPAS_OK)
		{
			if (i == 4)
				(void) tapas_rowspace_rollback(rs);
			else
				(void) tapas_rowspace_commit(rs);
		}
		res[i].ms = bench_ms() - t0;
		res[i].mem = tapas_rowspace_memory(rs);
		if (res[i].st != TAPAS_OK)
		{
			for (i++; i < NSTMT; i++)
				res[i].st = TAPAS_ELIMIT;
			break;
		}
	}
	tapas_rowspace_free(rs);
}

static const char *const names[NSTMT] = {
	"GROUP BY g", "GROUP BY g WHERE sex", "GROUP BY g / 10", "GROUP BY g, sex",
	"group minus one (refused)", "GROUP BY region (crosses)",
	"GROUP BY band (crosses)", "GROUP BY region WHERE sex"
};

static void
print_cell(const result_t *r)
{
	if (r->st == TAPAS_OK)
		printf(" %8.1f ms %6u %5u %4zu %5.0f MB |", r->ms, r->rank, r->basis,
			   r->det, r->mem / 1e6);
	else
		printf(" %-35s |", r->st == TAPAS_ELIMIT ? "TAPAS_ELIMIT (fails closed)" : "error");
}

int
main(void)
{
	/* 2,000 groups: few enough that the resolved-atoms kernel finishes the crossings */
	static const uint32_t ns[2] = {100000, 1000000};
	static const uint32_t gs[3] = {2000, 5000, 20000};
	static const int modes[NKERNEL] = {0, 2, 1};
	int			a,
				b,
				i,
				k,
				mismatch = 0;

	printf("# row space, wide GROUP BYs: per statement time (trial + commit), rank, basis rows,\n"
		   "# determined, kernel memory; kernel | resolved atoms only (the kernel before crossed\n"
		   "# blocks) | every row in the basis; same process; time ratios baseline / kernel\n");
	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++)
		{
			stmt_t		s[NSTMT];
			result_t	res[NKERNEL][NSTMT];

			make_statements(s, ns[a], gs[b]);
			for (k = 0; k < NKERNEL; k++)
				run(ns[a], s, modes[k], res[k]);
			printf("n = %u, %u groups of %u\n", ns[a], gs[b], ns[a] / gs[b]);
			for (i = 0; i < NSTMT; i++)
			{
				printf("  %-26s |", names[i]);
				for (k = 0; k < NKERNEL; k++)
					print_cell(&res[k][i]);
				for (k = 1; k < NKERNEL; k++)
					if (res[0][i].st == TAPAS_OK && res[k][i].st == TAPAS_OK)
					{
						printf(" %.1fx", res[k][i].ms / (res[0][i].ms > 0.01 ? res[0][i].ms : 0.01));
						mismatch |= res[0][i].det != res[k][i].det ||
							res[0][i].rank != res[k][i].rank;
					}
					else
						printf(" -");
				printf("\n");
			}
			for (i = 0; i < NSTMT; i++)
			{
				free(s[i].ids);
				free(s[i].off);
			}
		}
	if (mismatch)
		printf("MISMATCH: the kernels disagree on a rank or a determined count\n");
	return mismatch;
}
