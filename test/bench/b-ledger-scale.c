/*-------------------------------------------------------------------------
 *
 * b-ledger-scale.c
 *	  A ledger that grows gracefully: memory per cell with shared covers,
 *	  tapas.reset and replay at 10^5 cells, against the old code in the
 *	  same run.
 *
 * 1. Memory per cell, n = 100,000 records indexed in key order: a random
 *    half, a contiguous range of 25,000 keys, and one statement of a
 *    1,000-group GROUP BY with two statistics (count(*) FILTER and
 *    sum(income), 2,000 cells over a random partition into groups of about
 *    100).  "unshared" is the same batch applied with every cell keeping
 *    its own cover (what the ledger did before shared covers), "shared"
 *    what it does now; bytes = 88-byte cell header + arena growth, and the
 *    file frame per cell.
 *
 * 2. Reset and replay at 10^5 cells: a store of 100 such GROUP BY
 *    statements (one statistic: 100,000 cells) on table A plus 16 cells of
 *    table B, in a region sized as the server sizes it.  tapas.reset(B) in
 *    place (ledger_reset.c) against the old path (copy the region, rebuild
 *    it without the table in a second copy, copy it back: reset_by_copy
 *    below, the code of tapas 0.2), for the default region and a large one
 *    (tapas.max_records = 10^7, ledger_memory = 512 MB), then reset(A)
 *    (10^5 cells), the file rewrite (dump), the replay of that file into
 *    an empty store (what the postmaster does at start), and the decoding
 *    of 10^4 covers (the ledger's part of a new backend's first snapshot).
 *
 * IDENTIFICATION
 *	  test/bench/b-ledger-scale.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "bench.h"
#include "lstore/ledger_file.h"
#include "lstore/ledger_store_int.h"
#include "util/memory.h"
#include "util/rng.h"

#define N			100000
#define GROUPS		1000
#define TABLE_A		((UINT64_C(16385) << 32) | 16401)
#define TABLE_B		((UINT64_C(16385) << 32) | 16402)

static tapas_ledger_store_t *
new_store(uint64_t max_records, uint64_t max_cells, uint64_t arena)
{
	tapas_ledger_store_limits_t lim = {max_records, max_cells, arena, 16};
	size_t		size = tapas_ledger_store_size(&lim);
	void	   *region = NULL;

	if (size == 0 || posix_memalign(&region, 64, size) != 0)
		abort();
	return tapas_ledger_store_init(region, size, &lim);
}

/* prepares, optionally unshares, applies; returns the frame bytes */
static size_t
log_batch(tapas_ledger_store_t *s, const tapas_ledger_cell_in_t *in, int ncells, int unshare)
{
	tapas_ledger_batch_t *b;
	uint8_t    *frame;
	size_t		len;
	int			i;

	if (tapas_ledger_store_prepare(s, in, ncells, "SELECT ...", &b) != TAPAS_OK)
		abort();
	if (unshare)
		for (i = 0; i < b->ncells; i++)
			b->cells[i].shared_from = 0;
	b->first_log_id = s->next_log_id;
	if (tapas_ledger_file_encode_stmt(b, &frame, &len) != TAPAS_OK)
		abort();
	b->first_log_id = 0;
	if (tapas_ledger_store_apply(s, b, NULL) != TAPAS_OK)
		abort();
	tapas_free(frame);
	tapas_ledger_batch_free(b);
	return len;
}

/* the key order index: one full-table cell, as a first count(*) */
static void
index_table(tapas_ledger_store_t *s, uint64_t table_id, int64_t *keys)
{
	tapas_ledger_cell_in_t in = {table_id, "count(*)", N, keys, N, NULL};
	int			i;

	for (i = 0; i < N; i++)
		keys[i] = i + 1;
	log_batch(s, &in, 1, 0);
}

/* a random partition of the keys into GROUPS groups: cells nstat x GROUPS */
static tapas_ledger_cell_in_t *
group_by(tapas_rng_t *rng, uint64_t table_id, int64_t *perm, int nstat)
{
	tapas_ledger_cell_in_t *in = malloc(sizeof(tapas_ledger_cell_in_t) * GROUPS * nstat);
	static const char *stats[2] = {"count(*) FILTER (WHERE rare)", "sum(income)"};
	int			g,
				k;

	for (g = 0; g < N; g++)
		perm[g] = g + 1;
	tapas_rng_shuffle_i64(rng, perm, N);
	for (g = 0; g < GROUPS; g++)
		for (k = 0; k < nstat; k++)
		{
			tapas_ledger_cell_in_t *c = &in[g * nstat + k];

			c->table_id = table_id;
			c->statistic = stats[k];
			c->answer = g;
			c->keys = perm + (uint64_t) g * (N / GROUPS);
			c->nkeys = N / GROUPS;
			c->basis = NULL;
		}
	return in;
}

/* per cell: store bytes (unshared, shared) and frame bytes of one batch */
static void
memory_row(const char *name, const tapas_ledger_cell_in_t *in, int ncells, int64_t *keys)
{
	double		mem[2],
				file[2];
	int			u;

	for (u = 0; u < 2; u++)
	{
		tapas_ledger_store_t *s = new_store(2 * N, 10000, UINT64_C(256) << 20);
		uint64_t	before;

		index_table(s, TABLE_A, keys);
		before = s->arena_used;
		file[u] = (double) log_batch(s, in, ncells, u == 0) / ncells;
		mem[u] = sizeof(tapas_ledger_store_cell_t) + (double) (s->arena_used - before) / ncells;
		free(s);
	}
	printf("  %-34s %6d %12.0f %12.0f %8.2fx %12.0f %12.0f %8.2fx\n", name, ncells,
		   mem[0], mem[1], mem[0] / mem[1], file[0], file[1], file[0] / file[1]);
}

/* ---- The baseline: tapas 0.2's reset, which rebuilt the region in a copy ---- */

static void
reset_by_copy_store(tapas_ledger_store_t *s, uint64_t table_id)
{
	tapas_ledger_store_t *src = tapas_malloc(s->region_size);
	tapas_ledger_store_limits_t lim = s->lim;
	uint64_t	i,
				last_q_src = 0,
				last_q_dst = 0;

	memcpy(src, s, s->region_size);
	tapas_ledger_store_init(s, src->region_size, &lim);
	s->next_log_id = src->next_log_id;
	for (i = 0; i < src->ntables; i++)
		if (TABLES(src)[i].table_id != table_id)
			tapas_ledger_store_put_table(s, TABLES(src)[i].table_id);
	for (i = 0; i < src->nrecords; i++)
	{
		const ledger_store_record_t *r = &RECORDS(src)[i];
		uint64_t	rel = TABLES(src)[r->table].table_id;

		if (rel != table_id)
			tapas_ledger_store_put_record(s, tapas_ledger_store_put_table(s, rel), r->key);
	}
	for (i = 0; i < src->ncells; i++)
	{
		const tapas_ledger_store_cell_t *c = &CELLS(src)[i];
		tapas_ledger_store_cell_t *d = &CELLS(s)[s->ncells];
		uint32_t	len,
					blen = 0;
		const char *stat,
				   *basis;

		if (c->table_id == table_id)
			continue;
		*d = *c;
		stat = tapas_ledger_store_stat_text(src, c, &len);
		basis = tapas_ledger_store_stat_basis(src, c, &blen);
		d->stat_off = tapas_ledger_store_put_stat(s, c->table_id, stat, len, basis, basis ? blen : 0);
		if (c->query_off != 0 && c->query_off != last_q_src)
		{
			const char *q = tapas_ledger_store_query_text(src, c);

			last_q_src = c->query_off;
			last_q_dst = tapas_ledger_store_put_bytes(s, q, strlen(q), 1);
		}
		d->query_off = c->query_off == 0 ? 0 : last_q_dst;
		d->cover_off = tapas_ledger_store_put_bytes(s, tapas_ledger_store_cover(src, c), c->cover_len, 0);
		d->table = (uint32_t) tapas_ledger_store_table_slot(s, c->table_id);
		s->ncells++;
	}
	tapas_free(src);
}

/* the server's 0.2 path: a private copy, the rebuild, the copy back */
static void
reset_by_copy(tapas_ledger_store_t *s, uint64_t table_id)
{
	tapas_ledger_store_t *copy = malloc(s->region_size);

	memcpy(copy, s, s->region_size);
	reset_by_copy_store(copy, table_id);
	memcpy(s, copy, s->region_size);
	free(copy);
}

/* ---- Reset and replay ---- */

typedef struct image
{
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
} image_t;

static int
image_write(void *arg, const void *data, size_t len)
{
	image_t    *im = arg;

	if (im->len + len > im->cap)
	{
		im->cap = 2 * (im->len + len);
		im->buf = realloc(im->buf, im->cap);
	}
	memcpy(im->buf + im->len, data, len);
	im->len += len;
	return 0;
}

/* 100 GROUP BY statements on A (10^5 cells) and 16 cells on B */
static tapas_ledger_store_t *
big_store(tapas_rng_t *rng, uint64_t max_records, uint64_t arena, int64_t *keys, int64_t *perm)
{
	tapas_ledger_store_t *s = new_store(max_records, 110000, arena);
	int			st,
				i;

	index_table(s, TABLE_A, keys);
	for (st = 0; st < 100; st++)
	{
		tapas_ledger_cell_in_t *in = group_by(rng, TABLE_A, perm, 1);

		log_batch(s, in, GROUPS, 0);
		free(in);
	}
	for (i = 0; i < 16; i++)
	{
		tapas_ledger_cell_in_t in = {TABLE_B, "count(*)", i, keys + 10 * i, 10, NULL};

		log_batch(s, &in, 1, 0);
	}
	return s;
}

static tapas_ledger_store_t *
clone(const tapas_ledger_store_t *s)
{
	void	   *region = NULL;

	if (posix_memalign(&region, 64, s->region_size) != 0)
		abort();
	memcpy(region, s, s->region_size);
	return region;
}

static void
reset_rows(const char *name, tapas_rng_t *rng, uint64_t max_records, uint64_t arena,
		   int64_t *keys, int64_t *perm, int full)
{
	tapas_ledger_store_t *s = big_store(rng, max_records, arena, keys, perm),
			   *a = clone(s),
			   *b = clone(s),
			   *r;
	double		t_new,
				t_old,
				t;
	uint64_t	removed;
	image_t		im = {NULL, 0, 0};
	size_t		good;
	uint64_t	nframes,
				i;

	if (!full)
	{
		free(s);				/* memory: the large region exists four times below */
		s = NULL;
	}

	printf("  %s: region %.0f MB, %llu cells\n", name, a->region_size / 1048576.0,
		   (unsigned long long) a->ncells);
	t = bench_ms();
	if (tapas_ledger_store_reset_table(a, TABLE_B, &removed) != TAPAS_OK || removed != 16)
		abort();
	t_new = bench_ms() - t;
	t = bench_ms();
	reset_by_copy(b, TABLE_B);
	t_old = bench_ms() - t;
	if (a->ncells != b->ncells || tapas_ledger_store_validate(a, NULL) != TAPAS_OK)
		abort();
	printf("    %-40s %10.1f ms %10.1f ms %8.1fx\n", "reset of the 16-cell table", t_new, t_old,
		   t_old / t_new);
	if (!full)
	{
		free(a);
		free(b);
		return;
	}
	t = bench_ms();
	if (tapas_ledger_file_dump(s, image_write, &im) != TAPAS_OK)
		abort();
	printf("    %-40s %10.1f ms   (%.1f MB, %.0f bytes per cell)\n", "file rewrite (dump)",
		   bench_ms() - t, im.len / 1048576.0, (double) im.len / s->ncells);
	r = new_store(max_records, 110000, arena);
	t = bench_ms();
	if (tapas_ledger_file_replay(r, im.buf, im.len, &good, &nframes, NULL) != TAPAS_OK ||
		good != im.len || r->ncells != s->ncells)
		abort();
	printf("    %-40s %10.1f ms\n", "replay at start", bench_ms() - t);
	free(r);
	/* what a new backend's first snapshot of 10^4 cells costs the ledger */
	t = bench_ms();
	for (i = 1; i <= 10000; i++)
	{
		const tapas_ledger_store_cell_t *c = tapas_ledger_store_cell(s, i);
		roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe(
									(const char *) tapas_ledger_store_cover(s, c), c->cover_len);

		if (bm == NULL)
			abort();
		roaring_bitmap_free(bm);
	}
	printf("    %-40s %10.1f ms\n", "snapshot of 10^4 cells (decode covers)", bench_ms() - t);
	free(im.buf);
	t = bench_ms();
	if (tapas_ledger_store_reset_table(s, TABLE_A, &removed) != TAPAS_OK || removed != 100001)
		abort();
	t_new = bench_ms() - t;
	free(b);
	b = clone(a);
	t = bench_ms();
	reset_by_copy(a, TABLE_A);
	t_old = bench_ms() - t;
	printf("    %-40s %10.1f ms %10.1f ms %8.1fx\n", "reset of the 10^5-cell table", t_new, t_old,
		   t_old / t_new);
	free(s);
	free(a);
	free(b);
}

int
main(void)
{
	tapas_rng_t rng;
	int64_t    *keys = malloc(sizeof(int64_t) * N),
			   *perm = malloc(sizeof(int64_t) * N);
	int64_t    *half = malloc(sizeof(int64_t) * N);
	tapas_ledger_cell_in_t one;
	tapas_ledger_cell_in_t *in;
	int			i;

	tapas_rng_seed(&rng, 20261201);
	printf("ledger bytes per cell at n = %d: unshared (own cover per cell, tapas 0.2) vs shared covers\n", N);
	printf("  %-34s %6s %12s %12s %9s %12s %12s %9s\n", "statement", "cells", "mem unshared",
		   "mem shared", "ratio", "file unshar.", "file shared", "ratio");
	for (i = 0; i < N; i++)
		half[i] = i + 1;
	tapas_rng_shuffle_i64(&rng, half, N);
	one = (tapas_ledger_cell_in_t) {TABLE_A, "sum(income)", 1, half, N / 2, NULL};
	memory_row("random half", &one, 1, keys);
	for (i = 0; i < 25000; i++)
		half[i] = 30001 + i;
	one = (tapas_ledger_cell_in_t) {TABLE_A, "sum(income)", 1, half, 25000, NULL};
	memory_row("range of 25,000 keys", &one, 1, keys);
	in = group_by(&rng, TABLE_A, perm, 2);
	memory_row("1,000-group GROUP BY, 2 statistics", in, 2 * GROUPS, keys);
	free(in);
	in = group_by(&rng, TABLE_A, perm, 1);
	memory_row("1,000-group GROUP BY, 1 statistic", in, GROUPS, keys);
	free(in);

	printf("tapas.reset and replay at 10^5 cells: in place (now) vs copy of the region (tapas 0.2)\n");
	printf("    %-40s %13s %13s %9s\n", "", "now", "0.2", "ratio");
	reset_rows("default limits (max_records 10^6, ledger_memory 32 MB)", &rng,
			   1000000, UINT64_C(32) << 20, keys, perm, 1);
	reset_rows("large limits (max_records 10^7, ledger_memory 512 MB)", &rng,
			   10000000, UINT64_C(512) << 20, keys, perm, 0);
	free(keys);
	free(perm);
	free(half);
	return 0;
}
