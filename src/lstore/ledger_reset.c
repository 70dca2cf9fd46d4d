/*-------------------------------------------------------------------------
 *
 * ledger_reset.c
 *	  Remove one table from the ledger store, in place.
 *
 * tapas.reset used to rebuild the whole region in a copy of it, so its
 * cost was that of the region (tapas.ledger_memory plus the cell and
 * record arrays and the hash, several GB for a large ledger), whatever the
 * ledger held: 16-25 s for a 16-cell ledger.  Here the region is compacted
 * where it lies, at a cost proportional to what it holds:
 *
 *	1. collect the arena objects that survive (statistics of the other
 *	   tables, query texts and covers of their cells), relinking the
 *	   surviving statistics among themselves (old offsets);
 *	2. sort them by offset and slide each down to the end of the previous
 *	   one (memmove; a survivor never moves up, so nothing is overwritten
 *	   before it has moved);
 *	3. rewrite every offset through the old -> new map (binary search);
 *	4. compact cells, tables and records (other tables keep their dense
 *	   indices: only the slot numbers above the removed one shift down),
 *	   clear and refill the hash, recount the roles' usage.
 *
 * The scratch (the object map) is allocated first, by the caller or by
 * tapas_ledger_store_reset_table; after that nothing can fail.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_reset.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_store_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/memory.h"

/* an arena object that survives: where it is, its bytes, where it goes */
typedef struct reset_obj
{
	uint64_t	old_off;
	uint64_t	len;
	uint64_t	new_off;
} reset_obj_t;

size_t
tapas_ledger_store_reset_scratch_size(const tapas_ledger_store_t *s)
{
	return (size_t) (2 * s->ncells + s->nstats + 1) * sizeof(reset_obj_t);
}

static int
cmp_obj(const void *a, const void *b)
{
	uint64_t	x = ((const reset_obj_t *) a)->old_off,
				y = ((const reset_obj_t *) b)->old_off;

	return (x > y) - (x < y);
}

/*
 * Step 1 for the statistics: the survivors, linked among themselves by
 * their old offsets; returns the old offset of the new head.
 */
static uint64_t
collect_stats(tapas_ledger_store_t *s, uint64_t table_id, reset_obj_t *objs, uint64_t *n)
{
	uint64_t	off,
				head = 0;
	ledger_store_stat_t *prev = NULL;

	for (off = s->stats_head; off != 0;)
	{
		ledger_store_stat_t *st = (ledger_store_stat_t *) (ARENA(s) + off);
		uint64_t	next = st->next;

		if (st->table_id != table_id)
		{
			if (prev)
				prev->next = off;
			else
				head = off;
			prev = st;
			objs[*n].old_off = off;
			objs[(*n)++].len = STAT_BYTES2(st->len, st->basis_len);
		}
		else
			s->nstats--;
		off = next;
	}
	if (prev)
		prev->next = 0;
	return head;
}

/* step 1 for the cells of the other tables: their covers and query texts */
static void
collect_cells(const tapas_ledger_store_t *s, uint64_t table_id, reset_obj_t *objs, uint64_t *n)
{
	uint64_t	i,
				last_query = 0;

	for (i = 0; i < s->ncells; i++)
	{
		const tapas_ledger_store_cell_t *c = &CELLS(s)[i];

		if (c->table_id == table_id)
			continue;
		if (c->query_off != 0 && c->query_off != last_query)
		{
			objs[*n].old_off = c->query_off;
			objs[(*n)++].len = ALIGN8(strlen((const char *) ARENA(s) + c->query_off) + 1);
			last_query = c->query_off;
		}
		objs[*n].old_off = c->cover_off;
		objs[(*n)++].len = ALIGN8(c->cover_len);
	}
}

/* step 2: sort, drop repeats, slide down; returns the number of objects */
static uint64_t
compact_arena(tapas_ledger_store_t *s, reset_obj_t *objs, uint64_t n)
{
	uint64_t	i,
				m = 0,
				w = 8;			/* offset 0 means "none" */

	qsort(objs, n, sizeof(reset_obj_t), cmp_obj);
	for (i = 0; i < n; i++)
		if (m == 0 || objs[i].old_off != objs[m - 1].old_off)
			objs[m++] = objs[i];
	for (i = 0; i < m; i++)
	{
		objs[i].new_off = w;
		if (w != objs[i].old_off)
			memmove(ARENA(s) + w, ARENA(s) + objs[i].old_off, objs[i].len);
		w += objs[i].len;
	}
	s->arena_used = w;
	return m;
}

/* the new offset of a surviving object's old offset (0 stays 0) */
static uint64_t
remap(const reset_obj_t *objs, uint64_t n, uint64_t old_off)
{
	uint64_t	lo = 0,
				hi = n;

	if (old_off == 0)
		return 0;
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (objs[mid].old_off < old_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return objs[lo].new_off;	/* present: every reference was collected */
}

/* step 3 for the statistics: the head and every next link */
static void
relink_stats(tapas_ledger_store_t *s, uint64_t head, const reset_obj_t *objs, uint64_t n)
{
	uint64_t	off;

	s->stats_head = remap(objs, n, head);
	for (off = s->stats_head; off != 0;)
	{
		ledger_store_stat_t *st = (ledger_store_stat_t *) (ARENA(s) + off);

		st->next = remap(objs, n, st->next);
		off = st->next;
	}
}

/* steps 3 and 4 for the cells; returns the number removed */
static uint64_t
compact_cells(tapas_ledger_store_t *s, uint64_t table_id, uint32_t slot,
			  const reset_obj_t *objs, uint64_t n)
{
	uint64_t	i,
				w = 0;

	for (i = 0; i < s->ncells; i++)
	{
		tapas_ledger_store_cell_t c = CELLS(s)[i];

		if (c.table_id == table_id)
			continue;
		c.stat_off = remap(objs, n, c.stat_off);
		c.query_off = remap(objs, n, c.query_off);
		c.cover_off = remap(objs, n, c.cover_off);
		if (c.table > slot)
			c.table--;
		CELLS(s)[w++] = c;
	}
	i = s->ncells - w;
	s->ncells = w;
	return i;
}

/* step 4: tables and records without slot, then the hash refilled */
static void
compact_records(tapas_ledger_store_t *s, uint32_t slot)
{
	uint64_t	i,
				w = 0;

	memmove(&TABLES(s)[slot], &TABLES(s)[slot + 1],
			(s->ntables - slot - 1) * sizeof(ledger_store_table_t));
	s->ntables--;
	for (i = 0; i < s->nrecords; i++)
	{
		ledger_store_record_t r = RECORDS(s)[i];

		if (r.table == slot)
			continue;
		if (r.table > slot)
			r.table--;
		RECORDS(s)[w++] = r;
	}
	s->nrecords = w;
	memset(HASH(s), 0, ((size_t) s->hash_mask + 1) * sizeof(uint32_t));
	for (i = 0; i < s->nrecords; i++)
	{
		const ledger_store_record_t *r = &RECORDS(s)[i];

		HASH(s)[tapas_ledger_store_probe(s, TABLES(s)[r->table].table_id, r->key)] = (uint32_t) (i + 1);
	}
}

/* step 4: the roles' usage, from the cells left (as apply counts it) */
static void
recount_roles(tapas_ledger_store_t *s)
{
	uint64_t	i;
	tapas_ledger_store_usage_t prev = {0, 0};

	s->nroles = 0;
	for (i = 0; i < s->ncells; i++)
		tapas_ledger_store_put_role_usage(s, CELLS(s)[i].role,
									tapas_ledger_store_cell_usage(s, i, &prev));
}

void
tapas_ledger_store_reset_table_with(tapas_ledger_store_t *s, uint64_t table_id, void *scratch,
							  uint64_t *ncells_removed)
{
	reset_obj_t *objs = scratch;
	int			slot = tapas_ledger_store_table_slot(s, table_id);
	uint64_t	n = 0,
				head,
				removed;

	if (ncells_removed)
		*ncells_removed = 0;
	if (slot < 0)
		return;
	head = collect_stats(s, table_id, objs, &n);
	collect_cells(s, table_id, objs, &n);
	n = compact_arena(s, objs, n);
	relink_stats(s, head, objs, n);
	removed = compact_cells(s, table_id, (uint32_t) slot, objs, n);
	compact_records(s, (uint32_t) slot);
	recount_roles(s);
	if (ncells_removed)
		*ncells_removed = removed;
}

tapas_status
tapas_ledger_store_reset_table(tapas_ledger_store_t *s, uint64_t table_id, uint64_t *ncells_removed)
{
	void	   *scratch = tapas_malloc(tapas_ledger_store_reset_scratch_size(s));

	if (scratch == NULL)
		return TAPAS_ENOMEM;
	tapas_ledger_store_reset_table_with(s, table_id, scratch, ncells_removed);
	tapas_free(scratch);
	return TAPAS_OK;
}
