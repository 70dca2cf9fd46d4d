/*-------------------------------------------------------------------------
 *
 * ledger_store.c
 *	  The ledger's region: dense key index, interned statistics, cells and
 *	  their compressed covers (layout in ledger_store.h).
 *
 * Invariants (checked by tapas_ledger_store_validate):
 *	- records[0..nrecords) hold, per table slot t, the keys of t in dense
 *	  index order 0..tables[t].n-1, interleaved with other tables';
 *	- the hash holds exactly the positions 0..nrecords-1, each reachable
 *	  from its (relid, key) by linear probing without crossing an empty slot;
 *	- cells[0..ncells) have strictly increasing log_ids < next_log_id, and
 *	  every offset they hold lies inside arena[8..arena_used).
 * Mutations happen only in apply, add_keys, bump_log_id (ledger_apply.c)
 * and reset_table (here), always after every check that can fail, so a
 * failed call leaves the region as it was.  This file holds the layout,
 * the lookups, the primitive mutations and the reset.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_store.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_store_int.h"

#include <string.h>

#include <roaring/roaring.h>

#include "util/memory.h"

/* splitmix64 finaliser of (relid, key): a well mixed 64-bit hash */
static uint64_t
ledger_store_hash(uint32_t relid, int64_t key)
{
	uint64_t	z = (uint64_t) key ^ ((uint64_t) relid * UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static uint64_t
ledger_store_hash_slots(uint64_t max_records)
{
	uint64_t	slots = 16;

	while (slots < 2 * max_records)
		slots <<= 1;
	return slots;
}

size_t
tapas_ledger_store_size(const tapas_ledger_store_limits_t *lim)
{
	if (lim->max_records < 1 || lim->max_records > TAPAS_LEDGER_STORE_MAX_RECORDS ||
		lim->max_cells < 1 || lim->max_cells > (UINT64_C(1) << 40) ||
		lim->arena_bytes < 64 || lim->arena_bytes > (UINT64_C(1) << 46) ||
		lim->max_tables < 1 || lim->max_tables > TAPAS_LEDGER_STORE_MAX_TABLES)
		return 0;
	return ALIGN8(sizeof(tapas_ledger_store_t)) +
		ALIGN8(lim->max_tables * sizeof(ledger_store_table_t)) +
		lim->max_records * sizeof(ledger_store_record_t) +
		ALIGN8(ledger_store_hash_slots(lim->max_records) * sizeof(uint32_t)) +
		lim->max_cells * sizeof(tapas_ledger_store_cell_t) +
		ALIGN8(lim->arena_bytes);
}

tapas_ledger_store_t *
tapas_ledger_store_init(void *region, size_t size, const tapas_ledger_store_limits_t *lim)
{
	tapas_ledger_store_t *s = region;
	size_t		need = tapas_ledger_store_size(lim);
	uint64_t	off;

	if (need == 0 || size < need || ((uintptr_t) region & 7) != 0)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->magic = LEDGER_STORE_MAGIC;
	s->region_size = size;
	s->lim = *lim;
	s->hash_mask = (uint32_t) (ledger_store_hash_slots(lim->max_records) - 1);
	off = ALIGN8(sizeof(tapas_ledger_store_t));
	s->off_tables = off;
	off += ALIGN8(lim->max_tables * sizeof(ledger_store_table_t));
	s->off_records = off;
	off += lim->max_records * sizeof(ledger_store_record_t);
	s->off_hash = off;
	off += ALIGN8(((uint64_t) s->hash_mask + 1) * sizeof(uint32_t));
	s->off_cells = off;
	off += lim->max_cells * sizeof(tapas_ledger_store_cell_t);
	s->off_arena = off;
	memset(HASH(s), 0, ((size_t) s->hash_mask + 1) * sizeof(uint32_t));
	s->arena_used = 8;			/* offset 0 means "none" */
	s->next_log_id = 1;
	return s;
}

/* ---- Lookups ---- */

int
tapas_ledger_store_table_slot(const tapas_ledger_store_t *s, uint32_t relid)
{
	uint32_t	t;

	for (t = 0; t < s->ntables; t++)
		if (TABLES(s)[t].relid == relid)
			return (int) t;
	return -1;
}

uint32_t
tapas_ledger_store_table_relid(const tapas_ledger_store_t *s, int slot)
{
	return TABLES(s)[slot].relid;
}

uint64_t
tapas_ledger_store_table_n(const tapas_ledger_store_t *s, uint32_t relid)
{
	int			t = tapas_ledger_store_table_slot(s, relid);

	return t < 0 ? 0 : TABLES(s)[t].n;
}

/* hash slot holding (relid, key), or the empty slot where it would go */
uint32_t
tapas_ledger_store_probe(const tapas_ledger_store_t *s, uint32_t relid, int64_t key)
{
	uint32_t	h = (uint32_t) ledger_store_hash(relid, key) & s->hash_mask;

	for (;;)
	{
		uint32_t	pos = HASH(s)[h];
		const ledger_store_record_t *r;

		if (pos == 0)
			return h;
		r = &RECORDS(s)[pos - 1];
		if (r->key == key && TABLES(s)[r->table].relid == relid)
			return h;
		h = (h + 1) & s->hash_mask;
	}
}

void
tapas_ledger_store_prefetch_slot(const tapas_ledger_store_t *s, uint32_t relid, int64_t key)
{
	__builtin_prefetch(&HASH(s)[(uint32_t) ledger_store_hash(relid, key) & s->hash_mask]);
}

void
tapas_ledger_store_prefetch_record(const tapas_ledger_store_t *s, uint32_t relid, int64_t key)
{
	uint32_t	pos = HASH(s)[(uint32_t) ledger_store_hash(relid, key) & s->hash_mask];

	if (pos != 0)
		__builtin_prefetch(&RECORDS(s)[pos - 1]);
}

int64_t
tapas_ledger_store_lookup(const tapas_ledger_store_t *s, uint32_t relid, int64_t key)
{
	uint32_t	pos = HASH(s)[tapas_ledger_store_probe(s, relid, key)];

	return pos == 0 ? -1 : (int64_t) RECORDS(s)[pos - 1].idx;
}

void
tapas_ledger_store_table_keys(const tapas_ledger_store_t *s, uint32_t relid, int64_t *keys)
{
	int			t = tapas_ledger_store_table_slot(s, relid);
	uint64_t	i;

	if (t < 0)
		return;
	for (i = 0; i < s->nrecords; i++)
		if (RECORDS(s)[i].table == (uint32_t) t)
			keys[RECORDS(s)[i].idx] = RECORDS(s)[i].key;
}

uint64_t
tapas_ledger_store_find_stat(const tapas_ledger_store_t *s, uint32_t relid,
					   const char *stat, uint32_t len)
{
	uint64_t	off;

	for (off = s->stats_head; off != 0;)
	{
		const ledger_store_stat_t *st = (const ledger_store_stat_t *) (ARENA(s) + off);

		if (st->relid == relid && st->len == len &&
			memcmp(st + 1, stat, len) == 0)
			return off;
		off = st->next;
	}
	return 0;
}

const tapas_ledger_store_cell_t *
tapas_ledger_store_cell(const tapas_ledger_store_t *s, uint64_t i)
{
	return i < s->ncells ? &CELLS(s)[i] : NULL;
}

const char *
tapas_ledger_store_stat_text(const tapas_ledger_store_t *s, const tapas_ledger_store_cell_t *c,
					   uint32_t *len)
{
	const ledger_store_stat_t *st = (const ledger_store_stat_t *) (ARENA(s) + c->stat_off);

	if (len)
		*len = st->len;
	return (const char *) (st + 1);
}

const char *
tapas_ledger_store_query_text(const tapas_ledger_store_t *s, const tapas_ledger_store_cell_t *c)
{
	return c->query_off == 0 ? NULL : (const char *) (ARENA(s) + c->query_off);
}

const uint8_t *
tapas_ledger_store_cover(const tapas_ledger_store_t *s, const tapas_ledger_store_cell_t *c)
{
	return ARENA(s) + c->cover_off;
}

/* ---- Primitive mutations (callers have checked capacity) ---- */

uint32_t
tapas_ledger_store_put_table(tapas_ledger_store_t *s, uint32_t relid)
{
	int			t = tapas_ledger_store_table_slot(s, relid);

	if (t >= 0)
		return (uint32_t) t;
	TABLES(s)[s->ntables].relid = relid;
	TABLES(s)[s->ntables].n = 0;
	return s->ntables++;
}

void
tapas_ledger_store_put_record(tapas_ledger_store_t *s, uint32_t slot, int64_t key)
{
	uint32_t	h = tapas_ledger_store_probe(s, TABLES(s)[slot].relid, key);
	ledger_store_record_t *r = &RECORDS(s)[s->nrecords];

	r->key = key;
	r->table = slot;
	r->idx = TABLES(s)[slot].n++;
	HASH(s)[h] = (uint32_t) (++s->nrecords);
}

/* copies len bytes (plus a NUL if nul) into the arena; returns the offset */
uint64_t
tapas_ledger_store_put_bytes(tapas_ledger_store_t *s, const void *data, uint64_t len, int nul)
{
	uint64_t	off = s->arena_used;

	memcpy(ARENA(s) + off, data, len);
	if (nul)
		ARENA(s)[off + len] = 0;
	s->arena_used = ALIGN8(off + len + (nul ? 1 : 0));
	return off;
}

uint64_t
tapas_ledger_store_put_stat(tapas_ledger_store_t *s, uint32_t relid, const char *stat, uint32_t len)
{
	uint64_t	off = tapas_ledger_store_find_stat(s, relid, stat, len);
	ledger_store_stat_t hdr;
	uint8_t    *p;

	if (off != 0)
		return off;
	off = s->arena_used;
	hdr.next = s->stats_head;
	hdr.relid = relid;
	hdr.len = len;
	p = ARENA(s) + off;
	memcpy(p, &hdr, sizeof(hdr));
	memcpy(p + sizeof(hdr), stat, len);
	p[sizeof(hdr) + len] = 0;
	s->arena_used = ALIGN8(off + sizeof(hdr) + len + 1);
	s->stats_head = off;
	s->nstats++;
	return off;
}

/* ---- Reset of one table ---- */

tapas_status
tapas_ledger_store_reset_table(tapas_ledger_store_t *s, uint32_t relid, uint64_t *ncells_removed)
{
	tapas_ledger_store_t *src = tapas_malloc(s->region_size);
	tapas_ledger_store_limits_t lim = s->lim;
	uint64_t	i,
				removed = 0,
				last_q_src = 0,
				last_q_dst = 0;

	if (src == NULL)
		return TAPAS_ENOMEM;
	memcpy(src, s, s->region_size);
	tapas_ledger_store_init(s, src->region_size, &lim);
	s->next_log_id = src->next_log_id;

	/* every other table, also those whose cells cover no record */
	for (i = 0; i < src->ntables; i++)
		if (TABLES(src)[i].relid != relid)
			tapas_ledger_store_put_table(s, TABLES(src)[i].relid);
	/* records in their original order, so every other table keeps its indices */
	for (i = 0; i < src->nrecords; i++)
	{
		const ledger_store_record_t *r = &RECORDS(src)[i];
		uint32_t	rel = TABLES(src)[r->table].relid;

		if (rel != relid)
			tapas_ledger_store_put_record(s, tapas_ledger_store_put_table(s, rel), r->key);
	}
	for (i = 0; i < src->ncells; i++)
	{
		const tapas_ledger_store_cell_t *c = &CELLS(src)[i];
		tapas_ledger_store_cell_t *d = &CELLS(s)[s->ncells];
		uint32_t	len;
		const char *stat;

		if (c->relid == relid)
		{
			removed++;
			continue;
		}
		*d = *c;
		stat = tapas_ledger_store_stat_text(src, c, &len);
		d->stat_off = tapas_ledger_store_put_stat(s, c->relid, stat, len);
		if (c->query_off != 0 && c->query_off != last_q_src)
		{
			const char *q = tapas_ledger_store_query_text(src, c);

			last_q_src = c->query_off;
			last_q_dst = tapas_ledger_store_put_bytes(s, q, strlen(q), 1);
		}
		d->query_off = c->query_off == 0 ? 0 : last_q_dst;
		d->cover_off = tapas_ledger_store_put_bytes(s, tapas_ledger_store_cover(src, c), c->cover_len, 0);
		d->table = (uint32_t) tapas_ledger_store_table_slot(s, c->relid);
		s->ncells++;
	}
	tapas_free(src);
	if (ncells_removed)
		*ncells_removed = removed;
	return TAPAS_OK;
}
