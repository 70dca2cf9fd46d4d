/*-------------------------------------------------------------------------
 *
 * cover_int.h
 *	  The state of the capture aggregate tapas._cover and its packed form,
 *	  shared by its transition and final functions (cover.c), its partial
 *	  aggregation (cover_parallel.c) and the readers of its result
 *	  (cover_read.c).
 *
 * IDENTIFICATION
 *	  src/capture/cover_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_COVER_INT_H
#define TAPAS_COVER_INT_H

#include <roaring/roaring.h>

#include "fmgr.h"

#include "capture/capture.h"

#define COVER_STAGE 4096		/* most keys staged before a bulk add */

typedef struct CoverState
{
	roaring_bitmap_t *set;		/* keys in [0, 2^32); NULL until needed */
	int64		nextra;			/* other keys collected */
	int64		extra_cap;		/* allocated slots in extra */
	int64	   *extra;			/* keys outside [0, 2^32) */
	int			nstaged;		/* keys in staged, not yet in set */
	int			stage_cap;		/* allocated slots in staged */
	uint32	   *staged;			/* keys waiting for a bulk add */
	int			scratch_cap;	/* allocated slots in scratch */
	uint32	   *scratch;		/* the radix sort's second buffer */
	int			nanswers;		/* statistics of the covered set (values) */
	double	   *answers;		/* [nanswers] sums of their non-null values */
	char	   *vtype;			/* [nanswers] each value's type (COVER_V_*),
								 * NULL in a state made by combining */
	MemoryContext cxt;			/* the aggregate context */
	MemoryContextCallback free_set; /* frees set with the context */
} CoverState;

extern void tapas_cover_free_set(void *arg);
extern CoverState *tapas_cover_create(FunctionCallInfo fcinfo, int nanswers);
extern void tapas_cover_flush(CoverState *st);
extern void tapas_cover_add_extra(CoverState *st, int64 key);
extern roaring_bitmap_t *tapas_cover_set(CoverState *st, bool *temp);
extern bytea *tapas_cover_pack(CoverState *st);
extern const char *tapas_cover_unpack_header(const bytea *cover, TapasCoverHeader *hdr);
extern roaring_bitmap_t *tapas_cover_unpack_set(const char *p, const TapasCoverHeader *hdr);

/* where the keys of a packed state start: its bitmap, after the answers */
static inline const char *
cover_keys_start(const char *answers, const TapasCoverHeader *hdr)
{
	return answers + hdr->nanswers * sizeof(double);
}

#endif							/* TAPAS_COVER_INT_H */
