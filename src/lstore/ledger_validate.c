/*-------------------------------------------------------------------------
 *
 * ledger_validate.c
 *	  Invariant checker of the ledger store (for tests).
 *
 * Checks, in O(size of the ledger), every invariant listed in
 * ledger_store.c: counters within limits, table slots distinct, records
 * of each table carrying dense indices 0, 1, ... in order and reachable
 * through the hash, no stray hash entry, the statistic list inside the
 * arena, cells with increasing log_ids whose offsets lie in the arena and
 * whose covers decode to ncovered indices below their table's n.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_validate.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_store_int.h"

#include <stdlib.h>
#include <string.h>

#define FAIL(msg)	do { if (reason) *reason = (msg); return TAPAS_EINCONSISTENT; } while (0)

static tapas_status
ledger_store_validate_records(const tapas_ledger_store_t *s, const char **reason)
{
	uint64_t	i,
				used = 0;
	uint32_t	t,
				u;
	uint32_t	next[TAPAS_LEDGER_STORE_MAX_TABLES] = {0};

	for (t = 0; t < s->ntables; t++)
	{
		if (TABLES(s)[t].table_id == 0)
			FAIL("table slot with table_id 0");
		for (u = 0; u < t; u++)
			if (TABLES(s)[u].table_id == TABLES(s)[t].table_id)
				FAIL("two slots for one table");
	}
	for (i = 0; i < s->nrecords; i++)
	{
		const ledger_store_record_t *r = &RECORDS(s)[i];

		if (r->table >= s->ntables)
			FAIL("record of an unknown table slot");
		if (r->idx != next[r->table]++)
			FAIL("dense indices of a table are not 0, 1, ... in record order");
		if (HASH(s)[tapas_ledger_store_probe(s, TABLES(s)[r->table].table_id, r->key)] != i + 1)
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

/* the role entries hold exactly what the cells of each role hold */
static tapas_status
ledger_store_validate_roles(const tapas_ledger_store_t *s, const char **reason)
{
	uint64_t	i;
	uint32_t	r,
				q;
	tapas_ledger_store_usage_t seen = {0, 0},
			   *sum;
	int			ok = 1;

	if (s->nroles > TAPAS_LEDGER_STORE_MAX_ROLES)
		FAIL("more roles than the roles part holds");
	for (r = 0; r < s->nroles; r++)
		for (q = 0; q < r; q++)
			if (ROLES(s)[q].role == ROLES(s)[r].role)
				FAIL("two entries for one role");
	sum = calloc(s->nroles + 1, sizeof(tapas_ledger_store_usage_t));
	if (sum == NULL)
		FAIL("out of memory");
	for (i = 0; i < s->ncells && ok; i++)
	{
		tapas_ledger_store_usage_t u = tapas_ledger_store_cell_usage(s, i, &seen);
		const ledger_store_role_t *e = tapas_ledger_store_role_entry(s, CELLS(s)[i].role);

		if (e == NULL)
			ok = 0;
		else
		{
			sum[e - ROLES(s)].cells += u.cells;
			sum[e - ROLES(s)].bytes += u.bytes;
		}
	}
	for (r = 0; r < s->nroles && ok; r++)
		if (sum[r].cells != ROLES(s)[r].cells || sum[r].bytes != ROLES(s)[r].bytes)
			ok = 0;
	free(sum);
	if (!ok)
		FAIL("role usage differs from what its cells hold");
	return TAPAS_OK;
}

static tapas_status
ledger_store_validate_cells(const tapas_ledger_store_t *s, const char **reason)
{
	uint64_t	i,
				off,
				nstats = 0;

	for (off = s->stats_head; off != 0; nstats++)
	{
		const ledger_store_stat_t *st;

		if (off < 8 || off + sizeof(ledger_store_stat_t) > s->arena_used || nstats > s->nstats)
			FAIL("statistic list leaves the arena");
		st = (const ledger_store_stat_t *) (ARENA(s) + off);
		if (off + STAT_BYTES2(st->len, st->basis_len) > s->arena_used)
			FAIL("statistic text or basis leaves the arena");
		off = st->next;
	}
	if (nstats != s->nstats)
		FAIL("statistic list length differs from nstats");
	if (ledger_store_validate_roles(s, reason) != TAPAS_OK)
		return TAPAS_EINCONSISTENT;
	for (i = 0; i < s->ncells; i++)
	{
		const tapas_ledger_store_cell_t *c = &CELLS(s)[i];
		uint64_t	card = 0;
		int64_t		max;

		if (c->log_id >= s->next_log_id || (i > 0 && c->log_id <= CELLS(s)[i - 1].log_id))
			FAIL("log_ids not increasing below next_log_id");
		if (c->table >= s->ntables || TABLES(s)[c->table].table_id != c->table_id)
			FAIL("cell table slot does not match its table_id");
		if (c->stat_off < 8 || c->stat_off >= s->arena_used ||
			((const ledger_store_stat_t *) (ARENA(s) + c->stat_off))->table_id != c->table_id)
			FAIL("cell statistic outside the arena or of another table");
		if (c->query_off >= s->arena_used || c->cover_off < 8 ||
			c->cover_off + c->cover_len > s->arena_used)
			FAIL("cell query or cover outside the arena");
		max = tapas_ledger_store_cover_max(tapas_ledger_store_cover(s, c), c->cover_len, &card);
		if (max == -2 || card != c->ncovered || max >= (int64_t) TABLES(s)[c->table].n)
			FAIL("cover does not decode to ncovered indices below the table's n");
	}
	return TAPAS_OK;
}

tapas_status
tapas_ledger_store_validate(const tapas_ledger_store_t *s, const char **reason)
{
	tapas_status st;

	if (s->magic != LEDGER_STORE_MAGIC)
		FAIL("bad magic");
	if (s->nrecords > s->lim.max_records || s->ncells > s->lim.max_cells ||
		s->ntables > s->lim.max_tables || s->arena_used > s->lim.arena_bytes ||
		s->arena_used < 8 || s->next_log_id < 1)
		FAIL("counter beyond its limit");
	st = ledger_store_validate_records(s, reason);
	if (st == TAPAS_OK)
		st = ledger_store_validate_cells(s, reason);
	return st;
}
