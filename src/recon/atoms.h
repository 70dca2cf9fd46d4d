/*-------------------------------------------------------------------------
 *
 * atoms.h
 *	  Incremental partition of records into atoms (elementary sets).
 *
 * Records 0..n-1 start in one atom.  Each logged row (a set of records)
 * splits every atom it cuts into the part inside the row and the part
 * outside, so two records share an atom iff every row so far covers both or
 * neither (Chin and Ozsoyoglu's elementary sets).  Only a singleton atom can
 * hold a determined record, and the row-space test runs over atom columns.
 *
 * Representation (classical partition refinement): order[] lists the
 * records grouped by atom, atom a owning order[start[a] .. start[a] +
 * size[a]), with pos[] the inverse of order[] and atom_of[] the atom of each
 * record.  A split moves the row's members of atom a to the front of a's
 * range and gives them a fresh id b; a keeps the outside part and
 * parent[b] = a.  That is O(|row|) per row.
 *
 * Savepoint: atom ids created after tapas_atoms_savepoint() are undone in
 * reverse order, each merging back into its parent (its range is adjacent
 * and precedes the parent's), which restores atom_of, start and size
 * exactly; only the order of records inside an atom may differ.
 *
 * IDENTIFICATION
 *	  src/recon/atoms.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_ATOMS_H
#define TAPAS_ATOMS_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

typedef struct tapas_atoms
{
	uint32_t	n;				/* number of records */
	uint32_t	natoms;			/* atoms have ids 0..natoms-1 */
	uint32_t	saved_natoms;	/* natoms at the savepoint */
	uint32_t   *atom_of;		/* [n] atom id of each record */
	uint32_t   *order;			/* [n] records grouped by atom */
	uint32_t   *pos;			/* [n] index of each record in order */
	uint32_t   *start;			/* [n] first index in order, per atom */
	uint32_t   *size;			/* [n] number of members, per atom */
	uint32_t   *parent;			/* [n] atom it split from (itself for 0) */
	uint32_t   *mark;			/* [n] scratch: members moved, per atom */
	uint32_t   *touched;		/* [n] scratch: atoms touched by a row */
} tapas_atoms_t;

/*
 * Initialises at (caller-owned storage) with n >= 1 records in one atom.
 * Returns TAPAS_EINVAL for n == 0 or n >= 2^31, TAPAS_ENOMEM if an
 * allocation fails (at is then cleared).  O(n) time and 9n words.
 */
extern tapas_status tapas_atoms_init(tapas_atoms_t *at, uint32_t n);

/* Frees what tapas_atoms_init allocated; accepts a zeroed or cleared at. */
extern void tapas_atoms_clear(tapas_atoms_t *at);

/*
 * Splits the atoms cut by the row ids[0..len).  Writes to inside[] the ids
 * of the atoms contained in the row afterwards (one per atom the row
 * touches: either an old atom wholly inside, or the new inside part) and
 * returns their number in *ninside; *nnew counts the new atoms, which are
 * exactly those with id >= the natoms before the call.  inside must have
 * room for min(len, n) ids.  The ids are assumed distinct and < n (not
 * checked: the caller validates).  O(len).
 */
extern void tapas_atoms_split(tapas_atoms_t *at, const uint32_t *ids,
							  size_t len, uint32_t *inside, size_t *ninside,
							  size_t *nnew);

/* Marks the current partition as the one tapas_atoms_rollback restores. */
extern void tapas_atoms_savepoint(tapas_atoms_t *at);

/*
 * Undoes every split since the savepoint (merging each new atom back into
 * its parent, newest first).  O(records in the new atoms).
 */
extern void tapas_atoms_rollback(tapas_atoms_t *at);

/* A representative record of atom a (its first member). */
static inline uint32_t
tapas_atoms_rep(const tapas_atoms_t *at, uint32_t a)
{
	return at->order[at->start[a]];
}

/*
 * Hash of the partition that does not depend on atom ids or on the order of
 * records inside atoms: two partitions are equal iff (w.h.p.) their hashes
 * are.  O(n) time, O(n) scratch; returns 0 if the scratch cannot be had.
 */
extern uint64_t tapas_atoms_fingerprint(const tapas_atoms_t *at);

/*
 * Checks every invariant (order/pos inverse, ranges tile 0..n-1, atom_of
 * consistent, sizes positive, scratch clean).  Returns 1 if valid, else 0
 * with a static message in *reason (reason may be NULL).  O(n).
 */
extern int	tapas_atoms_validate(const tapas_atoms_t *at, const char **reason);

#endif							/* TAPAS_ATOMS_H */
