/*-------------------------------------------------------------------------
 *
 * combined_int.h
 *	  What the combined rows of a group of related classes (combined.c)
 *	  share with the statement's rows (combined_batch.c) and with their
 *	  freeing and memory accounting (combined_memory.c): the table of
 *	  covers and the combined state of a group entry.
 *
 * IDENTIFICATION
 *	  src/audit/combined_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_COMBINED_INT_H
#define TAPAS_COMBINED_INT_H

#include "audit/audit_int.h"


/* the cells logged over one cover */
typedef struct CoverGroup
{
	uint64		hash;
	int			next;			/* next group with the same hash bucket, or -1 */
	const roaring_bitmap_t *cover;	/* a row of the group's entry (not owned) */
	int			nm;				/* masks kept: linearly independent */
	int16		masks[TAPAS_COMBINED_MAX_MASKS];	/* each the patterns of this member */
	double		answers[TAPAS_COMBINED_MAX_MASKS];
	int64		log_id;			/* the newest cell's */
	uint32		done;			/* bit t: target t's row was made */
} CoverGroup;

struct TapasCombined
{
	int			src_rows;		/* rows of the group's entry taken */
	int64		src_last;		/* log_id of the last of them (a reset shows) */
	int			ngroups;
	int			maxgroups;
	CoverGroup *groups;
	int			nbuckets;
	int		   *buckets;		/* [nbuckets] first group, or -1 */
	int			ntargets;
	tapas_regset_t targets[TAPAS_COMBINED_MAX_TARGETS];
	bool		combines[TAPAS_COMBINED_MAX_TARGETS];	/* a cover combined 2+ cells */
	TapasAuditEntry *entries[TAPAS_COMBINED_MAX_TARGETS];	/* or NULL */
	TapasClass	classes[TAPAS_COMBINED_MAX_TARGETS];
};

/* combined.c */
extern TapasCombined *tapas_audit_combined_of(TapasAuditEntry *e);
extern void tapas_audit_combined_add_mask(CoverGroup *g, const TapasJoint *jt, int m,
										  double a);
extern uint64 tapas_audit_combined_ids_hash(const uint32 *ids, size_t n);
extern int	tapas_audit_combined_find_group(const TapasCombined *c, uint64 h,
											const roaring_bitmap_t *r);
extern bool tapas_audit_combined_group_target(const CoverGroup *g, const TapasJoint *jt,
											  const tapas_regset_t *T, double *answer,
											  bool *combines);
extern TapasAuditEntry *tapas_audit_combined_target_entry(TapasCombined *c,
														   TapasAuditEntry *e, int t);

#endif							/* TAPAS_COMBINED_INT_H */
