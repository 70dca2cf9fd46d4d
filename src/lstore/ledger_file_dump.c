/*-------------------------------------------------------------------------
 *
 * ledger_file_dump.c
 *	  Dump a ledger store as the frames of a new ledger file, whole or
 *	  without one table's cells (tapas.reset rewrites the file this way).
 *
 * The frames are made by the encoders of ledger_file.c, so a dump
 * replays to the same store.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_file_dump.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_file.h"

#include <string.h>

#include "util/memory.h"

#define Max(a, b)	((a) > (b) ? (a) : (b))

static tapas_status
dump_frame(tapas_status st, uint8_t *frame, size_t len,
		   tapas_ledger_file_write_fn write_fn, void *arg)
{
	if (st == TAPAS_OK && write_fn(arg, frame, len) != 0)
		st = TAPAS_EINVAL;
	tapas_free(frame);
	return st;
}

/* whether cell j continues the statement whose cells start at i */
static int
same_stmt(const tapas_ledger_store_t *s, uint64_t i, uint64_t j)
{
	const tapas_ledger_store_cell_t *a = tapas_ledger_store_cell(s, i);
	const tapas_ledger_store_cell_t *c = tapas_ledger_store_cell(s, j);

	return c->log_id == a->log_id + (int64_t) (j - i) && c->query_off == a->query_off &&
		c->logged_at == a->logged_at && c->session_start == a->session_start &&
		c->role == a->role && c->pid == a->pid;
}

/*
 * 1 + the index in [i, k) of the cell whose cover cell k shares, 0 if its
 * own: covers are appended in increasing offsets, so only a cover_off not
 * above an earlier one of the statement can be shared.
 */
static uint32_t
dump_shared_from(const tapas_ledger_store_t *s, uint64_t i, uint64_t k, uint64_t max_off)
{
	uint64_t	off = tapas_ledger_store_cell(s, k)->cover_off,
				m;

	if (k == i || off > max_off)
		return 0;				/* the common case: a new cover */
	for (m = i; m < k; m++)
		if (tapas_ledger_store_cell(s, m)->cover_off == off)
			return (uint32_t) (m - i) + 1;
	return 0;
}

/*
 * One STMT frame for cells [i, j) of s, without new keys.  A cell carries
 * its statistic's basis when it is the first cell of the dump that uses
 * that interned entry: entries are interned by their first cell in
 * increasing arena offsets, so that is a stat_off above every earlier
 * cell's (*max_stat carries the largest over the whole dump).
 */
static tapas_status
dump_stmt(const tapas_ledger_store_t *s, uint64_t i, uint64_t j, uint64_t *max_stat,
		  tapas_ledger_file_write_fn write_fn, void *arg)
{
	const tapas_ledger_store_cell_t *a = tapas_ledger_store_cell(s, i);
	tapas_ledger_batch_t b;
	uint8_t    *frame = NULL;
	size_t		len = 0;
	uint64_t	k,
				max_off = 0;	/* largest cover_off of cells [i, k) */
	tapas_status st;

	memset(&b, 0, sizeof(b));
	b.first_log_id = a->log_id;
	b.logged_at = a->logged_at;
	b.session_start = a->session_start;
	b.role = a->role;
	b.pid = a->pid;
	b.query = tapas_ledger_store_query_text(s, a);
	b.query_len = b.query ? (uint32_t) strlen(b.query) : 0;
	b.ncells = (int) (j - i);
	b.cells = tapas_calloc(j - i, sizeof(tapas_ledger_batch_cell_t));
	if (b.cells == NULL)
		return TAPAS_ENOMEM;
	for (k = i; k < j; k++)
	{
		const tapas_ledger_store_cell_t *c = tapas_ledger_store_cell(s, k);
		tapas_ledger_batch_cell_t *bc = &b.cells[k - i];

		bc->table_id = c->table_id;
		bc->statistic = tapas_ledger_store_stat_text(s, c, &bc->stat_len);
		if (c->stat_off > *max_stat)
		{
			bc->basis = tapas_ledger_store_stat_basis(s, c, &bc->basis_len);
			*max_stat = c->stat_off;
		}
		bc->answer = c->answer;
		bc->ncovered = c->ncovered;
		bc->cover = tapas_ledger_store_cover(s, c);
		bc->cover_len = c->cover_len;
		bc->shared_from = dump_shared_from(s, i, k, max_off);
		max_off = Max(max_off, c->cover_off);
	}
	st = tapas_ledger_file_encode_stmt(&b, &frame, &len);
	tapas_free(b.cells);
	return dump_frame(st, frame, len, write_fn, arg);
}

/*
 * The keys of every table in dense index order, in one pass over the
 * records (a pass per table would be O(tables x records)): keys of table
 * slot t are keys[start[t] .. start[t] + n_t).  NULL on ENOMEM.
 */
static int64_t *
dump_all_keys(const tapas_ledger_store_t *s, uint64_t **start)
{
	int64_t    *keys = tapas_malloc((s->nrecords ? s->nrecords : 1) * 8);
	uint64_t   *st = tapas_malloc(((uint64_t) s->ntables + 1) * 8);
	uint64_t	i,
				at = 0;
	uint32_t	t;

	if (keys == NULL || st == NULL)
	{
		tapas_free(keys);
		tapas_free(st);
		return NULL;
	}
	for (t = 0; t < s->ntables; t++)
	{
		st[t] = at;
		at += tapas_ledger_store_table_n(s, tapas_ledger_store_table_id(s, (int) t));
	}
	st[s->ntables] = at;
	for (i = 0; i < s->nrecords; i++)
	{
		uint32_t	slot;
		int64_t		key;
		uint32_t	idx;

		tapas_ledger_store_record(s, i, &key, &slot, &idx);
		keys[st[slot] + idx] = key;
	}
	*start = st;
	return keys;
}

tapas_status
tapas_ledger_file_dump(const tapas_ledger_store_t *s, tapas_ledger_file_write_fn write_fn, void *arg)
{
	return tapas_ledger_file_dump_without(s, 0, write_fn, arg);
}

tapas_status
tapas_ledger_file_dump_without(const tapas_ledger_store_t *s, uint64_t skip,
						 tapas_ledger_file_write_fn write_fn, void *arg)
{
	uint8_t    *frame = NULL;
	size_t		len = 0;
	tapas_status st = TAPAS_OK;
	uint64_t	i,
				j,
				max_stat = 0,
			   *start = NULL;
	int64_t    *keys;
	uint32_t	t;

	if (write_fn(arg, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN) != 0)
		return TAPAS_EINVAL;
	st = tapas_ledger_file_encode_meta(s->next_log_id, &frame, &len);
	if ((st = dump_frame(st, frame, len, write_fn, arg)) != TAPAS_OK)
		return st;
	if ((keys = dump_all_keys(s, &start)) == NULL)
		return TAPAS_ENOMEM;
	for (t = 0; st == TAPAS_OK && t < s->ntables; t++)
	{
		uint64_t	table_id = tapas_ledger_store_table_id(s, (int) t);

		if (table_id == skip)
			continue;
		frame = NULL;
		st = tapas_ledger_file_encode_keys(table_id, keys + start[t], start[t + 1] - start[t],
									 &frame, &len);
		st = dump_frame(st, frame, len, write_fn, arg);
	}
	tapas_free(keys);
	tapas_free(start);
	/* runs of one statement's cells, never across a skipped cell */
	for (i = 0; st == TAPAS_OK && i < s->ncells; i = j)
	{
		if (tapas_ledger_store_cell(s, i)->table_id == skip)
		{
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < s->ncells && tapas_ledger_store_cell(s, j)->table_id != skip &&
			 same_stmt(s, i, j); j++)
			;
		st = dump_stmt(s, i, j, &max_stat, write_fn, arg);
	}
	return st;
}
