/*-------------------------------------------------------------------------
 *
 * ledger_cache.h
 *	  A backend-local cache of the ledger's key -> dense index mapping.
 *
 * The store gives a key its dense index once and never changes it until
 * the table is reset (tapas_ledger_store_reset_table), so a backend may keep
 * the mappings it has read from the store and skip the shared hash table
 * (a cache miss per key) on the next statement over the same rows.  The
 * cache holds, per table, a direct array over a window of key values
 * (slot = index + 1, 0 = not cached): lookups are one bounds check and one
 * load.  Keys outside a window that would stay dense (span at most
 * 4 n + 4096 slots for a table of n records, and TAPAS_LEDGER_CACHE_MAX_SLOTS
 * in all) are simply not cached; the caller asks the store for them.
 *
 * Invariant (the caller's duty): only mappings read from the store under
 * its lock are put, and the cache is cleared (tapas_ledger_cache_sync with a new
 * generation) whenever any table may have been reset since.  Then every
 * cached mapping equals the store's, so a lookup answers exactly as the
 * store would for a known key, and "unknown" sends the caller to the store.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_cache.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_CACHE_H
#define TAPAS_LEDGER_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define TAPAS_LEDGER_CACHE_MAX_TABLES	8	/* tables cached at once */
#define TAPAS_LEDGER_CACHE_MAX_SLOTS	(UINT64_C(1) << 24) /* 64 MB of slots in all */

typedef struct tapas_ledger_cache_table
{
	uint64_t	table_id;			/* 0 = unused entry */
	int64_t		base;			/* key of slot[0] */
	uint64_t	len;			/* slots in the window */
	uint32_t   *slot;			/* index + 1, 0 = not cached */
} tapas_ledger_cache_table_t;

typedef struct tapas_ledger_cache
{
	uint64_t	generation;		/* the caller's reset generation */
	uint64_t	slots;			/* sum of len over the tables */
	int			next_evict;		/* round robin when all entries are used */
	tapas_ledger_cache_table_t tables[TAPAS_LEDGER_CACHE_MAX_TABLES];
} tapas_ledger_cache_t;

/* a new empty cache, NULL on ENOMEM */
extern tapas_ledger_cache_t *tapas_ledger_cache_create(void);
extern void tapas_ledger_cache_free(tapas_ledger_cache_t *c);
/* forgets every mapping */
extern void tapas_ledger_cache_clear(tapas_ledger_cache_t *c);
/* clears the cache if generation differs from the one it was filled at */
extern void tapas_ledger_cache_sync(tapas_ledger_cache_t *c, uint64_t generation);

/*
 * The entry of table_id; with add, a new one if missing (evicting another
 * table's entry when all are used).  NULL if missing and !add.
 */
extern tapas_ledger_cache_table_t *tapas_ledger_cache_table(tapas_ledger_cache_t *c, uint64_t table_id, int add);

/*
 * Records key -> idx for table t whose store holds table_n records.
 * Returns 1 if cached, 0 if not (window would not stay dense, limits,
 * ENOMEM: the cache is only an accelerator).
 */
extern int	tapas_ledger_cache_put(tapas_ledger_cache_t *c, tapas_ledger_cache_table_t *t,
							 int64_t key, uint32_t idx, uint64_t table_n);

/* cached index of key in t, -1 if not cached (t may be NULL) */
static inline int64_t
tapas_ledger_cache_get(const tapas_ledger_cache_table_t *t, int64_t key)
{
	uint64_t	off;

	if (t == NULL)
		return -1;
	off = (uint64_t) key - (uint64_t) t->base;
	if (off >= t->len)
		return -1;
	return (int64_t) t->slot[off] - 1;
}

/*
 * ledger_lookup.c: idx[i] = the dense index of keys[i] in table relid of
 * store s, -1 if unknown (as tapas_ledger_store_lookup), the cache answering
 * first; what the store answers is put in the cache (cache may be NULL).
 * The same rules as for tapas_ledger_cache_put hold: call it under the store's
 * lock, with the cache synced to the store's reset generation.
 */
struct tapas_ledger_store;
extern void tapas_ledger_store_lookup_cached(const struct tapas_ledger_store *s, tapas_ledger_cache_t *cache,
									   uint64_t table_id, const int64_t *keys, uint64_t n,
									   int64_t *idx);

#endif							/* TAPAS_LEDGER_CACHE_H */
