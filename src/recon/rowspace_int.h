/*-------------------------------------------------------------------------
 *
 * rowspace_int.h
 *	  Internal state of the row-space kernel, shared by rowspace.c
 *	  (creation), rowspace_update.c (adding a row), rowspace_pivot.c (its
 *	  pivot search), rowspace_trial.c and rowspace_check.c (validation,
 *	  fingerprint, memory).
 *
 * Not part of the public interface: callers use rowspace.h only.  The
 * meaning of every field and the invariants are given in the banner of
 * rowspace.c; rowspace_check.c verifies them.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_ROWSPACE_INT_H
#define TAPAS_ROWSPACE_INT_H

#include <flint/flint.h>
#include <flint/nmod_vec.h>

#include "util/rng.h"
#include "recon/atoms.h"
#include "recon/rowspace.h"

#define NPROJ			2		/* independent projection vectors */
#define NCANDIDATES		32		/* sampled pivot candidates per source */
#define INITIAL_RCAP	64
#define TAPAS_ROWSPACE_NONE	UINT32_MAX

struct tapas_rowspace
{
	uint32_t	n;				/* records */
	uint32_t	rank_limit;		/* maximal rank (TAPAS_ELIMIT beyond) */
	nmod_t		mod;			/* the prime p */
	tapas_atoms_t atoms;		/* partition of the records */
	tapas_rng_t rng;			/* pivot candidate sampling only */
	size_t		nwords;			/* words of a row bitmap: ceil(n / 64) */

	uint64_t   *z[NPROJ];		/* [n] secret projection, per record; never
								 * written after creation */
	int			z_ext;			/* z points into a copy read in place (not
								 * freed here; rowspace_serial.c) or into proj */
	tapas_rowspace_proj_t *proj;	/* the shared projections z is of, or NULL */
	uint64_t   *za[NPROJ];		/* [n] per atom: sum of z over members */
	int32_t    *pivot_of;		/* [n] per atom: basis index, or -1 */
	uint8_t    *inrow;			/* [n] per atom scratch: inside current row */
	uint8_t    *det;			/* [n] per record: determined */
	uint32_t   *detlist;		/* [n] determined records, in order found */
	size_t		ndet;
	uint32_t   *inside;			/* [n] scratch: atoms inside current row */
	uint64_t   *seen;			/* [nwords] scratch: row validation */
	uint32_t	blk;			/* records per block (multiple of 64) */
	uint32_t	nblocks;		/* ceil(n / blk) */
	uint64_t   *blkval;			/* [nblocks] scratch: block shares */
	uint64_t   *blkacc;			/* [blk] scratch: residual in a block */

	/* resolved blocks, kept outside the basis (rowspace_resolved.c) */
	uint8_t    *resolved;		/* [n] per atom: it lies in a resolved block */
	uint32_t   *blockof;		/* [n] per resolved atom: its block's base atom */
	uint32_t   *bstart;			/* [n] per base atom: the block's records are
								 * atoms.order[bstart .. bstart + bsize) */
	uint32_t   *bsize;			/* [n] per base atom: records in the block */
	uint32_t   *bacc;			/* [n] per base atom scratch: records inside
								 * the current row */
	uint32_t   *qneg;			/* [n] scratch: negative records of a row */
	uint32_t   *blist;			/* [n] scratch: blocks the current row touches */
	uint32_t	nres;			/* number of resolved blocks */
	int			basis_only;		/* baselines: 1 every row in the basis, 2 no
								 * crossed blocks (set_basis_only) */
	uint32_t	unc;			/* atom no row covers, or TAPAS_ROWSPACE_NONE */
	uint32_t   *inside2;		/* [n] scratch: the atoms of the current row */
	uint32_t   *qbuf;			/* [n] scratch: the kernel's part of a row */
	struct rowspace_rlog *rlog;	/* [nrlog] atoms whose block fields the
								 * trial changed, with their old values */
	size_t		nrlog;
	size_t		rlogcap;

	uint32_t	r;				/* rank = number of basis rows */
	uint32_t	rcap;			/* allocated basis capacity */
	uint32_t   *piv;			/* [rcap] pivot atom of basis row k */
	uint64_t   *s[NPROJ];		/* [rcap] s_k = z . (basis row k) */
	uint64_t   *t[NPROJ];		/* [rcap] t = M s */
	uint64_t   *bsum[NPROJ];	/* [(rcap - r_ext) * nblocks] s per block of
								 * records, rows r_ext.. */
	uint64_t   *M;				/* [rcap^2] B^-1, row-major, stride rcap */
	uint64_t   *rows;			/* [(rcap - r_ext) * nwords] basis row
								 * bitmaps r_ext..: +1 */
	uint64_t   *nrows;			/* the same for -1 (disjoint from rows) */
	/* basis rows 0..r_ext-1 read in place from a copy (rowspace_serial.c):
	 * rows are only ever appended, so they never change; released once */
	uint32_t	r_ext;
	const uint64_t *ext_rows;	/* [r_ext * nwords] +1 bitmaps */
	const uint64_t *ext_nrows;	/* [r_ext * nwords] -1 bitmaps */
	const uint64_t *ext_bsum[NPROJ];	/* [r_ext * nblocks] their block sums */
	void		(*ext_release) (void *arg);	/* called by tapas_rowspace_free */
	void	   *ext_arg;
	uint64_t   *u;				/* [rcap] scratch: a[P] M */
	uint64_t   *g;				/* [rcap] scratch: M A[I,c] */
	uint32_t   *bidx;			/* [rcap] scratch: rows containing c */

	int			in_trial;		/* a trial is open */
	uint32_t	save_r;			/* rank at the start of the trial */
	uint32_t	save_rcap;		/* rcap at the start of the trial */
	size_t		save_ndet;		/* ndet at the start of the trial */
	uint32_t	save_nres;		/* nres at the start of the trial */
	uint32_t	save_unc;		/* unc at the start of the trial */
	uint64_t   *tsave[NPROJ];	/* [rcap] t at the start of the trial */
	tapas_rng_t rng_save;		/* rng at the start of the trial */
	tapas_rowspace_stats_t stats;	/* work counters (never rolled back) */
};

/* the +1 bitmap of basis row k < r, in place or private */
static inline const uint64_t *
rowspace_prow(const tapas_rowspace_t *rs, uint32_t k)
{
	return k < rs->r_ext ? rs->ext_rows + (size_t) k * rs->nwords :
		rs->rows + (size_t) (k - rs->r_ext) * rs->nwords;
}

/* the -1 bitmap of basis row k < r */
static inline const uint64_t *
rowspace_nrow(const tapas_rowspace_t *rs, uint32_t k)
{
	return k < rs->r_ext ? rs->ext_nrows + (size_t) k * rs->nwords :
		rs->nrows + (size_t) (k - rs->r_ext) * rs->nwords;
}

/* the block sums of basis row k < r for projection e */
static inline const uint64_t *
rowspace_bsum(const tapas_rowspace_t *rs, int e, uint32_t k)
{
	return k < rs->r_ext ? rs->ext_bsum[e] + (size_t) k * rs->nblocks :
		rs->bsum[e] + (size_t) (k - rs->r_ext) * rs->nblocks;
}

/* one entry of the resolved log: the block fields of atom a before */
typedef struct rowspace_rlog
{
	uint32_t	a;
	uint32_t	blockof;
	uint32_t	bstart;
	uint32_t	bsize;
	uint8_t		resolved;
} rowspace_rlog;

/* rowspace_update.c, for rowspace_trial.c */

/*
 * Splits the atoms the row q[0..len) cuts (atoms.h) and moves their z sums;
 * rs->inside[0..*ninside) lists the row's atoms afterwards, *nnew of them
 * new (a new atom's block fields are set by the caller).
 */
extern void tapas_rowspace_split_row(tapas_rowspace_t *rs, const uint32_t *q,
									 size_t len, size_t *ninside, size_t *nnew);

/*
 * Adds the kernel's part of a row, a vector with entries +1 on the records
 * q[0..len) and -1 on qn[0..nlen) (disjoint unions of whole atoms, listed
 * one id each in rs->inside[0..npos) and rs->inside[npos..npos+nneg)).
 * nnew > 0 says the vector is known to be independent: the row's split
 * made atoms (ids natoms0 and up) on which it differs from their parents.
 * Borders the inverse if the row is independent.
 */
extern tapas_status tapas_rowspace_add_kernel_row(tapas_rowspace_t *rs,
												  const uint32_t *q, size_t len,
												  const uint32_t *qn, size_t nlen,
												  size_t npos, size_t nneg,
												  uint32_t natoms0, size_t nnew);

/* rowspace_pivot.c, for rowspace_update.c */

/* bidx entries of basis rows with -1 at the column */
#define BIDX_NEG	(UINT32_C(1) << 31)

/*
 * Chooses the new pivot atom for an independent row (+1 on q, -1 on qn)
 * whose atoms inside[0..ninside) are flagged in inrow; rz = rho . z (u
 * already computed).  The atoms the row's split made have ids natoms0 ..
 * natoms - 1.  Sets *c, the Schur complement *sigma != 0, and bidx and *nb
 * for c (the basis rows containing c); TAPAS_EINCONSISTENT if none is
 * found.
 */
extern tapas_status tapas_rowspace_choose_pivot(tapas_rowspace_t *rs, const uint32_t *q,
												size_t len, const uint32_t *qn,
												size_t nlen, const uint64_t *rz,
												size_t ninside, uint32_t natoms0,
												size_t nnew, uint32_t *c,
												uint64_t *sigma, size_t *nb);

/* rowspace_resolved.c, for rowspace_trial.c */

/*
 * Adds one validated row ids[0..len) inside an open savepoint: splits the
 * atoms it cuts, resolves what it can outside the basis, and gives the
 * rest to the kernel.  On error the caller rolls the savepoint back.
 */
extern tapas_status tapas_rowspace_add_row(tapas_rowspace_t *rs,
										   const uint32_t *q, size_t len);

/* Undoes the resolved flags, nres and unc the open trial changed. */
extern void tapas_rowspace_resolved_undo(tapas_rowspace_t *rs);

/* Marks the singleton bases of blocks that the trial determined. */
extern void tapas_rowspace_resolved_scan(tapas_rowspace_t *rs);

/* Removes the newest basis row from the inverse (exact downdate), r--. */
extern void tapas_rowspace_downdate(tapas_rowspace_t *rs);

/* rowspace.c, for rowspace_update.c and rowspace_trial.c */

/* Sets the basis capacity to cap >= r (grow or shrink). */
extern tapas_status tapas_rowspace_grow(tapas_rowspace_t *rs, uint32_t cap);

/*
 * A state over n records in one atom with no rows, zero projections and
 * basis capacity min(cap, rank limit); the arguments are checked as for
 * tapas_rowspace_create.  NULL with *status (TAPAS_EINVAL, TAPAS_ENOMEM)
 * and a static message in *reason (may be NULL).  For creation and
 * deserialisation (rowspace_serial.c).
 */
extern tapas_rowspace_t *tapas_rowspace_alloc(uint32_t n, uint64_t prime,
											  uint32_t rank_limit, uint32_t cap,
											  tapas_status *status,
											  const char **reason);

#endif							/* TAPAS_ROWSPACE_INT_H */
