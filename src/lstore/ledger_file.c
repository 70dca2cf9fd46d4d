/*-------------------------------------------------------------------------
 *
 * ledger_file.c
 *	  Encode, decode and replay the frames of the ledger file (the dump
 *	  that rewrites it is ledger_file_dump.c).
 *
 * Format in ledger_file.h.  Writers size a frame exactly first
 * (stmt_payload_len), then fill it with a cursor; readers go through a
 * bounds-checked cursor, so a malformed payload is TAPAS_EINVAL, never a
 * read past the buffer.  The CRC covers the payload only; the length
 * field is validated by the CRC indirectly (a wrong length makes the CRC
 * of the wrong bytes fail, except with probability 2^-32).
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_file.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_file.h"

#include <string.h>

#include "util/crc32c.h"
#include "util/memory.h"

#define Max(a, b)	((a) > (b) ? (a) : (b))
#define NO_QUERY	UINT32_MAX
#define SHARED_COVER	UINT64_MAX	/* cover_len of a cell that shares an earlier cover */

/* ---- Writing ---- */

typedef struct frame_writer
{
	uint8_t    *p;
} frame_writer_t;

static void
put(frame_writer_t *w, const void *data, size_t len)
{
	if (len > 0)
		memcpy(w->p, data, len);
	w->p += len;
}

static void
put_u32(frame_writer_t *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put_u64(frame_writer_t *w, uint64_t v)
{
	put(w, &v, 8);
}

static void
put_f64(frame_writer_t *w, double v)
{
	put(w, &v, 8);
}

/* allocates a frame of payload_len and returns a cursor at its payload */
static uint8_t *
frame_alloc(uint64_t payload_len, size_t *len)
{
	uint8_t    *f;

	if (payload_len > TAPAS_LEDGER_FILE_MAX_PAYLOAD)
		return NULL;
	*len = TAPAS_LEDGER_FILE_FRAME_HDR + payload_len;
	f = tapas_malloc(*len);
	return f;
}

/* fills length and CRC of a complete frame */
static void
frame_seal(uint8_t *f, size_t len)
{
	uint32_t	plen = (uint32_t) (len - TAPAS_LEDGER_FILE_FRAME_HDR);
	uint32_t	crc = tapas_crc32c(f + TAPAS_LEDGER_FILE_FRAME_HDR, plen);

	memcpy(f, &plen, 4);
	memcpy(f + 4, &crc, 4);
}

static uint64_t
stmt_payload_len(const tapas_ledger_batch_t *b)
{
	uint64_t	len = 4 + 4 + 8 * 3 + 4 + 4 + 4 + (b->query ? b->query_len : 0);
	int			i;

	for (i = 0; i < b->ncells; i++)
		len += 8 + 4 + b->cells[i].stat_len + 4 + b->cells[i].basis_len + 8 + 8 + 8 +
			8 * b->cells[i].nnew + 8 +
			(b->cells[i].shared_from ? 4 : b->cells[i].cover_len);
	return len;
}

tapas_status
tapas_ledger_file_encode_stmt(const tapas_ledger_batch_t *b, uint8_t **frame, size_t *len)
{
	uint64_t	plen = stmt_payload_len(b);
	uint8_t    *f;
	frame_writer_t	w;
	uint8_t		head[4] = {TAPAS_LEDGER_FILE_STMT3, 0, 0, 0};
	int			i;

	if (plen > TAPAS_LEDGER_FILE_MAX_PAYLOAD)
		return TAPAS_ELIMIT;
	if ((f = frame_alloc(plen, len)) == NULL)
		return TAPAS_ENOMEM;
	w.p = f + TAPAS_LEDGER_FILE_FRAME_HDR;
	put(&w, head, 4);
	put_u32(&w, (uint32_t) b->ncells);
	put_u64(&w, (uint64_t) b->first_log_id);
	put_u64(&w, (uint64_t) b->logged_at);
	put_u64(&w, (uint64_t) b->session_start);
	put_u32(&w, b->role);
	put_u32(&w, (uint32_t) b->pid);
	put_u32(&w, b->query ? b->query_len : NO_QUERY);
	put(&w, b->query, b->query ? b->query_len : 0);
	for (i = 0; i < b->ncells; i++)
	{
		const tapas_ledger_batch_cell_t *c = &b->cells[i];

		put_u64(&w, c->table_id);
		put_u32(&w, c->stat_len);
		put(&w, c->statistic, c->stat_len);
		put_u32(&w, c->basis_len);
		put(&w, c->basis, c->basis_len);
		put_f64(&w, c->answer);
		put_u64(&w, c->ncovered);
		put_u64(&w, c->nnew);
		put(&w, c->newkeys, 8 * c->nnew);
		if (c->shared_from != 0)
		{
			put_u64(&w, SHARED_COVER);
			put_u32(&w, c->shared_from - 1);
			continue;
		}
		put_u64(&w, c->cover_len);
		put(&w, c->cover, c->cover_len);
	}
	frame_seal(f, *len);
	*frame = f;
	return TAPAS_OK;
}

tapas_status
tapas_ledger_file_encode_keys(uint64_t table_id, const int64_t *keys, uint64_t nkeys,
						uint8_t **frame, size_t *len)
{
	uint8_t		head[8] = {TAPAS_LEDGER_FILE_KEYS2, 0, 0, 0, 0, 0, 0, 0};
	uint8_t    *f;
	frame_writer_t	w;

	if (nkeys > (TAPAS_LEDGER_FILE_MAX_PAYLOAD - 24) / 8)
		return TAPAS_ELIMIT;
	if ((f = frame_alloc(24 + 8 * nkeys, len)) == NULL)
		return TAPAS_ENOMEM;
	w.p = f + TAPAS_LEDGER_FILE_FRAME_HDR;
	put(&w, head, 8);
	put_u64(&w, table_id);
	put_u64(&w, nkeys);
	put(&w, keys, 8 * nkeys);
	frame_seal(f, *len);
	*frame = f;
	return TAPAS_OK;
}

tapas_status
tapas_ledger_file_encode_meta(int64_t next_log_id, uint8_t **frame, size_t *len)
{
	uint8_t		head[8] = {TAPAS_LEDGER_FILE_META, 0, 0, 0, 0, 0, 0, 0};
	uint8_t    *f;
	frame_writer_t	w;

	if ((f = frame_alloc(16, len)) == NULL)
		return TAPAS_ENOMEM;
	w.p = f + TAPAS_LEDGER_FILE_FRAME_HDR;
	put(&w, head, 8);
	put_u64(&w, (uint64_t) next_log_id);
	frame_seal(f, *len);
	*frame = f;
	return TAPAS_OK;
}

/* ---- Reading ---- */

typedef struct frame_reader
{
	const uint8_t *p;
	const uint8_t *end;
	int			bad;			/* a read went past end */
} frame_reader_t;

/* returns a pointer to the next len bytes, or NULL (and bad) past the end */
static const uint8_t *
take(frame_reader_t *r, uint64_t len)
{
	const uint8_t *p = r->p;

	if (r->bad || len > (uint64_t) (r->end - r->p))
	{
		r->bad = 1;
		return NULL;
	}
	r->p += len;
	return p;
}

#define GET(r, v) \
	do { const uint8_t *p_ = take((r), sizeof(v)); \
		 if (p_) memcpy(&(v), p_, sizeof(v)); else memset(&(v), 0, sizeof(v)); } while (0)

/*
 * reads one STMT cell of record kind `kind` into c (new keys copied),
 * EINVAL if truncated; a version 1 cell has a u32 table OID, which becomes
 * the table id (database unknown, see ledger_file.h); only STMT3 cells
 * carry a basis
 */
static tapas_status
decode_cell(frame_reader_t *r, tapas_ledger_batch_t *b, uint32_t i, uint8_t kind)
{
	int			v1 = kind == TAPAS_LEDGER_FILE_STMT;
	tapas_ledger_batch_cell_t *c = &b->cells[i];
	const uint8_t *keys;

	if (v1)
	{
		uint32_t	relid;

		GET(r, relid);
		c->table_id = relid;
	}
	else
		GET(r, c->table_id);
	GET(r, c->stat_len);
	c->statistic = (const char *) take(r, c->stat_len);
	if (kind == TAPAS_LEDGER_FILE_STMT3)
	{
		GET(r, c->basis_len);
		c->basis = (const char *) take(r, c->basis_len);
		if (c->basis_len == 0)
			c->basis = NULL;
	}
	GET(r, c->answer);
	GET(r, c->ncovered);
	GET(r, c->nnew);
	if (c->nnew > (uint64_t) (r->end - r->p) / 8)
		return TAPAS_EINVAL;
	keys = take(r, 8 * c->nnew);
	GET(r, c->cover_len);
	if (c->cover_len == SHARED_COVER && !v1)
	{
		uint32_t	ref;

		GET(r, ref);
		if (r->bad || ref >= i || b->cells[ref].table_id != c->table_id)
			return TAPAS_EINVAL;
		c->shared_from = ref + 1;
		c->cover = b->cells[ref].cover;
		c->cover_len = b->cells[ref].cover_len;
	}
	else
		c->cover = take(r, c->cover_len);
	if (r->bad || c->table_id == 0 || c->stat_len == 0)
		return TAPAS_EINVAL;
	c->newkeys = tapas_malloc((c->nnew ? c->nnew : 1) * 8);
	if (c->newkeys == NULL)
		return TAPAS_ENOMEM;
	memcpy(c->newkeys, keys, 8 * c->nnew);
	return TAPAS_OK;
}

tapas_status
tapas_ledger_file_decode_stmt(const uint8_t *payload, size_t len, tapas_ledger_batch_t **batch)
{
	frame_reader_t	r = {payload, payload + len, 0};
	tapas_ledger_batch_t *b;
	uint32_t	ncells,
				qlen;
	const uint8_t *head = take(&r, 4);
	tapas_status st = TAPAS_OK;
	uint32_t	i;

	*batch = NULL;
	GET(&r, ncells);
	if (head == NULL || (head[0] != TAPAS_LEDGER_FILE_STMT && head[0] != TAPAS_LEDGER_FILE_STMT2 &&
						 head[0] != TAPAS_LEDGER_FILE_STMT3) ||
		ncells == 0 ||
		ncells > len / 32 || ncells > INT32_MAX)
		return TAPAS_EINVAL;
	b = tapas_calloc(1, sizeof(tapas_ledger_batch_t));
	if (b == NULL || (b->cells = tapas_calloc(ncells, sizeof(tapas_ledger_batch_cell_t))) == NULL)
	{
		tapas_free(b);
		return TAPAS_ENOMEM;
	}
	b->ncells = (int) ncells;
	GET(&r, b->first_log_id);
	GET(&r, b->logged_at);
	GET(&r, b->session_start);
	GET(&r, b->role);
	GET(&r, b->pid);
	GET(&r, qlen);
	if (qlen != NO_QUERY)
	{
		b->query = (const char *) take(&r, qlen);
		b->query_len = qlen;
	}
	for (i = 0; st == TAPAS_OK && i < ncells; i++)
		st = decode_cell(&r, b, i, head[0]);
	if (st == TAPAS_OK && (r.bad || r.p != r.end || b->first_log_id < 1))
		st = TAPAS_EINVAL;
	if (st != TAPAS_OK)
	{
		tapas_ledger_batch_free(b);
		return st;
	}
	*batch = b;
	return TAPAS_OK;
}

/* replays a KEYS (version 1: u32 table OID) or KEYS2 payload */
static tapas_status
replay_keys(tapas_ledger_store_t *s, const uint8_t *payload, uint32_t len)
{
	frame_reader_t	r = {payload, payload + len, 0};
	uint64_t	table_id = 0,
				nkeys;
	int64_t    *keys;
	tapas_status st;

	if (payload[0] == TAPAS_LEDGER_FILE_KEYS)
	{
		uint32_t	relid;

		take(&r, 4);
		GET(&r, relid);
		table_id = relid;
	}
	else
	{
		take(&r, 8);
		GET(&r, table_id);
	}
	GET(&r, nkeys);
	if (r.bad || nkeys != (uint64_t) (r.end - r.p) / 8 || (r.end - r.p) % 8 != 0)
		return TAPAS_EINVAL;
	keys = tapas_malloc((nkeys ? nkeys : 1) * 8);
	if (keys == NULL)
		return TAPAS_ENOMEM;
	memcpy(keys, r.p, 8 * nkeys);
	st = tapas_ledger_store_add_keys(s, table_id, keys, nkeys);
	tapas_free(keys);
	return st;
}

/* applies one CRC-checked payload to s */
static tapas_status
replay_payload(tapas_ledger_store_t *s, const uint8_t *payload, uint32_t len)
{
	frame_reader_t	r = {payload, payload + len, 0};
	tapas_ledger_batch_t *b;
	tapas_status st;

	if (len == 0)
		return TAPAS_EINVAL;
	switch (payload[0])
	{
		case TAPAS_LEDGER_FILE_STMT:
		case TAPAS_LEDGER_FILE_STMT2:
		case TAPAS_LEDGER_FILE_STMT3:
			st = tapas_ledger_file_decode_stmt(payload, len, &b);
			if (st == TAPAS_OK)
				st = tapas_ledger_store_apply(s, b, NULL);
			tapas_ledger_batch_free(b);
			return st;
		case TAPAS_LEDGER_FILE_KEYS:
		case TAPAS_LEDGER_FILE_KEYS2:
			return replay_keys(s, payload, len);
		case TAPAS_LEDGER_FILE_META:
			{
				int64_t		next;

				take(&r, 8);
				GET(&r, next);
				if (r.bad || r.p != r.end)
					return TAPAS_EINVAL;
				tapas_ledger_store_bump_log_id(s, next);
				return TAPAS_OK;
			}
	}
	return TAPAS_EINVAL;
}

tapas_status
tapas_ledger_file_replay(tapas_ledger_store_t *s, const uint8_t *buf, size_t len,
				   size_t *good_len, uint64_t *nframes, const char **reason)
{
	size_t		off = TAPAS_LEDGER_FILE_HEADER_LEN;

	*good_len = 0;
	*nframes = 0;
	if (reason)
		*reason = NULL;
	if (len == 0)
		return TAPAS_OK;
	if (len < TAPAS_LEDGER_FILE_HEADER_LEN ||
		(memcmp(buf, TAPAS_LEDGER_FILE_MAGIC, TAPAS_LEDGER_FILE_HEADER_LEN) != 0 &&
		 memcmp(buf, TAPAS_LEDGER_FILE_MAGIC_V1, TAPAS_LEDGER_FILE_HEADER_LEN) != 0))
	{
		if (reason)
			*reason = "the file does not start with the ledger magic";
		return TAPAS_EINVAL;
	}
	*good_len = off;
	while (off < len)
	{
		uint32_t	plen,
					crc;
		tapas_status st;

		if (len - off < TAPAS_LEDGER_FILE_FRAME_HDR)
			break;
		memcpy(&plen, buf + off, 4);
		memcpy(&crc, buf + off + 4, 4);
		if (plen > len - off - TAPAS_LEDGER_FILE_FRAME_HDR ||
			tapas_crc32c(buf + off + TAPAS_LEDGER_FILE_FRAME_HDR, plen) != crc)
			break;
		st = replay_payload(s, buf + off + TAPAS_LEDGER_FILE_FRAME_HDR, plen);
		if (st != TAPAS_OK)
		{
			if (reason)
				*reason = st == TAPAS_ELIMIT ?
					"a logged record does not fit the configured ledger limits" :
					"a logged record contradicts the records before it";
			return st;
		}
		off += TAPAS_LEDGER_FILE_FRAME_HDR + plen;
		*good_len = off;
		(*nframes)++;
	}
	if (off < len && reason)
		*reason = "the last record is incomplete or fails its checksum";
	return TAPAS_OK;
}

int
tapas_ledger_file_is_v1(const uint8_t *buf, size_t len)
{
	return len >= TAPAS_LEDGER_FILE_HEADER_LEN &&
		memcmp(buf, TAPAS_LEDGER_FILE_MAGIC_V1, TAPAS_LEDGER_FILE_HEADER_LEN) == 0;
}
