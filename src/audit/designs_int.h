/*-------------------------------------------------------------------------
 *
 * designs_int.h
 *	  Internal to the design-aware audit (designs.c recognises the logged
 *	  rows as design rows; designs_decode.c decodes them against the truth,
 *	  log and warn modes; designs_complete.c decides from the tags alone,
 *	  deny mode).
 *
 * IDENTIFICATION
 *	  src/audit/designs_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DESIGNS_INT_H
#define TAPAS_DESIGNS_INT_H

#include "audit/audit_int.h"
#include "recon/bch.h"

#define DESIGN_SIG_KEYS			64	/* keys 1..64 form the signature */
#define DESIGN_HADAMARD_KEYS	24	/* keys 2^i + 1, i < 24, spell a Hadamard row */

/* one call's view of the records */
typedef struct DesignView
{
	TapasAuditBatch *batch;
	int64		n;				/* design size: the largest key */
	int64		sig_idx[DESIGN_SIG_KEYS];	/* dense index of key j + 1, or -1 */
	int64		had_idx[DESIGN_HADAMARD_KEYS];	/* dense index of key 2^i + 1, or -1 */
	uint64		mask;			/* signature bits whose key exists */
	roaring_bitmap_t *universe; /* dense indices with key 1..n (lazy) */
	uint64		nuniverse;
	bool		bch_ok;			/* the recognition design is for n */
	roaring_bitmap_t **brows;	/* the batch's rows as bitmaps */
} DesignView;

/* one row: its bitmap, answer and tags */
typedef struct DesignRow
{
	const roaring_bitmap_t *r;
	double		answer;
	int32		bch;
	int32		had;
} DesignRow;

/* the per-backend BCH recognition design (for the last n) and its blocks */
extern tapas_bch_t *tapas_design_rec_bch;
extern int	tapas_design_rec_s;

/*
 * The view of batch's records and the tagged rows (logged rows, then the
 * batch's), *m of them; tapas_design_view_done frees what the view holds.
 */
extern DesignRow *tapas_design_rows(DesignView *c, TapasAuditBatch *batch, int *m);
extern void tapas_design_view_done(DesignView *c);

#endif							/* TAPAS_DESIGNS_INT_H */
