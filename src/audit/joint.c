/*-------------------------------------------------------------------------
 *
 * joint.c
 *	  The row-space test of a group of related classes: which records
 *	  would the candidate cells determine, when cells of classes that are
 *	  linearly related (relations.c) combine?
 *
 * Coordinates (recon/linrel.h).  The group's classes are sums of regions:
 * s_b v_b = sum of g_r over the regions r of b, with the g_r linearly
 * independent.  The unknowns are (region r, record j), numbered r cap_n +
 * j in the kernel, and a cell of class b over cover Q is the 0/1 row
 * Q x (regions of b): its cover repeated once per region of its class.
 * In split coordinates (classes that are multiples of the generators with
 * unequal weights) a cell is instead one row Q x r per region r of its
 * class: more than the answer tells, so the test is sound.
 * The row space of these rows is the attacker's: it holds e_j x c_b
 * exactly when the value of class b at record j follows from the answers
 * by linear algebra, whichever classes the cells were of.
 *
 * The test.  A record is determined when, for some class b of the group,
 * the vector with support {r cap_n + j : r in regions(b)} lies in the row
 * space (tapas_rowspace_contains), or when one region's unknown at j does
 * (the kernel's determined set: a combination of the classes' values at j
 * that the answers pin down).  Like the per-class test it reads no
 * answer, so refusing on it leaks nothing.  Cost per statement: the trial
 * (as for one class, over regions x records unknowns) plus the class
 * values of the records that touch a pivot or resolved atom of at most
 * the group's region count (tapas_rowspace_anchors: about the rank, not
 * the table, under an attack design): a vector of the row space touches
 * one, so no other record's value can be determined; of those, only
 * records whose unknowns sit in atoms no larger than the class's region
 * count are tested further (an atom reaching another record makes the sum
 * non-constant on it, so it cannot be in the row space).
 *
 * IDENTIFICATION
 *	  src/audit/joint.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/lsyscache.h"

#include "audit/audit_int.h"
#include "policy/status_error.h"

/* a class's value at a record is one vector of the span test */
StaticAssertDecl(TAPAS_ROWSPACE_SPAN_MAX >= TAPAS_REGSET_MAX, "span test of a region set");

/*
 * Expands the card record indices at ids[at ..) in place to the row's
 * unknowns, record j of region r as r cap_n + j, for the regions set in
 * regions, region by region; returns the new end.  The buffer must have
 * room for popcount(regions) * card ids from at.
 */
size_t
tapas_audit_joint_expand(const tapas_regset_t *regions, uint32 cap_n, uint32 *ids, size_t at,
						 size_t card)
{
	int			nreg = tapas_regset_count(regions);
	int			k = nreg;

	/* the last region's block first: block 0 holds the records until last */
	for (int r = TAPAS_REGSET_MAX - 1; r >= 0 && k > 0; r--)
	{
		if (!tapas_regset_has(regions, r))
			continue;
		k--;
		for (size_t i = 0; i < card; i++)
			ids[at + k * card + i] = (uint32) r * cap_n + ids[at + i];
	}
	return at + (size_t) nreg * card;
}

/* the kernel rows of one cell of member m: 1, or its regions in split coordinates */
size_t
tapas_audit_joint_nrows(const TapasJoint *jt, int member)
{
	return jt->split ? (size_t) tapas_regset_count(&jt->regions[member]) : 1;
}

/*
 * Expands the cell of member m whose card record indices are at ids[at ..)
 * into its rows (tapas_audit_joint_expand), and appends the start of each
 * row but the first to offsets[*nrows ..) (the caller set the first):
 * one row, or in split coordinates one row per region.  Returns the end.
 */
size_t
tapas_audit_joint_cell_rows(const TapasJoint *jt, int member, uint32 cap_n, uint32 *ids,
							size_t at, size_t card, size_t *offsets, size_t *nrows)
{
	size_t		end = tapas_audit_joint_expand(&jt->regions[member], cap_n, ids, at, card);

	if (jt->split)
		for (size_t k = 1; k < tapas_audit_joint_nrows(jt, member); k++)
			offsets[(*nrows)++] = at + k * card;
	return end;
}

/* kernel progress: stop on a pending cancel */
static int
interrupt_progress(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

static const tapas_progress_t interrupt_poll = {interrupt_progress, NULL};

/* the batch's rows over the group's unknowns (palloc'd); returns their number */
static size_t
batch_rows(TapasAuditBatch *batch, const int16 *member, uint32 **ids,
		   size_t **offsets)
{
	TapasAuditEntry *e = batch->entry;
	size_t		total = 0,
				nrows = 0;

	for (int i = 0; i < batch->ncells; i++)
	{
		total += (batch->offsets[i + 1] - batch->offsets[i]) *
			tapas_regset_count(&e->joint->regions[member[i]]);
		nrows += tapas_audit_joint_nrows(e->joint, member[i]);
	}
	*ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(total, 1));
	*offsets = palloc(sizeof(size_t) * (nrows + 1));
	total = 0;
	nrows = 0;
	for (int i = 0; i < batch->ncells; i++)
	{
		size_t		card = batch->offsets[i + 1] - batch->offsets[i];

		(*offsets)[nrows++] = total;
		memcpy(*ids + total, batch->ids + batch->offsets[i], sizeof(uint32) * card);
		total = tapas_audit_joint_cell_rows(e->joint, member[i], e->cap_n, *ids, total, card,
											*offsets, &nrows);
	}
	(*offsets)[nrows] = total;
	return nrows;
}

/* is the value of member m at record j in the row space? */
static bool
class_value_determined(TapasAuditEntry *e, int m, uint32 j)
{
	const tapas_regset_t *regions = &e->joint->test[m];
	uint32		ids[TAPAS_ROWSPACE_SPAN_MAX];
	size_t		len = 0;
	uint32		nreg = (uint32) tapas_regset_count(regions);

	TAPAS_REGSET_FOREACH(r, regions)
	{
		ids[len] = (uint32) r * e->cap_n + j;
		/* an atom wider than the vector reaches another record */
		if (tapas_rowspace_atom_size(e->rs, ids[len]) > nreg)
			return false;
		len++;
	}
	return len > 0 && tapas_rowspace_contains(e->rs, ids, len) == 1;
}

/* tapas_rowspace_anchors' callback: the record of an unknown */
typedef struct AnchorArg
{
	roaring_bitmap_t *records;
	uint32		cap_n;
} AnchorArg;

static void
anchor_add(void *arg, uint32 id)
{
	AnchorArg  *a = arg;

	roaring_bitmap_add(a->records, id % a->cap_n);
}

static void
add_finding(TapasAuditBatch *batch, TapasFinding *f, uint32 j, const char *what)
{
	TapasAuditEntry *e = batch->entry;

	f->index = j;
	f->key = batch->keys[j];
	f->kind = TAPAS_ALERT_DETERMINED;
	f->method = "rowspace_joint";
	snprintf(f->detail, sizeof(f->detail),
			 "%s lies in the row space of %d related classes (%d regions): %d logged rows plus %d candidate rows (rank %u)",
			 what, e->joint->ncls, e->joint->nregions, e->nrows, batch->ncells,
			 tapas_rowspace_rank(e->rs));
}

/*
 * Records the batch would make determined in the group's joint system
 * (not reported before), with the trial left open as in
 * tapas_audit_determined (the caller closes it with tapas_audit_trial_end).
 * member[i] is cell i's class in the group.  Returns the number of
 * findings (palloc'd array in *found), or -1 when the test cannot
 * complete (no 0/1 coordinates, size or rank limit, rows left at the
 * deadline).
 */
int
tapas_audit_joint_determined(TapasAuditBatch *batch, const int16 *member,
							 TapasFinding **found, TimestampTz deadline)
{
	TapasAuditEntry *e = batch->entry;
	const uint32 *newly;
	size_t		count = 0;
	uint32	   *ids;
	size_t	   *offsets,
				nrows;
	tapas_status st;
	int			nf = 0,
				maxf = 16;
	roaring_bitmap_t *hit;
	roaring_bitmap_t *anchors;
	AnchorArg	anchor_arg;
	roaring_uint32_iterator_t *it;
	uint32		tried = 0;

	*found = NULL;
	if (e->joint == NULL || e->joint->nregions < 1)
		return -1;
	if (!tapas_audit_rowspace_ready(e, batch->n_total, deadline))
		return -1;
	if (batch->ncells == 0)
		return 0;
	nrows = batch_rows(batch, member, &ids, &offsets);
	st = tapas_rowspace_trial(e->rs, ids, offsets, nrows, &interrupt_poll,
							  &newly, &count);
	pfree(ids);
	pfree(offsets);
	if (st == TAPAS_ECANCELED)
	{
		CHECK_FOR_INTERRUPTS();
		return -1;
	}
	if (st == TAPAS_ELIMIT)
	{
		e->rs_broken = true;
		ereport(LOG_SERVER_ONLY,
				(errmsg("tapas: joint audit of table \"%s\" reached its rank limit for \"%s\"",
						get_rel_name(e->key.relid), e->key.statistic)));
		return -1;
	}
	if (st != TAPAS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("joint row-space audit failed (status %d)", (int) st)));
	e->trial_open = true;		/* closed by tapas_audit_trial_end */

	*found = palloc0(sizeof(TapasFinding) * maxf);
	hit = roaring_bitmap_create();
	/* one region's unknown pinned down: a combination of the classes' values */
	for (size_t i = 0; i < count; i++)
	{
		uint32		j = newly[i] % e->cap_n;

		if (roaring_bitmap_contains(e->reported, j) || !roaring_bitmap_add_checked(hit, j))
			continue;
		if (nf == maxf)
		{
			maxf *= 2;
			*found = repalloc(*found, sizeof(TapasFinding) * maxf);
		}
		add_finding(batch, &(*found)[nf++], j, "a combination of the record's class values");
	}
	/*
	 * The value of each class of the group at each record whose unknowns
	 * touch a pivot or resolved atom: no other record's value can lie in
	 * the row space (tapas_rowspace_anchors), so the others are not tried.
	 */
	anchors = roaring_bitmap_create();
	anchor_arg.records = anchors;
	anchor_arg.cap_n = e->cap_n;
	tapas_rowspace_anchors(e->rs, (uint32) e->joint->nregions, anchor_add, &anchor_arg);
	it = roaring_create_iterator(anchors);
	for (; it->has_value; roaring_advance_uint32_iterator(it))
	{
		uint32		j = it->current_value;

		if ((++tried & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (j >= (uint64) batch->n_total ||
			roaring_bitmap_contains(e->reported, j) ||
			roaring_bitmap_contains(hit, j))
			continue;
		for (int m = 0; m < e->joint->ncls; m++)
			if (class_value_determined(e, m, j))
			{
				char		what[TAPAS_ALERT_DETAIL_LEN / 2];

				roaring_bitmap_add(hit, j);
				if (nf == maxf)
				{
					maxf *= 2;
					*found = repalloc(*found, sizeof(TapasFinding) * maxf);
				}
				snprintf(what, sizeof(what), "the value of class %d", e->joint->cls[m]->id);
				add_finding(batch, &(*found)[nf++], j, what);
				break;
			}
	}
	roaring_free_uint32_iterator(it);
	roaring_bitmap_free(anchors);
	roaring_bitmap_free(hit);
	return nf;
}
