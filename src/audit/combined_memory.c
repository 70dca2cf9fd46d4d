/*-------------------------------------------------------------------------
 *
 * combined_memory.c
 *	  Freeing the combined rows of a group entry, and the bytes they hold.
 *
 * The combined state (combined.c) and its entries are in no hash of their
 * own: the group's entry owns them, frees them with its own
 * (tapas_audit_combined_free) and counts them in its memory
 * (tapas_audit_combined_memory), so that tapas.audit_memory bounds them.
 *
 * IDENTIFICATION
 *	  src/audit/combined_memory.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "audit/combined_int.h"
#include "recon/binmat.h"
#include "recon/sparse_search.h"

/* frees a combined entry's contents */
static void
combined_entry_free(TapasAuditEntry *ce)
{
	tapas_audit_trial_end(ce);
	for (int i = 0; i < ce->nrows; i++)
		tapas_audit_cover_release(ce->rows[i]);
	tapas_rowspace_free(ce->rs);
	tapas_binmat_free(ce->A);
	tapas_binmat_colbytes_free(ce->P);
	tapas_sparse_hashes_free(ce->H);
	roaring_bitmap_free(ce->reported);
	roaring_bitmap_free(ce->sync_new);
	tapas_audit_candidates_reset(ce);
	if (ce->rows)
		pfree(ce->rows);
	if (ce->answers)
		pfree(ce->answers);
	if (ce->log_ids)
		pfree(ce->log_ids);
	if (ce->design_tags)
		pfree(ce->design_tags);
	pfree(ce);
}

void
tapas_audit_combined_free(TapasAuditEntry *e)
{
	TapasCombined *c = e->combined;

	if (c == NULL)
		return;
	for (int t = 0; t < c->ntargets; t++)
	{
		if (c->entries[t])
			combined_entry_free(c->entries[t]);
		if (c->classes[t].rep)
			pfree(c->classes[t].rep);
		if (c->classes[t].keys)
			pfree(c->classes[t].keys);
		if (c->classes[t].vals)
			pfree(c->classes[t].vals);
	}
	if (c->groups)
		pfree(c->groups);
	if (c->buckets)
		pfree(c->buckets);
	pfree(c);
	e->combined = NULL;
}

/*
 * Bytes held by the combined rows of the group entry e: the covers' table
 * and each combined entry (its row space, decoder matrix, rows) with its
 * class's truth.  Counted in e's own (tapas_audit_entry_memory), so that
 * tapas.audit_memory bounds them with the rest of the (table, scope): the
 * combined entries are in no hash of their own, and a flood of related
 * classes would otherwise grow them past the bound unseen.
 */
size_t
tapas_audit_combined_memory(const TapasAuditEntry *e)
{
	const TapasCombined *c = e->combined;
	size_t		bytes;

	if (c == NULL)
		return 0;
	bytes = sizeof(TapasCombined) + (size_t) c->maxgroups * sizeof(CoverGroup) +
		(size_t) c->nbuckets * sizeof(int);
	for (int t = 0; t < c->ntargets; t++)
	{
		if (c->entries[t] != NULL)
			bytes += sizeof(TapasAuditEntry) + tapas_audit_entry_memory(c->entries[t]);
		bytes += (size_t) c->classes[t].nnz * (sizeof(int64) + sizeof(double));
	}
	return bytes;
}
