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
		uint32_t	relid = tapas_ledger_store_table_relid(a, t);
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

		if (x->log_id != y->log_id || x->answer != y->answer || x->relid != y->relid ||
			x->role != y->role || x->pid != y->pid || x->logged_at != y->logged_at ||
			x->session_start != y->session_start || x->ncovered != y->ncovered ||
			lx != ly || memcmp(sx, sy, lx) != 0 || (qx == NULL) != (qy == NULL) ||
			(qx && strcmp(qx, qy) != 0) || x->cover_len != y->cover_len ||
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

	TAPAS_CHECK(tapas_ledger_store_reset_table(s, wl_relids[0], &removed) == TAPAS_OK);
	TAPAS_CHECK(removed > 0);
	memset(&dump, 0, sizeof(dump));
	dump.fail_after = -1;
	TAPAS_CHECK(tapas_ledger_file_dump(s, image_write, &dump) == TAPAS_OK);
	r = replay(dump.buf, dump.len, &rc, &good, &nframes);
	TAPAS_CHECK(rc == TAPAS_OK && good == dump.len);
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

int
main(void)
{
	TAPAS_TEST_RUN(test_lfile_replay_roundtrip);
	TAPAS_TEST_RUN(test_lfile_torn_tail);
	TAPAS_TEST_RUN(test_lfile_dump_after_reset);
	TAPAS_TEST_RUN(test_lfile_limits_on_replay);
	TAPAS_TEST_RUN(test_lfile_decode_malformed);
	TAPAS_TEST_DONE();
}
