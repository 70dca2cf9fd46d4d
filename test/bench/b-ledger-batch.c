/*-------------------------------------------------------------------------
 *
 * b-ledger-batch.c
 *	  The ledger's work for one GROUP BY statement with two statistics per
 *	  group, at n = 10^6: cells of one group that share one keys array
 *	  (what capture/gate.c hands over since issue 12) against a private
 *	  copy per cell (before), and the statistic states of the batch by
 *	  ledger_stat_walk.c against the per-cell scan it replaced.
 *
 * The statements are those of test/bench/scale.sh: g20 (20 groups, key
 * i in group i % 20) and g1000 (1,000 groups, group (i / 7) % 1000), each
 * group giving a "count(*) filter (where rare)" and a "sum(income)" cell
 * over the same keys.  "first" logs the statement in an empty store (every
 * key new: numbering, covers, hash inserts), "again" logs it once more
 * (every key known: the backend's key cache, covers); both prepare and
 * apply, as tapas_ledger_append does.  Each figure is the median CPU time
 * of 9 rounds, each on a fresh store, before and after interleaved in
 * every round (the machine is shared); the ratio is before / after.
 *
 * IDENTIFICATION
 *	  test/bench/b-ledger-batch.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "lstore/ledger_cache.h"
#include "lstore/ledger_store.h"
#include "lstore/ledger_store_int.h"
#include "util/memory.h"

#define N			1000000
#define RELID		16384
#define REPS		9

static const char *const stats[2] = {"count(*) filter (where rare)", "sum(income)"};

typedef struct statement
{
	int			ngroups;
	int64_t   **keys;			/* [ngroups] sorted keys of each group */
	uint64_t   *nkeys;
} statement_t;

static void
make_statement(statement_t *st, int g1000)
{
	int64_t		i;

	st->ngroups = g1000 ? 1000 : 20;
	st->keys = calloc(st->ngroups, sizeof(int64_t *));
	st->nkeys = calloc(st->ngroups, sizeof(uint64_t));
	for (i = 0; i < st->ngroups; i++)
		st->keys[i] = malloc(sizeof(int64_t) * (N / st->ngroups + 8));
	for (i = 0; i < N; i++)
	{
		int			g = g1000 ? (int) ((i / 7) % 1000) : (int) (i % 20);

		st->keys[g][st->nkeys[g]++] = i;
	}
}

/* the cells of st: shared keys arrays, or a private copy each */
static tapas_ledger_cell_in_t *
make_cells(const statement_t *st, int shared, int64_t ***copies)
{
	tapas_ledger_cell_in_t *in = calloc(2 * st->ngroups, sizeof(*in));
	int			g,
				k;

	*copies = calloc(2 * st->ngroups, sizeof(int64_t *));
	for (g = 0; g < st->ngroups; g++)
		for (k = 0; k < 2; k++)
		{
			tapas_ledger_cell_in_t *c = &in[2 * g + k];

			c->table_id = RELID;
			c->statistic = stats[k];
			c->answer = 1;
			c->nkeys = st->nkeys[g];
			c->keys = st->keys[g];
			if (!shared)
			{
				(*copies)[2 * g + k] = malloc(sizeof(int64_t) * st->nkeys[g]);
				memcpy((*copies)[2 * g + k], st->keys[g], sizeof(int64_t) * st->nkeys[g]);
				c->keys = (*copies)[2 * g + k];
			}
		}
	return in;
}

static void
log_batch(tapas_ledger_store_t *s, tapas_ledger_cache_t *cache, const tapas_ledger_cell_in_t *in,
		  int ncells)
{
	tapas_ledger_batch_t *b;

	if (tapas_ledger_store_prepare_cached(s, cache, in, ncells, "SELECT", &b) != TAPAS_OK ||
		tapas_ledger_store_apply(s, b, NULL) != TAPAS_OK)
		abort();
	tapas_ledger_batch_free(b);
}

/*
 * ms of CPU time of logging the statement first and again, on a fresh
 * store: before (private keys arrays) into t[0], t[1], after (shared) into
 * t[2], t[3]
 */
static void
time_round(const tapas_ledger_cell_in_t *priv, const tapas_ledger_cell_in_t *shared, int ncells,
		   void *region, double *t)
{
	tapas_ledger_store_limits_t lim = {1 << 21, 100000, UINT64_C(256) << 20, 8};
	size_t		size = tapas_ledger_store_size(&lim);
	int			side;

	for (side = 0; side < 2; side++)
	{
		tapas_ledger_store_t *s = tapas_ledger_store_init(region, size, &lim);
		tapas_ledger_cache_t *cache = tapas_ledger_cache_create();
		const tapas_ledger_cell_in_t *in = side ? shared : priv;
		double		t0 = bench_cpu_seconds();

		log_batch(s, cache, in, ncells);
		t[2 * side] = 1e3 * (bench_cpu_seconds() - t0);
		t0 = bench_cpu_seconds();
		log_batch(s, cache, in, ncells);
		t[2 * side + 1] = 1e3 * (bench_cpu_seconds() - t0);
		tapas_ledger_cache_free(cache);
	}
}

/* medians over REPS interleaved rounds: before first, again; after first, again */
static void
time_statement(const tapas_ledger_cell_in_t *priv, const tapas_ledger_cell_in_t *shared, int ncells,
			   double *med)
{
	tapas_ledger_store_limits_t lim = {1 << 21, 100000, UINT64_C(256) << 20, 8};
	void	   *region = malloc(tapas_ledger_store_size(&lim));
	double		t[4][REPS];
	int			r,
				k;

	for (r = 0; r < REPS; r++)
	{
		double		one[4];

		time_round(priv, shared, ncells, region, one);
		for (k = 0; k < 4; k++)
			t[k][r] = one[k];
	}
	for (k = 0; k < 4; k++)
		med[k] = bench_median(t[k], REPS);
	free(region);
}

static volatile int sink;

/* the states of every cell by the per-cell scan (before) */
static void
states_scan(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b)
{
	int			i,
				e,
				h;

	for (i = 0; i < b->ncells; i++)
	{
		tapas_ledger_store_stat_state(s, b, i, &e, &h);
		sink += e + h;
	}
}

/* the same by the walk (after) */
static void
states_walk(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b)
{
	ledger_stat_walk_t w;
	int			i,
				e,
				h;

	ledger_stat_walk_init(&w, s, b);
	for (i = 0; i < b->ncells; i++)
	{
		ledger_stat_walk_state(&w, i, &e, &h);
		ledger_stat_walk_done(&w, i);
		sink += e + h;
	}
	ledger_stat_walk_free(&w);
}

/* median ms of the statistic states of a prepared batch: scan, walk */
static void
time_states(const tapas_ledger_cell_in_t *in, int ncells, double *scan, double *walk)
{
	tapas_ledger_store_limits_t lim = {1 << 21, 100000, UINT64_C(256) << 20, 8};
	size_t		size = tapas_ledger_store_size(&lim);
	void	   *region = malloc(size);
	tapas_ledger_store_t *s = tapas_ledger_store_init(region, size, &lim);
	tapas_ledger_batch_t *b;

	if (tapas_ledger_store_prepare(s, in, ncells, NULL, &b) != TAPAS_OK)
		abort();
	BENCH_TIME_MEDIAN(REPS, *scan, states_scan(s, b));
	BENCH_TIME_MEDIAN(REPS, *walk, states_walk(s, b));
	*scan *= 1e3;
	*walk *= 1e3;
	tapas_ledger_batch_free(b);
	free(region);
}

int
main(void)
{
	int			q;

	printf("%-6s %6s  %-22s %-22s %-22s\n", "query", "cells", "first: before/after",
		   "again: before/after", "states: scan/walk");
	for (q = 0; q < 2; q++)
	{
		statement_t st;
		tapas_ledger_cell_in_t *shared,
				   *priv;
		int64_t   **copies_s,
				  **copies_p;
		double		m[4],
					scan,
					walk;
		int			ncells;

		make_statement(&st, q);
		ncells = 2 * st.ngroups;
		shared = make_cells(&st, 1, &copies_s);
		priv = make_cells(&st, 0, &copies_p);
		time_statement(priv, shared, ncells, m);
		time_states(priv, ncells, &scan, &walk);
		printf("%-6s %6d  %6.1f/%6.1f ms %4.2fx %6.1f/%6.1f ms %4.2fx %7.2f/%5.2f ms %5.0fx\n",
			   q ? "g1000" : "g20", ncells, m[0], m[2], m[0] / m[2], m[1], m[3], m[1] / m[3],
			   scan, walk, scan / (walk > 0 ? walk : 1e-9));
	}
	return 0;
}
