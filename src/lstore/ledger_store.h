/*-------------------------------------------------------------------------
 *
 * ledger_store.h
 *	  Pure-C layout of the tapas ledger in one fixed memory region.
 *
 * The server places a tapas_ledger_store_t in shared memory (src/ledger/shmem.c)
 * and guards it with one LWLock; this module knows nothing of locks or of
 * PostgreSQL.  Everything in the region is addressed by offsets, never by
 * pointers, so every backend can map it at a different address.
 *
 * Region layout (all parts 8-byte aligned, sizes fixed at init):
 *
 *	header		tapas_ledger_store_t: limits, counters, offsets of the parts
 *	tables		[max_tables] {table_id, n}: one slot per table seen
 *	roles		[TAPAS_LEDGER_STORE_MAX_ROLES] {role, cells, bytes}: what each role's
 *				cells hold, for per-role quotas (tapas_ledger_store_role_usage)
 *	records		[max_records] {key, table slot, dense index}, append order
 *	hash		[2^k >= 2 max_records] uint32: record position + 1, 0 = empty;
 *				open addressing with linear probing on (table_id, key)
 *	cells		[max_cells] tapas_ledger_store_cell_t, in log_id order
 *	arena		arena_bytes of variable-length data: interned statistics
 *				with their basis trees (a linked list, newest first),
 *				query texts (one per
 *				statement) and covers (CRoaring portable serialisation,
 *				run-optimised), each 8-byte aligned.  Offset 0 is never
 *				used, so 0 means "none".
 *
 * Table ids: the store names a table by an opaque nonzero 64-bit id and
 * knows nothing of what it means.  The server makes it from the database
 * and the table's OID ((dbid << 32) | relid, src/ledger/ledger_int.h), so
 * two databases created from one template, whose tables share OIDs, have
 * separate trails, indices and statistics.
 *
 * Dense indices: per table, a key gets the next index (0, 1, ...) the
 * first time a logged cell covers it; records of one table therefore
 * appear in the records array in index order.  Nothing is ever removed
 * except by tapas_ledger_store_reset_table, which rebuilds the region without
 * one table and keeps every other index unchanged.
 *
 * Why CRoaring: a cover is a subset of 0..n-1.  Roaring picks per 2^16
 * chunk an array (2 bytes per member), a bitset (8 kB) or runs, so a
 * GROUP BY cell of 500 rows costs about 1 kB, a half-table cell about
 * n/8 bytes, and a contiguous range (e.g. the records first seen by one
 * query) a few bytes (see test/bench/b-ledger.c).  The portable format is
 * also the file format, so persisting a cell copies bytes.
 *
 * Shared covers: the cells of one statement often cover identical sets
 * (count(*) and sum(x) of one group, every statistic of a GROUP BY), so
 * prepare finds them (a hash of the cover bytes) and apply stores such a
 * cover once: the cells' cover_off are equal.  Covers are appended in
 * increasing arena offsets, so a cover is first used by the cell whose
 * cover_off exceeds every earlier cell's; usage counts it there once.
 *
 * Appending is two-phase so that a statement is logged all or nothing:
 * tapas_ledger_store_prepare builds a batch (covers, new keys) without touching
 * the store, tapas_ledger_store_check says whether it fits, and
 * tapas_ledger_store_apply commits it and cannot fail after a successful check.
 * The caller holds the lock exclusively from prepare to apply.
 *
 * CRoaring allocates with malloc, outside tapas_malloc; every roaring
 * object made here is freed before the function returns.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_store.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_STORE_H
#define TAPAS_LEDGER_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define TAPAS_LEDGER_STORE_MAX_TABLES		1024	/* protected tables with logged cells */
#define TAPAS_LEDGER_STORE_MAX_RECORDS	(UINT32_C(1) << 31)
#define TAPAS_LEDGER_STORE_MAX_ROLES		4096	/* roles with logged cells */

typedef struct tapas_ledger_store_limits
{
	uint64_t	max_records;	/* (table id, key) pairs, all tables together */
	uint64_t	max_cells;		/* logged cells, all tables together */
	uint64_t	arena_bytes;	/* statistics, query texts and covers */
	uint32_t	max_tables;		/* 1..TAPAS_LEDGER_STORE_MAX_TABLES */
} tapas_ledger_store_limits_t;

/* One logged cell, as stored (88 bytes). */
typedef struct tapas_ledger_store_cell
{
	int64_t		log_id;
	int64_t		logged_at;		/* caller's clock (PostgreSQL TimestampTz) */
	int64_t		session_start;	/* backend start time, with pid = session */
	double		answer;
	uint64_t	stat_off;		/* arena offset of the interned statistic */
	uint64_t	query_off;		/* arena offset of the query text, 0 = none */
	uint64_t	cover_off;		/* arena offset of the serialised cover */
	uint32_t	cover_len;		/* bytes */
	uint32_t	ncovered;		/* cardinality of the cover */
	uint64_t	table_id;		/* see "Table ids" above */
	uint32_t	role;
	int32_t		pid;
	uint32_t	table;			/* table slot */
} tapas_ledger_store_cell_t;

typedef struct tapas_ledger_store
{
	uint64_t	magic;
	uint64_t	region_size;
	tapas_ledger_store_limits_t lim;
	uint32_t	hash_mask;		/* hash slots - 1 */
	uint32_t	ntables;
	uint32_t	nroles;			/* used entries of the roles part */
	uint32_t	pad;
	uint64_t	nrecords;
	uint64_t	ncells;
	uint64_t	arena_used;		/* bytes, including the unused offset 0..7 */
	int64_t		next_log_id;	/* log_ids are never reused, even after reset */
	uint64_t	stats_head;		/* arena offset of the newest statistic, 0 = none */
	uint64_t	nstats;
	uint64_t	off_tables;		/* region offsets of the parts */
	uint64_t	off_roles;
	uint64_t	off_records;
	uint64_t	off_hash;
	uint64_t	off_cells;
	uint64_t	off_arena;
} tapas_ledger_store_t;

/* One cell of a batch: a statement's cell, prepared or decoded. */
typedef struct tapas_ledger_batch_cell
{
	uint64_t	table_id;
	const char *statistic;		/* borrowed, stat_len bytes, need not end in NUL */
	uint32_t	stat_len;
	double		answer;
	uint64_t	ncovered;
	int64_t    *newkeys;		/* owned: keys first indexed by this cell, in index order */
	uint64_t	nnew;
	const uint8_t *cover;		/* CRoaring portable bytes (owned if batch->owns_covers) */
	uint64_t	cover_len;
	uint32_t	shared_from;	/* 1 + index of an earlier cell of the batch, of the
								 * same table, with identical cover bytes: the
								 * store and the file keep those bytes once and
								 * this cell refers to them; 0 = its own */
	const char *basis;			/* borrowed, basis_len bytes: the statistic's basis
								 * tree (tapas's own serialisation), or NULL */
	uint32_t	basis_len;		/* 0 = none */
} tapas_ledger_batch_cell_t;

typedef struct tapas_ledger_batch
{
	int64_t		first_log_id;	/* 0 until applied (live) or as decoded (replay) */
	int64_t		logged_at;
	int64_t		session_start;
	uint32_t	role;
	int32_t		pid;
	const char *query;			/* borrowed; NULL = none */
	uint32_t	query_len;
	int			ncells;
	tapas_ledger_batch_cell_t *cells; /* owned */
	int			owns_covers;	/* 1: free each cells[i].cover */
} tapas_ledger_batch_t;

/* A cell to prepare: what the gate hands over, in plain C. */
typedef struct tapas_ledger_cell_in
{
	uint64_t	table_id;
	const char *statistic;		/* NUL-terminated */
	double		answer;
	const int64_t *keys;		/* any order; duplicates counted once */
	uint64_t	nkeys;
	const char *basis;			/* NUL-terminated basis tree of the statistic, or
								 * NULL; kept once per statistic (the store
								 * drops it when it already holds one) */
} tapas_ledger_cell_in_t;

/* Which limit a batch would exceed (tapas_ledger_store_check). */
typedef enum tapas_ledger_store_full
{
	TAPAS_LEDGER_STORE_FITS = 0,
	TAPAS_LEDGER_STORE_FULL_CELLS,
	TAPAS_LEDGER_STORE_FULL_RECORDS,
	TAPAS_LEDGER_STORE_FULL_MEMORY,
	TAPAS_LEDGER_STORE_FULL_TABLES,
	TAPAS_LEDGER_STORE_FULL_ROLES		/* TAPAS_LEDGER_STORE_MAX_ROLES roles have cells */
} tapas_ledger_store_full_t;

/* Bytes of region needed for these limits; 0 if the limits are invalid. */
extern size_t tapas_ledger_store_size(const tapas_ledger_store_limits_t *lim);

/*
 * Formats region (size bytes, 8-byte aligned, at least
 * tapas_ledger_store_size(lim)) as an empty ledger and returns it, or NULL if
 * the limits are invalid or size too small.
 */
extern tapas_ledger_store_t *tapas_ledger_store_init(void *region, size_t size,
										 const tapas_ledger_store_limits_t *lim);

/*
 * Checks every invariant (counters within limits, tables and hash agree
 * with records, indices dense, cells ordered, offsets inside the arena,
 * covers decode to ncovered members below their table's n).  Returns
 * TAPAS_OK, or TAPAS_EINCONSISTENT with *reason set (reason may be NULL).
 * O(size of the ledger); for tests.
 */
extern tapas_status tapas_ledger_store_validate(const tapas_ledger_store_t *s, const char **reason);

/*
 * Builds a batch for ncells cells: dense indices of known keys, new
 * indices (as apply will assign them) for keys never seen, covers
 * serialised.  The store is only read.  query may be NULL.  The batch
 * borrows the statistic and query strings: keep them alive until
 * tapas_ledger_batch_free.  Returns TAPAS_EINVAL for ncells < 1, table_id 0, an
 * empty statistic or one longer than 65535 bytes, TAPAS_ELIMIT for a
 * table with more than 2^32 - 1 records, TAPAS_ENOMEM.
 */
extern tapas_status tapas_ledger_store_prepare(const tapas_ledger_store_t *s,
										 const tapas_ledger_cell_in_t *cells, int ncells,
										 const char *query,
										 tapas_ledger_batch_t **batch);

/*
 * tapas_ledger_store_prepare with a backend-local cache of known keys
 * (ledger_cache.h; NULL = none): known keys are looked up in the cache
 * first, and the store's answers for the others are put into it.  The
 * result is identical to tapas_ledger_store_prepare's as long as the caller
 * keeps the cache's invariant (cleared after any reset of the store).
 */
struct tapas_ledger_cache;
extern tapas_status tapas_ledger_store_prepare_cached(const tapas_ledger_store_t *s,
												struct tapas_ledger_cache *cache,
												const tapas_ledger_cell_in_t *cells, int ncells,
												const char *query,
												tapas_ledger_batch_t **batch);

/*
 * Whether batch fits: TAPAS_OK (*full = TAPAS_LEDGER_STORE_FITS), TAPAS_ELIMIT
 * with *full naming the first limit exceeded, or TAPAS_EINVAL when the
 * batch contradicts the store (a "new" key already indexed, a cover
 * member beyond its table's n, a log_id not above the last logged one): a replayed
 * file that does not match.  full may be NULL.
 */
extern tapas_status tapas_ledger_store_check(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b,
									   tapas_ledger_store_full_t *full);

/*
 * Commits batch: calls tapas_ledger_store_check and, on TAPAS_OK, appends its
 * new keys and cells.  A batch with first_log_id 0 gets the next log_ids
 * (written back to b->first_log_id); otherwise its own.  Returns the
 * check's status; on failure the store is unchanged.
 */
extern tapas_status tapas_ledger_store_apply(tapas_ledger_store_t *s, tapas_ledger_batch_t *b,
									   tapas_ledger_store_full_t *full);

/* Frees a batch from prepare or tapas_ledger_file_decode; NULL is a no-op. */
extern void tapas_ledger_batch_free(tapas_ledger_batch_t *b);

/*
 * Appends keys (all new) to table_id's dense index, as a KEYS record of the
 * file does.  TAPAS_EINVAL if one is already indexed or repeated,
 * TAPAS_ELIMIT if they do not fit; the store is unchanged on failure.
 */
extern tapas_status tapas_ledger_store_add_keys(tapas_ledger_store_t *s, uint64_t table_id,
										  const int64_t *keys, uint64_t nkeys);

/* Raises next_log_id to at least next (a META record of the file). */
extern void tapas_ledger_store_bump_log_id(tapas_ledger_store_t *s, int64_t next);

/*
 * Removes every key and cell of table_id, keeping other tables' indices and
 * every log_id (never reused), in place (ledger_reset.c): O(what the store
 * holds), not O(its region).  *ncells_removed (may be NULL) gets the
 * number of cells removed.  TAPAS_ENOMEM (its scratch, about 24 bytes per
 * cell) leaves the store unchanged.
 */
extern tapas_status tapas_ledger_store_reset_table(tapas_ledger_store_t *s, uint64_t table_id,
											 uint64_t *ncells_removed);

/*
 * The same with caller-allocated scratch of tapas_ledger_store_reset_scratch_size
 * bytes (8-byte aligned, taken while the store is as it will be reset):
 * cannot fail, so a caller can allocate, do what may fail (rewrite the
 * file), then reset.
 */
extern size_t tapas_ledger_store_reset_scratch_size(const tapas_ledger_store_t *s);
extern void tapas_ledger_store_reset_table_with(tapas_ledger_store_t *s, uint64_t table_id,
										  void *scratch, uint64_t *ncells_removed);

/*
 * Read accessors.  Pointers returned point into the region and are valid
 * while the caller holds the lock (shared suffices).
 */
extern int	tapas_ledger_store_table_slot(const tapas_ledger_store_t *s, uint64_t table_id);	/* -1 if none */
extern uint64_t tapas_ledger_store_table_id(const tapas_ledger_store_t *s, int slot);	/* slot < ntables */
extern uint64_t tapas_ledger_store_table_n(const tapas_ledger_store_t *s, uint64_t table_id);
/* keys[j] = key of dense index j for j < n; keys sized by tapas_ledger_store_table_n */
extern void tapas_ledger_store_table_keys(const tapas_ledger_store_t *s, uint64_t table_id, int64_t *keys);
/* record i < s->nrecords (append order): its key, table slot and dense index */
extern void tapas_ledger_store_record(const tapas_ledger_store_t *s, uint64_t i, int64_t *key,
								uint32_t *slot, uint32_t *idx);
/* dense index of (table_id, key), or -1 */
extern int64_t tapas_ledger_store_lookup(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key);
/*
 * Prefetch hints for a lookup a few keys ahead: a probe costs two cache
 * misses (hash slot, then record), so batch loops ask for the slot of key
 * k + 2d and the record of key k + d while they look up key k.
 */
extern void tapas_ledger_store_prefetch_slot(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key);
extern void tapas_ledger_store_prefetch_record(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key);
/* arena offset of the interned statistic, 0 if never logged for table_id */
extern uint64_t tapas_ledger_store_find_stat(const tapas_ledger_store_t *s, uint64_t table_id,
									   const char *stat, uint32_t len);
/*
 * The basis tree of (table_id, stat) (NUL-terminated, *blen bytes), from
 * its newest interned entry; NULL if the statistic was never logged or
 * was logged without one.
 */
extern const char *tapas_ledger_store_find_basis(const tapas_ledger_store_t *s, uint64_t table_id,
											  const char *stat, uint32_t len, uint32_t *blen);
/*
 * What the cells of role hold: how many, and their arena bytes (covers and
 * query texts, as the put primitives align them; interned statistics are
 * shared and not counted).  Zeros for a role without cells.
 */
typedef struct tapas_ledger_store_usage
{
	uint64_t	cells;
	uint64_t	bytes;
} tapas_ledger_store_usage_t;
extern tapas_ledger_store_usage_t tapas_ledger_store_role_usage(const tapas_ledger_store_t *s, uint32_t role);
/* what batch b adds to its role's usage if applied */
extern tapas_ledger_store_usage_t tapas_ledger_batch_usage(const tapas_ledger_batch_t *b);
extern const tapas_ledger_store_cell_t *tapas_ledger_store_cell(const tapas_ledger_store_t *s, uint64_t i);
extern const char *tapas_ledger_store_stat_text(const tapas_ledger_store_t *s,
										  const tapas_ledger_store_cell_t *c, uint32_t *len);
/* the basis tree of the cell's interned statistic entry (*len bytes), NULL if none */
extern const char *tapas_ledger_store_stat_basis(const tapas_ledger_store_t *s,
										   const tapas_ledger_store_cell_t *c, uint32_t *len);
/* NUL-terminated, or NULL when the cell has no query text */
extern const char *tapas_ledger_store_query_text(const tapas_ledger_store_t *s,
										   const tapas_ledger_store_cell_t *c);
extern const uint8_t *tapas_ledger_store_cover(const tapas_ledger_store_t *s,
										 const tapas_ledger_store_cell_t *c);

#endif							/* TAPAS_LEDGER_STORE_H */
