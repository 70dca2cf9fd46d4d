/*-------------------------------------------------------------------------
 *
 * ledger_file.h
 *	  Record format of the ledger's durable file, pure C.
 *
 * The file is an 8-byte magic "TAPASLF2" (version 1 files: "TAPASLF1")
 * followed by frames:
 *
 *	uint32 len		payload bytes
 *	uint32 crc		CRC-32C of the payload
 *	payload			one record, first byte = kind
 *
 * Records (host byte order, packed, read with memcpy):
 *
 *	STMT2 (4)	pad[3], u32 ncells, i64 first_log_id, i64 logged_at,
 *				i64 session_start, u32 role, i32 pid, u32 query_len
 *				(UINT32_MAX = no query), query bytes, then per cell:
 *				u64 table_id, u32 stat_len, stat bytes, f64 answer,
 *				u64 ncovered, u64 nnew, i64 newkeys[nnew], u64 cover_len,
 *				cover bytes (CRoaring portable); or, for a cover identical to
 *				that of an earlier cell of the frame (shared_from), u64
 *				UINT64_MAX and u32 the index of that cell.
 *	STMT3 (6)	as STMT2, with after each cell's stat bytes: u32 basis_len,
 *				basis bytes (the statistic's basis tree as tapas serialised
 *				it; 0 = none).  A cell carries the basis only when the
 *				store, replayed up to it, holds none for its statistic
 *				(ledger_store_int.h: a statistic is interned again when its
 *				basis comes later), so a basis is written once per
 *				statistic.
 *	KEYS2 (5)	pad[7], u64 table_id, u64 nkeys, i64 keys[nkeys]: appended
 *				to the table's dense index in this order.
 *	META (3)	pad[7], i64 next_log_id.
 *
 * Version 1 (tapas 0.2) wrote STMT (1) and KEYS (2), identical except that
 * a table is a u32 OID (STMT: u32 relid in place of u64 table_id; KEYS:
 * pad[3], u32 relid).  Replay still reads them; the OID becomes the table
 * id, i.e. database 0 in the server's (dbid << 32 | relid) encoding,
 * because the database of a 0.2 record cannot be known.  The server
 * treats such a table as shared by every database (src/ledger/ledger_int.h).
 * Writers emit only STMT3, KEYS2 and META records; STMT2 (tapas 0.3
 * before basis trees were logged) is read, its statistics without a
 * basis (the auditor fails closed on them, src/audit/truth.c); a
 * version 1 file gets the version 2 magic at startup (tapas_ledger_file_is_v1) before anything is appended.
 *
 * A live append writes one STMT frame whose new keys carry the dense
 * index assignment; replaying the frames in order through
 * tapas_ledger_store_apply rebuilds the store exactly.  A rewritten file
 * (tapas_ledger_file_dump, after tapas.reset) has META, then one KEYS per table,
 * then STMT frames without new keys.
 *
 * A frame that extends past the end of the file or fails its CRC ends the
 * replay: it is a torn tail from a crash during the write (or damage), and
 * the caller truncates the file there.  The file is in host byte order,
 * like PostgreSQL's own data files.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_file.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_FILE_H
#define TAPAS_LEDGER_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "lstore/ledger_store.h"
#include "util/status.h"

#define TAPAS_LEDGER_FILE_MAGIC		"TAPASLF2"
#define TAPAS_LEDGER_FILE_MAGIC_V1	"TAPASLF1"	/* read only */
#define TAPAS_LEDGER_FILE_HEADER_LEN	8
#define TAPAS_LEDGER_FILE_FRAME_HDR	8
#define TAPAS_LEDGER_FILE_MAX_PAYLOAD	(UINT32_C(1) << 31)

#define TAPAS_LEDGER_FILE_STMT		1	/* version 1, read only */
#define TAPAS_LEDGER_FILE_KEYS		2	/* version 1, read only */
#define TAPAS_LEDGER_FILE_META		3
#define TAPAS_LEDGER_FILE_STMT2		4
#define TAPAS_LEDGER_FILE_KEYS2		5
#define TAPAS_LEDGER_FILE_STMT3		6

/*
 * Encoders.  Each returns in *frame a tapas_malloc'd frame (length, CRC,
 * payload) of *len bytes; the caller frees it with tapas_free.
 * TAPAS_ELIMIT if the payload would exceed TAPAS_LEDGER_FILE_MAX_PAYLOAD,
 * TAPAS_ENOMEM.
 */
extern tapas_status tapas_ledger_file_encode_stmt(const tapas_ledger_batch_t *b,
											uint8_t **frame, size_t *len);
extern tapas_status tapas_ledger_file_encode_keys(uint64_t table_id, const int64_t *keys,
											uint64_t nkeys, uint8_t **frame, size_t *len);
extern tapas_status tapas_ledger_file_encode_meta(int64_t next_log_id,
											uint8_t **frame, size_t *len);

/*
 * Decodes a STMT payload (without the frame header) into a batch that
 * borrows the statistic, query and cover bytes from payload (keep it
 * alive until tapas_ledger_batch_free) and owns copies of the new keys.
 * TAPAS_EINVAL if the payload is malformed, TAPAS_ENOMEM.
 */
extern tapas_status tapas_ledger_file_decode_stmt(const uint8_t *payload, size_t len,
											tapas_ledger_batch_t **batch);

/*
 * Replays a whole file image buf[0..len) into s (normally empty).
 * *good_len gets the length of the valid prefix (header and complete,
 * CRC-correct, applied frames) and *nframes the number of frames applied.
 * Returns:
 *	TAPAS_OK			every frame applied, or the replay stopped at a torn
 *						or corrupt frame (then *good_len < len and *reason
 *						says why): truncate the file to *good_len;
 *	TAPAS_ELIMIT		a valid frame does not fit the store's limits
 *						(raise them; the file is fine, do not truncate);
 *	TAPAS_EINVAL		bad file magic, or a valid frame contradicts the
 *						store (*good_len is where it starts);
 *	TAPAS_ENOMEM.
 * reason may be NULL.  A file of length 0 is an empty ledger.
 */
extern tapas_status tapas_ledger_file_replay(tapas_ledger_store_t *s, const uint8_t *buf, size_t len,
									   size_t *good_len, uint64_t *nframes,
									   const char **reason);

/* whether a file image starts with the version 1 magic (then the caller
 * overwrites its first TAPAS_LEDGER_FILE_HEADER_LEN bytes with TAPAS_LEDGER_FILE_MAGIC) */
extern int	tapas_ledger_file_is_v1(const uint8_t *buf, size_t len);

/*
 * Writes the whole store as a fresh file image (magic, META, KEYS per
 * table, STMT per run of cells of one statement) through write_fn, which
 * returns 0 on success.  Returns TAPAS_OK, TAPAS_ENOMEM, or TAPAS_EINVAL
 * when write_fn failed.
 */
typedef int (*tapas_ledger_file_write_fn) (void *arg, const void *data, size_t len);
extern tapas_status tapas_ledger_file_dump(const tapas_ledger_store_t *s,
									 tapas_ledger_file_write_fn write_fn, void *arg);

/*
 * The same as if table skip (0: none) had been reset first
 * (tapas_ledger_store_reset_table): its KEYS and cells are left out.  Lets
 * tapas.reset write the new file before it changes the store in place.
 */
extern tapas_status tapas_ledger_file_dump_without(const tapas_ledger_store_t *s, uint64_t skip,
											 tapas_ledger_file_write_fn write_fn, void *arg);

#endif							/* TAPAS_LEDGER_FILE_H */
