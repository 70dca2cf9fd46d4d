/*-------------------------------------------------------------------------
 *
 * linrel.h
 *	  Linear relations between the truth vectors of the basis-value
 *	  classes of one table, and a 0/1 coordinate system for each group of
 *	  related classes (the joint system of audit/joint.c).
 *
 * A class b is a vector v_b over the table's records (its per-row value).
 * Classes are added one at a time; the kernel keeps an echelon basis of
 * their span over F_p (exactly, for values that are integers or binary
 * fractions, e.g. every finite double: Z[1/2] -> F_p is a ring map) and
 * writes each class that depends on earlier ones as a combination of the
 * generator classes.  A relation sum_b lambda_b v_b = 0 joins its classes;
 * the components (the matroid's connected components, from the
 * fundamental circuits of the basis) are the groups of classes whose cells
 * combine.  A class in no relation (independent of all others, or zero)
 * stays alone: its cells form a system of their own.
 *
 * Coordinates.  For a component, records are grouped into regions by
 * their pattern (the component's classes that are nonzero at the record).
 * When scales s_b exist with s_b v_b(j) equal for every class b of the
 * pattern of j (true for filters of one base value: rare AND x, rare AND
 * NOT x, rare; income FILTER (x), income FILTER (NOT x), income; and for
 * multiples: 2 rare, rare), then with g_rho(j) = that common value on the
 * records of region rho,
 *		s_b v_b = sum over the regions rho whose pattern holds b of g_rho,
 * a 0/1 combination of linearly independent generators (disjoint
 * supports).  A cell of class b over cover Q is then the 0/1 row
 * Q x (regions of b) over the unknowns (region, record), and the
 * row-space test of the product system decides what the cells determine:
 * the embedding span(v) -> span(g) is injective, so membership of e_j x c_b
 * is the same in any such coordinates.
 *
 * Split coordinates.  Components without such scales (sum(health) with
 * count(*) FILTER (WHERE health = v) for each v; 2 rare + other, rare,
 * other) get regions that refine the patterns by the ratios of the
 * classes to the first class nonzero at the record, so that on each
 * region rho every class is a multiple of one generator: v_b = c_{b,rho}
 * g_rho there.  A cell of class b over Q, sum over rho of c_{b,rho}
 * (Q x rho), is then taken as the separate rows Q x rho for each region
 * rho of b (plan->split): the attacker is credited with more than the
 * answer tells (each region's part of it), so the test refuses at least
 * whenever the exact one would (sound, possibly more refusals).  The row
 * space of such rows is a direct sum over the regions, so e_j x c_b, a
 * combination with nonzero weights of the unknowns (rho, j), lies in it
 * exactly when each of them does: the 0/1 test of e_j x (regions of b)
 * is the same.  A component with more than TAPAS_LINREL_MAX_REGIONS
 * regions has no coordinates here: the caller fails closed.
 *
 * The all-ones class ONE (count(*), public: |Q| follows from the
 * quasi-identifiers, and every record's ONE value is known) is not a
 * class of the kernel but is part of every plan given the table's size:
 * components are those of the quotient by ONE (relations that only say
 * "both sum to ONE" join nothing), a class equal to a multiple of ONE is
 * public (is_one), and a component whose span holds ONE gets quotient
 * coordinates, one region eliminated through the public rows e_j x ONE
 * (linrel_plan.c): exact for 0/1 components, sound in split ones.  The
 * test of a class's value at j is then the vector of test[b]'s regions,
 * not regions[b]'s; patterns[] keep the regions before the quotient.
 *
 * Cuts (linrel_cut.c).  A component whose classes fall into families that
 * share one class X only (health and religion classes when "health = -9"
 * and "religion = -9" are the same records) is audited as one system per
 * family: the family's classes, X (and its multiples modulo ONE) as
 * extra members, and, for a cell of another family's class with a
 * nonzero coefficient on X, the row Q x X (extra members with test and
 * patterns 0): sound, with far fewer regions than the product of the
 * families'.  A class may so be a member of several systems (extra[]).
 *
 * Usage: create, add each class (tapas_linrel_add), then tapas_linrel_plan
 * (recomputed from scratch, O(sum of nnz of the related classes * log)).
 * Not thread-safe.
 *
 * IDENTIFICATION
 *	  src/recon/linrel.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LINREL_H
#define TAPAS_LINREL_H

#include <stddef.h>
#include <stdint.h>

#include "recon/regset.h"
#include "util/status.h"

typedef struct tapas_linrel tapas_linrel_t;

/* most classes per table, and most regions per component (a region set's capacity) */
#define TAPAS_LINREL_MAX_CLASSES	256
#define TAPAS_LINREL_MAX_REGIONS	TAPAS_REGSET_MAX

/* Creates an empty set of classes modulo prime (odd, < 2^62); NULL on a bad prime or out of memory. */
extern tapas_linrel_t *tapas_linrel_create(uint64_t prime);

/* Frees lr; accepts NULL. */
extern void tapas_linrel_free(tapas_linrel_t *lr);

/*
 * Adds class number tapas_linrel_count(lr) with values val[i] at records
 * keys[i] (keys strictly ascending; zero values allowed and ignored).
 * TAPAS_EINVAL on unsorted keys or a value that is not finite (the class
 * is then added as the zero class: in no relation), TAPAS_ELIMIT beyond
 * TAPAS_LINREL_MAX_CLASSES, TAPAS_ENOMEM.  O(G (nnz + fill)) for G
 * generators so far.
 */
extern tapas_status tapas_linrel_add(tapas_linrel_t *lr, const int64_t *keys,
									 const double *val, size_t nnz);

/* Number of classes added. */
extern uint32_t tapas_linrel_count(const tapas_linrel_t *lr);

/* Rank of the classes' span. */
extern uint32_t tapas_linrel_rank(const tapas_linrel_t *lr);

/* A class's membership of a system other than its home (cuts). */
typedef struct tapas_linrel_extra
{
	uint32_t	comp;			/* the system */
	uint32_t	cls;			/* the class */
	tapas_regset_t regions;		/* its cells' rows there */
	tapas_regset_t test;		/* its value there (empty: tested in its home only) */
	tapas_regset_t patterns;	/* its patterns there (empty: a projected cell, Q x the cut class) */
} tapas_linrel_extra_t;

/* The relations, grouped (see the banner); arrays owned by the plan. */
typedef struct tapas_linrel_plan
{
	uint32_t	nclasses;
	int32_t    *comp;			/* [nclasses] system (its home), or -1: in no relation */
	uint8_t    *is_one;			/* [nclasses] 1: a nonzero multiple of ONE (public) */
	tapas_regset_t *regions;	/* [nclasses] rho in it: a cell of the class is a row over region rho */
	tapas_regset_t *test;		/* [nclasses] the class's value at j: the unknowns (rho, j), rho in test */
	tapas_regset_t *patterns;	/* [nclasses] rho in it: the class is nonzero on pattern rho */
	uint32_t	ncomp;
	int32_t    *nregions;		/* [ncomp] regions of the row space, or -1: no coordinates */
	int32_t    *npatterns;		/* [ncomp] patterns (records by the classes nonzero there), or -1 */
	uint32_t   *nmembers;		/* [ncomp] classes in the component */
	uint8_t    *split;			/* [ncomp] 1: split coordinates (a cell is a row per region) */
	uint8_t    *one;			/* [ncomp] 1: ONE lies in the span: quotient coordinates */
	int32_t    *cut;			/* [ncomp] the bridge class it was cut at, or -1 */
	uint32_t	nextra;
	tapas_linrel_extra_t *extra;	/* [nextra] more members of the systems (cuts) */
} tapas_linrel_plan_t;

/*
 * Computes the plan of the classes added so far into *plan (free with
 * tapas_linrel_plan_clear).  nrecords is the number of records of the
 * table (the support of ONE); 0 leaves ONE out (the relations of M, as
 * if count(*) were not public).  TAPAS_ENOMEM, else TAPAS_OK.
 * O(K nrecords) more with ONE.
 */
extern tapas_status tapas_linrel_plan(tapas_linrel_t *lr, uint64_t nrecords,
									  tapas_linrel_plan_t *plan);

/* Frees the plan's arrays; accepts a zeroed plan. */
extern void tapas_linrel_plan_clear(tapas_linrel_plan_t *plan);

#endif							/* TAPAS_LINREL_H */
