/*-------------------------------------------------------------------------
 *
 * ledger_batch.c
 *	  Prepare the cells of one statement for the ledger: dense indices and
 *	  compressed covers, without touching the store.
 *
 * For each cell, each key is looked up in the store; a key the store has
 * never seen gets the index apply will give it: the table's n plus the
 * number of new keys of that table met so far in this batch, in cell
 * order and then key order.  A small open-addressing table of the batch's
 * new keys makes a key new in cell 0 and covered again by cell 3 (or
 * twice by one cell) map to one index.  The indices of a cell go into a
 * CRoaring bitmap, which is run-optimised and serialised in the portable
 * format; apply copies those bytes into the arena unchanged.
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
#include "util/memory.h"
#include "util/sort_u32.h"

/* keys first seen in this batch: (table_id, key) -> provisional index */
typedef struct pending_keys
{
	uint64_t	capacity;		/* keys of the whole batch: an upper bound */
	uint64_t	mask;
	uint64_t   *table_id;		/* 0 = empty slot (table_id 0 is invalid) */
	int64_t    *key;
	uint32_t   *idx;
} pending_keys_t;

/* per table of the batch: next index to give */
typedef struct table_next
{
	uint64_t	table_id;
	uint64_t	next;
} table_next_t;

static uint64_t
pending_hash(uint64_t table_id, int64_t key)
{
	uint64_t	z = (uint64_t) key + (uint64_t) table_id * UINT64_C(0x9E3779B97F4A7C15);

	z = (z ^ (z >> 33)) * UINT64_C(0xFF51AFD7ED558CCD);
	z = (z ^ (z >> 33)) * UINT64_C(0xC4CEB9FE1A85EC53);
	return z ^ (z >> 33);
}

/*
 * Allocates the table for up to nkeys new keys.  Called at the first key
 * the store does not know, so a statement over known keys (the common
 * case once a table has been queried) allocates nothing here.
 */
static int
pending_init(pending_keys_t *p, uint64_t nkeys)
{
	uint64_t	slots = 16;

	while (slots < 2 * nkeys)
		slots <<= 1;
	p->mask = slots - 1;
	p->table_id = tapas_calloc(slots, sizeof(uint64_t));
	p->key = tapas_malloc(slots * sizeof(int64_t));
	p->idx = tapas_malloc(slots * sizeof(uint32_t));
	return p->table_id && p->key && p->idx;
}

static void
pending_clear(pending_keys_t *p)
{
	tapas_free(p->table_id);
	tapas_free(p->key);
	tapas_free(p->idx);
}

/* slot of (table_id, key) in p, or of the empty slot where it goes */
static uint64_t
pending_probe(const pending_keys_t *p, uint64_t table_id, int64_t key)
{
	uint64_t	h = pending_hash(table_id, key) & p->mask;

	while (p->table_id[h] != 0 && (p->table_id[h] != table_id || p->key[h] != key))
		h = (h + 1) & p->mask;
	return h;
}

/* the table_next entry of table_id, added with the store's n if missing */
static table_next_t *
table_next_get(const tapas_ledger_store_t *s, table_next_t *tn, int *ntn, uint64_t table_id)
{
	int			i;

	for (i = 0; i < *ntn; i++)
		if (tn[i].table_id == table_id)
			return &tn[i];
	tn[*ntn].table_id = table_id;
	tn[*ntn].next = tapas_ledger_store_table_n(s, table_id);
	return &tn[(*ntn)++];
}

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

#define LOOKUP_AHEAD 16			/* keys between a prefetch and its lookup */

/*
 * Indices and new keys of one cell; idx is scratch of in->nkeys entries.
 * First pass: the keys the backend's cache knows (all of them, usually,
 * for a table queried before).  Second pass, over the rest in key order:
 * the store (a few probes kept in flight, as its lookups are bound by
 * memory latency), then the batch's pending new keys.
 */
static tapas_status
batch_index_cell(const tapas_ledger_store_t *s, tapas_ledger_cache_t *cache,
				 const tapas_ledger_cell_in_t *in,
				 tapas_ledger_batch_cell_t *c, pending_keys_t *p,
				 table_next_t *tn, int *ntn, uint32_t *idx)
{
	table_next_t *t = table_next_get(s, tn, ntn, in->table_id);
	tapas_ledger_cache_table_t *ct = tapas_ledger_cache_table(cache, in->table_id, 1);
	uint64_t	table_n = tapas_ledger_store_table_n(s, in->table_id);
	uint64_t	k,
				nmiss = 0,
				first_miss = in->nkeys;

	c->newkeys = tapas_malloc((in->nkeys ? in->nkeys : 1) * sizeof(int64_t));
	if (c->newkeys == NULL)
		return TAPAS_ENOMEM;
	for (k = 0; k < in->nkeys; k++)
	{
		int64_t		j = tapas_ledger_cache_get(ct, in->keys[k]);

		/* indices are < 2^32 - 1, so UINT32_MAX marks a miss */
		idx[k] = j >= 0 ? (uint32_t) j : UINT32_MAX;
		if (j < 0 && nmiss++ == 0)
			first_miss = k;
	}
	for (k = first_miss; nmiss > 0 && k < in->nkeys; k++)
	{
		int64_t		j;

		if (idx[k] != UINT32_MAX)
			continue;
		if (k + 2 * LOOKUP_AHEAD < in->nkeys && idx[k + 2 * LOOKUP_AHEAD] == UINT32_MAX)
			tapas_ledger_store_prefetch_slot(s, in->table_id, in->keys[k + 2 * LOOKUP_AHEAD]);
		if (k + LOOKUP_AHEAD < in->nkeys && idx[k + LOOKUP_AHEAD] == UINT32_MAX)
			tapas_ledger_store_prefetch_record(s, in->table_id, in->keys[k + LOOKUP_AHEAD]);
		j = tapas_ledger_store_lookup(s, in->table_id, in->keys[k]);
		if (j >= 0 && ct != NULL)
			tapas_ledger_cache_put(cache, ct, in->keys[k], (uint32_t) j, table_n);

		if (j < 0)
		{
			uint64_t	h;

			if (p->table_id == NULL && !pending_init(p, p->capacity))
				return TAPAS_ENOMEM;
			h = pending_probe(p, in->table_id, in->keys[k]);

			if (p->table_id[h] == 0)
			{
				if (t->next >= UINT32_MAX)
					return TAPAS_ELIMIT;
				p->table_id[h] = in->table_id;
				p->key[h] = in->keys[k];
				p->idx[h] = (uint32_t) t->next++;
				c->newkeys[c->nnew++] = in->keys[k];
			}
			j = p->idx[h];
		}
		idx[k] = (uint32_t) j;
	}
	return batch_make_cover(c, idx, in->nkeys, t->next);
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
batch_set_basis(const tapas_ledger_store_t *s, tapas_ledger_batch_t *b, int i, const char *basis)
{
	int			exists,
				has_basis;
	size_t		len = basis ? strlen(basis) : 0;

	b->cells[i].basis = NULL;
	b->cells[i].basis_len = 0;
	if (len == 0 || len >= UINT32_MAX)
		return;
	tapas_ledger_store_stat_state(s, b, i, &exists, &has_basis);
	if (has_basis)
		return;
	b->cells[i].basis = basis;
	b->cells[i].basis_len = (uint32_t) len;
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
	pending_keys_t p = {0, 0, NULL, NULL, NULL};
	table_next_t *tn = NULL;
	uint32_t   *idx = NULL;
	uint64_t	total = 0,
				maxkeys = 1;
	int			i,
				ntn = 0;
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
		total += cells[i].nkeys;
		if (cells[i].nkeys > maxkeys)
			maxkeys = cells[i].nkeys;
	}
	b = tapas_calloc(1, sizeof(tapas_ledger_batch_t));
	if (b == NULL)
		return TAPAS_ENOMEM;
	b->owns_covers = 1;
	b->query = query;
	b->query_len = query ? (uint32_t) strnlen(query, UINT32_MAX - 1) : 0;
	b->cells = tapas_calloc(ncells, sizeof(tapas_ledger_batch_cell_t));
	tn = tapas_malloc(ncells * sizeof(table_next_t));
	idx = tapas_malloc(maxkeys * sizeof(uint32_t));
	p.capacity = total;
	if (b->cells == NULL || tn == NULL || idx == NULL)
		st = TAPAS_ENOMEM;
	else
		b->ncells = ncells;
	for (i = 0; st == TAPAS_OK && i < ncells; i++)
	{
		b->cells[i].table_id = cells[i].table_id;
		b->cells[i].statistic = cells[i].statistic;
		b->cells[i].stat_len = (uint32_t) strlen(cells[i].statistic);
		b->cells[i].answer = cells[i].answer;
		batch_set_basis(s, b, i, cells[i].basis);
		st = batch_index_cell(s, cache, &cells[i], &b->cells[i], &p, tn, &ntn, idx);
	}
	pending_clear(&p);
	tapas_free(tn);
	tapas_free(idx);
	if (st != TAPAS_OK)
	{
		tapas_ledger_batch_free(b);
		return st;
	}
	batch_share_covers(b);
	*batch = b;
	return TAPAS_OK;
}
