/*-------------------------------------------------------------------------
 *
 * ledger_store.c
 *	  The ledger's region: dense key index, interned statistics, cells and
 *	  their compressed covers (layout in ledger_store.h).
 *
 * Invariants (checked by tapas_lstore_validate):
 *	- records[0..nrecords) hold, per table slot t, the keys of t in dense
 *	  index order 0..tables[t].n-1, interleaved with other tables';
 *	- the hash holds exactly the positions 0..nrecords-1, each reachable
 *	  from its (relid, key) by linear probing without crossing an empty slot;
 *	- cells[0..ncells) have strictly increasing log_ids < next_log_id, and
 *	  every offset they hold lies inside arena[8..arena_used).
 * Mutations happen only in apply, add_keys, bump_log_id and reset_table,
 * always after every check that can fail, so a failed call leaves the
 * region as it was.
 *
 * IDENTIFICATION
 *	  src/common/ledger_store.c
 *
 *-------------------------------------------------------------------------
 */
#include "common/ledger_store.h"

#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "common/memory.h"

#define LSTORE_MAGIC		UINT64_C(0x54415041534C4731)	/* "TAPASLG1" */
#define ALIGN8(x)			(((uint64_t) (x) + 7) & ~UINT64_C(7))
#define MAX_STAT_LEN		65535

typedef struct lstore_table
{
	uint32_t	relid;
	uint32_t	n;				/* records of this table = next dense index */
} lstore_table_t;

typedef struct lstore_record
{
	int64_t		key;
	uint32_t	table;			/* slot */
	uint32_t	idx;			/* dense index within the table */
} lstore_record_t;

/* an interned statistic in the arena, followed by len bytes and a NUL */
typedef struct lstore_stat
{
	uint64_t	next;			/* arena offset of the previous statistic, 0 = end */
	uint32_t	relid;
	uint32_t	len;
} lstore_stat_t;

/* ---- Region accessors ---- */

#define REGION(s)		((uint8_t *) (s))
#define TABLES(s)		((lstore_table_t *) (REGION(s) + (s)->off_tables))
#define RECORDS(s)		((lstore_record_t *) (REGION(s) + (s)->off_records))
#define HASH(s)			((uint32_t *) (REGION(s) + (s)->off_hash))
#define CELLS(s)		((tapas_lstore_cell_t *) (REGION(s) + (s)->off_cells))
#define ARENA(s)		(REGION(s) + (s)->off_arena)

/* splitmix64 finaliser of (relid, key): a well mixed 64-bit hash */
static uint64_t
lstore_hash(uint32_t relid, int64_t key)
{
	uint64_t	z = (uint64_t) key ^ ((uint64_t) relid * UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static uint64_t
lstore_hash_slots(uint64_t max_records)
{
	uint64_t	slots = 16;

	while (slots < 2 * max_records)
		slots <<= 1;
	return slots;
}

size_t
tapas_lstore_size(const tapas_lstore_limits_t *lim)
{
	if (lim->max_records < 1 || lim->max_records > TAPAS_LSTORE_MAX_RECORDS ||
		lim->max_cells < 1 || lim->max_cells > (UINT64_C(1) << 40) ||
		lim->arena_bytes < 64 || lim->arena_bytes > (UINT64_C(1) << 46) ||
		lim->max_tables < 1 || lim->max_tables > TAPAS_LSTORE_MAX_TABLES)
		return 0;
	return ALIGN8(sizeof(tapas_lstore_t)) +
		ALIGN8(lim->max_tables * sizeof(lstore_table_t)) +
		lim->max_records * sizeof(lstore_record_t) +
		ALIGN8(lstore_hash_slots(lim->max_records) * sizeof(uint32_t)) +
		lim->max_cells * sizeof(tapas_lstore_cell_t) +
		ALIGN8(lim->arena_bytes);
}

tapas_lstore_t *
tapas_lstore_init(void *region, size_t size, const tapas_lstore_limits_t *lim)
{
	tapas_lstore_t *s = region;
	size_t		need = tapas_lstore_size(lim);
	uint64_t	off;

	if (need == 0 || size < need || ((uintptr_t) region & 7) != 0)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->magic = LSTORE_MAGIC;
	s->region_size = size;
	s->lim = *lim;
	s->hash_mask = (uint32_t) (lstore_hash_slots(lim->max_records) - 1);
	off = ALIGN8(sizeof(tapas_lstore_t));
	s->off_tables = off;
	off += ALIGN8(lim->max_tables * sizeof(lstore_table_t));
	s->off_records = off;
	off += lim->max_records * sizeof(lstore_record_t);
	s->off_hash = off;
	off += ALIGN8(((uint64_t) s->hash_mask + 1) * sizeof(uint32_t));
	s->off_cells = off;
	off += lim->max_cells * sizeof(tapas_lstore_cell_t);
	s->off_arena = off;
	memset(HASH(s), 0, ((size_t) s->hash_mask + 1) * sizeof(uint32_t));
	s->arena_used = 8;			/* offset 0 means "none" */
	s->next_log_id = 1;
	return s;
}

/* ---- Lookups ---- */

int
tapas_lstore_table_slot(const tapas_lstore_t *s, uint32_t relid)
{
	uint32_t	t;

	for (t = 0; t < s->ntables; t++)
		if (TABLES(s)[t].relid == relid)
			return (int) t;
	return -1;
}

uint32_t
tapas_lstore_table_relid(const tapas_lstore_t *s, int slot)
{
	return TABLES(s)[slot].relid;
}

uint64_t
tapas_lstore_table_n(const tapas_lstore_t *s, uint32_t relid)
{
	int			t = tapas_lstore_table_slot(s, relid);

	return t < 0 ? 0 : TABLES(s)[t].n;
}

/* hash slot holding (relid, key), or the empty slot where it would go */
static uint32_t
lstore_probe(const tapas_lstore_t *s, uint32_t relid, int64_t key)
{
	uint32_t	h = (uint32_t) lstore_hash(relid, key) & s->hash_mask;

	for (;;)
	{
		uint32_t	pos = HASH(s)[h];
		const lstore_record_t *r;

		if (pos == 0)
			return h;
		r = &RECORDS(s)[pos - 1];
		if (r->key == key && TABLES(s)[r->table].relid == relid)
			return h;
		h = (h + 1) & s->hash_mask;
	}
}

int64_t
tapas_lstore_lookup(const tapas_lstore_t *s, uint32_t relid, int64_t key)
{
	uint32_t	pos = HASH(s)[lstore_probe(s, relid, key)];

	return pos == 0 ? -1 : (int64_t) RECORDS(s)[pos - 1].idx;
}

void
tapas_lstore_table_keys(const tapas_lstore_t *s, uint32_t relid, int64_t *keys)
{
	int			t = tapas_lstore_table_slot(s, relid);
	uint64_t	i;

	if (t < 0)
		return;
	for (i = 0; i < s->nrecords; i++)
		if (RECORDS(s)[i].table == (uint32_t) t)
			keys[RECORDS(s)[i].idx] = RECORDS(s)[i].key;
}

uint64_t
tapas_lstore_find_stat(const tapas_lstore_t *s, uint32_t relid,
					   const char *stat, uint32_t len)
{
	uint64_t	off;

	for (off = s->stats_head; off != 0;)
	{
		const lstore_stat_t *st = (const lstore_stat_t *) (ARENA(s) + off);

		if (st->relid == relid && st->len == len &&
			memcmp(st + 1, stat, len) == 0)
			return off;
		off = st->next;
	}
	return 0;
}

const tapas_lstore_cell_t *
tapas_lstore_cell(const tapas_lstore_t *s, uint64_t i)
{
	return i < s->ncells ? &CELLS(s)[i] : NULL;
}

const char *
tapas_lstore_stat_text(const tapas_lstore_t *s, const tapas_lstore_cell_t *c,
					   uint32_t *len)
{
	const lstore_stat_t *st = (const lstore_stat_t *) (ARENA(s) + c->stat_off);

	if (len)
		*len = st->len;
	return (const char *) (st + 1);
}

const char *
tapas_lstore_query_text(const tapas_lstore_t *s, const tapas_lstore_cell_t *c)
{
	return c->query_off == 0 ? NULL : (const char *) (ARENA(s) + c->query_off);
}

const uint8_t *
tapas_lstore_cover(const tapas_lstore_t *s, const tapas_lstore_cell_t *c)
{
	return ARENA(s) + c->cover_off;
}

/* ---- Primitive mutations (callers have checked capacity) ---- */

static uint32_t
lstore_add_table(tapas_lstore_t *s, uint32_t relid)
{
	int			t = tapas_lstore_table_slot(s, relid);

	if (t >= 0)
		return (uint32_t) t;
	TABLES(s)[s->ntables].relid = relid;
	TABLES(s)[s->ntables].n = 0;
	return s->ntables++;
}

static void
lstore_add_record(tapas_lstore_t *s, uint32_t slot, int64_t key)
{
	uint32_t	h = lstore_probe(s, TABLES(s)[slot].relid, key);
	lstore_record_t *r = &RECORDS(s)[s->nrecords];

	r->key = key;
	r->table = slot;
	r->idx = TABLES(s)[slot].n++;
	HASH(s)[h] = (uint32_t) (++s->nrecords);
}

/* copies len bytes (plus a NUL if nul) into the arena; returns the offset */
static uint64_t
lstore_arena_put(tapas_lstore_t *s, const void *data, uint64_t len, int nul)
{
	uint64_t	off = s->arena_used;

	memcpy(ARENA(s) + off, data, len);
	if (nul)
		ARENA(s)[off + len] = 0;
	s->arena_used = ALIGN8(off + len + (nul ? 1 : 0));
	return off;
}

static uint64_t
lstore_intern_stat(tapas_lstore_t *s, uint32_t relid, const char *stat, uint32_t len)
{
	uint64_t	off = tapas_lstore_find_stat(s, relid, stat, len);
	lstore_stat_t hdr;
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

/* ---- Append, in two phases ---- */

/* arena bytes a statistic costs when interned */
#define STAT_BYTES(len)		ALIGN8(sizeof(lstore_stat_t) + (uint64_t) (len) + 1)

/* true when cell i of b repeats an earlier (relid, statistic) of b */
static int
lbatch_stat_seen(const tapas_lbatch_t *b, int i)
{
	int			j;

	for (j = 0; j < i; j++)
		if (b->cells[j].relid == b->cells[i].relid &&
			b->cells[j].stat_len == b->cells[i].stat_len &&
			memcmp(b->cells[j].statistic, b->cells[i].statistic,
				   b->cells[i].stat_len) == 0)
			return 1;
	return 0;
}

/* whether cell i is the first of b with its relid */
static int
lbatch_first_of_table(const tapas_lbatch_t *b, int i)
{
	int			j;

	for (j = 0; j < i; j++)
		if (b->cells[j].relid == b->cells[i].relid)
			return 0;
	return 1;
}

/* max member of a serialised cover, -1 if empty, -2 if it does not decode */
static int64_t
lstore_cover_max(const uint8_t *cover, uint64_t len, uint64_t *card)
{
	roaring_bitmap_t *r = roaring_bitmap_portable_deserialize_safe((const char *) cover, len);
	int64_t		max;

	if (r == NULL)
		return -2;
	*card = roaring_bitmap_get_cardinality(r);
	max = *card == 0 ? -1 : (int64_t) roaring_bitmap_maximum(r);
	roaring_bitmap_free(r);
	return max;
}

/* replay-only consistency checks of one decoded batch against the store */
static tapas_status
lstore_check_consistent(const tapas_lstore_t *s, const tapas_lbatch_t *b)
{
	int			i;
	uint64_t	k,
				card;

	/* log_ids increase; a META record may have raised next_log_id beyond them */
	if (s->ncells > 0 && b->first_log_id <= CELLS(s)[s->ncells - 1].log_id)
		return TAPAS_EINVAL;
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_lbatch_cell_t *c = &b->cells[i];
		uint64_t	n = tapas_lstore_table_n(s, c->relid);
		int64_t		max;
		int			j;

		for (k = 0; k < c->nnew; k++)
			if (tapas_lstore_lookup(s, c->relid, c->newkeys[k]) >= 0)
				return TAPAS_EINVAL;
		/* n after this cell: the table's n plus new keys of cells 0..i */
		for (j = 0; j <= i; j++)
			if (b->cells[j].relid == c->relid)
				n += b->cells[j].nnew;
		max = lstore_cover_max(c->cover, c->cover_len, &card);
		if (max == -2 || max >= (int64_t) n || card != c->ncovered)
			return TAPAS_EINVAL;
	}
	return TAPAS_OK;
}

tapas_status
tapas_lstore_check(const tapas_lstore_t *s, const tapas_lbatch_t *b,
				   tapas_lstore_full_t *full)
{
	uint64_t	newrec = 0,
				arena = 0;
	uint32_t	newtables = 0;
	int			i;
	tapas_lstore_full_t f = TAPAS_LSTORE_FITS;

	if (b->first_log_id != 0 && lstore_check_consistent(s, b) != TAPAS_OK)
		return TAPAS_EINVAL;
	if (b->query != NULL)
		arena += ALIGN8((uint64_t) b->query_len + 1);
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_lbatch_cell_t *c = &b->cells[i];

		newrec += c->nnew;
		arena += ALIGN8(c->cover_len);
		if (!lbatch_stat_seen(b, i) &&
			tapas_lstore_find_stat(s, c->relid, c->statistic, c->stat_len) == 0)
			arena += STAT_BYTES(c->stat_len);
		if (lbatch_first_of_table(b, i) && tapas_lstore_table_slot(s, c->relid) < 0)
			newtables++;
	}
	if ((uint64_t) b->ncells > s->lim.max_cells - s->ncells)
		f = TAPAS_LSTORE_FULL_CELLS;
	else if (newrec > s->lim.max_records - s->nrecords)
		f = TAPAS_LSTORE_FULL_RECORDS;
	else if (arena > s->lim.arena_bytes - s->arena_used)
		f = TAPAS_LSTORE_FULL_MEMORY;
	else if (newtables > s->lim.max_tables - s->ntables)
		f = TAPAS_LSTORE_FULL_TABLES;
	if (full)
		*full = f;
	return f == TAPAS_LSTORE_FITS ? TAPAS_OK : TAPAS_ELIMIT;
}

tapas_status
tapas_lstore_apply(tapas_lstore_t *s, tapas_lbatch_t *b, tapas_lstore_full_t *full)
{
	tapas_status st = tapas_lstore_check(s, b, full);
	uint64_t	query_off = 0;
	int			i;

	if (st != TAPAS_OK)
		return st;
	if (b->first_log_id == 0)
		b->first_log_id = s->next_log_id;
	if (b->query != NULL)
		query_off = lstore_arena_put(s, b->query, b->query_len, 1);
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_lbatch_cell_t *c = &b->cells[i];
		tapas_lstore_cell_t *cell = &CELLS(s)[s->ncells];
		uint32_t	slot = lstore_add_table(s, c->relid);
		uint64_t	k;

		for (k = 0; k < c->nnew; k++)
			lstore_add_record(s, slot, c->newkeys[k]);
		cell->log_id = b->first_log_id + i;
		cell->logged_at = b->logged_at;
		cell->session_start = b->session_start;
		cell->answer = c->answer;
		cell->stat_off = lstore_intern_stat(s, c->relid, c->statistic, c->stat_len);
		cell->query_off = query_off;
		cell->cover_off = lstore_arena_put(s, c->cover, c->cover_len, 0);
		cell->cover_len = (uint32_t) c->cover_len;
		cell->ncovered = (uint32_t) c->ncovered;
		cell->relid = c->relid;
		cell->role = b->role;
		cell->pid = b->pid;
		cell->table = slot;
		s->ncells++;
	}
	tapas_lstore_bump_log_id(s, b->first_log_id + b->ncells);
	return TAPAS_OK;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

tapas_status
tapas_lstore_add_keys(tapas_lstore_t *s, uint32_t relid, const int64_t *keys,
					  uint64_t nkeys)
{
	uint64_t	i;
	uint32_t	slot;
	int64_t    *sorted;

	if (relid == 0)
		return TAPAS_EINVAL;
	if (nkeys > s->lim.max_records - s->nrecords ||
		(tapas_lstore_table_slot(s, relid) < 0 && s->ntables >= s->lim.max_tables))
		return TAPAS_ELIMIT;
	if (tapas_lstore_table_n(s, relid) + nkeys > UINT32_MAX)
		return TAPAS_ELIMIT;
	for (i = 0; i < nkeys; i++)
		if (tapas_lstore_lookup(s, relid, keys[i]) >= 0)
			return TAPAS_EINVAL;
	/* repeated keys inside keys[] */
	sorted = tapas_malloc((nkeys ? nkeys : 1) * sizeof(int64_t));
	if (sorted == NULL)
		return TAPAS_ENOMEM;
	memcpy(sorted, keys, nkeys * sizeof(int64_t));
	qsort(sorted, nkeys, sizeof(int64_t), cmp_int64);
	for (i = 1; i < nkeys; i++)
		if (sorted[i] == sorted[i - 1])
		{
			tapas_free(sorted);
			return TAPAS_EINVAL;
		}
	tapas_free(sorted);
	if (nkeys == 0)
		return TAPAS_OK;
	slot = lstore_add_table(s, relid);
	for (i = 0; i < nkeys; i++)
		lstore_add_record(s, slot, keys[i]);
	return TAPAS_OK;
}

void
tapas_lstore_bump_log_id(tapas_lstore_t *s, int64_t next)
{
	if (next > s->next_log_id)
		s->next_log_id = next;
}

void
tapas_lbatch_free(tapas_lbatch_t *b)
{
	int			i;

	if (b == NULL)
		return;
	if (b->cells)
		for (i = 0; i < b->ncells; i++)
		{
			tapas_free(b->cells[i].newkeys);
			if (b->owns_covers)
				tapas_free((void *) b->cells[i].cover);
		}
	tapas_free(b->cells);
	tapas_free(b);
}

/* ---- Reset of one table ---- */

tapas_status
tapas_lstore_reset_table(tapas_lstore_t *s, uint32_t relid, uint64_t *ncells_removed)
{
	tapas_lstore_t *src = tapas_malloc(s->region_size);
	tapas_lstore_limits_t lim = s->lim;
	uint64_t	i,
				removed = 0,
				last_q_src = 0,
				last_q_dst = 0;

	if (src == NULL)
		return TAPAS_ENOMEM;
	memcpy(src, s, s->region_size);
	tapas_lstore_init(s, src->region_size, &lim);
	s->next_log_id = src->next_log_id;

	/* every other table, also those whose cells cover no record */
	for (i = 0; i < src->ntables; i++)
		if (TABLES(src)[i].relid != relid)
			lstore_add_table(s, TABLES(src)[i].relid);
	/* records in their original order, so every other table keeps its indices */
	for (i = 0; i < src->nrecords; i++)
	{
		const lstore_record_t *r = &RECORDS(src)[i];
		uint32_t	rel = TABLES(src)[r->table].relid;

		if (rel != relid)
			lstore_add_record(s, lstore_add_table(s, rel), r->key);
	}
	for (i = 0; i < src->ncells; i++)
	{
		const tapas_lstore_cell_t *c = &CELLS(src)[i];
		tapas_lstore_cell_t *d = &CELLS(s)[s->ncells];
		uint32_t	len;
		const char *stat;

		if (c->relid == relid)
		{
			removed++;
			continue;
		}
		*d = *c;
		stat = tapas_lstore_stat_text(src, c, &len);
		d->stat_off = lstore_intern_stat(s, c->relid, stat, len);
		if (c->query_off != 0 && c->query_off != last_q_src)
		{
			const char *q = tapas_lstore_query_text(src, c);

			last_q_src = c->query_off;
			last_q_dst = lstore_arena_put(s, q, strlen(q), 1);
		}
		d->query_off = c->query_off == 0 ? 0 : last_q_dst;
		d->cover_off = lstore_arena_put(s, tapas_lstore_cover(src, c), c->cover_len, 0);
		d->table = (uint32_t) tapas_lstore_table_slot(s, c->relid);
		s->ncells++;
	}
	tapas_free(src);
	if (ncells_removed)
		*ncells_removed = removed;
	return TAPAS_OK;
}

/* ---- Invariant checker ---- */

#define FAIL(msg)	do { if (reason) *reason = (msg); return TAPAS_EINCONSISTENT; } while (0)

static tapas_status
lstore_validate_records(const tapas_lstore_t *s, const char **reason)
{
	uint64_t	i,
				used = 0;
	uint32_t	t,
				u;
	uint32_t	next[TAPAS_LSTORE_MAX_TABLES] = {0};

	for (t = 0; t < s->ntables; t++)
	{
		if (TABLES(s)[t].relid == 0)
			FAIL("table slot with relid 0");
		for (u = 0; u < t; u++)
			if (TABLES(s)[u].relid == TABLES(s)[t].relid)
				FAIL("two slots for one table");
	}
	for (i = 0; i < s->nrecords; i++)
	{
		const lstore_record_t *r = &RECORDS(s)[i];

		if (r->table >= s->ntables)
			FAIL("record of an unknown table slot");
		if (r->idx != next[r->table]++)
			FAIL("dense indices of a table are not 0, 1, ... in record order");
		if (HASH(s)[lstore_probe(s, TABLES(s)[r->table].relid, r->key)] != i + 1)
			FAIL("record not reachable through the hash (or a duplicate key)");
	}
	for (t = 0; t < s->ntables; t++)
		if (next[t] != TABLES(s)[t].n)
			FAIL("table n differs from its number of records");
	for (i = 0; i <= s->hash_mask; i++)
		if (HASH(s)[i] != 0 && (used++, HASH(s)[i] > s->nrecords))
			FAIL("hash slot beyond the records");
	if (used != s->nrecords)
		FAIL("hash holds a different number of entries than records");
	return TAPAS_OK;
}

static tapas_status
lstore_validate_cells(const tapas_lstore_t *s, const char **reason)
{
	uint64_t	i,
				off,
				nstats = 0;

	for (off = s->stats_head; off != 0; nstats++)
	{
		if (off < 8 || off + sizeof(lstore_stat_t) > s->arena_used || nstats > s->nstats)
			FAIL("statistic list leaves the arena");
		off = ((const lstore_stat_t *) (ARENA(s) + off))->next;
	}
	if (nstats != s->nstats)
		FAIL("statistic list length differs from nstats");
	for (i = 0; i < s->ncells; i++)
	{
		const tapas_lstore_cell_t *c = &CELLS(s)[i];
		uint64_t	card = 0;
		int64_t		max;

		if (c->log_id >= s->next_log_id || (i > 0 && c->log_id <= CELLS(s)[i - 1].log_id))
			FAIL("log_ids not increasing below next_log_id");
		if (c->table >= s->ntables || TABLES(s)[c->table].relid != c->relid)
			FAIL("cell table slot does not match its relid");
		if (c->stat_off < 8 || c->stat_off >= s->arena_used ||
			((const lstore_stat_t *) (ARENA(s) + c->stat_off))->relid != c->relid)
			FAIL("cell statistic outside the arena or of another table");
		if (c->query_off >= s->arena_used || c->cover_off < 8 ||
			c->cover_off + c->cover_len > s->arena_used)
			FAIL("cell query or cover outside the arena");
		max = lstore_cover_max(tapas_lstore_cover(s, c), c->cover_len, &card);
		if (max == -2 || card != c->ncovered || max >= (int64_t) TABLES(s)[c->table].n)
			FAIL("cover does not decode to ncovered indices below the table's n");
	}
	return TAPAS_OK;
}

tapas_status
tapas_lstore_validate(const tapas_lstore_t *s, const char **reason)
{
	tapas_status st;

	if (s->magic != LSTORE_MAGIC)
		FAIL("bad magic");
	if (s->nrecords > s->lim.max_records || s->ncells > s->lim.max_cells ||
		s->ntables > s->lim.max_tables || s->arena_used > s->lim.arena_bytes ||
		s->arena_used < 8 || s->next_log_id < 1)
		FAIL("counter beyond its limit");
	st = lstore_validate_records(s, reason);
	if (st == TAPAS_OK)
		st = lstore_validate_cells(s, reason);
	return st;
}
