/*
 * t-ledger_cache.c
 *	  Unit tests for src/lstore/ledger_cache.c and the cached path of
 *	  tapas_ledger_store_prepare_cached (ledger_batch.c).
 *
 * Oracles: a plain array of the mappings put (the cache must answer each
 * put-and-accepted key with its index and every other key with -1), and,
 * for prepare, the uncached tapas_ledger_store_prepare (same covers and new keys
 * byte for byte) and the store's own lookups after apply (every cover
 * decodes to exactly the indices of its cell's keys), across table resets
 * followed by tapas_ledger_cache_sync.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "lstore/ledger_cache.h"
#include "lstore/ledger_store.h"
#include "util/memory.h"
#include "lstore/ledger_workload.h"
#include "tapas_test.h"

#define NPUT 4000

/* random puts around a base (wrapping at INT64 extremes) vs an array */
static void
check_puts_against_array(int64_t base, uint64_t spread, int descending)
{
	tapas_rng_t rng;
	tapas_ledger_cache_t *c = tapas_ledger_cache_create();
	tapas_ledger_cache_table_t *t = tapas_ledger_cache_table(c, 7, 1);
	static int64_t keys[NPUT];
	static int	cached[NPUT];
	int			i;

	tapas_rng_seed(&rng, tapas_test_seed() ^ (uint64_t) base);
	TAPAS_CHECK(t != NULL && tapas_ledger_cache_table(c, 7, 0) == t);
	for (i = 0; i < NPUT; i++)
	{
		uint64_t	off = tapas_rng_u64(&rng) % spread;

		/* distinct keys: off i-th multiple plus i keeps them apart */
		if (descending)
			keys[i] = (int64_t) ((uint64_t) base + (uint64_t) (NPUT - 1 - i));
		else
			keys[i] = (int64_t) ((uint64_t) base + off * NPUT + (uint64_t) i);
		cached[i] = tapas_ledger_cache_put(c, t, keys[i], (uint32_t) i, 3 * NPUT);
		/* dense keys always fit the window */
		TAPAS_CHECK(cached[i] || (spread > 1 && !descending));
	}
	for (i = 0; i < NPUT; i++)
	{
		TAPAS_CHECK_MSG(tapas_ledger_cache_get(t, keys[i]) == (cached[i] ? i : -1),
						"key %lld cached %d", (long long) keys[i], cached[i]);
		/* a key never put (every key put is base + something >= 0) */
		TAPAS_CHECK(tapas_ledger_cache_get(t, (int64_t) ((uint64_t) base - 1 - (uint64_t) i)) == -1);
	}
	TAPAS_CHECK(c->slots <= 4 * 3 * NPUT + 4096);
	tapas_ledger_cache_free(c);
}

static void
test_lcache_puts(void)
{
	long		live = tapas_memory_live();
	tapas_ledger_cache_t *c;
	tapas_ledger_cache_table_t *t;
	int			i,
				n;

	/* dense (spread 1: keys base + i, all cached), sparse, wrapping, descending */
	check_puts_against_array(1, 1, 0);
	check_puts_against_array(-5000, 1, 0);
	check_puts_against_array(INT64_MAX - 2000, 1, 0);
	check_puts_against_array(1000, 1 << 20, 0);
	check_puts_against_array(INT64_MIN + 10, 1 << 20, 0);
	check_puts_against_array(100, 1, 1);
	TAPAS_CHECK(tapas_memory_live() == live);

	/* dense keys are all cached; a far key is refused and stays unknown */
	c = tapas_ledger_cache_create();
	t = tapas_ledger_cache_table(c, 9, 1);
	for (i = 0, n = 0; i < 10000; i++)
		n += tapas_ledger_cache_put(c, t, 50000 - i, (uint32_t) i, 10000);
	TAPAS_CHECK(n == 10000);
	TAPAS_CHECK(tapas_ledger_cache_put(c, t, INT64_C(1) << 50, 5, 10000) == 0);
	TAPAS_CHECK(tapas_ledger_cache_get(t, INT64_C(1) << 50) == -1);
	TAPAS_CHECK(tapas_ledger_cache_get(t, 50000) == 0 && tapas_ledger_cache_get(t, 40001) == 9999);
	TAPAS_CHECK(tapas_ledger_cache_put(c, t, 7, UINT32_MAX, 10000) == 0);
	TAPAS_CHECK(tapas_ledger_cache_get(NULL, 7) == -1);

	/* eviction: more tables than entries; the evicted one is gone */
	for (i = 0; i < TAPAS_LEDGER_CACHE_MAX_TABLES; i++)
		TAPAS_CHECK(tapas_ledger_cache_put(c, tapas_ledger_cache_table(c, 100 + i, 1), 1, 1, 10) == 1);
	TAPAS_CHECK(tapas_ledger_cache_table(c, 9, 0) == NULL);
	TAPAS_CHECK(tapas_ledger_cache_get(tapas_ledger_cache_table(c, 107, 0), 1) == 1);

	/* sync with the same generation keeps, with another clears */
	tapas_ledger_cache_sync(c, c->generation);
	TAPAS_CHECK(tapas_ledger_cache_table(c, 107, 0) != NULL);
	tapas_ledger_cache_sync(c, c->generation + 1);
	TAPAS_CHECK(tapas_ledger_cache_table(c, 107, 0) == NULL && c->slots == 0);
	tapas_ledger_cache_free(c);
	TAPAS_CHECK(tapas_memory_live() == live);

	/* ENOMEM while growing: not cached, nothing leaked */
	c = tapas_ledger_cache_create();
	t = tapas_ledger_cache_table(c, 3, 1);
	tapas_memory_fail_after(0);
	TAPAS_CHECK(tapas_ledger_cache_put(c, t, 5, 5, 10) == 0);
	tapas_memory_fail_after(-1);
	TAPAS_CHECK(tapas_ledger_cache_get(t, 5) == -1);
	tapas_ledger_cache_free(c);
	TAPAS_CHECK(tapas_memory_live() == live);
}

/* a random cell over dense keys of relid: subset, shuffled or sorted, repeats */
static void
make_cell(tapas_rng_t *rng, tapas_ledger_cell_in_t *in, int64_t *keys, uint64_t relid, int64_t base)
{
	uint64_t	lo = tapas_rng_u64(rng) % 1500,
				len = 1 + tapas_rng_u64(rng) % 1500,
				i,
				m = 0;
	int			shape = (int) (tapas_rng_u64(rng) % 4);

	for (i = lo; i < lo + len; i++)
		if (shape == 0 || shape == 1 || tapas_rng_u64(rng) % 3 != 0)
			keys[m++] = base + (int64_t) i;
	if (shape == 1 || shape == 3)	/* shuffled */
		for (i = m; i > 1; i--)
		{
			uint64_t	j = tapas_rng_u64(rng) % i;
			int64_t		x = keys[i - 1];

			keys[i - 1] = keys[j];
			keys[j] = x;
		}
	if (shape == 3 && m > 2)		/* a repeat */
	{
		keys[m] = keys[m / 2];
		m++;
	}
	in->table_id = relid;
	in->statistic = "count(*)";
	in->basis = NULL;
	in->answer = (double) m;
	in->keys = keys;
	in->nkeys = m;
}

/* every cover of b decodes to the store's indices of its cell's keys */
static void
check_covers_by_lookup(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b,
					   const tapas_ledger_cell_in_t *in)
{
	int			c;

	for (c = 0; c < b->ncells; c++)
	{
		roaring_bitmap_t *r = roaring_bitmap_portable_deserialize_safe((const char *) b->cells[c].cover,
																	   b->cells[c].cover_len);
		roaring_bitmap_t *want = roaring_bitmap_create();
		uint64_t	k;

		for (k = 0; k < in[c].nkeys; k++)
			roaring_bitmap_add(want, (uint32_t) tapas_ledger_store_lookup(s, in[c].table_id, in[c].keys[k]));
		TAPAS_CHECK(r != NULL && roaring_bitmap_equals(r, want));
		TAPAS_CHECK(b->cells[c].ncovered == roaring_bitmap_get_cardinality(want));
		roaring_bitmap_free(r);
		roaring_bitmap_free(want);
	}
}

static void
test_lcache_prepare_matches_uncached(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = wl_store_create(20000, 100000, 64 << 20, 8);
	tapas_ledger_cache_t *cache = tapas_ledger_cache_create();
	static int64_t keys[WL_MAXCELLS][4000];
	tapas_ledger_cell_in_t in[WL_MAXCELLS];
	const uint64_t relids[2] = {11, (UINT64_C(7) << 32) | 11};
	const int64_t bases[2] = {1, -700};
	uint64_t	gen = 0;
	int			used = 0;
	long		it,
				iters = tapas_test_iters(200);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		tapas_ledger_batch_t *plain = NULL,
				   *cached = NULL;
		int			ncells = 1 + (int) (tapas_rng_u64(&rng) % WL_MAXCELLS),
					c;
		tapas_ledger_store_full_t full;

		for (c = 0; c < ncells; c++)
		{
			int			t = (int) (tapas_rng_u64(&rng) % 2);

			make_cell(&rng, &in[c], keys[c], relids[t], bases[t]);
		}
		TAPAS_CHECK(tapas_ledger_store_prepare(s, in, ncells, "q", &plain) == TAPAS_OK);
		TAPAS_CHECK(tapas_ledger_store_prepare_cached(s, cache, in, ncells, "q", &cached) == TAPAS_OK);
		for (c = 0; c < ncells; c++)
		{
			tapas_ledger_batch_cell_t *x = &plain->cells[c],
					   *y = &cached->cells[c];

			TAPAS_CHECK(x->ncovered == y->ncovered && x->nnew == y->nnew &&
						x->cover_len == y->cover_len);
			TAPAS_CHECK(memcmp(x->cover, y->cover, x->cover_len) == 0);
			TAPAS_CHECK(x->nnew == 0 || memcmp(x->newkeys, y->newkeys, x->nnew * sizeof(int64_t)) == 0);
		}
		TAPAS_CHECK(tapas_ledger_store_apply(s, cached, &full) == TAPAS_OK);
		check_covers_by_lookup(s, cached, in);
		tapas_ledger_batch_free(plain);
		tapas_ledger_batch_free(cached);
		if (it % 25 == 24)
		{
			used += cache->slots > 0;
			/* reset one table: indices restart, the cache must forget */
			TAPAS_CHECK(tapas_ledger_store_reset_table(s, relids[it % 2], NULL) == TAPAS_OK);
			tapas_ledger_cache_sync(cache, ++gen);
		}
	}
	TAPAS_CHECK(used > 0);			/* the cached path was exercised */
	tapas_ledger_cache_free(cache);
	free(s);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_lcache_puts);
	TAPAS_TEST_RUN(test_lcache_prepare_matches_uncached);
	TAPAS_TEST_DONE();
}
