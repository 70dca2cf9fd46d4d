/*-------------------------------------------------------------------------
 *
 * ledger_lookup.c
 *	  Dense indices of many keys at once: the backend's key cache first,
 *	  then the store's hash table with lookups kept in flight.
 *
 * The auditor maps every covered key of every new cell to its dense
 * record index (audit/determined.c and others, through
 * tapas_ledger_key_indices).  One tapas_ledger_store_lookup per key is a hash
 * probe plus a record read, two cache misses on a table of 10^6 records:
 * at 10^6 covered keys that was 18 % of an audited GROUP BY (perf, issue
 * 12).  Here the key cache (ledger_cache.h: one load per key) answers the
 * keys seen before, and the others go to the store in order with the slot
 * of the key LOOKUP_AHEAD * 2 ahead and the record of the key
 * LOOKUP_AHEAD ahead prefetched, as tapas_ledger_store_prepare_cached does for
 * the append.  What the store answers is put in the cache.  Same answers
 * as tapas_ledger_store_lookup, key by key (test/unit/lstore/t-ledger_lookup.c).
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_lookup.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_cache.h"
#include "lstore/ledger_store.h"

#define LOOKUP_AHEAD 16			/* keys between a prefetch and its lookup */

void
tapas_ledger_store_lookup_cached(const tapas_ledger_store_t *s, tapas_ledger_cache_t *cache, uint64_t table_id,
						   const int64_t *keys, uint64_t n, int64_t *idx)
{
	tapas_ledger_cache_table_t *ct = cache ? tapas_ledger_cache_table(cache, table_id, 1) : NULL;
	uint64_t	table_n = tapas_ledger_store_table_n(s, table_id);
	uint64_t	k,
				nmiss = 0,
				first_miss = n;

	for (k = 0; k < n; k++)
	{
		idx[k] = tapas_ledger_cache_get(ct, keys[k]);
		if (idx[k] < 0 && nmiss++ == 0)
			first_miss = k;
	}
	if (nmiss == 0 || table_n == 0)
		return;					/* all cached, or nothing to find */
	for (k = first_miss; k < n; k++)
	{
		if (idx[k] >= 0)
			continue;
		if (k + 2 * LOOKUP_AHEAD < n && idx[k + 2 * LOOKUP_AHEAD] < 0)
			tapas_ledger_store_prefetch_slot(s, table_id, keys[k + 2 * LOOKUP_AHEAD]);
		if (k + LOOKUP_AHEAD < n && idx[k + LOOKUP_AHEAD] < 0)
			tapas_ledger_store_prefetch_record(s, table_id, keys[k + LOOKUP_AHEAD]);
		idx[k] = tapas_ledger_store_lookup(s, table_id, keys[k]);
		if (idx[k] >= 0 && ct != NULL)
			tapas_ledger_cache_put(cache, ct, keys[k], (uint32_t) idx[k], table_n);
	}
}
