/*-------------------------------------------------------------------------
 *
 * ledger_apply.c
 *	  Check and commit a prepared batch to the ledger store.
 *
 * tapas_ledger_store_check computes exactly what a batch needs (cells, new
 * records, new tables, arena bytes: query text, covers and statistics not
 * yet interned (or interned again with a basis, ledger_store_int.h), each
 * 8-byte aligned as the put primitives align them) and compares with
 * what is left; for a decoded batch (first_log_id set, i.e. replay) it
 * also checks consistency with the store: new keys really new, covers
 * decodable with members below the table's n, log_ids increasing.
 * tapas_ledger_store_apply runs the check and then only primitives that cannot
 * fail, so a batch is applied whole or not at all.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_apply.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_store_int.h"

#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "util/compare.h"
#include "util/memory.h"

#define PUT_AHEAD 16			/* new keys between a prefetch and its insert */

/* whether cell i is the first of b with its table_id */
static int
ledger_batch_first_of_table(const tapas_ledger_batch_t *b, int i)
{
	int			j;

	for (j = 0; j < i; j++)
		if (b->cells[j].table_id == b->cells[i].table_id)
			return 0;
	return 1;
}

/* max member of a serialised cover, -1 if empty, -2 if it does not decode */
int64_t
tapas_ledger_store_cover_max(const uint8_t *cover, uint64_t len, uint64_t *card)
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
ledger_store_check_consistent(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b)
{
	int			i;
	uint64_t	k,
				card;

	/* log_ids increase; a META record may have raised next_log_id beyond them */
	if (s->ncells > 0 && b->first_log_id <= CELLS(s)[s->ncells - 1].log_id)
		return TAPAS_EINVAL;
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_ledger_batch_cell_t *c = &b->cells[i];
		uint64_t	n = tapas_ledger_store_table_n(s, c->table_id);
		int64_t		max;
		int			j;

		for (k = 0; k < c->nnew; k++)
			if (tapas_ledger_store_lookup(s, c->table_id, c->newkeys[k]) >= 0)
				return TAPAS_EINVAL;
		/* n after this cell: the table's n plus new keys of cells 0..i */
		for (j = 0; j <= i; j++)
			if (b->cells[j].table_id == c->table_id)
				n += b->cells[j].nnew;
		if (c->shared_from != 0 &&
			(c->shared_from > (uint32_t) i ||
			 b->cells[c->shared_from - 1].table_id != c->table_id ||
			 b->cells[c->shared_from - 1].cover_len != c->cover_len))
			return TAPAS_EINVAL;
		max = tapas_ledger_store_cover_max(c->cover, c->cover_len, &card);
		if (max == -2 || max >= (int64_t) n || card != c->ncovered)
			return TAPAS_EINVAL;
	}
	return TAPAS_OK;
}

tapas_status
tapas_ledger_store_check(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b,
				   tapas_ledger_store_full_t *full)
{
	uint64_t	newrec = 0,
				arena = 0;
	uint32_t	newtables = 0;
	int			i;
	tapas_ledger_store_full_t f = TAPAS_LEDGER_STORE_FITS;
	ledger_stat_walk_t walk;
	uint64_t	last_table = 0;

	if (b->first_log_id != 0 && ledger_store_check_consistent(s, b) != TAPAS_OK)
		return TAPAS_EINVAL;
	if (b->query != NULL)
		arena += ALIGN8((uint64_t) b->query_len + 1);
	ledger_stat_walk_init(&walk, s, b);
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_ledger_batch_cell_t *c = &b->cells[i];
		int			exists,
					has_basis;

		newrec += c->nnew;
		if (c->shared_from == 0)
			arena += ALIGN8(c->cover_len);
		ledger_stat_walk_state(&walk, i, &exists, &has_basis);
		ledger_stat_walk_done(&walk, i);
		if (!exists || (!has_basis && c->basis_len > 0))
			arena += STAT_BYTES2(c->stat_len, c->basis_len);
		/* a statement's cells are usually of one table: scan only on a change */
		if (c->table_id != last_table && ledger_batch_first_of_table(b, i) &&
			tapas_ledger_store_table_slot(s, c->table_id) < 0)
			newtables++;
		last_table = c->table_id;
	}
	ledger_stat_walk_free(&walk);
	if ((uint64_t) b->ncells > s->lim.max_cells - s->ncells)
		f = TAPAS_LEDGER_STORE_FULL_CELLS;
	else if (newrec > s->lim.max_records - s->nrecords)
		f = TAPAS_LEDGER_STORE_FULL_RECORDS;
	else if (arena > s->lim.arena_bytes - s->arena_used)
		f = TAPAS_LEDGER_STORE_FULL_MEMORY;
	else if (newtables > s->lim.max_tables - s->ntables)
		f = TAPAS_LEDGER_STORE_FULL_TABLES;
	else if (tapas_ledger_store_role_entry(s, b->role) == NULL && s->nroles >= TAPAS_LEDGER_STORE_MAX_ROLES)
		f = TAPAS_LEDGER_STORE_FULL_ROLES;
	if (full)
		*full = f;
	return f == TAPAS_LEDGER_STORE_FITS ? TAPAS_OK : TAPAS_ELIMIT;
}

tapas_status
tapas_ledger_store_apply(tapas_ledger_store_t *s, tapas_ledger_batch_t *b, tapas_ledger_store_full_t *full)
{
	tapas_status st = tapas_ledger_store_check(s, b, full);
	uint64_t	query_off = 0,
				base;
	int			i;

	if (st != TAPAS_OK)
		return st;
	if (b->first_log_id == 0)
		b->first_log_id = s->next_log_id;
	if (b->query != NULL)
		query_off = tapas_ledger_store_put_bytes(s, b->query, b->query_len, 1);
	base = s->ncells;
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_ledger_batch_cell_t *c = &b->cells[i];
		tapas_ledger_store_cell_t *cell = &CELLS(s)[s->ncells];
		uint32_t	slot = tapas_ledger_store_put_table(s, c->table_id);
		uint64_t	k;

		/*
		 * New keys go to random slots of a hash table far larger than the
		 * caches (2^24 records by default): the slot of the key PUT_AHEAD
		 * ahead is prefetched, as lookups do (ledger_batch.c).
		 */
		for (k = 0; k < c->nnew; k++)
		{
			if (k + PUT_AHEAD < c->nnew)
				tapas_ledger_store_prefetch_slot(s, c->table_id, c->newkeys[k + PUT_AHEAD]);
			tapas_ledger_store_put_record(s, slot, c->newkeys[k]);
		}
		cell->log_id = b->first_log_id + i;
		cell->logged_at = b->logged_at;
		cell->session_start = b->session_start;
		cell->answer = c->answer;
		cell->stat_off = tapas_ledger_store_put_stat(s, c->table_id, c->statistic, c->stat_len,
												 c->basis, c->basis_len);
		cell->query_off = query_off;
		if (c->shared_from != 0)
			cell->cover_off = CELLS(s)[base + c->shared_from - 1].cover_off;
		else
			cell->cover_off = tapas_ledger_store_put_bytes(s, c->cover, c->cover_len, 0);
		cell->cover_len = (uint32_t) c->cover_len;
		cell->ncovered = (uint32_t) c->ncovered;
		cell->table_id = c->table_id;
		cell->role = b->role;
		cell->pid = b->pid;
		cell->table = slot;
		s->ncells++;
	}
	tapas_ledger_store_put_role_usage(s, b->role, tapas_ledger_batch_usage(b));
	tapas_ledger_store_bump_log_id(s, b->first_log_id + b->ncells);
	return TAPAS_OK;
}

tapas_status
tapas_ledger_store_add_keys(tapas_ledger_store_t *s, uint64_t table_id, const int64_t *keys,
					  uint64_t nkeys)
{
	uint64_t	i;
	uint32_t	slot;
	int64_t    *sorted;

	if (table_id == 0)
		return TAPAS_EINVAL;
	if (nkeys > s->lim.max_records - s->nrecords ||
		(tapas_ledger_store_table_slot(s, table_id) < 0 && s->ntables >= s->lim.max_tables))
		return TAPAS_ELIMIT;
	if (tapas_ledger_store_table_n(s, table_id) + nkeys > UINT32_MAX)
		return TAPAS_ELIMIT;
	for (i = 0; i < nkeys; i++)
		if (tapas_ledger_store_lookup(s, table_id, keys[i]) >= 0)
			return TAPAS_EINVAL;
	/* repeated keys inside keys[] */
	sorted = tapas_malloc((nkeys ? nkeys : 1) * sizeof(int64_t));
	if (sorted == NULL)
		return TAPAS_ENOMEM;
	memcpy(sorted, keys, nkeys * sizeof(int64_t));
	qsort(sorted, nkeys, sizeof(int64_t), tapas_cmp_int64);
	for (i = 1; i < nkeys; i++)
		if (sorted[i] == sorted[i - 1])
		{
			tapas_free(sorted);
			return TAPAS_EINVAL;
		}
	tapas_free(sorted);
	if (nkeys == 0)
		return TAPAS_OK;
	slot = tapas_ledger_store_put_table(s, table_id);
	for (i = 0; i < nkeys; i++)
		tapas_ledger_store_put_record(s, slot, keys[i]);
	return TAPAS_OK;
}

void
tapas_ledger_store_bump_log_id(tapas_ledger_store_t *s, int64_t next)
{
	if (next > s->next_log_id)
		s->next_log_id = next;
}

void
tapas_ledger_batch_free(tapas_ledger_batch_t *b)
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
