/*-------------------------------------------------------------------------
 *
 * ledger_stat_walk.c
 *	  The state of each cell's statistic in a batch, cell after cell, in
 *	  O(1) per cell: what tapas_ledger_store_stat_state answers for one
 *	  cell by scanning every earlier cell.
 *
 * Preparing a batch keeps a statistic's basis on its first cell only, and
 * checking it counts the arena bytes of every statistic not interned yet;
 * both need, for cell i, whether the store or one of cells 0..i-1 holds its
 * statistic, and whether with a basis.  Asked cell by cell
 * (tapas_ledger_store_stat_state) that is a memcmp against every earlier
 * cell and a walk of the store's list of statistics: O(ncells^2) per
 * batch.  A 1,000-group GROUP BY with two statistics is 2,000 cells, 2 x
 * 10^6 comparisons, three times per statement (prepare, check, apply): 6 %
 * of the audited statement (perf, issue 12).
 *
 * Here an open-addressing table maps (table_id, statistic text) to the
 * first cell of the batch with that statistic (its head), which carries
 * what the store held for it (looked up once) and whether some cell so far
 * brought a basis.  Same answers as tapas_ledger_store_stat_state for every
 * cell (test/unit/lstore/t-ledger_store.c test_stat_walk); without memory
 * for the table, the walk falls back to it.
 *
 * Use: init, then for i = 0, 1, ..., ncells - 1: state(i), and once cell
 * i's basis is final, done(i); then free.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_stat_walk.c
 *
 *-------------------------------------------------------------------------
 */
#include "lstore/ledger_store_int.h"

#include <string.h>

#include "util/memory.h"

#define HEAD_IN_STORE	1		/* the store holds an entry for the statistic */
#define HEAD_BASIS		2		/* the store's newest entry, or a cell so far, has a basis */

/* FNV-1a of a statistic's table and text */
static uint64_t
stat_hash(uint64_t table_id, const char *stat, uint32_t len)
{
	uint64_t	h = UINT64_C(0xCBF29CE484222325) ^ table_id;
	uint32_t	k;

	for (k = 0; k < len; k++)
		h = (h ^ (uint8_t) stat[k]) * UINT64_C(0x100000001B3);
	return h;
}

static int
same_stat(const tapas_ledger_batch_cell_t *a, const tapas_ledger_batch_cell_t *b)
{
	return a->table_id == b->table_id && a->stat_len == b->stat_len &&
		(a->statistic == b->statistic || memcmp(a->statistic, b->statistic, a->stat_len) == 0);
}

void
ledger_stat_walk_init(ledger_stat_walk_t *w, const tapas_ledger_store_t *s,
					  const tapas_ledger_batch_t *b)
{
	uint32_t	slots = 16;

	memset(w, 0, sizeof(*w));
	w->s = s;
	w->b = b;
	w->cur = -1;
	if (b->ncells < 1)
		return;
	while (slots < 2 * (uint32_t) b->ncells)
		slots <<= 1;
	w->slot = tapas_malloc(slots * sizeof(int32_t));
	w->flags = tapas_calloc((size_t) b->ncells, 1);
	if (w->slot == NULL || w->flags == NULL)
	{
		ledger_stat_walk_free(w);	/* fall back to the scan */
		return;
	}
	memset(w->slot, 0xFF, slots * sizeof(int32_t)); /* -1 = empty */
	w->mask = slots - 1;
}

void
ledger_stat_walk_state(ledger_stat_walk_t *w, int i, int *exists, int *has_basis)
{
	const tapas_ledger_batch_cell_t *c = &w->b->cells[i];
	uint32_t	h;
	uint64_t	off;

	if (w->slot == NULL)
	{
		tapas_ledger_store_stat_state(w->s, w->b, i, exists, has_basis);
		return;
	}
	h = (uint32_t) stat_hash(c->table_id, c->statistic, c->stat_len) & w->mask;
	for (; w->slot[h] >= 0; h = (h + 1) & w->mask)
		if (same_stat(&w->b->cells[w->slot[h]], c))
		{
			w->cur = w->slot[h];
			*exists = 1;
			*has_basis = (w->flags[w->cur] & HEAD_BASIS) != 0;
			return;
		}
	/* the first cell of its statistic: what the store holds */
	off = tapas_ledger_store_find_stat(w->s, c->table_id, c->statistic, c->stat_len);
	w->slot[h] = i;
	w->cur = i;
	w->flags[i] = off == 0 ? 0 : HEAD_IN_STORE |
		(((const ledger_store_stat_t *) (ARENA(w->s) + off))->basis_len > 0 ? HEAD_BASIS : 0);
	*exists = (w->flags[i] & HEAD_IN_STORE) != 0;
	*has_basis = (w->flags[i] & HEAD_BASIS) != 0;
}

void
ledger_stat_walk_done(ledger_stat_walk_t *w, int i)
{
	if (w->slot != NULL && w->cur >= 0 && w->b->cells[i].basis_len > 0)
		w->flags[w->cur] |= HEAD_BASIS;
	w->cur = -1;
}

void
ledger_stat_walk_free(ledger_stat_walk_t *w)
{
	tapas_free(w->slot);
	tapas_free(w->flags);
	w->slot = NULL;
	w->flags = NULL;
}
