/*
 * t-ledger_store.c
 *	  Unit tests for src/lstore/ledger_store.c and ledger_batch.c.
 *
 * Oracle: test/unit/lstore/ledger_workload.h assigns dense indices on its own;
 * every stored cover must equal the oracle's index set of its keys, and
 * tapas_ledger_store_validate must pass after every change.  Capacity tests
 * compare the whole region byte for byte before and after a refused
 * append (all or nothing).
 */
#include <stdio.h>
#include <string.h>

#include "lstore/ledger_store.h"
#include "lstore/ledger_store_int.h"
#include "util/memory.h"
#include "lstore/ledger_workload.h"
#include "tapas_test.h"

/* prepares and applies st; returns the status */
static tapas_status
append(tapas_ledger_store_t *s, const wl_stmt_t *st, tapas_ledger_store_full_t *full,
	   int64_t *first)
{
	tapas_ledger_batch_t *b;
	tapas_status rc = tapas_ledger_store_prepare(s, st->in, st->ncells, st->query, &b);

	if (rc != TAPAS_OK)
		return rc;
	rc = tapas_ledger_store_apply(s, b, full);
	if (first)
		*first = b->first_log_id;
	tapas_ledger_batch_free(b);
	return rc;
}

/* checks the last st->ncells cells of s against the oracle */
static void
check_last_stmt(const tapas_ledger_store_t *s, const wl_oracle_t *o, const wl_stmt_t *st,
				int64_t first)
{
	int			c;

	for (c = 0; c < st->ncells; c++)
	{
		const tapas_ledger_store_cell_t *cell = tapas_ledger_store_cell(s, s->ncells - st->ncells + c);
		uint32_t	len;
		const char *stat = tapas_ledger_store_stat_text(s, cell, &len);

		TAPAS_CHECK(cell->log_id == first + c);
		TAPAS_CHECK(cell->table_id == st->in[c].table_id);
		TAPAS_CHECK(cell->answer == st->in[c].answer);
		TAPAS_CHECK(len == strlen(st->in[c].statistic) &&
					memcmp(stat, st->in[c].statistic, len) == 0);
		TAPAS_CHECK(strcmp(tapas_ledger_store_query_text(s, cell), st->query) == 0);
		TAPAS_CHECK_MSG(wl_cover_matches(o, st, c, tapas_ledger_store_cover(s, cell), cell->cover_len),
						"cell %d of log_id %lld", c, (long long) first);
	}
}

/* the oracle's index of every logged key agrees with lookups and table_keys */
static void
check_index(const tapas_ledger_store_t *s, const wl_oracle_t *o)
{
	int			t,
				u;

	for (t = 0; t < WL_TABLES; t++)
	{
		int64_t		n = (int64_t) tapas_ledger_store_table_n(s, wl_relids[t]);
		int64_t    *keys = malloc((n ? n : 1) * sizeof(int64_t));

		TAPAS_CHECK(n == o->n[t]);
		tapas_ledger_store_table_keys(s, wl_relids[t], keys);
		for (u = 0; u < WL_U; u++)
		{
			TAPAS_CHECK(tapas_ledger_store_lookup(s, wl_relids[t], wl_key(u)) == o->idx[t][u]);
			if (o->idx[t][u] >= 0 && o->idx[t][u] < n)
				TAPAS_CHECK(keys[o->idx[t][u]] == wl_key(u));
		}
		free(keys);
	}
}

static void
test_lstore_limits_and_init(void)
{
	tapas_ledger_store_limits_t bad = {0, 10, 1024, 4};
	tapas_ledger_store_limits_t ok = {100, 10, 1024, 4};
	static uint64_t region[100000];
	tapas_ledger_store_t *s;
	const char *reason = NULL;

	TAPAS_CHECK(tapas_ledger_store_size(&bad) == 0);
	bad = ok;
	bad.max_tables = TAPAS_LEDGER_STORE_MAX_TABLES + 1;
	TAPAS_CHECK(tapas_ledger_store_size(&bad) == 0);
	TAPAS_CHECK(tapas_ledger_store_size(&ok) > 0);
	TAPAS_CHECK(tapas_ledger_store_init(region, tapas_ledger_store_size(&ok) - 1, &ok) == NULL);
	TAPAS_CHECK(tapas_ledger_store_init((char *) region + 4, sizeof(region) - 8, &ok) == NULL);
	s = tapas_ledger_store_init(region, sizeof(region), &ok);
	TAPAS_CHECK(s != NULL);
	TAPAS_CHECK(tapas_ledger_store_validate(s, &reason) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_lookup(s, 1, 42) == -1);
	TAPAS_CHECK(tapas_ledger_store_table_n(s, 1) == 0);
	TAPAS_CHECK(tapas_ledger_store_cell(s, 0) == NULL);
}

static void
test_lstore_append_matches_oracle(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = wl_store_create(WL_TABLES * WL_U, 100000, 64 << 20, 8);
	static wl_oracle_t o;
	long		it,
				iters = tapas_test_iters(150);
	int64_t		expect_first = 1;
	const char *reason = "";

	tapas_rng_seed(&rng, tapas_test_seed());
	wl_oracle_init(&o);
	for (it = 0; it < iters; it++)
	{
		static wl_stmt_t st;
		int64_t		first = 0;

		wl_stmt_make(&rng, &st, (int) it);
		TAPAS_CHECK(append(s, &st, NULL, &first) == TAPAS_OK);
		TAPAS_CHECK(first == expect_first);
		expect_first += st.ncells;
		wl_oracle_apply(&o, &st);
		check_last_stmt(s, &o, &st, first);
		TAPAS_CHECK_MSG(tapas_ledger_store_validate(s, &reason) == TAPAS_OK, "%s", reason);
		wl_stmt_free(&st);
	}
	check_index(s, &o);
	/* each statistic at most twice: logged without a basis, then with one */
	TAPAS_CHECK(s->nstats <= WL_TABLES * 3 * 2);
	free(s);
}

static void
test_lstore_prepare_errors(void)
{
	tapas_ledger_store_t *s = wl_store_create(100, 10, 4096, 2);
	int64_t		keys[2] = {1, 2};
	tapas_ledger_cell_in_t in = {7, "count(*)", 1.0, keys, 2, NULL};
	tapas_ledger_batch_t *b = (tapas_ledger_batch_t *) 1;
	char		longstat[70000];

	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 0, NULL, &b) == TAPAS_EINVAL && b == NULL);
	in.table_id = 0;
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_EINVAL);
	in.table_id = 7;
	in.statistic = "";
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_EINVAL);
	in.statistic = NULL;
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_EINVAL);
	memset(longstat, 'x', sizeof(longstat) - 1);
	longstat[sizeof(longstat) - 1] = 0;
	in.statistic = longstat;
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_EINVAL);
	in.statistic = "count(*)";
	in.keys = NULL;
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_EINVAL);
	/* an empty cover is fine, and so is a NULL query */
	in.nkeys = 0;
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_query_text(s, tapas_ledger_store_cell(s, 0)) == NULL);
	TAPAS_CHECK(tapas_ledger_store_cell(s, 0)->ncovered == 0);
	tapas_ledger_batch_free(b);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	free(s);
}

/* a refused append leaves every byte of the region unchanged */
static void
check_refused(tapas_ledger_store_t *s, size_t size, const wl_stmt_t *st, tapas_ledger_store_full_t expect)
{
	void	   *before = malloc(size);
	tapas_ledger_store_full_t full = TAPAS_LEDGER_STORE_FITS;

	memcpy(before, s, size);
	TAPAS_CHECK(append(s, st, &full, NULL) == TAPAS_ELIMIT);
	TAPAS_CHECK_MSG(full == expect, "full %d, expected %d", (int) full, (int) expect);
	TAPAS_CHECK(memcmp(before, s, size) == 0);
	free(before);
}

static void
test_lstore_capacity(void)
{
	tapas_ledger_store_limits_t lim = {50, 4, 4096, 2};
	size_t		size = tapas_ledger_store_size(&lim);
	tapas_ledger_store_t *s = wl_store_create(50, 4, 4096, 2);
	static wl_stmt_t st;
	int64_t		keys[60];
	int			i;

	for (i = 0; i < 60; i++)
		keys[i] = i * 10;
	memset(&st, 0, sizeof(st));
	strcpy(st.query, "q");
	st.ncells = 1;
	st.in[0] = (tapas_ledger_cell_in_t) {1, "count(*)", 1, keys, 51, NULL};
	check_refused(s, size, &st, TAPAS_LEDGER_STORE_FULL_RECORDS);
	st.in[0].nkeys = 50;
	TAPAS_CHECK(append(s, &st, NULL, NULL) == TAPAS_OK);
	/* keys already indexed cost no record */
	st.in[0].nkeys = 40;
	TAPAS_CHECK(append(s, &st, NULL, NULL) == TAPAS_OK);
	st.in[0].keys = keys + 50;
	st.in[0].nkeys = 1;
	check_refused(s, size, &st, TAPAS_LEDGER_STORE_FULL_RECORDS);
	/* two tables at most */
	st.in[0].keys = keys;
	st.in[0].nkeys = 0;
	st.in[0].table_id = 2;
	TAPAS_CHECK(append(s, &st, NULL, NULL) == TAPAS_OK);
	st.in[0].table_id = 3;
	check_refused(s, size, &st, TAPAS_LEDGER_STORE_FULL_TABLES);
	/* four cells at most; a two-cell statement is refused whole */
	st.ncells = 2;
	st.in[0].table_id = 1;
	st.in[1] = st.in[0];
	check_refused(s, size, &st, TAPAS_LEDGER_STORE_FULL_CELLS);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	free(s);

	/* arena: a long query text does not fit */
	s = wl_store_create(50, 30, 512, 2);
	size = tapas_ledger_store_size(&(tapas_ledger_store_limits_t) {50, 30, 512, 2});
	st.ncells = 1;
	st.in[0] = (tapas_ledger_cell_in_t) {1, "count(*)", 1, keys, 10, NULL};
	memset(st.query, 'q', sizeof(st.query) - 1);
	st.query[sizeof(st.query) - 1] = 0;
	for (i = 0; i < 30; i++)
	{
		tapas_ledger_store_full_t full;
		tapas_status rc = append(s, &st, &full, NULL);

		if (rc != TAPAS_OK)
		{
			TAPAS_CHECK(rc == TAPAS_ELIMIT && full == TAPAS_LEDGER_STORE_FULL_MEMORY);
			break;
		}
	}
	TAPAS_CHECK(i > 0 && i < 30);
	check_refused(s, size, &st, TAPAS_LEDGER_STORE_FULL_MEMORY);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	free(s);
}

static void
test_lstore_reset_table(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = wl_store_create(WL_TABLES * WL_U, 10000, 16 << 20, 8);
	static wl_oracle_t o;
	int64_t		next,
				kept_first = 0;
	uint64_t	removed = 0,
				expect_removed = 0,
				ncells;
	int			it,
				c;
	const char *reason = "";

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	wl_oracle_init(&o);
	for (it = 0; it < 40; it++)
	{
		static wl_stmt_t st;

		wl_stmt_make(&rng, &st, it);
		TAPAS_CHECK(append(s, &st, NULL, NULL) == TAPAS_OK);
		wl_oracle_apply(&o, &st);
		for (c = 0; c < st.ncells; c++)
			expect_removed += st.table[c] == 1;
		wl_stmt_free(&st);
	}
	next = s->next_log_id;
	ncells = s->ncells;
	TAPAS_CHECK(tapas_ledger_store_reset_table(s, wl_relids[1], &removed) == TAPAS_OK);
	TAPAS_CHECK_MSG(tapas_ledger_store_validate(s, &reason) == TAPAS_OK, "%s", reason);
	TAPAS_CHECK(removed == expect_removed && s->ncells == ncells - removed);
	TAPAS_CHECK(s->next_log_id == next);
	TAPAS_CHECK(tapas_ledger_store_table_n(s, wl_relids[1]) == 0);
	for (c = 0; c < WL_U; c++)
		o.idx[1][c] = -1;
	o.n[1] = 0;
	check_index(s, &o);			/* other tables keep every index */
	for (c = 0; c < (int) s->ncells; c++)
		TAPAS_CHECK(tapas_ledger_store_cell(s, c)->table_id != wl_relids[1]);
	/* new appends continue the log_ids */
	{
		static wl_stmt_t st;

		wl_stmt_make(&rng, &st, 99);
		TAPAS_CHECK(append(s, &st, NULL, &kept_first) == TAPAS_OK);
		TAPAS_CHECK(kept_first == next);
		wl_oracle_apply(&o, &st);
		check_last_stmt(s, &o, &st, kept_first);
		wl_stmt_free(&st);
	}
	/* a table whose only cell covers nothing survives another table's reset */
	{
		tapas_ledger_cell_in_t in = {777, "count(*)", 0, NULL, 0, NULL};
		tapas_ledger_batch_t *b;

		TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_OK);
		TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
		tapas_ledger_batch_free(b);
		TAPAS_CHECK(tapas_ledger_store_reset_table(s, wl_relids[0], &removed) == TAPAS_OK);
		TAPAS_CHECK_MSG(tapas_ledger_store_validate(s, &reason) == TAPAS_OK, "%s", reason);
		TAPAS_CHECK(tapas_ledger_store_table_slot(s, 777) >= 0);
		TAPAS_CHECK(tapas_ledger_store_reset_table(s, 777, &removed) == TAPAS_OK && removed == 1);
	}
	/* resetting an unknown table removes nothing */
	TAPAS_CHECK(tapas_ledger_store_reset_table(s, 12345, &removed) == TAPAS_OK && removed == 0);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	free(s);
}

static void
test_lstore_add_keys(void)
{
	tapas_ledger_store_t *s = wl_store_create(10, 10, 4096, 2);
	int64_t		keys[4] = {5, -7, 9, 5};

	TAPAS_CHECK(tapas_ledger_store_add_keys(s, 1, keys, 4) == TAPAS_EINVAL);	/* repeated 5 */
	TAPAS_CHECK(s->nrecords == 0 && s->ntables == 0);
	TAPAS_CHECK(tapas_ledger_store_add_keys(s, 1, keys, 3) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_lookup(s, 1, -7) == 1 && tapas_ledger_store_lookup(s, 2, -7) == -1);
	TAPAS_CHECK(tapas_ledger_store_add_keys(s, 1, keys + 2, 1) == TAPAS_EINVAL);	/* 9 known */
	TAPAS_CHECK(tapas_ledger_store_add_keys(s, 2, keys, 3) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_add_keys(s, 3, keys, 1) == TAPAS_ELIMIT);	/* tables */
	TAPAS_CHECK(tapas_ledger_store_add_keys(s, 2, (int64_t[5]) {1, 2, 3, 4, 6}, 5) == TAPAS_ELIMIT);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	free(s);
}

/* every allocation failure of prepare returns ENOMEM and leaks nothing */
static void
test_lstore_prepare_nomem(void)
{
	tapas_ledger_store_t *s = wl_store_create(WL_TABLES * WL_U, 100, 1 << 20, 4);
	tapas_rng_t rng;
	static wl_stmt_t st;
	long		k;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	wl_stmt_make(&rng, &st, 0);
	for (k = 0; k < 40; k++)
	{
		long		live = tapas_memory_live();
		tapas_ledger_batch_t *b = NULL;
		tapas_status rc;

		tapas_memory_fail_after(k);
		rc = tapas_ledger_store_prepare(s, st.in, st.ncells, st.query, &b);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(rc == TAPAS_OK || (rc == TAPAS_ENOMEM && b == NULL));
		tapas_ledger_batch_free(b);
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after failure %ld", k);
		if (rc == TAPAS_OK)
			break;
	}
	wl_stmt_free(&st);
	free(s);
}

/* ---- In-place reset and role usage ---- */

/* what a cell holds, copied out of the store (for comparison after a reset) */
typedef struct cell_copy
{
	tapas_ledger_store_cell_t c;
	char	   *stat;
	char	   *query;
	uint8_t    *cover;
} cell_copy_t;

static cell_copy_t *
copy_cells(const tapas_ledger_store_t *s)
{
	cell_copy_t *cc = calloc(s->ncells + 1, sizeof(cell_copy_t));
	uint64_t	i;

	for (i = 0; i < s->ncells; i++)
	{
		const tapas_ledger_store_cell_t *c = tapas_ledger_store_cell(s, i);
		uint32_t	len;
		const char *st = tapas_ledger_store_stat_text(s, c, &len);
		const char *q = tapas_ledger_store_query_text(s, c);

		cc[i].c = *c;
		cc[i].stat = strndup(st, len);
		cc[i].query = q ? strdup(q) : NULL;
		cc[i].cover = malloc(c->cover_len + 1);
		memcpy(cc[i].cover, tapas_ledger_store_cover(s, c), c->cover_len);
	}
	return cc;
}

static void
free_cells(cell_copy_t *cc, uint64_t n)
{
	uint64_t	i;

	for (i = 0; i < n; i++)
	{
		free(cc[i].stat);
		free(cc[i].query);
		free(cc[i].cover);
	}
	free(cc);
}

/* s holds exactly the cells of before[0..n) not of table_id, unchanged */
static int
cells_survive(const tapas_ledger_store_t *s, const cell_copy_t *before, uint64_t n,
			  uint64_t table_id)
{
	uint64_t	i,
				k = 0;

	for (i = 0; i < n; i++)
	{
		const cell_copy_t *b = &before[i];
		const tapas_ledger_store_cell_t *c;
		uint32_t	len,
					blen;
		const char *st,
				   *q;

		if (b->c.table_id == table_id)
			continue;
		if ((c = tapas_ledger_store_cell(s, k++)) == NULL)
			return 0;
		st = tapas_ledger_store_stat_text(s, c, &len);
		q = tapas_ledger_store_query_text(s, c);
		if (c->log_id != b->c.log_id || c->table_id != b->c.table_id ||
			c->answer != b->c.answer || c->role != b->c.role ||
			c->ncovered != b->c.ncovered || c->cover_len != b->c.cover_len ||
			len != strlen(b->stat) || memcmp(st, b->stat, len) != 0 ||
			(q == NULL) != (b->query == NULL) || (q && strcmp(q, b->query) != 0) ||
			memcmp(tapas_ledger_store_cover(s, c), b->cover, c->cover_len) != 0 ||
			(tapas_ledger_store_find_stat(s, c->table_id, b->stat, len) != c->stat_off &&
			 tapas_ledger_store_stat_basis(s, c, &blen) != NULL))
			return 0;
	}
	return k == s->ncells;
}

/*
 * role usage recomputed from the cells, the independent way: each distinct
 * cover and query text (by offset) is charged to the first cell using it
 */
static tapas_ledger_store_usage_t
usage_oracle(const cell_copy_t *cc, uint64_t n, uint32_t role, uint64_t skip_table)
{
	tapas_ledger_store_usage_t u = {0, 0};
	uint64_t	i,
				j;

	for (i = 0; i < n; i++)
	{
		int			cover_new = 1,
					query_new = cc[i].query != NULL;

		if (cc[i].c.table_id == skip_table)
			continue;
		for (j = 0; j < i; j++)
		{
			if (cc[j].c.table_id == skip_table)
				continue;
			if (cc[j].c.cover_off == cc[i].c.cover_off)
				cover_new = 0;
			if (cc[j].c.query_off == cc[i].c.query_off)
				query_new = 0;
		}
		if (cc[i].c.role != role)
			continue;
		u.cells++;
		if (cover_new)
			u.bytes += (cc[i].c.cover_len + 7) / 8 * 8;
		if (query_new)
			u.bytes += (strlen(cc[i].query) + 1 + 7) / 8 * 8;
	}
	return u;
}

static void
test_lstore_reset_in_place(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = wl_store_create(WL_TABLES * WL_U, 10000, 16 << 20, 8);
	const char *reason = "";
	int			it,
				round,
				t;

	tapas_rng_seed(&rng, tapas_test_seed() + 11);
	for (round = 0; round < 3; round++)
	{
		for (it = 0; it < 50; it++)
		{
			static wl_stmt_t st;
			tapas_ledger_batch_t *b;

			wl_stmt_make(&rng, &st, 100 * round + it);
			TAPAS_CHECK(tapas_ledger_store_prepare(s, st.in, st.ncells,
											 it % 5 == 2 ? NULL : st.query, &b) == TAPAS_OK);
			b->role = 10 + (uint32_t) tapas_rng_below(&rng, 4);
			TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
			tapas_ledger_batch_free(b);
			wl_stmt_free(&st);
		}
		TAPAS_CHECK_MSG(tapas_ledger_store_validate(s, &reason) == TAPAS_OK, "%s", reason);
		for (t = 0; t < WL_TABLES; t++)
		{
			uint64_t	table_id = wl_relids[(round + t) % WL_TABLES],
						n = s->ncells,
						removed;
			cell_copy_t *before = copy_cells(s);
			uint32_t	role;
			uint64_t	arena = s->arena_used;

			TAPAS_CHECK(tapas_ledger_store_reset_table(s, table_id, &removed) == TAPAS_OK);
			TAPAS_CHECK_MSG(tapas_ledger_store_validate(s, &reason) == TAPAS_OK,
							"round %d table %d: %s", round, t, reason);
			TAPAS_CHECK(cells_survive(s, before, n, table_id));
			TAPAS_CHECK(removed == 0 || s->arena_used < arena);
			for (role = 10; role < 14; role++)
			{
				tapas_ledger_store_usage_t got = tapas_ledger_store_role_usage(s, role),
							want = usage_oracle(before, n, role, table_id);

				TAPAS_CHECK(got.cells == want.cells && got.bytes == want.bytes);
			}
			free_cells(before, n);
			/* keep one table of three between rounds */
			if (t == 1)
				break;
		}
	}
	free(s);
}

/* usage per role follows appends; a role beyond the roles part is refused */
static void
test_lstore_role_usage(void)
{
	tapas_ledger_store_t *s = wl_store_create(1000, 2 * TAPAS_LEDGER_STORE_MAX_ROLES + 8, 16 << 20, 8);
	int64_t		keys[3] = {1, 2, 3};
	tapas_ledger_cell_in_t in = {16401, "count(*)", 0, keys, 3, NULL};
	tapas_ledger_batch_t *b;
	tapas_ledger_store_full_t full;
	tapas_ledger_store_usage_t u;
	uint32_t	r;

	for (r = 1; r <= TAPAS_LEDGER_STORE_MAX_ROLES; r++)
	{
		TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, r == 1 ? "SELECT 1" : NULL, &b) == TAPAS_OK);
		b->role = r;
		TAPAS_CHECK(tapas_ledger_store_apply(s, b, &full) == TAPAS_OK);
		if (r == 1)
			TAPAS_CHECK(tapas_ledger_batch_usage(b).bytes == 16 + ((b->cells[0].cover_len + 7) & ~7u));	/* "SELECT 1" and its NUL: 16 */
		tapas_ledger_batch_free(b);
	}
	u = tapas_ledger_store_role_usage(s, 1);
	TAPAS_CHECK(u.cells == 1 && u.bytes > 8);
	u = tapas_ledger_store_role_usage(s, TAPAS_LEDGER_STORE_MAX_ROLES + 1);
	TAPAS_CHECK(u.cells == 0 && u.bytes == 0);
	TAPAS_CHECK(tapas_ledger_store_prepare(s, &in, 1, NULL, &b) == TAPAS_OK);
	b->role = TAPAS_LEDGER_STORE_MAX_ROLES + 1;
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, &full) == TAPAS_ELIMIT && full == TAPAS_LEDGER_STORE_FULL_ROLES);
	/* a known role still logs */
	b->role = 7;
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, &full) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_role_usage(s, 7).cells == 2);
	tapas_ledger_batch_free(b);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	free(s);
}

/*
 * ledger_stat_walk.c against the scan it replaces: for every cell of every
 * prepared batch, the walk's (exists, has_basis) equals
 * tapas_ledger_store_stat_state's, and prepare kept a basis exactly on the
 * cells where the scan says none is held yet.  Half of the cells get a
 * private copy of their statistic's text (equal text, other pointer).
 */
static void
test_lstore_stat_walk(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = wl_store_create(WL_TABLES * WL_U, 100000, 64 << 20, 8);
	long		it,
				iters = tapas_test_iters(150);
	char		copies[WL_MAXCELLS][64];

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		static wl_stmt_t st;
		tapas_ledger_batch_t *b;
		ledger_stat_walk_t w;
		int			c;

		wl_stmt_make(&rng, &st, (int) it);
		for (c = 0; c < st.ncells; c++)
			if (tapas_rng_below(&rng, 2))
			{
				snprintf(copies[c], sizeof(copies[c]), "%s", st.in[c].statistic);
				st.in[c].statistic = copies[c];
			}
		TAPAS_CHECK(tapas_ledger_store_prepare(s, st.in, st.ncells, st.query, &b) == TAPAS_OK);
		ledger_stat_walk_init(&w, s, b);
		for (c = 0; c < st.ncells; c++)
		{
			int			e1,
						h1,
						e2,
						h2;
			size_t		len = st.in[c].basis ? strlen(st.in[c].basis) : 0;

			tapas_ledger_store_stat_state(s, b, c, &e1, &h1);
			ledger_stat_walk_state(&w, c, &e2, &h2);
			ledger_stat_walk_done(&w, c);
			TAPAS_CHECK_MSG(e1 == e2 && h1 == h2, "statement %ld cell %d", it, c);
			TAPAS_CHECK((b->cells[c].basis_len > 0) == (len > 0 && !h1));
		}
		ledger_stat_walk_free(&w);
		TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
		tapas_ledger_batch_free(b);
		TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
		wl_stmt_free(&st);
	}
	TAPAS_CHECK(s->nstats <= WL_TABLES * 3 * 2);
	/* batches of 600 cells over 50 statistic texts: collisions, long chains */
	for (it = 0; it < 6; it++)
	{
		static tapas_ledger_cell_in_t in[600];
		static char texts[600][32];
		static int64_t keys[600];
		tapas_ledger_batch_t *b;
		ledger_stat_walk_t w;
		int			c;

		for (c = 0; c < 600; c++)
		{
			snprintf(texts[c], sizeof(texts[c]), "sum(x%d)", (int) tapas_rng_below(&rng, 50));
			keys[c] = wl_key((int) tapas_rng_below(&rng, WL_U));
			in[c].table_id = wl_relids[tapas_rng_below(&rng, 2)];
			in[c].statistic = texts[c];
			in[c].answer = 1;
			in[c].keys = &keys[c];
			in[c].nkeys = 1;
			in[c].basis = wl_bases[tapas_rng_below(&rng, 3)];
		}
		TAPAS_CHECK(tapas_ledger_store_prepare(s, in, 600, NULL, &b) == TAPAS_OK);
		ledger_stat_walk_init(&w, s, b);
		for (c = 0; c < 600; c++)
		{
			int			e1,
						h1,
						e2,
						h2;

			tapas_ledger_store_stat_state(s, b, c, &e1, &h1);
			ledger_stat_walk_state(&w, c, &e2, &h2);
			ledger_stat_walk_done(&w, c);
			TAPAS_CHECK_MSG(e1 == e2 && h1 == h2, "big batch %ld cell %d", it, c);
			TAPAS_CHECK((b->cells[c].basis_len > 0) == (in[c].basis != NULL && !h1));
		}
		ledger_stat_walk_free(&w);
		TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
		tapas_ledger_batch_free(b);
		TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	}
	free(s);
}

/*
 * Cells that share one keys array with the cell before them (the gate's
 * statistics of one group) reuse its indices and cover: the store after
 * applying such batches equals, byte for byte, a store fed the same
 * batches with a private copy of every keys array.
 */
static void
test_lstore_shared_keys(void)
{
	tapas_rng_t rng;
	tapas_ledger_store_limits_t lim = {WL_TABLES * WL_U, 100000, 16 << 20, 8};
	size_t		size = tapas_ledger_store_size(&lim);
	tapas_ledger_store_t *a = wl_store_create(WL_TABLES * WL_U, 100000, 16 << 20, 8);
	tapas_ledger_store_t *b = wl_store_create(WL_TABLES * WL_U, 100000, 16 << 20, 8);
	long		it,
				iters = tapas_test_iters(100);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		static wl_stmt_t st;
		static tapas_ledger_cell_in_t shared[WL_MAXCELLS];
		int64_t    *copies[WL_MAXCELLS];
		tapas_ledger_batch_t *ba,
				   *bb;
		int			c;

		wl_stmt_make(&rng, &st, (int) it);
		/* a: cell c repeats cell c - 1's array half of the time; b: a copy */
		for (c = 0; c < st.ncells; c++)
		{
			shared[c] = st.in[c];
			if (c > 0 && tapas_rng_below(&rng, 2))
			{
				shared[c].keys = shared[c - 1].keys;
				shared[c].nkeys = shared[c - 1].nkeys;
				shared[c].table_id = tapas_rng_below(&rng, 4) ? shared[c - 1].table_id
					: st.in[c].table_id;
			}
			copies[c] = malloc((shared[c].nkeys ? shared[c].nkeys : 1) * sizeof(int64_t));
			memcpy(copies[c], shared[c].keys, shared[c].nkeys * sizeof(int64_t));
			st.in[c] = shared[c];
			st.in[c].keys = copies[c];
		}
		TAPAS_CHECK(tapas_ledger_store_prepare(a, shared, st.ncells, st.query, &ba) == TAPAS_OK);
		TAPAS_CHECK(tapas_ledger_store_prepare(b, st.in, st.ncells, st.query, &bb) == TAPAS_OK);
		for (c = 0; c < st.ncells; c++)
			TAPAS_CHECK(ba->cells[c].cover_len == bb->cells[c].cover_len &&
						memcmp(ba->cells[c].cover, bb->cells[c].cover, ba->cells[c].cover_len) == 0 &&
						ba->cells[c].nnew == bb->cells[c].nnew &&
						ba->cells[c].shared_from == bb->cells[c].shared_from);
		ba->logged_at = bb->logged_at = it;
		TAPAS_CHECK(tapas_ledger_store_apply(a, ba, NULL) == TAPAS_OK);
		TAPAS_CHECK(tapas_ledger_store_apply(b, bb, NULL) == TAPAS_OK);
		tapas_ledger_batch_free(ba);
		tapas_ledger_batch_free(bb);
		for (c = 0; c < st.ncells; c++)
			free(copies[c]);
		wl_stmt_free(&st);
		TAPAS_CHECK_MSG(memcmp(a, b, size) == 0, "statement %ld", it);
	}
	TAPAS_CHECK(tapas_ledger_store_validate(a, NULL) == TAPAS_OK);
	free(a);
	free(b);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_lstore_limits_and_init);
	TAPAS_TEST_RUN(test_lstore_append_matches_oracle);
	TAPAS_TEST_RUN(test_lstore_prepare_errors);
	TAPAS_TEST_RUN(test_lstore_capacity);
	TAPAS_TEST_RUN(test_lstore_reset_table);
	TAPAS_TEST_RUN(test_lstore_add_keys);
	TAPAS_TEST_RUN(test_lstore_prepare_nomem);
	TAPAS_TEST_RUN(test_lstore_reset_in_place);
	TAPAS_TEST_RUN(test_lstore_role_usage);
	TAPAS_TEST_RUN(test_lstore_stat_walk);
	TAPAS_TEST_RUN(test_lstore_shared_keys);
	TAPAS_TEST_DONE();
}
