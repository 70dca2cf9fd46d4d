/*-------------------------------------------------------------------------
 *
 * linrel_int.h
 *	  Internal state of the relation kernel, shared by linrel.c (sparse
 *	  vectors mod p, the echelon basis) and linrel_plan.c (components,
 *	  regions, the quotient by the all-ones class).
 *
 * Not part of the public interface: callers use linrel.h only.
 *
 * IDENTIFICATION
 *	  src/recon/linrel_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LINREL_INT_H
#define TAPAS_LINREL_INT_H

#include <flint/flint.h>
#include <flint/nmod.h>

#include "recon/linrel.h"

#define MAXC	TAPAS_LINREL_MAX_CLASSES

typedef struct svec
{
	size_t		nnz;
	int64_t    *key;			/* ascending */
	uint64_t   *val;			/* nonzero, < p */
} svec;

struct tapas_linrel
{
	nmod_t		mod;
	uint32_t	K;				/* classes */
	svec		cls[MAXC];		/* class vectors mod p (empty: zero class) */
	uint32_t	G;				/* generators */
	svec		basis[MAXC];	/* b_k */
	int64_t		piv[MAXC];		/* pivot key of b_k */
	uint32_t	gen_class[MAXC];	/* class of generator k */
	int32_t		gen_of[MAXC];	/* generator index of class b, or -1 */
	uint64_t   *T;				/* [MAXC * MAXC] b_k over generator classes */
	uint64_t   *coef;			/* [MAXC * MAXC] dependent class over generator classes */
};

/* linrel.c: sparse vectors mod p */
extern void tapas_linrel_svec_clear(svec *v);
/* room for n entries, nnz = 0; 0 when out of memory */
extern int	tapas_linrel_svec_alloc(svec *v, size_t n);
/* v[key], 0 if absent */
extern uint64_t tapas_linrel_svec_get(const svec *v, int64_t key);
/* *w -= c b; 0 when out of memory */
extern int	tapas_linrel_svec_submul(svec *w, uint64_t c, const svec *b, nmod_t mod);
/* reduces w by the generators: c[k] = the multiple of b_k taken out */
extern tapas_status tapas_linrel_reduce(tapas_linrel_t *lr, svec *w, uint64_t *c);

/*
 * linrel_regions.c: the coordinates of system c over the classes
 * cl[0..nm) into rows[m], test[m], patterns[m] (member order); with one
 * (ONE's vector) the quotient by ONE.
 */
extern tapas_status tapas_linrel_plan_coordinates(tapas_linrel_t *lr, tapas_linrel_plan_t *plan,
												  uint32_t c, const uint32_t *cl, uint32_t nm,
												  const svec *one, tapas_regset_t *rows,
												  tapas_regset_t *test, tapas_regset_t *patterns);

/* linrel_cut.c: cuts at a bridge class */
/* rank mod p of the n rows of length G at rows (reduced in place) */
extern uint32_t tapas_linrel_rank_rows(uint64_t *rows, uint32_t n, uint32_t G, nmod_t mod);

/*
 * The bridge class of the component cl[0..nm) whose contraction splits
 * the others into the most even parts (r: [K * MAXC] the classes modulo
 * ONE over the generators): returns its index in cl and sets part[b]
 * (part index, or -1: the bridge class or a multiple of it modulo ONE)
 * and beta_nz[b] (b has a nonzero coefficient on the bridge) for b in
 * cl; -1 if no class splits the component, -2 out of memory.
 */
extern int	tapas_linrel_find_cut(const tapas_linrel_t *lr, const uint64_t *r,
								  const uint32_t *cl, uint32_t nm, int32_t *part,
								  uint8_t *beta_nz);

#endif							/* TAPAS_LINREL_INT_H */
