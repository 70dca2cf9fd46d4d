/*-------------------------------------------------------------------------
 *
 * ledger_batch.c
 *	  Prepare the cells of one statement for the ledger: dense indices and
 *	  compressed covers, without touching the store.
 *
 * For each cell, each key is looked up in the store; a key the store has
 * never seen gets the index apply will give it: the table's n plus the
 * number of new keys of that table met so far in this batch, in cell
 * order and then key order.  So the indices of every cell are found first
 * (new keys marked), then the new keys of each table are numbered by
 * first appearance in one pass (util/first_seen.c: a direct table over
 * the keys' range, or a sort), which makes a key new in cell 0 and covered
 * again by cell 3 (or twice by one cell) map to one index; a hash insert
 * per new key cost about 10 % of a first statement over 10^5 keys.  Then
 * the indices of a cell go into a CRoaring bitmap, which is run-optimised
 * and serialised in the portable format; apply copies those bytes into
 * the arena unchanged.
 *
 * Keys are first looked up in the backend's cache (ledger_cache.h), if
 * the caller passes one, and only the misses probe the store's shared
 * hash table; the store's answers then fill the cache.  Indices already
 * ascending (a scan in index order) skip the sort, and consecutive ones
 * become a single run.
 *
 * Cost: O(total keys) cache lookups, hash probes for the misses, plus
 * CRoaring's construction; nothing is allocated in the store.  The caller holds the ledger lock exclusively
 * from here to apply, so the predicted indices stay valid.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_batch.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_store_int.h"

#include <string.h>

#include <roaring/roaring.h>

#include "lstore/ledger_cache.h"
#include "util/first_seen.h"
#include "util/memory.h"
#include "util/sort_u32.h"

/* an index not known yet: a key new to the store (indices are < 2^32 - 1) */
#define NEW_INDEX	UINT32_MAX

/*
 * Sorts the m indices (all < n) in place and drops repeats; returns the
 * new count.  Input already strictly ascending is detected in O(m) and
 * left alone.  CRoaring inserts unsorted values into an array container by
 * memmove, O(4096^2) per 2^16 chunk, so sorting first is several times
 * faster for large cells.  A bitset pass is O(n/64 + m) and wins when n
 * is not much larger than m; otherwise a radix sort (sort_u32.c), O(m).
 * Returns -1 on ENOMEM.
 */
static int64_t
batch_sort_indices(uint32_t *idx, uint64_t m, uint64_t n)
{
	uint64_t	words = (n + 63) / 64,
				k,
				w,
				out = 0;
	uint64_t   *bits;

	if (m < 2)
		return (int64_t) m;
	/* already strictly ascending (a scan in index order): nothing to do */
	for (k = 1; k < m && idx[k - 1] < idx[k]; k++)
		;
	if (k == m)
		return (int64_t) m;
	if (words > 4 * m)
	{
		uint32_t   *scratch = tapas_malloc(m * sizeof(uint32_t));

		if (scratch == NULL)
			return -1;
		tapas_sort_u32(idx, scratch, m);
		tapas_free(scratch);
		for (k = 1, out = 1; k < m; k++)
			if (idx[k] != idx[out - 1])
				idx[out++] = idx[k];
		return (int64_t) out;
	}
	bits = tapas_calloc(words, sizeof(uint64_t));
	if (bits == NULL)
		return -1;
	for (k = 0; k < m; k++)
		bits[idx[k] >> 6] |= UINT64_C(1) << (idx[k] & 63);
	for (w = 0; w < words; w++)
	{
		uint64_t	x = bits[w];

		while (x != 0)
		{
			idx[out++] = (uint32_t) (w * 64 + (uint64_t) __builtin_ctzll(x));
			x &= x - 1;
		}
	}
	tapas_free(bits);
	return (int64_t) out;
}

/* serialises the cover of m indices (all < n; sorted here) into c->cover */
static tapas_status
batch_make_cover(tapas_ledger_batch_cell_t *c, uint32_t *idx, uint64_t m, uint64_t n)
{
	roaring_bitmap_t *r;
	size_t		len;
	uint8_t    *buf;
	int64_t		distinct = batch_sort_indices(idx, m, n);

	if (distinct < 0 || (r = roaring_bitmap_create()) == NULL)
		return TAPAS_ENOMEM;
	/* sorted and distinct: consecutive indices are one run */
	if (distinct > 0 && (uint64_t) (idx[distinct - 1] - idx[0]) == (uint64_t) distinct - 1)
		roaring_bitmap_add_range(r, idx[0], (uint64_t) idx[distinct - 1] + 1);
	else
		roaring_bitmap_add_many(r, (size_t) distinct, idx);
	roaring_bitmap_run_optimize(r);
	c->ncovered = roaring_bitmap_get_cardinality(r);
	len = roaring_bitmap_portable_size_in_bytes(r);
	buf = tapas_malloc(len);
	if (buf == NULL)
	{
		roaring_bitmap_free(r);
		return TAPAS_ENOMEM;
	}
	roaring_bitmap_portable_serialize(r, (char *) buf);
	roaring_bitmap_free(r);
	c->cover = buf;
	c->cover_len = len;
	return TAPAS_OK;
}

/*
 * Whether cell i covers the very keys array of cell i - 1, of the same
 * table: the gate hands the statistics of one group over the same rows
 * one array (capture/gate.c), so their lookups, numbering and cover are
 * done once.
 */
static int
batch_same_keys(const tapas_ledger_cell_in_t *cells, int i)
{
	return i > 0 && cells[i].keys == cells[i - 1].keys && cells[i].nkeys == cells[i - 1].nkeys &&
		cells[i].table_id == cells[i - 1].table_id;
}

/* c gets a copy of the cover of from */
static tapas_status
batch_copy_cover(tapas_ledger_batch_cell_t *c, const tapas_ledger_batch_cell_t *from)
{
	uint8_t    *buf = tapas_malloc(from->cover_len ? from->cover_len : 1);

	if (buf == NULL)
		return TAPAS_ENOMEM;
	memcpy(buf, from->cover, from->cover_len);
	c->cover = buf;
	c->cover_len = from->cover_len;
	c->ncovered = from->ncovered;
	return TAPAS_OK;
}

#define LOOKUP_AHEAD 16			/* keys between a prefetch and its lookup */

/*
 * Indices of one cell into idx[0..in->nkeys), NEW_INDEX for a key the
 * store has not indexed.  First pass: the keys the backend's cache knows
 * (all of them, usually, for a table queried before).  Second pass, over
 * the rest in key order: the store (a few probes kept in flight, as its
 * lookups are bound by memory latency), which a table without records
 * skips.  Returns the number of new keys.
 */
static uint64_t
batch_lookup_cell(const tapas_ledger_store_t *s, tapas_ledger_cache_t *cache,
				  const tapas_ledger_cell_in_t *in, uint32_t *idx)
{
	tapas_ledger_cache_table_t *ct = tapas_ledger_cache_table(cache, in->table_id, 1);
	uint64_t	table_n = tapas_ledger_store_table_n(s, in->table_id);
	uint64_t	k,
				nmiss = 0,
				first_miss = in->nkeys;

	for (k = 0; k < in->nkeys; k++)
	{
		int64_t		j = table_n > 0 ? tapas_ledger_cache_get(ct, in->keys[k]) : -1;

		idx[k] = j >= 0 ? (uint32_t) j : NEW_INDEX;
		if (j < 0 && nmiss++ == 0)
			first_miss = k;
	}
	if (table_n == 0)
		return nmiss;			/* every key is new */
	for (k = first_miss; k < in->nkeys; k++)
	{
		int64_t		j;

		if (idx[k] != NEW_INDEX)
			continue;
		if (k + 2 * LOOKUP_AHEAD < in->nkeys && idx[k + 2 * LOOKUP_AHEAD] == NEW_INDEX)
			tapas_ledger_store_prefetch_slot(s, in->table_id, in->keys[k + 2 * LOOKUP_AHEAD]);
		if (k + LOOKUP_AHEAD < in->nkeys && idx[k + LOOKUP_AHEAD] == NEW_INDEX)
			tapas_ledger_store_prefetch_record(s, in->table_id, in->keys[k + LOOKUP_AHEAD]);
		j = tapas_ledger_store_lookup(s, in->table_id, in->keys[k]);
		if (j >= 0)
		{
			if (ct != NULL)
				tapas_ledger_cache_put(cache, ct, in->keys[k], (uint32_t) j, table_n);
			idx[k] = (uint32_t) j;
			nmiss--;
		}
	}
	return nmiss;
}

/*
 * Numbers the new keys of table_id's cells (NEW_INDEX in their idx[i],
 * nmiss in all) by first appearance: table_n + rank, and gives each cell
 * the keys first indexed by it (c->newkeys, in index order).
 */
static tapas_status
batch_number_table(const tapas_ledger_store_t *s, const tapas_ledger_cell_in_t *cells,
				   tapas_ledger_batch_cell_t *out, int ncells, uint32_t **idx,
				   uint64_t table_id, uint64_t nmiss)
{
	int64_t    *keys = tapas_malloc(nmiss * sizeof(int64_t));
	int64_t    *uniq = tapas_malloc(nmiss * sizeof(int64_t));
	uint32_t   *rank = tapas_malloc(nmiss * sizeof(uint32_t));
	uint64_t	table_n = tapas_ledger_store_table_n(s, table_id);
	uint64_t	m = 0,
				seen = 0,
				k;
	size_t		nuniq = 0;
	tapas_status st = TAPAS_ENOMEM;
	int			i;

	if (keys == NULL || uniq == NULL || rank == NULL)
		goto done;
	for (i = 0; i < ncells; i++)
		for (k = 0; cells[i].table_id == table_id && !batch_same_keys(cells, i) &&
			 k < cells[i].nkeys; k++)
			if (idx[i][k] == NEW_INDEX)
				keys[m++] = cells[i].keys[k];
	if ((st = tapas_first_seen(keys, nmiss, rank, uniq, &nuniq)) != TAPAS_OK)
		goto done;
	st = TAPAS_ELIMIT;
	if (table_n + nuniq >= UINT32_MAX)
		goto done;
	m = 0;
	for (i = 0; i < ncells; i++)
		for (k = 0; cells[i].table_id == table_id && !batch_same_keys(cells, i) &&
			 k < cells[i].nkeys; k++)
		{
			if (idx[i][k] != NEW_INDEX)
				continue;
			if (rank[m] == seen)	/* its first appearance */
				out[i].newkeys[out[i].nnew++] = uniq[seen++];
			idx[i][k] = (uint32_t) (table_n + rank[m++]);
		}
	st = TAPAS_OK;
done:
	tapas_free(keys);
	tapas_free(uniq);
	tapas_free(rank);
	return st;
}

/* FNV-1a of a cover's bytes and its table */
static uint64_t
cover_hash(uint64_t table_id, const uint8_t *p, uint64_t len)
{
	uint64_t	h = UINT64_C(0xCBF29CE484222325) ^ table_id;
	uint64_t	k;

	for (k = 0; k < len; k++)
		h = (h ^ p[k]) * UINT64_C(0x100000001B3);
	return h;
}

/*
 * Marks every cell whose cover repeats an earlier cell's of the same
 * table (shared_from): an open-addressing table of the first cell of each
 * distinct cover, O(total cover bytes).  Without memory for the table the
 * covers simply stay unshared.
 */
static void
batch_share_covers(tapas_ledger_batch_t *b)
{
	uint64_t	slots = 16,
				mask;
	int32_t    *first;
	int			i;

	if (b->ncells < 2)
		return;
	while (slots < 2 * (uint64_t) b->ncells)
		slots <<= 1;
	mask = slots - 1;
	if ((first = tapas_malloc(slots * sizeof(int32_t))) == NULL)
		return;
	memset(first, 0xFF, slots * sizeof(int32_t));	/* -1 = empty */
	for (i = 0; i < b->ncells; i++)
	{
		tapas_ledger_batch_cell_t *c = &b->cells[i];
		uint64_t	h = cover_hash(c->table_id, c->cover, c->cover_len) & mask;

		for (; first[h] >= 0; h = (h + 1) & mask)
		{
			const tapas_ledger_batch_cell_t *o = &b->cells[first[h]];

			if (o->table_id == c->table_id && o->cover_len == c->cover_len &&
				memcmp(o->cover, c->cover, c->cover_len) == 0)
				break;
		}
		if (first[h] >= 0)
			c->shared_from = (uint32_t) first[h] + 1;
		else
			first[h] = i;
	}
	tapas_free(first);
}

/*
 * The basis of cell i, kept only when the store (after cells 0..i-1) will
 * not hold one for its statistic: a basis is logged once per statistic.
 */
static void
batch_set_basis(ledger_stat_walk_t *w, tapas_ledger_batch_t *b, int i, const char *basis)
{
	int			exists,
				has_basis;
	size_t		len = basis ? strlen(basis) : 0;

	b->cells[i].basis = NULL;
	b->cells[i].basis_len = 0;
	ledger_stat_walk_state(w, i, &exists, &has_basis);
	if (len > 0 && len < UINT32_MAX && !has_basis)
	{
		b->cells[i].basis = basis;
		b->cells[i].basis_len = (uint32_t) len;
	}
	ledger_stat_walk_done(w, i);
}

tapas_status
tapas_ledger_store_prepare(const tapas_ledger_store_t *s, const tapas_ledger_cell_in_t *cells,
					 int ncells, const char *query, tapas_ledger_batch_t **batch)
{
	return tapas_ledger_store_prepare_cached(s, NULL, cells, ncells, query, batch);
}

tapas_status
tapas_ledger_store_prepare_cached(const tapas_ledger_store_t *s, tapas_ledger_cache_t *cache,
							const tapas_ledger_cell_in_t *cells, int ncells,
							const char *query, tapas_ledger_batch_t **batch)
{
	tapas_ledger_batch_t *b;
	uint32_t  **idx = NULL;		/* per cell: its indices */
	uint64_t   *nmiss = NULL;	/* per cell: its new keys, then a bound on its indices */
	ledger_stat_walk_t walk;
	int			i,
				j;
	tapas_status st = TAPAS_OK;

	*batch = NULL;
	if (ncells < 1)
		return TAPAS_EINVAL;
	for (i = 0; i < ncells; i++)
	{
		size_t		len = cells[i].statistic ? strlen(cells[i].statistic) : 0;

		if (cells[i].table_id == 0 || len == 0 || len > 65535 ||
			(cells[i].nkeys > 0 && cells[i].keys == NULL))
			return TAPAS_EINVAL;
	}
	b = tapas_calloc(1, sizeof(tapas_ledger_batch_t));
	if (b == NULL)
		return TAPAS_ENOMEM;
	b->owns_covers = 1;
	b->query = query;
	b->query_len = query ? (uint32_t) strnlen(query, UINT32_MAX - 1) : 0;
	b->cells = tapas_calloc(ncells, sizeof(tapas_ledger_batch_cell_t));
	idx = tapas_calloc(ncells, sizeof(uint32_t *));
	nmiss = tapas_calloc(ncells, sizeof(uint64_t));
	if (b->cells == NULL || idx == NULL || nmiss == NULL)
		st = TAPAS_ENOMEM;
	else
		b->ncells = ncells;
	ledger_stat_walk_init(&walk, s, b);
	/* 1. the indices the store knows */
	for (i = 0; st == TAPAS_OK && i < ncells; i++)
	{
		tapas_ledger_batch_cell_t *c = &b->cells[i];

		c->table_id = cells[i].table_id;
		c->statistic = cells[i].statistic;
		c->stat_len = (uint32_t) strlen(cells[i].statistic);
		c->answer = cells[i].answer;
		batch_set_basis(&walk, b, i, cells[i].basis);
		idx[i] = tapas_malloc((cells[i].nkeys ? cells[i].nkeys : 1) * sizeof(uint32_t));
		c->newkeys = tapas_malloc((cells[i].nkeys ? cells[i].nkeys : 1) * sizeof(int64_t));
		if (idx[i] == NULL || c->newkeys == NULL)
			st = TAPAS_ENOMEM;
		else if (batch_same_keys(cells, i))
			nmiss[i] = 0;		/* numbered with cell i - 1; its cover is copied */
		else
			nmiss[i] = batch_lookup_cell(s, cache, &cells[i], idx[i]);
	}
	ledger_stat_walk_free(&walk);
	/* 2. the new keys, table by table (at the first cell of each) */
	for (i = 0; st == TAPAS_OK && i < ncells; i++)
	{
		uint64_t	total = 0;

		for (j = 0; j < i && cells[j].table_id != cells[i].table_id; j++)
			;
		if (j < i)
			continue;			/* numbered with an earlier cell's table */
		for (j = i; j < ncells; j++)
			if (cells[j].table_id == cells[i].table_id)
				total += nmiss[j];
		if (total > 0)
			st = batch_number_table(s, cells, b->cells, ncells, idx,
									cells[i].table_id, total);
		for (j = i; j < ncells; j++)
			if (cells[j].table_id == cells[i].table_id)
				nmiss[j] = tapas_ledger_store_table_n(s, cells[i].table_id) + total;
	}
	/* 3. the covers (equal indices make equal bytes) */
	for (i = 0; st == TAPAS_OK && i < ncells; i++)
		st = batch_same_keys(cells, i) ? batch_copy_cover(&b->cells[i], &b->cells[i - 1])
			: batch_make_cover(&b->cells[i], idx[i], cells[i].nkeys, nmiss[i]);
	for (i = 0; idx != NULL && i < ncells; i++)
		tapas_free(idx[i]);
	tapas_free(idx);
	tapas_free(nmiss);
	if (st != TAPAS_OK)
	{
		tapas_ledger_batch_free(b);
		return st;
	}
	batch_share_covers(b);
	*batch = b;
	return TAPAS_OK;
}
