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
 *	  from its (table_id, key) by linear probing without crossing an empty slot;
 *	- cells[0..ncells) have strictly increasing log_ids < next_log_id, and
 *	  every offset they hold lies inside arena[8..arena_used).
 * Mutations happen only in apply, add_keys, bump_log_id (ledger_apply.c)
 * and reset_table (ledger_reset.c), always after every check that can
 * fail, so a failed call leaves the region as it was.  This file holds the
 * layout, the lookups and the primitive mutations.
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

/* splitmix64 finaliser of (table_id, key): a well mixed 64-bit hash */
static uint64_t
ledger_store_hash(uint64_t table_id, int64_t key)
{
	uint64_t	z = (uint64_t) key ^ ((uint64_t) table_id * UINT64_C(0x9E3779B97F4A7C15));

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
		ALIGN8(TAPAS_LEDGER_STORE_MAX_ROLES * sizeof(ledger_store_role_t)) +
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
	s->off_roles = off;
	off += ALIGN8(TAPAS_LEDGER_STORE_MAX_ROLES * sizeof(ledger_store_role_t));
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
tapas_ledger_store_table_slot(const tapas_ledger_store_t *s, uint64_t table_id)
{
	uint32_t	t;

	for (t = 0; t < s->ntables; t++)
		if (TABLES(s)[t].table_id == table_id)
			return (int) t;
	return -1;
}

uint64_t
tapas_ledger_store_table_id(const tapas_ledger_store_t *s, int slot)
{
	return TABLES(s)[slot].table_id;
}

uint64_t
tapas_ledger_store_table_n(const tapas_ledger_store_t *s, uint64_t table_id)
{
	int			t = tapas_ledger_store_table_slot(s, table_id);

	return t < 0 ? 0 : TABLES(s)[t].n;
}

/* hash slot holding (table_id, key), or the empty slot where it would go */
uint32_t
tapas_ledger_store_probe(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key)
{
	uint32_t	h = (uint32_t) ledger_store_hash(table_id, key) & s->hash_mask;

	for (;;)
	{
		uint32_t	pos = HASH(s)[h];
		const ledger_store_record_t *r;

		if (pos == 0)
			return h;
		r = &RECORDS(s)[pos - 1];
		if (r->key == key && TABLES(s)[r->table].table_id == table_id)
			return h;
		h = (h + 1) & s->hash_mask;
	}
}

void
tapas_ledger_store_prefetch_slot(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key)
{
	__builtin_prefetch(&HASH(s)[(uint32_t) ledger_store_hash(table_id, key) & s->hash_mask]);
}

void
tapas_ledger_store_prefetch_record(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key)
{
	uint32_t	pos = HASH(s)[(uint32_t) ledger_store_hash(table_id, key) & s->hash_mask];

	if (pos != 0)
		__builtin_prefetch(&RECORDS(s)[pos - 1]);
}

void
tapas_ledger_store_record(const tapas_ledger_store_t *s, uint64_t i, int64_t *key, uint32_t *slot,
					uint32_t *idx)
{
	const ledger_store_record_t *r = &RECORDS(s)[i];

	*key = r->key;
	*slot = r->table;
	*idx = r->idx;
}

int64_t
tapas_ledger_store_lookup(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key)
{
	uint32_t	pos = HASH(s)[tapas_ledger_store_probe(s, table_id, key)];

	return pos == 0 ? -1 : (int64_t) RECORDS(s)[pos - 1].idx;
}

void
tapas_ledger_store_table_keys(const tapas_ledger_store_t *s, uint64_t table_id, int64_t *keys)
{
	int			t = tapas_ledger_store_table_slot(s, table_id);
	uint64_t	i;

	if (t < 0)
		return;
	for (i = 0; i < s->nrecords; i++)
		if (RECORDS(s)[i].table == (uint32_t) t)
			keys[RECORDS(s)[i].idx] = RECORDS(s)[i].key;
}

uint64_t
tapas_ledger_store_find_stat(const tapas_ledger_store_t *s, uint64_t table_id,
					   const char *stat, uint32_t len)
{
	uint64_t	off;

	for (off = s->stats_head; off != 0;)
	{
		const ledger_store_stat_t *st = (const ledger_store_stat_t *) (ARENA(s) + off);

		if (st->table_id == table_id && st->len == len &&
			memcmp(st + 1, stat, len) == 0)
			return off;
		off = st->next;
	}
	return 0;
}

ledger_store_role_t *
tapas_ledger_store_role_entry(const tapas_ledger_store_t *s, uint32_t role)
{
	uint32_t	i;

	for (i = 0; i < s->nroles; i++)
		if (ROLES(s)[i].role == role)
			return &ROLES(s)[i];
	return NULL;
}

tapas_ledger_store_usage_t
tapas_ledger_store_role_usage(const tapas_ledger_store_t *s, uint32_t role)
{
	const ledger_store_role_t *r = tapas_ledger_store_role_entry(s, role);
	tapas_ledger_store_usage_t u = {0, 0};

	if (r != NULL)
	{
		u.cells = r->cells;
		u.bytes = r->bytes;
	}
	return u;
}

tapas_ledger_store_usage_t
tapas_ledger_store_cell_usage(const tapas_ledger_store_t *s, uint64_t i, tapas_ledger_store_usage_t *seen)
{
	const tapas_ledger_store_cell_t *c = &CELLS(s)[i];
	tapas_ledger_store_usage_t u = {1, 0};

	if (c->cover_off > seen->cells)
	{
		u.bytes += ALIGN8(c->cover_len);
		seen->cells = c->cover_off;
	}
	if (c->query_off > seen->bytes)
	{
		u.bytes += ALIGN8(strlen((const char *) ARENA(s) + c->query_off) + 1);
		seen->bytes = c->query_off;
	}
	return u;
}

tapas_ledger_store_usage_t
tapas_ledger_batch_usage(const tapas_ledger_batch_t *b)
{
	tapas_ledger_store_usage_t u = {(uint64_t) b->ncells, 0};
	int			i;

	if (b->query != NULL)
		u.bytes += ALIGN8((uint64_t) b->query_len + 1);
	for (i = 0; i < b->ncells; i++)
		if (b->cells[i].shared_from == 0)
			u.bytes += ALIGN8(b->cells[i].cover_len);
	return u;
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
tapas_ledger_store_stat_basis(const tapas_ledger_store_t *s, const tapas_ledger_store_cell_t *c,
						uint32_t *len)
{
	const ledger_store_stat_t *st = (const ledger_store_stat_t *) (ARENA(s) + c->stat_off);

	*len = st->basis_len;
	return st->basis_len == 0 ? NULL : (const char *) (st + 1) + st->len + 1;
}

const char *
tapas_ledger_store_find_basis(const tapas_ledger_store_t *s, uint64_t table_id,
						const char *stat, uint32_t len, uint32_t *blen)
{
	uint64_t	off = tapas_ledger_store_find_stat(s, table_id, stat, len);
	const ledger_store_stat_t *st;

	if (off == 0)
		return NULL;
	st = (const ledger_store_stat_t *) (ARENA(s) + off);
	if (st->basis_len == 0)
		return NULL;
	if (blen)
		*blen = st->basis_len;
	return (const char *) (st + 1) + st->len + 1;
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

void
tapas_ledger_store_put_role_usage(tapas_ledger_store_t *s, uint32_t role, tapas_ledger_store_usage_t usage)
{
	ledger_store_role_t *r = tapas_ledger_store_role_entry(s, role);

	if (r == NULL)
	{
		r = &ROLES(s)[s->nroles++];
		memset(r, 0, sizeof(*r));
		r->role = role;
	}
	r->cells += usage.cells;
	r->bytes += usage.bytes;
}

uint32_t
tapas_ledger_store_put_table(tapas_ledger_store_t *s, uint64_t table_id)
{
	int			t = tapas_ledger_store_table_slot(s, table_id);

	if (t >= 0)
		return (uint32_t) t;
	TABLES(s)[s->ntables].table_id = table_id;
	TABLES(s)[s->ntables].n = 0;
	return s->ntables++;
}

void
tapas_ledger_store_put_record(tapas_ledger_store_t *s, uint32_t slot, int64_t key)
{
	uint32_t	h = tapas_ledger_store_probe(s, TABLES(s)[slot].table_id, key);
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
tapas_ledger_store_put_stat(tapas_ledger_store_t *s, uint64_t table_id, const char *stat, uint32_t len,
					  const char *basis, uint32_t basis_len)
{
	uint64_t	off = tapas_ledger_store_find_stat(s, table_id, stat, len);
	ledger_store_stat_t hdr;
	uint8_t    *p;

	if (off != 0 && (basis_len == 0 ||
					 ((const ledger_store_stat_t *) (ARENA(s) + off))->basis_len > 0))
		return off;
	off = s->arena_used;
	hdr.next = s->stats_head;
	hdr.table_id = table_id;
	hdr.len = len;
	hdr.basis_len = basis_len;
	p = ARENA(s) + off;
	memcpy(p, &hdr, sizeof(hdr));
	memcpy(p + sizeof(hdr), stat, len);
	p[sizeof(hdr) + len] = 0;
	if (basis_len > 0)
	{
		memcpy(p + sizeof(hdr) + len + 1, basis, basis_len);
		p[sizeof(hdr) + len + 1 + basis_len] = 0;
	}
	s->arena_used = off + STAT_BYTES2(len, basis_len);
	s->stats_head = off;
	s->nstats++;
	return off;
}

void
tapas_ledger_store_stat_state(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b, int i,
						int *exists, int *has_basis)
{
	const tapas_ledger_batch_cell_t *c = &b->cells[i];
	uint64_t	off = tapas_ledger_store_find_stat(s, c->table_id, c->statistic, c->stat_len);
	int			j;

	*exists = off != 0;
	*has_basis = off != 0 && ((const ledger_store_stat_t *) (ARENA(s) + off))->basis_len > 0;
	for (j = 0; j < i; j++)
		if (b->cells[j].table_id == c->table_id && b->cells[j].stat_len == c->stat_len &&
			memcmp(b->cells[j].statistic, c->statistic, c->stat_len) == 0)
		{
			*exists = 1;
			if (b->cells[j].basis_len > 0)
				*has_basis = 1;
		}
}
