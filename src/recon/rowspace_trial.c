/*-------------------------------------------------------------------------
 *
 * rowspace_trial.c
 *	  Trials (test a statement's rows, then commit or roll back) and the
 *	  read-only accessors of the row-space kernel.
 *
 * A trial validates the whole batch before anything moves, opens a
 * savepoint (rank, t, atom savepoint, sampling generator, basis capacity),
 * adds the rows with tapas_rowspace_add_row, and scans the pivots and the
 * atoms it resolved (rowspace_resolved.c) for newly determined records.  Rollback undoes it exactly: the inverse is downdated
 * row by row (tapas_rowspace_downdate), t is restored, the atoms created by
 * the trial are merged back into their parents (their z sums first), the
 * determined flags set by the trial are cleared and the basis capacity the
 * trial took is given back.  Any error inside a trial rolls it back before
 * returning, so a failed trial leaves no trace.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_trial.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/atoms.h"
#include "recon/rowspace.h"
#include "recon/rowspace_int.h"

/* ---------------------------------------------------------------------
 * Trials
 * ---------------------------------------------------------------------
 */

/* checks the batch's shape, ranges and duplicates before anything moves */
static tapas_status
validate_batch(tapas_rowspace_t *rs, const uint32_t *ids,
			   const size_t *offsets, size_t nrows)
{
	size_t		i,
				l;
	tapas_status st = TAPAS_OK;

	if (nrows > 0 && offsets == NULL)
		return TAPAS_EINVAL;
	/*
	 * Offsets first, all of them: only monotonic offsets make "the rows
	 * hold no id" the same as offsets[nrows] == offsets[0], the test that a
	 * NULL ids is safe (with {0, 2, 0} the first row would read ids[0]).
	 */
	for (i = 0; i < nrows; i++)
		if (offsets[i + 1] < offsets[i])
			return TAPAS_EINVAL;
	if (nrows > 0 && ids == NULL && offsets[nrows] > offsets[0])
		return TAPAS_EINVAL;
	if (ids == NULL)
		return TAPAS_OK;		/* every row is empty: nothing to check */
	for (i = 0; i < nrows && st == TAPAS_OK; i++)
	{
		/* a strictly increasing row below n (any row read from the ledger) is valid */
		for (l = offsets[i] + 1; l < offsets[i + 1] && ids[l - 1] < ids[l]; l++)
			;
		if (l >= offsets[i + 1] &&
			(offsets[i + 1] == offsets[i] || ids[offsets[i + 1] - 1] < rs->n))
			continue;
		for (l = offsets[i]; l < offsets[i + 1]; l++)
		{
			uint32_t	j = ids[l];
			uint64_t	bit = UINT64_C(1) << (j % 64);

			if (j >= rs->n || (rs->seen[j / 64] & bit))
			{
				st = TAPAS_EINVAL;
				break;
			}
			rs->seen[j / 64] |= bit;
		}
		/* clear what this row set (up to where it stopped) */
		for (; l > offsets[i]; l--)
		{
			uint32_t	j = ids[l - 1];

			if (j < rs->n)
				rs->seen[j / 64] &= ~(UINT64_C(1) << (j % 64));
		}
	}
	return st;
}

/* records every pivot that passes the projection test (see the banner) */
static void
scan_determined(tapas_rowspace_t *rs)
{
	uint32_t	k;

	for (k = 0; k < rs->r; k++)
	{
		uint32_t	c = rs->piv[k];
		uint32_t	j;

		if (rs->atoms.size[c] != 1 ||
			rs->t[0][k] != rs->za[0][c] || rs->t[1][k] != rs->za[1][c])
			continue;
		j = tapas_atoms_rep(&rs->atoms, c);
		if (!rs->det[j])
		{
			rs->det[j] = 1;
			rs->detlist[rs->ndet++] = j;
		}
	}
}

static void
begin_trial(tapas_rowspace_t *rs)
{
	int			e;

	rs->save_r = rs->r;
	rs->save_ndet = rs->ndet;
	rs->save_rcap = rs->rcap;
	rs->rng_save = rs->rng;
	rs->save_nres = rs->nres;
	rs->save_unc = rs->unc;
	rs->nrlog = 0;
	for (e = 0; e < NPROJ; e++)
		memcpy(rs->tsave[e], rs->t[e], rs->r * sizeof(uint64_t));
	tapas_atoms_savepoint(&rs->atoms);
}

/* restores the state of begin_trial exactly */
static void
undo_trial(tapas_rowspace_t *rs)
{
	uint64_t	p = rs->mod.n;
	uint32_t	b;
	size_t		i;
	int			e;

	while (rs->r > rs->save_r)
		tapas_rowspace_downdate(rs);
	for (e = 0; e < NPROJ; e++)
		memcpy(rs->t[e], rs->tsave[e], rs->r * sizeof(uint64_t));
	/* merge the new atoms' z sums back before the atoms themselves */
	for (b = rs->atoms.natoms; b-- > rs->atoms.saved_natoms;)
		for (e = 0; e < NPROJ; e++)
			rs->za[e][rs->atoms.parent[b]] =
				n_addmod(rs->za[e][rs->atoms.parent[b]], rs->za[e][b], p);
	tapas_atoms_rollback(&rs->atoms);
	tapas_rowspace_resolved_undo(rs);
	for (i = rs->save_ndet; i < rs->ndet; i++)
		rs->det[rs->detlist[i]] = 0;
	rs->ndet = rs->save_ndet;
	rs->rng = rs->rng_save;
	rs->in_trial = 0;
	/*
	 * Give back what a large refused statement made the basis grow to, but
	 * only beyond 4x the rank: repeated refusals of the same statement then
	 * do not reallocate the inverse every time.
	 */
	if (rs->rcap > rs->save_rcap &&
		rs->rcap > 4 * (rs->r > INITIAL_RCAP ? rs->r : INITIAL_RCAP))
		(void) tapas_rowspace_grow(rs, rs->save_rcap);	/* on failure keep it */
}

tapas_status
tapas_rowspace_trial(tapas_rowspace_t *rs, const uint32_t *ids,
					 const size_t *offsets, size_t nrows,
					 const tapas_progress_t *progress,
					 const uint32_t **newly, size_t *count)
{
	tapas_status st;
	size_t		i;

	if (rs == NULL || rs->in_trial || newly == NULL || count == NULL)
		return TAPAS_EINVAL;
	if ((st = validate_batch(rs, ids, offsets, nrows)) != TAPAS_OK)
		return st;
	begin_trial(rs);
	for (i = 0; i < nrows; i++)
	{
		if (tapas_progress_poll(progress, (double) i / nrows))
		{
			undo_trial(rs);
			return TAPAS_ECANCELED;
		}
		st = tapas_rowspace_add_row(rs, ids + offsets[i], offsets[i + 1] - offsets[i]);
		if (st != TAPAS_OK)
		{
			undo_trial(rs);
			return st;
		}
	}
	scan_determined(rs);
	tapas_rowspace_resolved_scan(rs);
	rs->in_trial = 1;
	*newly = rs->detlist + rs->save_ndet;
	*count = rs->ndet - rs->save_ndet;
	return TAPAS_OK;
}

tapas_status
tapas_rowspace_commit(tapas_rowspace_t *rs)
{
	if (rs == NULL || !rs->in_trial)
		return TAPAS_EINVAL;
	rs->in_trial = 0;
	rs->nrlog = 0;
	tapas_atoms_savepoint(&rs->atoms);
	return TAPAS_OK;
}

tapas_status
tapas_rowspace_rollback(tapas_rowspace_t *rs)
{
	if (rs == NULL || !rs->in_trial)
		return TAPAS_EINVAL;
	undo_trial(rs);
	return TAPAS_OK;
}

tapas_status
tapas_rowspace_add(tapas_rowspace_t *rs, const uint32_t *ids,
				   const size_t *offsets, size_t nrows,
				   const tapas_progress_t *progress,
				   const uint32_t **newly, size_t *count)
{
	tapas_status st = tapas_rowspace_trial(rs, ids, offsets, nrows, progress,
										   newly, count);

	if (st != TAPAS_OK)
		return st;
	return tapas_rowspace_commit(rs);
}

/* ---------------------------------------------------------------------
 * Accessors
 * ---------------------------------------------------------------------
 */

uint32_t
tapas_rowspace_n(const tapas_rowspace_t *rs)
{
	return rs->n;
}

uint32_t
tapas_rowspace_rank(const tapas_rowspace_t *rs)
{
	return rs->r + rs->nres;
}

uint32_t
tapas_rowspace_kernel_rank(const tapas_rowspace_t *rs)
{
	return rs->r;
}

uint32_t
tapas_rowspace_natoms(const tapas_rowspace_t *rs)
{
	return rs->atoms.natoms;
}

uint32_t
tapas_rowspace_atom_size(const tapas_rowspace_t *rs, uint32_t j)
{
	return rs->atoms.size[rs->atoms.atom_of[j]];
}

int
tapas_rowspace_is_determined(const tapas_rowspace_t *rs, uint32_t j)
{
	return rs->det[j] != 0;
}

void
tapas_rowspace_stats(const tapas_rowspace_t *rs, tapas_rowspace_stats_t *stats)
{
	*stats = rs->stats;
}

const uint32_t *
tapas_rowspace_determined(const tapas_rowspace_t *rs, size_t *count)
{
	*count = rs->ndet;
	return rs->detlist;
}
