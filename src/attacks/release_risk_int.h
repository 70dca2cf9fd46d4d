/*-------------------------------------------------------------------------
 *
 * release_risk_int.h
 *	  Internals of the dataset-only release audit, shared by its files:
 *	  release_risk.c (the audit: sampling, memory, per-target risks and
 *	  summaries), release_scan.c (distances: one pass over the synthetic
 *	  rows per target, DCR and NNDR), release_singling_out.c,
 *	  release_linkability.c and release_inference.c.
 *
 * The distance kernels of distance.c compute one distance per call; here
 * one pass over the synthetic rows must yield several distances per row
 * (whole row, A-half, all but the sensitive column), so the per-column
 * contribution is written out again: Hamming adds 1 per differing raw
 * value; L_p adds |dx|^p per encoded cell, which for a one-hot categorical
 * block is 0 or 2 and is read from the codes.  Distances are compared as
 * sums (the p-th root is monotone) and rooted only when reported.
 *
 * IDENTIFICATION
 *	  src/attacks/release_risk_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_RELEASE_RISK_INT_H
#define TAPAS_RELEASE_RISK_INT_H

#include <math.h>
#include <string.h>

#include "attacks/release_risk.h"
#include "util/rng.h"

typedef struct scan_ctx
{
	const tapas_dataset_t *syn;
	int			lp;				/* L_p (else Hamming) */
	double		p;
	unsigned char *cat;			/* c: column is categorical */
	unsigned char *in_a;		/* c: column is in the A-half */
	long		sens;			/* sensitive column or -1 */
	size_t		card;			/* its number of codes */
	size_t	   *votes;			/* card scratch counters */
	double		unit;			/* distance sum of one mismatch in the
								 * columnar code scan: 1 (Hamming) or 2 (L_p
								 * on categorical columns only) */
	/* the columnar Hamming scan (NULL when not used) */
	uint32_t   *codes;			/* c x n, column-major: value codes of syn */
	uint32_t   *acc;			/* 3 x n: A-half, B-half, sensitive counts */
	const double *sorted;		/* c x n: each syn column sorted */
	/* the columnar L_p scan (NULL when not used) */
	double	   *colv;			/* c x n: codes or encoded cells of syn */
	double	   *dacc;			/* 3 x n: A-half, B-half, all-but-sensitive */
} scan_ctx;

typedef struct target_scan
{
	double		d1;				/* smallest whole-row sum */
	double		d2;				/* second smallest (+inf if none) */
	size_t		link;			/* synthetic row nearest on A (ties random) */
	double		guess;			/* attribute inference guess (code) */
} target_scan;

typedef struct predicate
{
	size_t	   *cols;			/* ncols column indices */
	size_t		ncols;
	double	   *value;			/* c: the value of each column (raw) */
} predicate;

/* everything one audit allocates, freed together */
typedef struct audit_mem
{
	size_t	   *perm;
	size_t	   *colperm;		/* c: scratch of tapas_rr_draw_columns */
	size_t	   *rows_r;			/* sampled targets */
	size_t	   *rows_h;
	size_t	   *so_r;			/* singling-out subsamples */
	size_t	   *so_h;
	double	   *iso_r;			/* predicates isolating each real row */
	double	   *iso_h;
	target_scan *scan_r;
	target_scan *scan_h;
	double	   *stat;			/* 4m: dcr r, dcr h, nndr r, nndr h */
	double	   *sorted;			/* syn column values, column-major sorted */
	predicate	pred;
	scan_ctx	cx;
} audit_mem;

/* contribution of column j to the distance sum between x and y */
static inline double
contrib(const scan_ctx *cx, size_t j, const double *x, const double *xe,
		const double *y, const double *ye)
{
	const tapas_dataset_t *ds = cx->syn;
	double		dx;

	if (!cx->lp)
		return x[j] != y[j];
	if (cx->cat[j])
		return x[j] != y[j] ? 2.0 : 0.0;
	dx = fabs(xe[ds->offset[j]] - ye[ds->offset[j]]);
	return cx->p == 1 ? dx : (cx->p == 2 ? dx * dx : pow(dx, cx->p));
}

/* the reported distance of a sum */
static inline double
root(const scan_ctx *cx, double sum)
{
	return cx->lp && cx->p != 1 ? pow(sum, 1.0 / cx->p) : sum;
}

/* index (in 0 .. n-1) kept by a reservoir of one over tied candidates */
static inline int
keep_tie(tapas_rng_t *rng, size_t *ties)
{
	(*ties)++;
	return tapas_rng_below(rng, *ties) == 0;
}

/*
 * Attribute inference vote of a synthetic row whose distance (without the
 * sensitive column) is ns: a row nearer than every earlier one restarts
 * the tally (*best = ns), a row as near adds its sensitive code.
 */
static inline void
tapas_rr_vote(scan_ctx *cx, double ns, double *best, double code)
{
	if (!(ns <= *best))
		return;
	if (ns < *best)
	{
		*best = ns;
		memset(cx->votes, 0, sizeof(size_t) * cx->card);
	}
	cx->votes[(size_t) code]++;
}

/* release_scan.c: distances */
extern uint32_t tapas_rr_value_code(const scan_ctx *cx, size_t j, double v);
extern void tapas_rr_scan_target(scan_ctx *cx, const double *x, const double *xe,
								 tapas_rng_t *rng, target_scan *out);
extern void tapas_rr_scan_target_columnar(scan_ctx *cx, const double *x,
										  tapas_rng_t *rng, target_scan *out);
extern void tapas_rr_scan_target_columnar_lp(scan_ctx *cx, const double *x,
											 const double *xe, tapas_rng_t *rng,
											 target_scan *out);
extern tapas_status tapas_rr_scan_side(audit_mem *am, const tapas_dataset_t *ds,
									   const size_t *rows, size_t m, target_scan *out,
									   tapas_rng_t *rng, double done,
									   const tapas_progress_t *progress);
extern tapas_status tapas_rr_distance_rows(audit_mem *am, size_t m,
										   const tapas_release_params_t *p,
										   tapas_rng_t *rng, tapas_risk_summary_t *out);

/* release_singling_out.c */
extern long tapas_rr_isolated(const tapas_dataset_t *ds, const size_t *rows, size_t n,
							  const predicate *pr, double tolerance);
extern void tapas_rr_draw_columns(predicate *pr, size_t c, size_t k, size_t *perm,
								  tapas_rng_t *rng);
extern void tapas_rr_singling_out(audit_mem *am, const tapas_dataset_t *real,
								  const tapas_dataset_t *syn, const tapas_dataset_t *hold,
								  size_t nso, const tapas_release_params_t *p,
								  tapas_rng_t *rng, double *kr, double *kh, double *kb);

/* release_linkability.c */
extern size_t tapas_rr_link_to(scan_ctx *cx, const tapas_dataset_t *ds,
							   const size_t *rows, size_t m, size_t s, tapas_rng_t *rng);

/* release_inference.c */
extern double tapas_rr_vote_guess(scan_ctx *cx, tapas_rng_t *rng);
extern size_t tapas_rr_synthetic_mode(scan_ctx *cx);

/* release_risk.c */
extern size_t tapas_rr_count_equal(const double *s, size_t n, double v);

#endif							/* TAPAS_RELEASE_RISK_INT_H */
