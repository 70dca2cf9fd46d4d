/*
 * t-ledger_file.c
 *	  Unit tests for src/lstore/ledger_file.c.
 *
 * Oracle: a store built by direct appends.  Replaying the frames written
 * at append time, or a dump, into a fresh store must give the same
 * logical content (cells, statistics, query texts, covers, indices,
 * next_log_id).  Torn tails (every cut inside the last frame) and flipped
 * bytes must end the replay at the last good frame; malformed payloads
 * must decode to TAPAS_EINVAL without reading outside the buffer.
 */
#include <stdio.h>
#include <string.h>

#include "lstore/ledger_file.h"
#include "lstore/ledger_store_int.h"
#include "util/crc32c.h"
#include "util/memory.h"
#include "lstore/ledger_workload.h"
#include "tapas_test.h"

typedef struct image
{
	uint8_t    *buf;
	size_t		len;
	size_t		cap;
	size_t		last_frame;		/* offset of the last frame appended */
	int			fail_after;		/* make the n-th write fail; -1 never */
} image_t;

static int
image_write(void *arg, const void *data, size_t len)
{
	image_t    *im = arg;

	if (im->fail_after == 0)
		return -1;
	if (im->fail_after > 0)
		im->fail_after--;
	if (im->len + len > im->cap)
	{
		im->cap = 2 * (im->len + len);
		im->buf = realloc(im->buf, im->cap);
	}
	im->last_frame = im->len;
	memcpy(im->buf + im->len, data, len);
	im->len += len;
	return 0;
}

/* logical equality of two stores */
static int
stores_equal(const tapas_ledger_store_t *a, const tapas_ledger_store_t *b)
{
	uint64_t	i;
	int			t;

	if (a->ncells != b->ncells || a->nrecords != b->nrecords ||
		a->next_log_id != b->next_log_id || a->ntables != b->ntables)
		return 0;
	for (t = 0; t < (int) a->ntables; t++)
	{
		uint64_t	relid = tapas_ledger_store_table_id(a, t);
		uint64_t	n = tapas_ledger_store_table_n(a, relid);
		int64_t    *ka = malloc(8 * (n + 1)),
				   *kb = malloc(8 * (n + 1));
		int			same;

		tapas_ledger_store_table_keys(a, relid, ka);
		tapas_ledger_store_table_keys(b, relid, kb);
		same = n == tapas_ledger_store_table_n(b, relid) && memcmp(ka, kb, 8 * n) == 0;
		free(ka);
		free(kb);
		if (!same)
			return 0;
	}
	for (i = 0; i < a->ncells; i++)
	{
		const tapas_ledger_store_cell_t *x = tapas_ledger_store_cell(a, i),
				   *y = tapas_ledger_store_cell(b, i);
		uint32_t	lx,
					ly;
		const char *sx = tapas_ledger_store_stat_text(a, x, &lx),
				   *sy = tapas_ledger_store_stat_text(b, y, &ly);
		const char *qx = tapas_ledger_store_query_text(a, x),
				   *qy = tapas_ledger_store_query_text(b, y);
		uint32_t	bx,
					by;
		const char *ax = tapas_ledger_store_stat_basis(a, x, &bx),
				   *ay = tapas_ledger_store_stat_basis(b, y, &by);

		if (x->log_id != y->log_id || x->answer != y->answer || x->table_id != y->table_id ||
			x->role != y->role || x->pid != y->pid || x->logged_at != y->logged_at ||
			x->session_start != y->session_start || x->ncovered != y->ncovered ||
			lx != ly || memcmp(sx, sy, lx) != 0 || (qx == NULL) != (qy == NULL) ||
			(qx && strcmp(qx, qy) != 0) || x->cover_len != y->cover_len ||
			bx != by || (ax == NULL) != (ay == NULL) || (ax && memcmp(ax, ay, bx) != 0) ||
			memcmp(tapas_ledger_store_cover(a, x), tapas_ledger_store_cover(b, y), x->cover_len) != 0)
			return 0;
	}
	return 1;
}

#define NSTMT 60

/* builds a store of NSTMT random statements, with the live file image */
static tapas_ledger_store_t *
build(uint64_t seed, image_t *im, size_t *frame_end)
{
	tapas_rng_t rng;
	tapas_ledger_store_t *s = wl_store_create(WL_TABLES * WL_U, 10000, 16 << 20, 8);
	int			it;

	tapas_rng_seed(&rng, seed);
	memset(im, 0, sizeof(*im));
	im->fail_after = -1;
	image_write(im, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN);
	for (it = 0; it < NSTMT; it++)
	{
		static wl_stmt_t st;
		tapas_ledger_batch_t *b;
		uint8_t    *frame;
		size_t		len;

		wl_stmt_make(&rng, &st, it);
		TAPAS_CHECK(tapas_ledger_store_prepare(s, st.in, st.ncells,
										 it % 7 == 3 ? NULL : st.query, &b) == TAPAS_OK);
		b->role = 10 + it % 3;
		b->pid = 1000 + it;
		b->logged_at = 777000 + it;
		b->session_start = 555 + it % 2;
		/* live order: assign the log_id, encode, write, then apply */
		b->first_log_id = s->next_log_id;
		TAPAS_CHECK(tapas_ledger_file_encode_stmt(b, &frame, &len) == TAPAS_OK);
		image_write(im, frame, len);
		tapas_free(frame);
		TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
		if (frame_end)
			frame_end[it] = im->len;
		tapas_ledger_batch_free(b);
		wl_stmt_free(&st);
	}
	return s;
}

static tapas_ledger_store_t *
replay(const uint8_t *buf, size_t len, tapas_status *rc, size_t *good, uint64_t *nframes)
{
	tapas_ledger_store_t *r = wl_store_create(WL_TABLES * WL_U, 10000, 16 << 20, 8);

	*rc = tapas_ledger_file_replay(r, buf, len, good, nframes, NULL);
	return r;
}

static void
test_lfile_replay_roundtrip(void)
{
	image_t		im;
	tapas_ledger_store_t *s = build(tapas_test_seed(), &im, NULL),
			   *r;
	tapas_status rc;
	size_t		good;
	uint64_t	nframes;
	const char *reason = "";

	r = replay(im.buf, im.len, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && good == im.len && nframes == NSTMT);
	TAPAS_CHECK(stores_equal(s, r));
	TAPAS_CHECK_MSG(tapas_ledger_store_validate(r, &reason) == TAPAS_OK, "%s", reason);
	free(r);
	/* an empty file is an empty ledger; a bad magic is refused */
	r = replay(im.buf, 0, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && r->ncells == 0 && nframes == 0);
	free(r);
	im.buf[0] ^= 1;
	r = replay(im.buf, im.len, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_EINVAL && r->ncells == 0);
	free(r);
	free(im.buf);
	free(s);
}

static void
test_lfile_torn_tail(void)
{
	image_t		im;
	size_t		ends[NSTMT];
	tapas_ledger_store_t *s = build(tapas_test_seed() + 1, &im, ends),
			   *full,
			   *r;
	tapas_status rc;
	size_t		good,
				cut;
	uint64_t	nframes;
	image_t		im2;

	/* the store without its last statement */
	full = build(tapas_test_seed() + 1, &im2, NULL);
	free(im2.buf);
	r = replay(im.buf, ends[NSTMT - 2], &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && nframes == NSTMT - 1);
	for (cut = ends[NSTMT - 2] + 1; cut < im.len; cut += 1 + (im.len - cut) / 97)
	{
		tapas_ledger_store_t *t = replay(im.buf, cut, &rc, &good, &nframes);

		TAPAS_CHECK_MSG(rc == TAPAS_OK && good == ends[NSTMT - 2] &&
						nframes == NSTMT - 1 && stores_equal(t, r), "cut at %zu", cut);
		free(t);
	}
	/* a flipped byte inside frame 10 ends the replay before it */
	im.buf[ends[9] + TAPAS_LEDGER_FILE_FRAME_HDR + 5] ^= 0x40;
	free(r);
	r = replay(im.buf, im.len, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && good == ends[9] && nframes == 10);
	free(r);
	free(full);
	free(im.buf);
	free(s);
}

static void
test_lfile_dump_after_reset(void)
{
	image_t		im,
				dump;
	tapas_ledger_store_t *s = build(tapas_test_seed() + 2, &im, NULL),
			   *r;
	tapas_status rc;
	size_t		good;
	uint64_t	nframes,
				removed;
	int			k;
	image_t		without;

	/* the dump that leaves the table out equals the dump after the reset */
	memset(&without, 0, sizeof(without));
	without.fail_after = -1;
	TAPAS_CHECK(tapas_ledger_file_dump_without(s, wl_relids[0], image_write, &without) == TAPAS_OK);
	TAPAS_CHECK(tapas_ledger_store_reset_table(s, wl_relids[0], &removed) == TAPAS_OK);
	TAPAS_CHECK(removed > 0);
	memset(&dump, 0, sizeof(dump));
	dump.fail_after = -1;
	TAPAS_CHECK(tapas_ledger_file_dump(s, image_write, &dump) == TAPAS_OK);
	TAPAS_CHECK(without.len == dump.len && memcmp(without.buf, dump.buf, dump.len) == 0);
	free(without.buf);
	r = replay(dump.buf, dump.len, &rc, &good, &nframes);
	TAPAS_CHECK_MSG(rc == TAPAS_OK && good == dump.len, "rc %d good %zu len %zu", (int) rc, good, dump.len);
	TAPAS_CHECK(stores_equal(s, r));
	TAPAS_CHECK(tapas_ledger_store_validate(r, NULL) == TAPAS_OK);
	free(r);
	free(dump.buf);
	/* a failing writer is reported at every position */
	for (k = 0; k < 5; k++)
	{
		memset(&dump, 0, sizeof(dump));
		dump.fail_after = k;
		TAPAS_CHECK(tapas_ledger_file_dump(s, image_write, &dump) == TAPAS_EINVAL);
		free(dump.buf);
	}
	free(im.buf);
	free(s);
}

static void
test_lfile_limits_on_replay(void)
{
	image_t		im;
	tapas_ledger_store_t *s = build(tapas_test_seed() + 3, &im, NULL);
	tapas_ledger_store_t *small = wl_store_create(WL_TABLES * WL_U, 5, 16 << 20, 8);
	size_t		good;
	uint64_t	nframes;
	const char *reason = NULL;

	TAPAS_CHECK(tapas_ledger_file_replay(small, im.buf, im.len, &good, &nframes, &reason) == TAPAS_ELIMIT);
	TAPAS_CHECK(reason != NULL && good < im.len && small->ncells <= 5);
	TAPAS_CHECK(tapas_ledger_store_validate(small, NULL) == TAPAS_OK);
	free(small);
	/* replaying a file twice contradicts itself: the new keys exist */
	{
		tapas_ledger_store_t *r = wl_store_create(WL_TABLES * WL_U, 10000, 16 << 20, 8);
		size_t		g2;

		TAPAS_CHECK(tapas_ledger_file_replay(r, im.buf, im.len, &g2, &nframes, NULL) == TAPAS_OK);
		r->next_log_id = 1;
		TAPAS_CHECK(tapas_ledger_file_replay(r, im.buf, im.len, &g2, &nframes, NULL) == TAPAS_EINVAL);
		free(r);
	}
	free(im.buf);
	free(s);
}

/* every truncation and many corruptions of a STMT payload decode safely */
static void
test_lfile_decode_malformed(void)
{
	image_t		im;
	tapas_ledger_store_t *s = build(tapas_test_seed() + 4, &im, NULL);
	const uint8_t *payload = im.buf + im.last_frame + TAPAS_LEDGER_FILE_FRAME_HDR;
	size_t		plen = im.len - im.last_frame - TAPAS_LEDGER_FILE_FRAME_HDR,
				cut;
	tapas_ledger_batch_t *b;
	tapas_rng_t rng;
	int			it;

	TAPAS_CHECK(tapas_ledger_file_decode_stmt(payload, plen, &b) == TAPAS_OK);
	tapas_ledger_batch_free(b);
	for (cut = 0; cut < plen; cut++)
	{
		uint8_t    *copy = malloc(cut + 1);

		memcpy(copy, payload, cut);
		TAPAS_CHECK_MSG(tapas_ledger_file_decode_stmt(copy, cut, &b) == TAPAS_EINVAL && b == NULL,
						"cut %zu", cut);
		free(copy);
	}
	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < 300; it++)
	{
		uint8_t    *copy = malloc(plen);
		tapas_status rc;

		memcpy(copy, payload, plen);
		copy[tapas_rng_below(&rng, plen)] ^= (uint8_t) (1 + tapas_rng_below(&rng, 255));
		rc = tapas_ledger_file_decode_stmt(copy, plen, &b);
		TAPAS_CHECK(rc == TAPAS_OK || rc == TAPAS_EINVAL);
		tapas_ledger_batch_free(b);
		free(copy);
	}
	free(im.buf);
	free(s);
}

/* ---- Version 1 files (tapas 0.2), written here by an independent encoder ---- */

static void
v1_put(image_t *im, const void *p, size_t len)
{
	image_write(im, p, len);
}

/* appends one frame around payload[0..len) */
static void
v1_frame(image_t *im, const uint8_t *payload, uint32_t len)
{
	uint32_t	crc = tapas_crc32c(payload, len);

	v1_put(im, &len, 4);
	v1_put(im, &crc, 4);
	v1_put(im, payload, len);
}

/*
 * A 0.2 STMT payload: one cell of relid over the new keys 100..100+m-1
 * (indices 0..m-1, a run), logged as log_id first.
 */
static size_t
v1_stmt(uint8_t *p, uint32_t relid, int64_t first, uint64_t m)
{
	roaring_bitmap_t *r = roaring_bitmap_create();
	uint8_t    *q = p;
	uint32_t	u;
	uint64_t	v,
				k;
	int64_t		i;
	double		answer = 42;
	const char *stat = "count(*)";

	roaring_bitmap_add_range(r, 0, m);
	memset(q, 0, 4);
	q[0] = TAPAS_LEDGER_FILE_STMT;
	q += 4;
	u = 1;
	memcpy(q, &u, 4), q += 4;	/* ncells */
	memcpy(q, &first, 8), q += 8;
	i = 777;
	memcpy(q, &i, 8), q += 8;	/* logged_at */
	memcpy(q, &i, 8), q += 8;	/* session_start */
	u = 10;
	memcpy(q, &u, 4), q += 4;	/* role */
	memcpy(q, &u, 4), q += 4;	/* pid */
	u = UINT32_MAX;
	memcpy(q, &u, 4), q += 4;	/* no query */
	memcpy(q, &relid, 4), q += 4;
	u = (uint32_t) strlen(stat);
	memcpy(q, &u, 4), q += 4;
	memcpy(q, stat, u), q += u;
	memcpy(q, &answer, 8), q += 8;
	memcpy(q, &m, 8), q += 8;	/* ncovered */
	memcpy(q, &m, 8), q += 8;	/* nnew */
	for (k = 0; k < m; k++)
	{
		i = 100 + (int64_t) k;
		memcpy(q, &i, 8), q += 8;
	}
	v = roaring_bitmap_portable_size_in_bytes(r);
	memcpy(q, &v, 8), q += 8;
	roaring_bitmap_portable_serialize(r, (char *) q);
	q += v;
	roaring_bitmap_free(r);
	return (size_t) (q - p);
}

/*
 * A 0.2 file replays: its tables get the OID as table id (database 0),
 * and version 2 frames appended after it (what the server does once it
 * has put the new magic on it) continue the same store.
 */
static void
test_lfile_replay_v1(void)
{
	image_t		im;
	uint8_t		payload[4096];
	uint8_t		keys[32] = {TAPAS_LEDGER_FILE_KEYS};
	int64_t		key = 555;
	uint32_t	relid = 16401;
	uint64_t	one = 1;
	size_t		good;
	uint64_t	nframes;
	tapas_status rc;
	tapas_ledger_store_t *r;
	tapas_ledger_batch_t *b;
	tapas_ledger_cell_in_t in;
	int64_t		k2[2] = {100, 900};
	uint8_t    *frame;
	size_t		flen;

	memset(&im, 0, sizeof(im));
	im.fail_after = -1;
	v1_put(&im, TAPAS_LEDGER_FILE_MAGIC_V1, TAPAS_LEDGER_FILE_HEADER_LEN);
	TAPAS_CHECK(tapas_ledger_file_is_v1(im.buf, im.len));
	v1_frame(&im, payload, (uint32_t) v1_stmt(payload, relid, 1, 5));
	memcpy(keys + 4, &relid, 4);
	memcpy(keys + 8, &one, 8);
	memcpy(keys + 16, &key, 8);
	v1_frame(&im, keys, 24);
	r = replay(im.buf, im.len, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && good == im.len && nframes == 2);
	TAPAS_CHECK(r->ncells == 1 && tapas_ledger_store_cell(r, 0)->table_id == relid);
	TAPAS_CHECK(tapas_ledger_store_table_n(r, relid) == 6);
	TAPAS_CHECK(tapas_ledger_store_lookup(r, relid, 104) == 4 && tapas_ledger_store_lookup(r, relid, 555) == 5);
	TAPAS_CHECK(tapas_ledger_store_cell(r, 0)->ncovered == 5 && tapas_ledger_store_cell(r, 0)->answer == 42);
	TAPAS_CHECK(tapas_ledger_store_validate(r, NULL) == TAPAS_OK);

	/* a version 2 frame of the same OID in database 7 is another table */
	in.table_id = (UINT64_C(7) << 32) | relid;
	in.statistic = "count(*)";
	in.basis = NULL;
	in.answer = 2;
	in.keys = k2;
	in.nkeys = 2;
	TAPAS_CHECK(tapas_ledger_store_prepare(r, &in, 1, NULL, &b) == TAPAS_OK);
	b->first_log_id = r->next_log_id;
	TAPAS_CHECK(tapas_ledger_file_encode_stmt(b, &frame, &flen) == TAPAS_OK);
	TAPAS_CHECK(frame[TAPAS_LEDGER_FILE_FRAME_HDR] == TAPAS_LEDGER_FILE_STMT3);
	image_write(&im, frame, flen);
	tapas_free(frame);
	tapas_ledger_batch_free(b);
	free(r);
	r = replay(im.buf, im.len, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && good == im.len && nframes == 3 && r->ncells == 2);
	TAPAS_CHECK(tapas_ledger_store_table_n(r, relid) == 6);
	TAPAS_CHECK(tapas_ledger_store_table_n(r, in.table_id) == 2);
	TAPAS_CHECK(tapas_ledger_store_lookup(r, in.table_id, 100) == 0 &&
				tapas_ledger_store_lookup(r, in.table_id, 555) == -1);
	TAPAS_CHECK(tapas_ledger_store_validate(r, NULL) == TAPAS_OK);
	free(r);
	free(im.buf);
}

/*
 * Cells of one statement with identical covers (every statistic of one
 * group) keep the bytes once, in the store and in the file, and replay and
 * dump agree on it.
 */
static void
test_lfile_shared_covers(void)
{
	tapas_ledger_store_t *s = wl_store_create(1000, 100, 1 << 20, 8),
			   *r;
	int64_t		k1[50],
				k2[50];
	tapas_ledger_cell_in_t in[5];
	tapas_ledger_batch_t *b;
	uint8_t    *frame;
	size_t		flen,
				good;
	uint64_t	arena,
				nframes,
				i;
	image_t		im,
				dump;
	const char *reason = "";

	for (i = 0; i < 50; i++)
	{
		k1[i] = (int64_t) (7 * i + 1);
		k2[i] = (int64_t) (7 * i + 2);
	}
	/* count and sum of two groups, then a cell of another table over k1 */
	in[0] = (tapas_ledger_cell_in_t) {16401, "count(*)", 50, k1, 50, NULL};
	in[1] = (tapas_ledger_cell_in_t) {16401, "count(*)", 50, k2, 50, NULL};
	in[2] = (tapas_ledger_cell_in_t) {16401, "sum(x)", 7, k1, 50, NULL};
	in[3] = (tapas_ledger_cell_in_t) {16401, "sum(x)", 8, k2, 50, NULL};
	in[4] = (tapas_ledger_cell_in_t) {16402, "sum(x)", 9, k1, 50, NULL};
	TAPAS_CHECK(tapas_ledger_store_prepare(s, in, 5, "SELECT", &b) == TAPAS_OK);
	TAPAS_CHECK(b->cells[0].shared_from == 0 && b->cells[1].shared_from == 0);
	TAPAS_CHECK(b->cells[2].shared_from == 1 && b->cells[3].shared_from == 2);
	TAPAS_CHECK(b->cells[4].shared_from == 0);	/* another table: its own indices */
	b->first_log_id = s->next_log_id;
	TAPAS_CHECK(tapas_ledger_file_encode_stmt(b, &frame, &flen) == TAPAS_OK);
	arena = s->arena_used;
	b->first_log_id = 0;
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
	/* text, then three covers, not five */
	TAPAS_CHECK(s->arena_used - arena ==
				8 + ALIGN8(b->cells[0].cover_len) + ALIGN8(b->cells[1].cover_len) +
				ALIGN8(b->cells[4].cover_len) + STAT_BYTES(8) + STAT_BYTES(6) + STAT_BYTES(6));
	TAPAS_CHECK(tapas_ledger_store_cell(s, 2)->cover_off == tapas_ledger_store_cell(s, 0)->cover_off);
	TAPAS_CHECK(tapas_ledger_store_cell(s, 3)->cover_off == tapas_ledger_store_cell(s, 1)->cover_off);
	TAPAS_CHECK(tapas_ledger_store_role_usage(s, 0).bytes ==
				8 + ALIGN8(b->cells[0].cover_len) + ALIGN8(b->cells[1].cover_len) +
				ALIGN8(b->cells[4].cover_len));
	TAPAS_CHECK_MSG(tapas_ledger_store_validate(s, &reason) == TAPAS_OK, "%s", reason);
	tapas_ledger_batch_free(b);

	/* the frame replays to the same store, sharing included */
	memset(&im, 0, sizeof(im));
	im.fail_after = -1;
	image_write(&im, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN);
	image_write(&im, frame, flen);
	tapas_free(frame);
	r = wl_store_create(1000, 100, 1 << 20, 8);
	TAPAS_CHECK(tapas_ledger_file_replay(r, im.buf, im.len, &good, &nframes, NULL) == TAPAS_OK);
	TAPAS_CHECK(good == im.len && stores_equal(s, r) && r->arena_used == s->arena_used);
	TAPAS_CHECK(tapas_ledger_store_validate(r, NULL) == TAPAS_OK);
	free(r);
	/* and so does the dump */
	memset(&dump, 0, sizeof(dump));
	dump.fail_after = -1;
	TAPAS_CHECK(tapas_ledger_file_dump(s, image_write, &dump) == TAPAS_OK);
	r = wl_store_create(1000, 100, 1 << 20, 8);
	TAPAS_CHECK(tapas_ledger_file_replay(r, dump.buf, dump.len, &good, &nframes, NULL) == TAPAS_OK);
	TAPAS_CHECK(stores_equal(s, r) && r->arena_used == s->arena_used);
	/* a reset of the other table keeps the shared covers shared */
	TAPAS_CHECK(tapas_ledger_store_reset_table(r, 16402, &i) == TAPAS_OK && i == 1);
	TAPAS_CHECK(tapas_ledger_store_cell(r, 2)->cover_off == tapas_ledger_store_cell(r, 0)->cover_off);
	TAPAS_CHECK_MSG(tapas_ledger_store_validate(r, &reason) == TAPAS_OK, "%s", reason);
	free(r);
	free(dump.buf);
	free(im.buf);
	free(s);
}

/* prepares, encodes into im and applies one statement; returns its arena growth */
static uint64_t
basis_stmt(tapas_ledger_store_t *s, image_t *im, tapas_ledger_cell_in_t *in, int n,
		   tapas_ledger_batch_t **kept)
{
	tapas_ledger_batch_t *b;
	uint8_t    *frame;
	size_t		flen;
	uint64_t	arena = s->arena_used;

	TAPAS_CHECK(tapas_ledger_store_prepare(s, in, n, NULL, &b) == TAPAS_OK);
	b->first_log_id = s->next_log_id;
	TAPAS_CHECK(tapas_ledger_file_encode_stmt(b, &frame, &flen) == TAPAS_OK);
	image_write(im, frame, flen);
	tapas_free(frame);
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
	*kept = b;
	return s->arena_used - arena;
}

/* the STMT2 frame of a one-cell STMT3 frame without a basis (tapas 0.3 before basis trees) */
static void
stmt3_to_stmt2(const uint8_t *f3, size_t len3, uint8_t *f2, size_t *len2)
{
	const uint8_t *p = f3 + TAPAS_LEDGER_FILE_FRAME_HDR;
	uint32_t	stat_len,
				plen,
				crc;
	size_t		at = 4 + 4 + 24 + 12 + 8;	/* no query: cell's stat_len next */

	memcpy(&stat_len, p + at, 4);
	at += 4 + stat_len;			/* the u32 basis_len to drop */
	memcpy(f2 + TAPAS_LEDGER_FILE_FRAME_HDR, p, at);
	memcpy(f2 + TAPAS_LEDGER_FILE_FRAME_HDR + at, p + at + 4,
		   len3 - TAPAS_LEDGER_FILE_FRAME_HDR - at - 4);
	f2[TAPAS_LEDGER_FILE_FRAME_HDR] = TAPAS_LEDGER_FILE_STMT2;
	*len2 = len3 - 4;
	plen = (uint32_t) (*len2 - TAPAS_LEDGER_FILE_FRAME_HDR);
	crc = tapas_crc32c(f2 + TAPAS_LEDGER_FILE_FRAME_HDR, plen);
	memcpy(f2, &plen, 4);
	memcpy(f2 + 4, &crc, 4);
}

/*
 * Basis trees are kept once per statistic: the first one logged wins, a
 * statistic logged without one (an older file) gets it from the first
 * cell that brings one, and the live file, its replay and the dump agree.
 */
static void
test_lfile_basis(void)
{
	tapas_ledger_store_t *s = wl_store_create(1000, 100, 1 << 20, 8),
			   *r;
	int64_t		k1[3] = {1, 2, 3};
	tapas_ledger_cell_in_t in[3];
	tapas_ledger_batch_t *b;
	image_t		im,
				dump;
	size_t		good,
				len2;
	uint64_t	nframes,
				grown;
	uint32_t	blen = 0;
	const char *basis;
	uint8_t    *frame,
				f2[256];
	size_t		flen;

	memset(&im, 0, sizeof(im));
	im.fail_after = -1;
	image_write(&im, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN);
	/* sum(x) without a basis; count(*) with B0 */
	in[0] = (tapas_ledger_cell_in_t) {16401, "sum(x)", 6, k1, 3, NULL};
	in[1] = (tapas_ledger_cell_in_t) {16401, "count(*)", 3, k1, 3, "B0"};
	grown = basis_stmt(s, &im, in, 2, &b);
	TAPAS_CHECK(b->cells[1].basis_len == 2);
	tapas_ledger_batch_free(b);
	TAPAS_CHECK(s->nstats == 2 && tapas_ledger_store_find_basis(s, 16401, "sum(x)", 6, &blen) == NULL);
	/* sum(x) with B1 twice, count(*) with Bz: B1 is interned once, Bz dropped */
	in[0].basis = "B1";
	in[1] = (tapas_ledger_cell_in_t) {16401, "sum(x)", 5, k1, 2, "B1"};
	in[2] = (tapas_ledger_cell_in_t) {16401, "count(*)", 3, k1, 3, "Bz"};
	grown = basis_stmt(s, &im, in, 3, &b);
	TAPAS_CHECK(b->cells[0].basis_len == 2 && b->cells[1].basis == NULL && b->cells[2].basis == NULL);
	TAPAS_CHECK(grown == ALIGN8(b->cells[0].cover_len) + ALIGN8(b->cells[1].cover_len) +
				STAT_BYTES2(6, 2));
	tapas_ledger_batch_free(b);
	TAPAS_CHECK(s->nstats == 3);
	basis = tapas_ledger_store_find_basis(s, 16401, "sum(x)", 6, &blen);
	TAPAS_CHECK(basis != NULL && blen == 2 && strcmp(basis, "B1") == 0);
	basis = tapas_ledger_store_find_basis(s, 16401, "count(*)", 8, &blen);
	TAPAS_CHECK(basis != NULL && strcmp(basis, "B0") == 0);
	TAPAS_CHECK(tapas_ledger_store_find_basis(s, 16402, "count(*)", 8, &blen) == NULL);
	TAPAS_CHECK(tapas_ledger_store_validate(s, NULL) == TAPAS_OK);
	/* the live file and the dump replay to the same store, bases included */
	r = wl_store_create(1000, 100, 1 << 20, 8);
	TAPAS_CHECK(tapas_ledger_file_replay(r, im.buf, im.len, &good, &nframes, NULL) == TAPAS_OK);
	TAPAS_CHECK(good == im.len && nframes == 2 && stores_equal(s, r) && r->arena_used == s->arena_used);
	free(r);
	memset(&dump, 0, sizeof(dump));
	dump.fail_after = -1;
	TAPAS_CHECK(tapas_ledger_file_dump(s, image_write, &dump) == TAPAS_OK);
	r = wl_store_create(1000, 100, 1 << 20, 8);
	TAPAS_CHECK(tapas_ledger_file_replay(r, dump.buf, dump.len, &good, &nframes, NULL) == TAPAS_OK);
	TAPAS_CHECK(stores_equal(s, r) && r->arena_used == s->arena_used);
	basis = tapas_ledger_store_find_basis(r, 16401, "sum(x)", 6, &blen);
	TAPAS_CHECK(basis != NULL && strcmp(basis, "B1") == 0);
	/* a reset of the table drops its statistics and bases */
	TAPAS_CHECK(tapas_ledger_store_reset_table(r, 16401, NULL) == TAPAS_OK);
	TAPAS_CHECK(r->nstats == 0 && tapas_ledger_store_validate(r, NULL) == TAPAS_OK);
	free(r);
	free(dump.buf);
	/* an STMT2 frame (no basis field) still replays, its statistic without a basis */
	in[0] = (tapas_ledger_cell_in_t) {16402, "sum(y)", 1, k1, 1, NULL};
	TAPAS_CHECK(tapas_ledger_store_prepare(s, in, 1, NULL, &b) == TAPAS_OK);
	b->first_log_id = s->next_log_id;
	TAPAS_CHECK(tapas_ledger_file_encode_stmt(b, &frame, &flen) == TAPAS_OK && flen - 4 <= sizeof(f2));
	stmt3_to_stmt2(frame, flen, f2, &len2);
	tapas_free(frame);
	TAPAS_CHECK(tapas_ledger_store_apply(s, b, NULL) == TAPAS_OK);
	tapas_ledger_batch_free(b);
	image_write(&im, f2, len2);
	r = wl_store_create(1000, 100, 1 << 20, 8);
	TAPAS_CHECK(tapas_ledger_file_replay(r, im.buf, im.len, &good, &nframes, NULL) == TAPAS_OK);
	TAPAS_CHECK(good == im.len && nframes == 3 && stores_equal(s, r));
	TAPAS_CHECK(tapas_ledger_store_find_basis(r, 16402, "sum(y)", 6, &blen) == NULL);
	free(r);
	free(im.buf);
	free(s);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_lfile_replay_roundtrip);
	TAPAS_TEST_RUN(test_lfile_torn_tail);
	TAPAS_TEST_RUN(test_lfile_dump_after_reset);
	TAPAS_TEST_RUN(test_lfile_limits_on_replay);
	TAPAS_TEST_RUN(test_lfile_decode_malformed);
	TAPAS_TEST_RUN(test_lfile_replay_v1);
	TAPAS_TEST_RUN(test_lfile_shared_covers);
	TAPAS_TEST_RUN(test_lfile_basis);
	TAPAS_TEST_DONE();
}
