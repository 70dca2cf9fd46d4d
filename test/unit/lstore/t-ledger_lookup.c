/*
 * t-ledger_lookup.c
 *	  Unit tests for src/lstore/ledger_lookup.c, tapas_ledger_store_lookup_cached.
 *
 * Oracle: tapas_ledger_store_lookup, key by key, on a store filled by random
 * statements (prepare + apply).  Key arrays mix known and unknown keys,
 * sorted and shuffled, with repeats, of lengths around the prefetch
 * distance; the cache is cold, warm, NULL, and synced after a table reset
 * (indices restart: a cache that kept old mappings would answer wrongly).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lstore/ledger_cache.h"
#include "lstore/ledger_store.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

#define NREL	2
#define SPAN	5000			/* keys base .. base + SPAN - 1 per table */
#define MAXQ	3000

static const uint64_t relids[NREL] = {21, 22};
static const int64_t bases[NREL] = {1, -4000000000};

static tapas_ledger_store_t *
store_create(void)
{
	tapas_ledger_store_limits_t lim = {40000, 10000, 32 << 20, 8};
	size_t		size = tapas_ledger_store_size(&lim);
	void	   *region = NULL;

	if (posix_memalign(&region, 64, size) != 0)
		return NULL;
	return tapas_ledger_store_init(region, size, &lim);
}

/* logs one random cell over table t (a random subset of its key span) */
static void
log_cell(tapas_ledger_store_t *s, tapas_rng_t *rng, int t)
{
	static int64_t keys[SPAN];
	tapas_ledger_cell_in_t in;
	tapas_ledger_batch_t *b = NULL;
	tapas_ledger_store_full_t full;
	uint64_t	lo = tapas_rng_u64(rng) % SPAN,
				len = 1 + tapas_rng_u64(rng) % 600,
				m = 0,
				i;

	for (i = lo; i < lo + len && i < SPAN; i++)
		if (tapas_rng_u64(rng) % 2)
			keys[m++] = bases[t] + (int64_t) i;
	if (m == 0)
		keys[m++] = bases[t] + (int64_t) lo;
	in.table_id = relids[t];
	in.statistic = "count(*)";
	in.basis = NULL;
	in.answer = (double) m;
	in.keys = keys;
	in.nkeys = m;
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, "q", &b) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, &full) == TAPAS_OK);
	tapas_ledger_batch_free(b);
}

/* n random keys of table t, inside and outside its span, maybe sorted */
static uint64_t
query_keys(tapas_rng_t *rng, int t, int64_t *keys)
{
	uint64_t	n = tapas_rng_u64(rng) % 4 == 0 ? tapas_rng_u64(rng) % 40 :
		tapas_rng_u64(rng) % MAXQ,
				i;

	for (i = 0; i < n; i++)
		keys[i] = bases[t] + (int64_t) (tapas_rng_u64(rng) % (SPAN + 500)) - 250;
	if (n > 2 && tapas_rng_u64(rng) % 2)
		keys[n - 1] = keys[n / 2];	/* a repeat */
	if (tapas_rng_u64(rng) % 2)		/* sorted, as the capture gives them */
		for (i = 1; i < n; i++)
		{
			int64_t		x = keys[i];
			uint64_t	j = i;

			for (; j > 0 && keys[j - 1] > x; j--)
				keys[j] = keys[j - 1];
			keys[j] = x;
		}
	return n;
}

static void
check_lookups(const tapas_ledger_store_t *s, tapas_ledger_cache_t *cache, tapas_rng_t *rng)
{
	static int64_t keys[MAXQ],
				idx[MAXQ];
	int			t = (int) (tapas_rng_u64(rng) % NREL);
	uint64_t	n = query_keys(rng, t, keys),
				i;

	for (i = 0; i < n; i++)
		idx[i] = -7;
	tapas_ledger_store_lookup_cached(s, cache, relids[t], keys, n, idx);
	for (i = 0; i < n; i++)
		TAPAS_CHECK_MSG(idx[i] == tapas_ledger_store_lookup(s, relids[t], keys[i]),
						"key %lld: %lld, store %lld", (long long) keys[i],
						(long long) idx[i], (long long) tapas_ledger_store_lookup(s, relids[t], keys[i]));
}

static void
test_lookup_cached_matches_store(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = store_create();
	long		live = tapas_memory_live();
	tapas_ledger_cache_t *cache = tapas_ledger_cache_create();
	uint64_t	gen = 0;
	long		it,
				iters = tapas_test_iters(300);

	TAPAS_CHECK(s != NULL && cache != NULL);
	tapas_rng_seed(&rng, tapas_test_seed());
	/* an empty store: every key unknown */
	check_lookups(s, cache, &rng);
	for (it = 0; it < iters; it++)
	{
		log_cell(s, &rng, (int) (tapas_rng_u64(&rng) % NREL));
		check_lookups(s, cache, &rng);	/* warm cache after the first rounds */
		check_lookups(s, NULL, &rng);	/* no cache */
		if (it % 40 == 39)
		{
			/* indices restart after a reset: the synced cache must forget */
			TAPAS_CHECK(tapas_ledger_store_reset_table(s, relids[it % NREL], NULL) == TAPAS_OK);
			tapas_ledger_cache_sync(cache, ++gen);
			check_lookups(s, cache, &rng);
		}
	}
	TAPAS_CHECK(cache->slots > 0);	/* the cache was filled and used */
	tapas_ledger_cache_free(cache);
	TAPAS_CHECK(tapas_memory_live() == live);	/* the lookups allocate nothing */
	free(s);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_lookup_cached_matches_store);
	TAPAS_TEST_DONE();
}
