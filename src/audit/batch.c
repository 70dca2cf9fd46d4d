/*-------------------------------------------------------------------------
 *
 * batch.c
 *	  The candidate cells of one statement for one audit entry, over dense
 *	  indices: the ledger's for keys it has indexed, provisional ones for
 *	  new keys.
 *
 * A statement's new keys (those the ledger has not indexed) get the
 * indices n, n + 1, ... in order of first appearance over the batch's cells,
 * the order in which the ledger will give them (lstore/ledger_batch.c).
 * They are numbered by one pass over all of them (util/first_seen.c: a
 * direct table over the keys' range, or a radix sort), not a hash insert
 * per key: for a GROUP BY over a table the ledger has not seen, a 10^5-key
 * batch used to spend about a quarter of the statement in dynahash.  The
 * same numbering finds keys among the batch's (the truth's support,
 * reconstructed.c).
 *
 * The statistics of one covered set (count(*) FILTER (WHERE rare) and
 * sum(income) per group) are cells of different classes, so of different
 * audit entries and batches, over one keys array per group (the gate hands
 * them one pointer, capture/gate_cells.c).  Their batches' indices are the
 * same: the ledger gives a key the same index while the table's count of
 * indexed keys and the reset generation stay the same (ledger.h:
 * tapas_ledger_key_state), and the new keys' numbering is a function of
 * the keys alone.  So the first batch of a statement is remembered (the
 * memo, cleared by tapas_audit_batch_memo_clear at the start and end of
 * tapas_audit_cells) and a later batch over the same keys arrays, at the
 * same count and generation, shares its ids, offsets and keys instead of
 * looking up and numbering 10^6 keys again: the same arrays a fresh build
 * would make.  Batches are read-only once built.
 *
 * IDENTIFICATION
 *	  src/audit/batch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "util/first_seen.h"
#include "policy/status_error.h"

/* the last batch built in this statement, for batches over the same keys */
typedef struct BatchMemo
{
	bool		valid;
	Oid			relid;
	int			ncells;
	const int64 **cell_keys;	/* [ncells] each cell's keys array */
	int64	   *cell_nkeys;		/* [ncells] */
	int64		n;				/* the table's indexed keys when built */
	uint64		generation;		/* and the ledger's reset generation */
	uint32	   *ids;
	size_t	   *offsets;
	int64		n_total;
	int64	   *keys;
} BatchMemo;

static BatchMemo memo;

/* forgets the memo (its arrays belong to the statement's memory) */
void
tapas_audit_batch_memo_clear(void)
{
	memset(&memo, 0, sizeof(memo));
}

/* whether the memo is this batch's: same keys arrays, same ledger state */
static bool
memo_fits(const TapasAuditEntry *e, const TapasCell *cells, const int *cell_no, int nbatch)
{
	int64		n;
	uint64		generation;

	if (!memo.valid || memo.relid != e->key.relid || memo.ncells != nbatch ||
		memo.n != e->nkeys || memo.generation != e->keys_generation)
		return false;
	for (int i = 0; i < nbatch; i++)
		if (memo.cell_keys[i] != cells[cell_no[i]].keys ||
			memo.cell_nkeys[i] != cells[cell_no[i]].nkeys)
			return false;
	tapas_ledger_key_state(e->key.relid, &n, &generation);
	return n == memo.n && generation == memo.generation;
}

/* remembers batch, built over the ledger's n keys (if they still are) */
static void
memo_keep(const TapasAuditBatch *batch, const TapasAuditEntry *e,
		  const TapasCell *cells, const int *cell_no, int nbatch, int64 n)
{
	int64		now;
	uint64		generation;

	memo.valid = false;
	tapas_ledger_key_state(e->key.relid, &now, &generation);
	if (now != n || n != e->nkeys || generation != e->keys_generation)
		return;
	memo.relid = e->key.relid;
	memo.ncells = nbatch;
	memo.cell_keys = palloc(sizeof(int64 *) * Max(nbatch, 1));
	memo.cell_nkeys = palloc(sizeof(int64) * Max(nbatch, 1));
	for (int i = 0; i < nbatch; i++)
	{
		memo.cell_keys[i] = cells[cell_no[i]].keys;
		memo.cell_nkeys[i] = cells[cell_no[i]].nkeys;
	}
	memo.n = n;
	memo.generation = generation;
	memo.ids = batch->ids;
	memo.offsets = batch->offsets;
	memo.n_total = batch->n_total;
	memo.keys = batch->keys;
	memo.valid = true;
}

/* keys of the batch's cells, repeats counted (at least 1) */
static size_t
batch_keys(const TapasCell *cells, const int *cell_no, int nbatch)
{
	size_t		total = 1;

	for (int i = 0; i < nbatch; i++)
		total += cells[cell_no[i]].nkeys;
	return total;
}

/* a new key's place in batch->ids until it is numbered (indices stay below 2^31) */
#define NEW_KEY		UINT32_MAX

/*
 * Gives the batch's new keys newk[0..nmiss) (in order of appearance) the
 * indices n + their rank of first appearance, in the NEW_KEY places of
 * batch->ids, and sets batch->keys (the n indexed keys, then the distinct
 * new ones) and n_total.
 */
static void
number_new_keys(TapasAuditBatch *batch, const int64 *keys, int64 n,
				const int64 *newk, size_t nmiss)
{
	size_t		nnew = 0;

	batch->keys = MemoryContextAllocHuge(CurrentMemoryContext,
										 sizeof(int64) * Max(n + (int64) nmiss, 1));
	memcpy(batch->keys, keys, sizeof(int64) * n);
	if (nmiss > 0)
	{
		uint32	   *rank = MemoryContextAllocHuge(CurrentMemoryContext,
												  sizeof(uint32) * nmiss);
		tapas_status st = tapas_first_seen((const int64_t *) newk, nmiss, rank,
										   (int64_t *) batch->keys + n, &nnew);
		size_t		m = 0;

		if (st != TAPAS_OK)
			tapas_raise_status(st, "could not number the new keys of the audit", NULL);
		for (size_t k = 0; k < batch->offsets[batch->ncells]; k++)
			if (batch->ids[k] == NEW_KEY)
				batch->ids[k] = (uint32) (n + rank[m++]);
		Assert(m == nmiss);
		pfree(rank);
	}
	batch->n_total = n + (int64) nnew;
}

/*
 * Builds the batch of candidate cells cell_no[0..nbatch-1] of cells for
 * entry e (synced first): dense indices, provisional ones for new keys.
 *
 * New keys (those the ledger has not indexed) get n, n + 1, ... in order
 * of first appearance over the batch's cells (the order the ledger itself
 * uses, lstore/ledger_batch.c), numbered by one sort of all of them
 * (util/first_seen.c) rather than a hash insert per key.  One index
 * buffer serves every cell.
 */
bool
tapas_audit_build_batch(TapasAuditBatch *batch, TapasAuditEntry *e,
						const TapasCell *cells, int ncells,
						const int *cell_no, int nbatch, TimestampTz deadline)
{
	bool		complete = false;
	size_t		total = 0;
	int64		maxkeys = 1;
	int64		n;
	int64	   *idx;
	int64	   *newk = NULL;	/* the new keys, with repeats, in order */
	size_t		nmiss = 0;

	memset(batch, 0, sizeof(*batch));
	batch->entry = e;
	batch->ncells = nbatch;
	batch->cell_no = palloc(sizeof(int) * Max(nbatch, 1));
	memcpy(batch->cell_no, cell_no, sizeof(int) * nbatch);
	batch->answers = palloc(sizeof(double) * Max(nbatch, 1));
	complete = tapas_audit_sync(e, deadline);
	if (memo_fits(e, cells, cell_no, nbatch))
	{
		/* the statement's previous batch, over the same keys (see the banner) */
		for (int i = 0; i < nbatch; i++)
			batch->answers[i] = tapas_audit_class_answer(cells[cell_no[i]].relid,
														 cells[cell_no[i]].statistic,
														 cells[cell_no[i]].answer,
														 cells[cell_no[i]].nkeys);
		batch->ids = memo.ids;
		batch->offsets = memo.offsets;
		batch->n_total = memo.n_total;
		batch->keys = memo.keys;
		return complete;
	}
	batch->offsets = palloc(sizeof(size_t) * (nbatch + 1));
	for (int i = 0; i < nbatch; i++)
	{
		total += cells[cell_no[i]].nkeys;
		maxkeys = Max(maxkeys, cells[cell_no[i]].nkeys);
	}
	batch->ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(total, 1));
	idx = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * maxkeys);

	for (bool first = true;; first = false)
	{
		if (!first)
			complete = tapas_audit_sync(e, deadline);
		n = e->nkeys;
		total = 0;
		nmiss = 0;
		for (int i = 0; i < nbatch; i++)
		{
			const TapasCell *c = &cells[cell_no[i]];
			int64		now = tapas_ledger_key_indices(e->key.relid, c->keys, c->nkeys, idx);

			if (now > n)
			{
				n = -1;			/* another backend added keys: sync again */
				break;
			}
			batch->offsets[i] = total;
			batch->answers[i] = tapas_audit_class_answer(c->relid, c->statistic, c->answer,
														 c->nkeys);
			for (int64 k = 0; k < c->nkeys; k++)
			{
				if (idx[k] >= 0)
				{
					batch->ids[total++] = (uint32) idx[k];
					continue;
				}
				if (newk == NULL)	/* room for every key of the batch */
					newk = MemoryContextAllocHuge(CurrentMemoryContext,
												  sizeof(int64) * batch_keys(cells, cell_no, nbatch));
				newk[nmiss++] = c->keys[k];
				batch->ids[total++] = NEW_KEY;
			}
		}
		if (n >= 0)
			break;
	}
	pfree(idx);
	batch->offsets[nbatch] = total;
	number_new_keys(batch, e->keys, n, newk, nmiss);
	if (newk)
		pfree(newk);
	memo_keep(batch, e, cells, cell_no, nbatch, n);
	return complete;
}

/*
 * The batch's dense index of each of keys[0..nkeys) into idx, or -1 for a
 * key the batch does not cover: the ledger's index if the entry had synced
 * it, else the place among the batch's new keys (found by one sort-merge,
 * util/first_seen.c, not a hash probe per key).
 */
void
tapas_audit_batch_indices(const TapasAuditBatch *batch, const int64 *keys,
						  int64 nkeys, int64 *idx)
{
	const TapasAuditEntry *e = batch->entry;
	int64		nnew = batch->n_total - e->nkeys;
	int64	   *missing;
	int64	   *pos;
	int64		nmiss = 0;
	tapas_status st;

	(void) tapas_ledger_key_indices(e->key.relid, keys, nkeys, idx);
	for (int64 i = 0; i < nkeys; i++)
		if (idx[i] >= e->nkeys)
			idx[i] = -1;		/* indexed after our sync: not in this batch */
	if (nnew <= 0)
		return;
	missing = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * Max(nkeys, 1));
	for (int64 i = 0; i < nkeys; i++)
		if (idx[i] < 0)
			missing[nmiss++] = keys[i];
	pos = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * Max(nmiss, 1));
	st = tapas_keys_match((const int64_t *) batch->keys + e->nkeys, (size_t) nnew,
						  (const int64_t *) missing, (size_t) nmiss, (int64_t *) pos);
	if (st != TAPAS_OK)
		tapas_raise_status(st, "could not look up the new keys of the audit", NULL);
	nmiss = 0;
	for (int64 i = 0; i < nkeys; i++)
		if (idx[i] < 0)
		{
			int64		p = pos[nmiss++];

			idx[i] = p >= 0 ? e->nkeys + p : -1;
		}
	pfree(missing);
	pfree(pos);
}
