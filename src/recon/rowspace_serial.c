/*-------------------------------------------------------------------------
 *
 * rowspace_serial.c
 *	  A committed row-space state as a flat buffer and back, so that a new
 *	  backend can start from another's state instead of replaying the
 *	  ledger (audit/state_shared.c).
 *
 * The buffer is a fixed header, the arrays that carry the state, and a
 * CRC-32C of everything before it.  Only what a later operation reads is
 * written; the rest is derived or scratch:
 *
 *	per record	z (the secret projections), atom_of, order (pos is its
 *				inverse);
 *	per atom	za, pivot_of, start, size, parent (the partition after its
 *				last savepoint: no trial is open, so every atom is final);
 *	determined	detlist (det is its indicator);
 *	basis		piv, s, t, M (r x r, without the spare capacity), then,
 *				8-byte aligned, the basis row bitmaps and the block sums
 *				(which a reader may keep in place: see rowspace.h);
 *	sampler		the pivot sampler's generator, so that the copy chooses
 *				the same pivots as the original from then on.
 *
 * The copy equals the original word for word in everything the
 * fingerprint hashes (rowspace_check.c); only the basis capacity may
 * differ, which no result depends on.  The bytes are trusted to be ones
 * this code wrote (they never leave the server), but the reader still
 * checks sizes, the prime, the checksum and the structural invariants, so
 * a torn or stale copy is refused rather than read.  Same machine only
 * (native byte order).
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_serial.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/crc32c.h"
#include "util/memory.h"
#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

#define SERIAL_MAGIC	"TPRSPC01"
#define SERIAL_VERSION	4	/* 2: resolved atoms; 3: resolved blocks and
							 * signed basis rows (rowspace_resolved.c);
							 * 4: the row bitmaps 8-byte aligned, last */

typedef struct serial_header
{
	char		magic[8];
	uint32_t	version;
	uint32_t	n;
	uint32_t	rank_limit;
	uint32_t	r;
	uint64_t	prime;
	uint32_t	natoms;
	uint32_t	unc;			/* the uncovered atom, or TAPAS_ROWSPACE_NONE */
	uint64_t	ndet;
	uint64_t	rng[4];
	uint64_t	stats[3];
	uint64_t	payload;		/* bytes between the header and the CRC */
} serial_header;

/* the row bitmaps' alignment (rows_pad) needs a header of whole words */
_Static_assert(sizeof(serial_header) % 8 == 0, "serial_header is not 8-byte sized");

/* zero bytes that align the row bitmaps after at bytes of payload */
static inline size_t
rows_pad(size_t at)
{
	return (8 - at % 8) % 8;
}

/* payload bytes of a state with these sizes (see the banner) */
static size_t
payload_size(uint32_t n, uint32_t natoms, uint64_t ndet, uint32_t r,
			 size_t nblocks, size_t nwords)
{
	size_t		bytes = 0;

	bytes += NPROJ * (size_t) n * sizeof(uint64_t);	/* z */
	bytes += NPROJ * (size_t) natoms * sizeof(uint64_t);	/* za */
	bytes += (size_t) natoms * sizeof(int32_t);	/* pivot_of */
	bytes += (size_t) natoms;	/* resolved */
	bytes += 3 * (size_t) natoms * sizeof(uint32_t);	/* blockof, bstart, bsize */
	bytes += (size_t) ndet * sizeof(uint32_t);	/* detlist */
	bytes += 2 * (size_t) n * sizeof(uint32_t);	/* atom_of, order */
	bytes += 3 * (size_t) natoms * sizeof(uint32_t);	/* start, size, parent */
	bytes += (size_t) r * sizeof(uint32_t);	/* piv */
	bytes += 2 * NPROJ * (size_t) r * sizeof(uint64_t);	/* s, t */
	bytes += (size_t) r * r * sizeof(uint64_t);	/* M */
	bytes += rows_pad(bytes);
	bytes += 2 * (size_t) r * nwords * sizeof(uint64_t);	/* rows, nrows */
	bytes += NPROJ * (size_t) r * nblocks * sizeof(uint64_t);	/* bsum */
	return bytes;
}

/* bytes of the payload before the row bitmaps: they and the block sums
 * follow at an offset a multiple of 8 from the buffer (the header is 8
 * bytes times a whole) */
static size_t
rows_offset(uint32_t n, uint32_t natoms, uint64_t ndet, uint32_t r,
			size_t nblocks, size_t nwords)
{
	return payload_size(n, natoms, ndet, r, nblocks, nwords) -
		2 * (size_t) r * nwords * sizeof(uint64_t) -
		NPROJ * (size_t) r * nblocks * sizeof(uint64_t);
}

size_t
tapas_rowspace_serial_size(const tapas_rowspace_t *rs)
{
	return sizeof(serial_header) +
		payload_size(rs->n, rs->atoms.natoms, rs->ndet, rs->r, rs->nblocks, rs->nwords) +
		sizeof(uint32_t);
}

/* appends len bytes of src at *at */
static inline void
put(unsigned char **at, const void *src, size_t len)
{
	if (len > 0)
		memcpy(*at, src, len);
	*at += len;
}

/* reads len bytes at *at into dst */
static inline void
get(const unsigned char **at, void *dst, size_t len)
{
	memcpy(dst, *at, len);
	*at += len;
}

tapas_status
tapas_rowspace_serialise(const tapas_rowspace_t *rs, void *buf, size_t len)
{
	serial_header h;
	unsigned char *at = buf;
	uint32_t	natoms = rs->atoms.natoms;
	uint32_t	crc;
	uint32_t	k;
	int			e;

	if (rs->in_trial || buf == NULL || len < tapas_rowspace_serial_size(rs))
		return TAPAS_EINVAL;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SERIAL_MAGIC, sizeof(h.magic));
	h.version = SERIAL_VERSION;
	h.n = rs->n;
	h.rank_limit = rs->rank_limit;
	h.r = rs->r;
	h.prime = rs->mod.n;
	h.natoms = natoms;
	h.unc = rs->unc;
	h.ndet = rs->ndet;
	memcpy(h.rng, rs->rng.s, sizeof(h.rng));
	h.stats[0] = rs->stats.rows;
	h.stats[1] = rs->stats.independent;
	h.stats[2] = rs->stats.block_searches;
	h.payload = payload_size(rs->n, natoms, rs->ndet, rs->r, rs->nblocks, rs->nwords);
	put(&at, &h, sizeof(h));
	for (e = 0; e < NPROJ; e++)
		put(&at, rs->z[e], (size_t) rs->n * sizeof(uint64_t));
	for (e = 0; e < NPROJ; e++)
		put(&at, rs->za[e], (size_t) natoms * sizeof(uint64_t));
	put(&at, rs->pivot_of, (size_t) natoms * sizeof(int32_t));
	put(&at, rs->resolved, natoms);
	put(&at, rs->blockof, (size_t) natoms * sizeof(uint32_t));
	put(&at, rs->bstart, (size_t) natoms * sizeof(uint32_t));
	put(&at, rs->bsize, (size_t) natoms * sizeof(uint32_t));
	put(&at, rs->detlist, rs->ndet * sizeof(uint32_t));
	put(&at, rs->atoms.atom_of, (size_t) rs->n * sizeof(uint32_t));
	put(&at, rs->atoms.order, (size_t) rs->n * sizeof(uint32_t));
	put(&at, rs->atoms.start, (size_t) natoms * sizeof(uint32_t));
	put(&at, rs->atoms.size, (size_t) natoms * sizeof(uint32_t));
	put(&at, rs->atoms.parent, (size_t) natoms * sizeof(uint32_t));
	put(&at, rs->piv, (size_t) rs->r * sizeof(uint32_t));
	for (e = 0; e < NPROJ; e++)
	{
		put(&at, rs->s[e], (size_t) rs->r * sizeof(uint64_t));
		put(&at, rs->t[e], (size_t) rs->r * sizeof(uint64_t));
	}
	for (k = 0; k < rs->r; k++)
		put(&at, rs->M + (size_t) k * rs->rcap, (size_t) rs->r * sizeof(uint64_t));
	{
		static const unsigned char zeros[8];
		size_t		pad = rows_pad((size_t) (at - (unsigned char *) buf) - sizeof(h));

		put(&at, zeros, pad);
	}
	/* the rows in place first (r >= r_ext), then the private ones */
	put(&at, rs->ext_rows, (size_t) rs->r_ext * rs->nwords * sizeof(uint64_t));
	put(&at, rs->rows, (size_t) (rs->r - rs->r_ext) * rs->nwords * sizeof(uint64_t));
	put(&at, rs->ext_nrows, (size_t) rs->r_ext * rs->nwords * sizeof(uint64_t));
	put(&at, rs->nrows, (size_t) (rs->r - rs->r_ext) * rs->nwords * sizeof(uint64_t));
	for (e = 0; e < NPROJ; e++)
	{
		put(&at, rs->ext_bsum[e], (size_t) rs->r_ext * rs->nblocks * sizeof(uint64_t));
		put(&at, rs->bsum[e], (size_t) (rs->r - rs->r_ext) * rs->nblocks * sizeof(uint64_t));
	}
	crc = tapas_crc32c(buf, (size_t) (at - (unsigned char *) buf));
	put(&at, &crc, sizeof(crc));
	return TAPAS_OK;
}

/*
 * The invariants a copy must satisfy before any operation reads it: the
 * partition (atoms.c's own check), pivots and basis rows that name each
 * other, determined records listed once.  O(n + r).  NULL if they hold.
 */
static const char *
check_structure(tapas_rowspace_t *rs)
{
	const char *reason = NULL;
	uint32_t	a,
				k;
	size_t		i;

	if (!tapas_atoms_validate(&rs->atoms, &reason))
		return reason ? reason : "invalid atoms";
	for (a = 0; a < rs->atoms.natoms; a++)
	{
		int32_t		pk = rs->pivot_of[a];

		if (pk < -1 || pk >= (int32_t) rs->r || (pk >= 0 && rs->piv[pk] != a))
			return "pivot of an atom does not name its basis row";
		if (pk >= 0 && a == rs->unc)
			return "the uncovered atom is a pivot";
		/* a block's base and range, which later operations read */
		if (rs->resolved[a] &&
			(rs->blockof[a] >= rs->atoms.natoms || !rs->resolved[rs->blockof[a]] ||
			 rs->blockof[rs->blockof[a]] != rs->blockof[a]))
			return "a resolved atom names no base";
		if (rs->resolved[a] && rs->blockof[a] == a &&
			((size_t) rs->bstart[a] + rs->bsize[a] > rs->n || pk >= 0))
			return "a block's range is out of bounds or its base a pivot";
	}
	for (k = 0; k < rs->r; k++)
		if (rs->piv[k] >= rs->atoms.natoms || rs->pivot_of[rs->piv[k]] != (int32_t) k)
			return "basis row does not name its pivot atom";
	if (rs->unc != TAPAS_ROWSPACE_NONE &&
		(rs->unc >= rs->atoms.natoms || rs->resolved[rs->unc]))
		return "the uncovered atom is out of range or resolved";
	for (i = 0; i < rs->ndet; i++)
	{
		uint32_t	j = rs->detlist[i];

		if (j >= rs->n || rs->det[j])
			return "determined record out of range or listed twice";
		rs->det[j] = 1;
	}
	return NULL;
}

int
tapas_rowspace_serial_verify(const void *buf, size_t len)
{
	uint32_t	crc;

	if (buf == NULL || len < sizeof(serial_header) + sizeof(crc))
		return 0;
	memcpy(&crc, (const unsigned char *) buf + len - sizeof(crc), sizeof(crc));
	return tapas_crc32c(buf, len - sizeof(crc)) == crc;
}

tapas_rowspace_t *
tapas_rowspace_deserialise(const void *buf, size_t len, uint64_t prime,
						   tapas_status *status, const char **reason)
{
	return tapas_rowspace_deserialise_ext(buf, len, prime, 0, NULL, NULL, status, reason);
}

tapas_rowspace_t *
tapas_rowspace_deserialise_ext(const void *buf, size_t len, uint64_t prime, int flags,
							   void (*release) (void *arg), void *arg,
							   tapas_status *status, const char **reason)
{
	serial_header h;
	const unsigned char *at = buf;
	tapas_rowspace_t *rs;
	uint32_t	natoms,
				crc,
				j,
				k;
	const char *why;
	int			e;

#define REFUSE(msg) do { *status = TAPAS_EINVAL; if (reason) *reason = (msg); return NULL; } while (0)
	if (buf == NULL || len < sizeof(h) + sizeof(crc))
		REFUSE("buffer too short for a row-space copy");
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, SERIAL_MAGIC, sizeof(h.magic)) != 0 || h.version != SERIAL_VERSION)
		REFUSE("not a row-space copy of this version");
	if (h.prime != prime)
		REFUSE("row-space copy of another prime");
	if (h.n == 0 || h.n >= (UINT32_C(1) << 31) || h.natoms == 0 || h.natoms > h.n ||
		h.ndet > h.n || h.rank_limit == 0 || h.rank_limit > TAPAS_ROWSPACE_RANK_MAX ||
		h.r > h.rank_limit)
		REFUSE("row-space copy with impossible sizes");
	if ((flags & TAPAS_ROWSPACE_SERIAL_VERIFIED) == 0 &&
		!tapas_rowspace_serial_verify(buf, len))
		REFUSE("row-space copy fails its checksum");
	if ((flags & TAPAS_ROWSPACE_SERIAL_INPLACE) && ((uintptr_t) buf % 8 != 0 || release == NULL))
		REFUSE("row-space copy not aligned for reading in place");
	rs = tapas_rowspace_alloc(h.n, prime, h.rank_limit, h.r > 64 ? h.r : 64, status, reason);
	if (rs == NULL)
		return NULL;
	if (h.payload != payload_size(h.n, h.natoms, h.ndet, h.r, rs->nblocks, rs->nwords) ||
		len != sizeof(h) + h.payload + sizeof(crc))
	{
		tapas_rowspace_free(rs);
		REFUSE("row-space copy of the wrong length");
	}
	natoms = h.natoms;
	at += sizeof(h);
	for (e = 0; e < NPROJ; e++)
	{
		if (flags & TAPAS_ROWSPACE_SERIAL_INPLACE)
		{
			/* read only after creation, like the basis rows: kept in place */
			tapas_free(rs->z[e]);
			rs->z[e] = (uint64_t *) at;
			rs->z_ext = 1;
			at += (size_t) h.n * sizeof(uint64_t);
		}
		else
			get(&at, rs->z[e], (size_t) h.n * sizeof(uint64_t));
	}
	for (e = 0; e < NPROJ; e++)
		get(&at, rs->za[e], (size_t) natoms * sizeof(uint64_t));
	get(&at, rs->pivot_of, (size_t) natoms * sizeof(int32_t));
	get(&at, rs->resolved, natoms);
	get(&at, rs->blockof, (size_t) natoms * sizeof(uint32_t));
	get(&at, rs->bstart, (size_t) natoms * sizeof(uint32_t));
	get(&at, rs->bsize, (size_t) natoms * sizeof(uint32_t));
	rs->unc = h.unc;
	rs->nres = 0;
	for (j = 0; j < natoms; j++)
	{
		rs->resolved[j] = rs->resolved[j] != 0;
		rs->nres += rs->resolved[j] && rs->blockof[j] == j;	/* a block's base */
	}
	get(&at, rs->detlist, h.ndet * sizeof(uint32_t));
	get(&at, rs->atoms.atom_of, (size_t) h.n * sizeof(uint32_t));
	get(&at, rs->atoms.order, (size_t) h.n * sizeof(uint32_t));
	get(&at, rs->atoms.start, (size_t) natoms * sizeof(uint32_t));
	get(&at, rs->atoms.size, (size_t) natoms * sizeof(uint32_t));
	get(&at, rs->atoms.parent, (size_t) natoms * sizeof(uint32_t));
	rs->atoms.natoms = natoms;
	rs->atoms.saved_natoms = natoms;
	/* pos is the inverse of order (an out-of-range order fails the check) */
	for (j = 0; j < h.n; j++)
		if (rs->atoms.order[j] < h.n)
			rs->atoms.pos[rs->atoms.order[j]] = j;
	rs->r = h.r;
	rs->ndet = h.ndet;
	get(&at, rs->piv, (size_t) h.r * sizeof(uint32_t));
	for (e = 0; e < NPROJ; e++)
	{
		get(&at, rs->s[e], (size_t) h.r * sizeof(uint64_t));
		get(&at, rs->t[e], (size_t) h.r * sizeof(uint64_t));
	}
	for (k = 0; k < h.r; k++)
		get(&at, rs->M + (size_t) k * rs->rcap, (size_t) h.r * sizeof(uint64_t));
	at = (const unsigned char *) buf + sizeof(h) +
		rows_offset(h.n, natoms, h.ndet, h.r, rs->nblocks, rs->nwords);
	if (flags & TAPAS_ROWSPACE_SERIAL_INPLACE)
	{
		/* bitmaps and block sums stay in buf; private arrays for rows r.. */
		size_t		priv = rs->rcap > h.r ? rs->rcap - h.r : 1;
		int			bad;

		rs->r_ext = h.r;
		rs->ext_rows = (const uint64_t *) at;
		rs->ext_nrows = rs->ext_rows + (size_t) h.r * rs->nwords;
		tapas_free(rs->rows);
		tapas_free(rs->nrows);
		rs->rows = tapas_malloc(priv * rs->nwords * sizeof(uint64_t));
		rs->nrows = tapas_malloc(priv * rs->nwords * sizeof(uint64_t));
		bad = rs->rows == NULL || rs->nrows == NULL;
		for (e = 0; e < NPROJ; e++)
		{
			rs->ext_bsum[e] = rs->ext_nrows + (size_t) h.r * rs->nwords +
				(size_t) e * h.r * rs->nblocks;
			tapas_free(rs->bsum[e]);
			rs->bsum[e] = tapas_malloc(priv * rs->nblocks * sizeof(uint64_t));
			bad |= rs->bsum[e] == NULL;
		}
		if (bad)
		{
			tapas_rowspace_free(rs);
			*status = TAPAS_ENOMEM;
			if (reason)
				*reason = "out of memory";
			return NULL;
		}
	}
	else
	{
		get(&at, rs->rows, (size_t) h.r * rs->nwords * sizeof(uint64_t));
		get(&at, rs->nrows, (size_t) h.r * rs->nwords * sizeof(uint64_t));
		for (e = 0; e < NPROJ; e++)
			get(&at, rs->bsum[e], (size_t) h.r * rs->nblocks * sizeof(uint64_t));
	}
	memcpy(rs->rng.s, h.rng, sizeof(h.rng));
	rs->stats.rows = h.stats[0];
	rs->stats.independent = h.stats[1];
	rs->stats.block_searches = h.stats[2];
	if ((why = check_structure(rs)) != NULL)
	{
		tapas_rowspace_free(rs);	/* no release yet: the caller keeps buf */
		REFUSE(why);
	}
	if (flags & TAPAS_ROWSPACE_SERIAL_INPLACE)
	{
		rs->ext_release = release;
		rs->ext_arg = arg;
	}
	*status = TAPAS_OK;
	if (reason)
		*reason = NULL;
	return rs;
#undef REFUSE
}
