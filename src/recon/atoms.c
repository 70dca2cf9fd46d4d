/*-------------------------------------------------------------------------
 *
 * atoms.c
 *	  Partition refinement of records by the logged rows, with undo.
 *
 * Invariants (checked by tapas_atoms_validate):
 *	- order[pos[j]] == j for every record j;
 *	- the ranges [start[a], start[a] + size[a]) of atoms 0..natoms-1 are
 *	  nonempty and tile 0..n-1, and atom_of[order[i]] == a inside a's range;
 *	- mark[] is all zero between calls.
 *
 * Split of one row (Paige and Tarjan's refinement step): for each member j
 * of the row, swap j into the front block of its atom a (the first mark[a]
 * positions of a's range).  Afterwards an atom with mark == size lies inside
 * the row; otherwise its front block becomes a new atom b (id natoms) whose
 * parent is a, and a shrinks to the back block.  Because b's range is just
 * before a's, merging b back (rollback) only moves a's start.
 *
 * IDENTIFICATION
 *	  src/recon/atoms.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/memory.h"
#include "recon/atoms.h"

tapas_status
tapas_atoms_init(tapas_atoms_t *at, uint32_t n)
{
	uint32_t	j;

	memset(at, 0, sizeof(*at));
	if (n == 0 || n >= (UINT32_C(1) << 31))
		return TAPAS_EINVAL;
	at->atom_of = tapas_calloc(n, sizeof(uint32_t));
	at->order = tapas_malloc((size_t) n * sizeof(uint32_t));
	at->pos = tapas_malloc((size_t) n * sizeof(uint32_t));
	at->start = tapas_calloc(n, sizeof(uint32_t));
	at->size = tapas_calloc(n, sizeof(uint32_t));
	at->parent = tapas_calloc(n, sizeof(uint32_t));
	at->mark = tapas_calloc(n, sizeof(uint32_t));
	at->touched = tapas_malloc((size_t) n * sizeof(uint32_t));
	if (!at->atom_of || !at->order || !at->pos || !at->start || !at->size ||
		!at->parent || !at->mark || !at->touched)
	{
		tapas_atoms_clear(at);
		return TAPAS_ENOMEM;
	}
	at->n = n;
	for (j = 0; j < n; j++)
		at->order[j] = at->pos[j] = j;
	at->natoms = 1;
	at->saved_natoms = 1;
	at->start[0] = 0;
	at->size[0] = n;
	at->parent[0] = 0;
	return TAPAS_OK;
}

void
tapas_atoms_clear(tapas_atoms_t *at)
{
	if (at == NULL)
		return;
	tapas_free(at->atom_of);
	tapas_free(at->order);
	tapas_free(at->pos);
	tapas_free(at->start);
	tapas_free(at->size);
	tapas_free(at->parent);
	tapas_free(at->mark);
	tapas_free(at->touched);
	memset(at, 0, sizeof(*at));
}

/* swap records at positions i and k of order[] */
static inline void
swap_positions(tapas_atoms_t *at, uint32_t i, uint32_t k)
{
	uint32_t	ji = at->order[i];
	uint32_t	jk = at->order[k];

	at->order[i] = jk;
	at->pos[jk] = i;
	at->order[k] = ji;
	at->pos[ji] = k;
}

void
tapas_atoms_split(tapas_atoms_t *at, const uint32_t *ids, size_t len,
				  uint32_t *inside, size_t *ninside, size_t *nnew)
{
	size_t		ntouched = 0;
	size_t		i;

	*ninside = 0;
	*nnew = 0;

	/*
	 * First count the row's members per atom (reads only; the ids come
	 * sorted, so atom_of is read in order): a row that cuts no atom (a
	 * repeated GROUP BY's groups, any row implied by the partition) needs
	 * none of the swaps below, which touch two more arrays per member in
	 * random order.  The order of records inside an atom is arbitrary
	 * (every member is in the same rows), so skipping the swaps changes
	 * no atom.
	 */
	for (i = 0; i < len; i++)
	{
		uint32_t	a = at->atom_of[ids[i]];

		if (at->mark[a]++ == 0)
			at->touched[ntouched++] = a;
	}
	for (i = 0; i < ntouched; i++)
		if (at->mark[at->touched[i]] != at->size[at->touched[i]])
			break;
	if (i == ntouched)
	{
		for (i = 0; i < ntouched; i++)
		{
			at->mark[at->touched[i]] = 0;
			inside[(*ninside)++] = at->touched[i];
		}
		return;
	}
	for (i = 0; i < ntouched; i++)
		at->mark[at->touched[i]] = 0;
	ntouched = 0;
	/* move the row's members to the front block of their atom */
	for (i = 0; i < len; i++)
	{
		uint32_t	j = ids[i];
		uint32_t	a = at->atom_of[j];

		if (at->mark[a] == 0)
			at->touched[ntouched++] = a;
		swap_positions(at, at->pos[j], at->start[a] + at->mark[a]);
		at->mark[a]++;
	}
	/* cut each touched atom whose front block is a proper part */
	for (i = 0; i < ntouched; i++)
	{
		uint32_t	a = at->touched[i];
		uint32_t	m = at->mark[a];

		at->mark[a] = 0;
		if (m == at->size[a])
			inside[(*ninside)++] = a;
		else
		{
			uint32_t	b = at->natoms++;
			uint32_t	k;

			at->start[b] = at->start[a];
			at->size[b] = m;
			at->parent[b] = a;
			at->start[a] += m;
			at->size[a] -= m;
			for (k = at->start[b]; k < at->start[b] + m; k++)
				at->atom_of[at->order[k]] = b;
			inside[(*ninside)++] = b;
			(*nnew)++;
		}
	}
}

void
tapas_atoms_savepoint(tapas_atoms_t *at)
{
	at->saved_natoms = at->natoms;
}

void
tapas_atoms_rollback(tapas_atoms_t *at)
{
	while (at->natoms > at->saved_natoms)
	{
		uint32_t	b = --at->natoms;
		uint32_t	a = at->parent[b];
		uint32_t	k;

		/* b's range ends where a's begins (splits are undone newest first) */
		for (k = at->start[b]; k < at->start[b] + at->size[b]; k++)
			at->atom_of[at->order[k]] = a;
		at->start[a] = at->start[b];
		at->size[a] += at->size[b];
		at->start[b] = at->size[b] = at->parent[b] = 0;
	}
}

uint64_t
tapas_atoms_fingerprint(const tapas_atoms_t *at)
{
	uint32_t   *minrec = tapas_malloc((size_t) at->natoms * sizeof(uint32_t));
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	uint32_t	a,
				j;

	if (minrec == NULL)
		return 0;
	for (a = 0; a < at->natoms; a++)
		minrec[a] = UINT32_MAX;
	for (j = 0; j < at->n; j++)
		if (j < minrec[at->atom_of[j]])
			minrec[at->atom_of[j]] = j;
	/* FNV-1a over the canonical labelling "smallest record of my atom" */
	for (j = 0; j < at->n; j++)
	{
		h ^= minrec[at->atom_of[j]];
		h *= UINT64_C(0x100000001b3);
	}
	tapas_free(minrec);
	return h ^ at->natoms;
}

int
tapas_atoms_validate(const tapas_atoms_t *at, const char **reason)
{
	uint32_t	a,
				j;
	uint64_t	covered = 0;

#define FAIL(msg) do { if (reason) *reason = (msg); return 0; } while (0)
	if (at->natoms == 0 || at->natoms > at->n)
		FAIL("natoms out of range");
	for (j = 0; j < at->n; j++)
		if (at->pos[j] >= at->n || at->order[at->pos[j]] != j)
			FAIL("order and pos are not inverse");
	for (a = 0; a < at->natoms; a++)
	{
		uint32_t	k;

		if (at->size[a] == 0 || at->start[a] + (uint64_t) at->size[a] > at->n)
			FAIL("atom range empty or out of bounds");
		if (at->mark[a] != 0)
			FAIL("mark scratch not clean");
		for (k = at->start[a]; k < at->start[a] + at->size[a]; k++)
			if (at->atom_of[at->order[k]] != a)
				FAIL("atom_of disagrees with the atom ranges");
		covered += at->size[a];
	}
	if (covered != at->n)
		FAIL("atom ranges do not tile the records");
	if (reason)
		*reason = NULL;
	return 1;
#undef FAIL
}
