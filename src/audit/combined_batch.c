/*-------------------------------------------------------------------------
 *
 * combined_batch.c
 *	  The statement's combined rows of a group of related 0/1 classes.
 *
 * The statement's cells are grouped by cover as the logged ones are
 * (combined.c), each cover starting from the masks logged over it; a
 * cover whose masks span a target T for the first time gives target T a
 * new row, answered by the same combination of the cells' answers.  The
 * rows are made from the covers and classes alone (simulatable).
 *
 * Memory: the batches live in the caller's (per-statement) context; a
 * target's entry, made on first need, in the audit's cache
 * (tapas_audit_cxt).
 *
 * IDENTIFICATION
 *	  src/audit/combined_batch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "audit/combined_int.h"

/*
 * The combined entries of the group entry e with the statement's cells
 * (batch, member[i]: the class of cell i): for each target with an entry,
 * a batch over it (batches[t].entry NULL: none).  Returns the number of
 * targets.  The rows are made from the covers and classes alone.
 */
int
tapas_audit_combined(TapasAuditBatch *batch, const int16 *member, TapasAuditBatch *out)
{
	TapasAuditEntry *e = batch->entry;
	TapasJoint *jt = e->joint;
	TapasCombined *c;
	int			nt;
	CoverGroup *tmp;
	int		   *tmp_of;			/* [ncells] the statement's group of each cell */
	int			ntmp = 0;
	uint32	  **sorted;			/* [ncells] each cell's cover, ascending */

	if (jt == NULL || jt->npatterns < 1 || jt->npatterns > TAPAS_REGSET_MAX || batch->ncells == 0)
		return 0;
	c = tapas_audit_combined_of(e);
	nt = c->ntargets;
	tmp = palloc0(sizeof(CoverGroup) * batch->ncells);
	tmp_of = palloc(sizeof(int) * batch->ncells);
	/* the statement's cells by cover, each with the logged cells over it */
	sorted = palloc(sizeof(uint32 *) * batch->ncells);
	for (int i = 0; i < batch->ncells; i++)
	{
		size_t		card = batch->offsets[i + 1] - batch->offsets[i];
		int			m = member[i];
		roaring_bitmap_t *r;
		uint64		h;
		int			k;

		tmp_of[i] = -1;
		sorted[i] = NULL;
		if (tapas_regset_empty(&jt->patterns[m]))
			continue;
		/* the cell's dense indices come in key order: sorted, as a row's */
		r = roaring_bitmap_of_ptr(card, batch->ids + batch->offsets[i]);
		card = roaring_bitmap_get_cardinality(r);
		sorted[i] = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(card, 1));
		roaring_bitmap_to_uint32_array(r, sorted[i]);
		h = tapas_audit_combined_ids_hash(sorted[i], card);
		for (k = 0; k < ntmp; k++)
			if (tmp[k].hash == h && roaring_bitmap_equals(tmp[k].cover, r))
				break;
		if (k == ntmp)
		{
			int			g = tapas_audit_combined_find_group(c, h, r);

			if (g >= 0)
				tmp[k] = c->groups[g];
			else
				tmp[k].done = 0;
			tmp[k].hash = h;
			tmp[k].next = i;	/* the first cell over the cover */
			tmp[k].cover = r;
			ntmp++;
		}
		else
			roaring_bitmap_free(r);
		tapas_audit_combined_add_mask(&tmp[k], jt, m, batch->answers[i]);
		tmp_of[i] = k;
	}
	for (int t = 0; t < nt; t++)
	{
		TapasAuditBatch *b = &out[t];
		size_t		total = 0;

		memset(b, 0, sizeof(*b));
		/* the statement's new rows of target t: covers not done that it completes */
		b->cell_no = palloc(sizeof(int) * ntmp);
		b->offsets = palloc(sizeof(size_t) * (ntmp + 1));
		b->answers = palloc(sizeof(double) * Max(ntmp, 1));
		for (int k = 0; k < ntmp; k++)
		{
			double		a;
			bool		comb;

			if ((tmp[k].done & (1u << t)) ||
				!tapas_audit_combined_group_target(&tmp[k], jt, &c->targets[t], &a, &comb))
				continue;
			if (comb && !c->combines[t])
				c->combines[t] = true;	/* the entry is made below */
			b->cell_no[b->ncells] = batch->cell_no[tmp[k].next];
			b->answers[b->ncells] = a;
			b->offsets[b->ncells] = tmp[k].next;	/* the cell, for now */
			total += roaring_bitmap_get_cardinality(tmp[k].cover);
			b->ncells++;
		}
		if (b->ncells == 0 || !c->combines[t])
		{
			b->ncells = 0;
			continue;
		}
		b->ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(total, 1));
		total = 0;
		for (int r = 0; r < b->ncells; r++)
		{
			int			i = (int) b->offsets[r];
			size_t		card = roaring_bitmap_get_cardinality(tmp[tmp_of[i]].cover);

			memcpy(b->ids + total, sorted[i], sizeof(uint32) * card);
			b->offsets[r] = total;
			total += card;
		}
		b->offsets[b->ncells] = total;
		b->entry = tapas_audit_combined_target_entry(c, e, t);
		/* the group's dense index (designs.c looks keys up in it; not owned) */
		b->entry->nkeys = e->nkeys;
		b->n_total = batch->n_total;
		b->keys = batch->keys;
	}
	for (int k = 0; k < ntmp; k++)
		roaring_bitmap_free((roaring_bitmap_t *) tmp[k].cover);
	for (int i = 0; i < batch->ncells; i++)
		if (sorted[i])
			pfree(sorted[i]);
	pfree(sorted);
	pfree(tmp);
	pfree(tmp_of);
	return nt;
}
