/*-------------------------------------------------------------------------
 *
 * ledger_cache.c
 *	  Backend-local key -> dense index cache of the ledger (see
 *	  ledger_cache.h for the contract).
 *
 * Each table's window is a direct array of uint32 slots over the keys
 * base .. base + len - 1, computed modulo 2^64 (so a window may wrap past
 * INT64_MAX without special cases: slot i holds key base + i, a bijection
 * for len < 2^64).  A key outside the window grows it toward the key, at
 * least doubling (amortised O(1) per cached key for ascending or
 * descending scans), as long as the new length stays within the table's
 * density bound 4 n + 4096 and the cache's total of
 * TAPAS_LEDGER_CACHE_MAX_SLOTS; otherwise the key is left uncached.  Memory is
 * O(4 n) slots per cached table at worst.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_cache.h"

#include <string.h>

#include "util/memory.h"

#define LEDGER_CACHE_MIN_WINDOW	1024

tapas_ledger_cache_t *
tapas_ledger_cache_create(void)
{
	return tapas_calloc(1, sizeof(tapas_ledger_cache_t));
}

static void
ledger_cache_drop_table(tapas_ledger_cache_t *c, tapas_ledger_cache_table_t *t)
{
	tapas_free(t->slot);
	c->slots -= t->len;
	memset(t, 0, sizeof(*t));
}

void
tapas_ledger_cache_clear(tapas_ledger_cache_t *c)
{
	int			i;

	if (c == NULL)
		return;
	for (i = 0; i < TAPAS_LEDGER_CACHE_MAX_TABLES; i++)
		ledger_cache_drop_table(c, &c->tables[i]);
	c->slots = 0;
	c->next_evict = 0;
}

void
tapas_ledger_cache_free(tapas_ledger_cache_t *c)
{
	tapas_ledger_cache_clear(c);
	tapas_free(c);
}

void
tapas_ledger_cache_sync(tapas_ledger_cache_t *c, uint64_t generation)
{
	if (c == NULL || c->generation == generation)
		return;
	tapas_ledger_cache_clear(c);
	c->generation = generation;
}

tapas_ledger_cache_table_t *
tapas_ledger_cache_table(tapas_ledger_cache_t *c, uint64_t table_id, int add)
{
	tapas_ledger_cache_table_t *t;
	int			i;

	if (c == NULL || table_id == 0)
		return NULL;
	for (i = 0; i < TAPAS_LEDGER_CACHE_MAX_TABLES; i++)
		if (c->tables[i].table_id == table_id)
			return &c->tables[i];
	if (!add)
		return NULL;
	for (i = 0; i < TAPAS_LEDGER_CACHE_MAX_TABLES; i++)
		if (c->tables[i].table_id == 0)
			break;
	if (i == TAPAS_LEDGER_CACHE_MAX_TABLES)
	{
		i = c->next_evict;
		c->next_evict = (c->next_evict + 1) % TAPAS_LEDGER_CACHE_MAX_TABLES;
		ledger_cache_drop_table(c, &c->tables[i]);
	}
	t = &c->tables[i];
	t->table_id = table_id;
	return t;
}

/*
 * Grows t's window to include key; 0 if that would break the density
 * bound or the total, or on ENOMEM (the window is then unchanged).
 */
static int
ledger_cache_grow(tapas_ledger_cache_t *c, tapas_ledger_cache_table_t *t, int64_t key, uint64_t table_n)
{
	uint64_t	limit = table_n > (UINT64_C(1) << 40) ? UINT64_MAX : 4 * table_n + 4096;
	uint64_t	up = (uint64_t) key - ((uint64_t) t->base + t->len);	/* keys above */
	uint64_t	down = (uint64_t) t->base - (uint64_t) key; /* keys below */
	int			upward = t->len == 0 || up <= down;
	uint64_t	need = t->len == 0 ? 1 : t->len + (upward ? up + 1 : down);
	uint64_t	len = need;
	uint32_t   *slot;

	if (need < t->len || need > limit || need > TAPAS_LEDGER_CACHE_MAX_SLOTS - (c->slots - t->len))
		return 0;
	/* slack toward the key: at least double, within both bounds */
	if (len < 2 * t->len)
		len = 2 * t->len;
	if (len < LEDGER_CACHE_MIN_WINDOW)
		len = LEDGER_CACHE_MIN_WINDOW;
	if (len > limit)
		len = limit;
	if (len > TAPAS_LEDGER_CACHE_MAX_SLOTS - (c->slots - t->len))
		len = TAPAS_LEDGER_CACHE_MAX_SLOTS - (c->slots - t->len);
	slot = tapas_calloc(len, sizeof(uint32_t));
	if (slot == NULL)
		return 0;
	if (t->len == 0)
		t->base = key;
	else if (upward)
		memcpy(slot, t->slot, t->len * sizeof(uint32_t));
	else
	{
		memcpy(slot + (len - t->len), t->slot, t->len * sizeof(uint32_t));
		t->base = (int64_t) ((uint64_t) t->base - (len - t->len));
	}
	tapas_free(t->slot);
	c->slots += len - t->len;
	t->slot = slot;
	t->len = len;
	return 1;
}

int
tapas_ledger_cache_put(tapas_ledger_cache_t *c, tapas_ledger_cache_table_t *t,
				 int64_t key, uint32_t idx, uint64_t table_n)
{
	uint64_t	off;

	if (c == NULL || t == NULL || idx == UINT32_MAX)
		return 0;
	off = (uint64_t) key - (uint64_t) t->base;
	if (off >= t->len)
	{
		if (!ledger_cache_grow(c, t, key, table_n))
			return 0;
		off = (uint64_t) key - (uint64_t) t->base;
	}
	t->slot[off] = idx + 1;
	return 1;
}
