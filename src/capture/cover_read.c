/*-------------------------------------------------------------------------
 *
 * cover_read.c
 *	  Reading a packed _cover result (cover.c: TapasCoverHeader, the
 *	  answers, the bitmap in Roaring's portable format, the other keys):
 *	  its checked header, keys, answers and size.
 *
 * IDENTIFICATION
 *	  src/capture/cover_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <roaring/roaring.h>

#include "utils/memutils.h"

#include "capture/capture.h"
#include "capture/cover_int.h"

/*
 * reads the header of a packed state and checks its lengths; returns where
 * its answers start (the bitmap follows them)
 */
const char *
tapas_cover_unpack_header(const bytea *cover, TapasCoverHeader *hdr)
{
	const char *p = VARDATA_ANY(cover);
	Size		len = VARSIZE_ANY_EXHDR(cover);

	if (len < sizeof(*hdr))
		elog(ERROR, "tapas: malformed capture");
	memcpy(hdr, p, sizeof(*hdr));
	if (hdr->setbytes < 0 || hdr->nextra < 0 || hdr->nkeys < hdr->nextra ||
		hdr->nanswers < 0 || hdr->nanswers > FUNC_MAX_ARGS ||
		len != sizeof(*hdr) + hdr->nanswers * sizeof(double) + hdr->setbytes +
		hdr->nextra * sizeof(int64))
		elog(ERROR, "tapas: malformed capture");
	return p + sizeof(*hdr);
}

/* the bitmap of a packed state (setbytes > 0), checked against nkeys */
roaring_bitmap_t *
tapas_cover_unpack_set(const char *p, const TapasCoverHeader *hdr)
{
	roaring_bitmap_t *set = roaring_bitmap_portable_deserialize_safe(p, hdr->setbytes);

	if (set == NULL ||
		roaring_bitmap_get_cardinality(set) != (uint64) (hdr->nkeys - hdr->nextra))
	{
		if (set != NULL)
			roaring_bitmap_free(set);
		elog(ERROR, "tapas: malformed capture");
	}
	return set;
}

/*
 * Unpacks a _cover result made by tapas_sql_cover_final: the header, and
 * the keys in a new array allocated in cxt (the bitmap's keys ascending,
 * then the others).
 */
int64 *
tapas_cover_keys(const bytea *cover, MemoryContext cxt, TapasCoverHeader *hdr)
{
	const char *p = cover_keys_start(tapas_cover_unpack_header(cover, hdr), hdr);
	roaring_bitmap_t *set;
	roaring_uint32_iterator_t it;
	uint32		buf[COVER_STAGE];
	int64	   *keys;
	int64		n = 0;
	uint32		got;

	keys = MemoryContextAllocHuge(cxt, Max(hdr->nkeys, 1) * sizeof(int64));
	if (hdr->setbytes > 0)
	{
		set = tapas_cover_unpack_set(p, hdr);
		roaring_init_iterator(set, &it);
		while ((got = roaring_read_uint32_iterator(&it, buf, COVER_STAGE)) > 0)
			for (uint32 i = 0; i < got; i++)
				keys[n++] = buf[i];
		roaring_bitmap_free(set);
	}
	memcpy(keys + n, p + hdr->setbytes, hdr->nextra * sizeof(int64));
	return keys;
}

bool
tapas_cover_same_keys(const bytea *a, const bytea *b, TapasCoverHeader *hdr)
{
	TapasCoverHeader ha;
	const char *pa = tapas_cover_unpack_header(a, &ha);
	const char *pb = tapas_cover_unpack_header(b, hdr);

	if (a == b)
		return true;
	pa = cover_keys_start(pa, &ha);
	pb = cover_keys_start(pb, hdr);

	/* the lengths were checked against the headers: compare the payloads */
	return ha.nkeys == hdr->nkeys && ha.nextra == hdr->nextra && ha.setbytes == hdr->setbytes &&
		memcmp(pa, pb, hdr->setbytes + hdr->nextra * sizeof(int64)) == 0;
}

/* answer slot of a _cover result: the sum of its statistic slot's values */
double
tapas_cover_answer(const bytea *cover, int slot)
{
	TapasCoverHeader hdr;
	const char *p = tapas_cover_unpack_header(cover, &hdr);
	double		answer;

	if (hdr.nanswers == 0 && hdr.nkeys == 0)
		return 0.0;				/* an empty group: no row reached the capture */
	if (slot < 0 || slot >= hdr.nanswers)
		elog(ERROR, "tapas: malformed capture");
	memcpy(&answer, p + slot * sizeof(double), sizeof(double));
	return answer;
}

/* the number of covered keys of a _cover result (its header only) */
int64
tapas_cover_count(const bytea *cover)
{
	TapasCoverHeader hdr;

	(void) tapas_cover_unpack_header(cover, &hdr);
	return hdr.nkeys;
}

