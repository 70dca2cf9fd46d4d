/*-------------------------------------------------------------------------
 *
 * candidates_joint.c
 *	  The candidates test (candidates.c) of a group of related 0/1
 *	  classes (relations.c, joint.c), over the group's unknowns (region,
 *	  record).
 *
 * IDENTIFICATION
 *	  src/audit/candidates_joint.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "audit/audit_int.h"
#include "audit/candidates_int.h"

/* ----------------------------------------------------------------
 *		Groups of related classes (relations.c, joint.c)
 * ----------------------------------------------------------------
 */

/*
 * The cover of a row of class regions as the group's unknowns (region r,
 * record j) = r cap_n + j (joint.c).
 */
static roaring_bitmap_t *
expand_cover(const roaring_bitmap_t *cover, const tapas_regset_t *regions, uint32 cap_n)
{
	uint64		card = roaring_bitmap_get_cardinality(cover);
	uint32	   *ids = palloc(sizeof(uint32) * Max(card, 1));
	uint32	   *out = palloc(sizeof(uint32) * Max(card, 1));
	roaring_bitmap_t *u = roaring_bitmap_create();

	roaring_bitmap_to_uint32_array(cover, ids);
	TAPAS_REGSET_FOREACH(r, regions)
	{
		for (uint64 i = 0; i < card; i++)
			out[i] = (uint32) r * cap_n + ids[i];
		roaring_bitmap_add_many(u, card, out);
	}
	pfree(ids);
	pfree(out);
	return u;
}


/*
 * Folds the joint entry's rows logged since the last statement into its
 * candidates state, over the group's unknowns: cand_zero the union and
 * cand_one the intersection of the expanded rows answered 0 and 1,
 * cand_full the union of the covers of full rows (records).  The fields
 * are those of a class entry (logged_candidates), which a joint entry
 * does not otherwise use; entry_forget_rows resets them with the rows.
 * So a statement costs O(rows logged since) expansions, not O(m).
 */
static void
joint_fold_logged(TapasAuditEntry *e)
{
	TapasJoint *jt = e->joint;

	if (e->cand_zero == NULL || e->cand_rows > e->nrows)
	{
		tapas_audit_candidates_reset(e);
		e->cand_zero = roaring_bitmap_create();
		e->cand_full = roaring_bitmap_create();
	}
	for (; e->cand_rows < e->nrows; e->cand_rows++)
	{
		int			i = e->cand_rows;
		roaring_bitmap_t *u;

		/* a projected cell of a cut (patterns 0) says nothing of this prior */
		if (tapas_regset_empty(&jt->patterns[e->row_member[i]]))
			continue;
		if (tapas_cand_row_is_full(e->answers[i], e->rows[i]))
			roaring_bitmap_or_inplace(e->cand_full, e->rows[i]);
		if (e->answers[i] != 1.0 && e->answers[i] != 0.0)
			continue;
		u = expand_cover(e->rows[i], &jt->patterns[e->row_member[i]], e->cap_n);
		if (e->answers[i] == 0.0)
			roaring_bitmap_or_inplace(e->cand_zero, u);
		else if (e->cand_one == NULL)
			e->cand_one = roaring_bitmap_copy(u);
		else
			roaring_bitmap_and_inplace(e->cand_one, u);
		roaring_bitmap_free(u);
		if ((i & 255) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The one-positive test over a group of related 0/1 classes (relations.c:
 * e.g. rare AND x, rare AND NOT x and rare): under the same prior (one
 * positive of the group's base, a row answered 1 holds it), the unknowns
 * are (region, record) pairs and a cell of class b over Q covers Q x
 * (regions of b), so a difference split over a class and its linear
 * relative narrows the positive's candidates as one class's cells would.
 * The candidates are the records of the surviving pairs.  Same
 * decisions as tapas_audit_candidates (deny: every answer tried, none
 * read); the logged rows are folded in once (joint_fold_logged), so a
 * statement costs O(new rows + cells) bitmap operations over regions x
 * records.  member[t] is the class of cell t
 * in the group.  Called only when every class of the group is 0/1.
 */
int
tapas_audit_joint_candidates(TapasAuditBatch *batch, const int16 *member,
							 TapasFinding **found, bool simulate)
{
	TapasAuditEntry *e = batch->entry;
	TapasJoint *jt = e->joint;
	uint64		floor = (uint64) tapas_min_candidates;
	roaring_bitmap_t *c;
	roaring_bitmap_t **qs;
	bool		known;

	*found = NULL;
	if (batch->ncells == 0 || jt == NULL || jt->npatterns < 1)
		return 0;
	joint_fold_logged(e);
	known = e->cand_one != NULL;
	if (known)
		c = roaring_bitmap_andnot(e->cand_one, e->cand_zero);
	else
	{
		c = roaring_bitmap_create();
		for (int r = 0; r < jt->npatterns; r++)
			roaring_bitmap_add_range(c, (uint64) r * e->cap_n,
									 (uint64) r * e->cap_n + Min((uint64) batch->n_total, e->cap_n));
		roaring_bitmap_andnot_inplace(c, e->cand_zero);
	}
	/* known positives (tapas_cand_row_is_full): every pair of their records */
	{
		tapas_regset_t all;
		roaring_bitmap_t *u;

		tapas_regset_first(&all, jt->npatterns);
		u = expand_cover(e->cand_full, &all, e->cap_n);
		roaring_bitmap_andnot_inplace(c, u);
		roaring_bitmap_free(u);
	}
	{
		uint64		csize = tapas_cand_record_count(c, e->cap_n);

		/* refuted, or narrowed before by a row answered 1 (as above) */
		if (csize == 0 || (known && csize < floor))
		{
			roaring_bitmap_free(c);
			return 0;
		}
	}
	qs = palloc0(sizeof(roaring_bitmap_t *) * batch->ncells);
	for (int t = 0; t < batch->ncells; t++)
	{
		roaring_bitmap_t *q0 = roaring_bitmap_of_ptr(batch->offsets[t + 1] - batch->offsets[t],
													 batch->ids + batch->offsets[t]);

		/* a projected cell of a cut (patterns 0) says nothing of this prior */
		qs[t] = tapas_regset_empty(&jt->patterns[member[t]]) ? roaring_bitmap_create()
			: expand_cover(q0, &jt->patterns[member[t]], e->cap_n);
		roaring_bitmap_free(q0);
		CHECK_FOR_INTERRUPTS();
	}
	return tapas_cand_decide(batch, c, qs, e->cap_n, known, simulate, true, 1.0, found);
}
