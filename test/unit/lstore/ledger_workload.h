/*-------------------------------------------------------------------------
 *
 * ledger_workload.h
 *	  Random ledger workloads and an independent oracle, shared by the
 *	  unit tests of the ledger store and file (test/unit/common/).
 *
 * Keys are drawn from a universe of WL_U values per table (mapped to
 * spread-out signed int64 keys).  The oracle assigns dense indices on its
 * own, in the documented order (cells in order, keys in order, first
 * occurrence wins), with a plain array per table, so it shares no code
 * with ledger_batch.c's hash tables.
 *
 * IDENTIFICATION
 *	  test/unit/lstore/ledger_workload.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_WORKLOAD_H
#define TAPAS_LEDGER_WORKLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "lstore/ledger_store.h"
#include "util/rng.h"

#define WL_U		3000
#define WL_TABLES	3
#define WL_MAXCELLS	4

/* table ids: two share an OID in different databases ((dbid << 32) | relid) */
static const uint64_t wl_relids[WL_TABLES] = {16401, (UINT64_C(16385) << 32) | 16401,
(UINT64_C(4000000000) << 32) | 4000000000u};
static const char *const wl_stats[] = {"count(*)", "sum(hiv)", "count(*) filter (where hiv)"};
/* basis trees: none (an older file) or one of two texts; the first one logged wins */
static const char *const wl_bases[] = {NULL, "{VAR :varno 1 :varattno 2}", "{CONST :consttype 701}"};

typedef struct wl_oracle
{
	int64_t		idx[WL_TABLES][WL_U];	/* -1 = not yet indexed */
	int64_t		n[WL_TABLES];
} wl_oracle_t;

/* one generated statement */
typedef struct wl_stmt
{
	int			ncells;
	tapas_ledger_cell_in_t in[WL_MAXCELLS];
	int			table[WL_MAXCELLS];
	int64_t    *keys[WL_MAXCELLS];
	int			u[WL_MAXCELLS][WL_U + 64];	/* universe value of each key */
	char		query[64];
} wl_stmt_t;

static inline int64_t
wl_key(int u)
{
	return (int64_t) u * INT64_C(1000003) - INT64_C(1500000000);
}

static inline void
wl_oracle_init(wl_oracle_t *o)
{
	int			t,
				u;

	for (t = 0; t < WL_TABLES; t++)
	{
		o->n[t] = 0;
		for (u = 0; u < WL_U; u++)
			o->idx[t][u] = -1;
	}
}

/* draws one cell's universe values: dense random, range, small, or empty */
static inline int
wl_draw_cell(tapas_rng_t *rng, int *u)
{
	int			m = 0,
				i,
				kind = (int) tapas_rng_below(rng, 10);

	if (kind < 4)
	{
		double		p = tapas_rng_uniform(rng);

		for (i = 0; i < WL_U; i++)
			if (tapas_rng_uniform(rng) < p)
				u[m++] = i;
	}
	else if (kind < 7)
	{
		int			a = (int) tapas_rng_below(rng, WL_U),
					b = a + (int) tapas_rng_below(rng, WL_U - a + 1);

		for (i = a; i < b; i++)
			u[m++] = i;
	}
	else if (kind < 9)
	{
		int			k = (int) tapas_rng_below(rng, 12);

		for (i = 0; i < k; i++)
			u[m++] = (int) tapas_rng_below(rng, WL_U);	/* may repeat */
	}
	/* shuffle, and sometimes add duplicates */
	for (i = m - 1; i > 0; i--)
	{
		int			j = (int) tapas_rng_below(rng, i + 1),
					x = u[i];

		u[i] = u[j];
		u[j] = x;
	}
	if (m > 0 && tapas_rng_below(rng, 4) == 0)
		for (i = 0; i < 8; i++)
		{
			int			x = u[tapas_rng_below(rng, m)];

			u[m++] = x;
		}
	return m;
}

static inline void
wl_stmt_make(tapas_rng_t *rng, wl_stmt_t *st, int id)
{
	int			c,
				i;

	st->ncells = 1 + (int) tapas_rng_below(rng, WL_MAXCELLS);
	snprintf(st->query, sizeof(st->query), "SELECT %d /* statement %d */", id, id);
	for (c = 0; c < st->ncells; c++)
	{
		int			m = wl_draw_cell(rng, st->u[c]);

		st->table[c] = (int) tapas_rng_below(rng, WL_TABLES);
		st->keys[c] = malloc((m ? m : 1) * sizeof(int64_t));
		for (i = 0; i < m; i++)
			st->keys[c][i] = wl_key(st->u[c][i]);
		st->in[c].table_id = wl_relids[st->table[c]];
		st->in[c].statistic = wl_stats[tapas_rng_below(rng, 3)];
		st->in[c].answer = (double) tapas_rng_below(rng, 1000) / 4;
		st->in[c].keys = st->keys[c];
		st->in[c].nkeys = (uint64_t) m;
		st->in[c].basis = wl_bases[tapas_rng_below(rng, 3)];
	}
}

static inline void
wl_stmt_free(wl_stmt_t *st)
{
	int			c;

	for (c = 0; c < st->ncells; c++)
		free(st->keys[c]);
}

/* the oracle's indices after st is logged */
static inline void
wl_oracle_apply(wl_oracle_t *o, const wl_stmt_t *st)
{
	int			c;
	uint64_t	i;

	for (c = 0; c < st->ncells; c++)
		for (i = 0; i < st->in[c].nkeys; i++)
		{
			int64_t    *slot = &o->idx[st->table[c]][st->u[c][i]];

			if (*slot < 0)
				*slot = o->n[st->table[c]]++;
		}
}

/* 1 if the stored cell's cover is exactly the oracle's indices of cell c */
static inline int
wl_cover_matches(const wl_oracle_t *o, const wl_stmt_t *st, int c,
				 const uint8_t *cover, uint64_t len)
{
	roaring_bitmap_t *r = roaring_bitmap_portable_deserialize_safe((const char *) cover, len);
	roaring_bitmap_t *expect = roaring_bitmap_create();
	uint64_t	i;
	int			ok;

	if (r == NULL)
	{
		roaring_bitmap_free(expect);
		return 0;
	}
	for (i = 0; i < st->in[c].nkeys; i++)
		roaring_bitmap_add(expect, (uint32_t) o->idx[st->table[c]][st->u[c][i]]);
	ok = roaring_bitmap_equals(r, expect);
	roaring_bitmap_free(r);
	roaring_bitmap_free(expect);
	return ok;
}

static inline tapas_ledger_store_t *
wl_store_create(uint64_t max_records, uint64_t max_cells, uint64_t arena, uint32_t tables)
{
	tapas_ledger_store_limits_t lim = {max_records, max_cells, arena, tables};
	size_t		size = tapas_ledger_store_size(&lim);
	void	   *region = NULL;

	if (posix_memalign(&region, 64, size) != 0)
		return NULL;

	return tapas_ledger_store_init(region, size, &lim);
}

#endif							/* TAPAS_LEDGER_WORKLOAD_H */
