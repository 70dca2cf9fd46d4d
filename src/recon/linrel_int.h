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

#endif							/* TAPAS_LINREL_INT_H */
