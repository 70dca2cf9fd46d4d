/*-------------------------------------------------------------------------
 *
 * truth_domain_int.h
 *	  The domain grid's parts shared by truth_domain.c (atoms, evaluation)
 *	  and truth_domain_reps.c (the columns' representatives, from a scan).
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_TRUTH_DOMAIN_INT_H
#define TAPAS_TRUTH_DOMAIN_INT_H

#include "postgres.h"

#include "nodes/bitmapset.h"
#include "nodes/execnodes.h"
#include "nodes/pg_list.h"
#include "utils/rel.h"

#define DOMAIN_MAX_POINTS	4096	/* points of the star (truth_domain_star.c) */
#define DOMAIN_MAX_REPS		16384	/* representatives of one column */
#define COLUMN_MAX_ATOMS	5		/* atoms evaluated on one column's values */
#define GROUP_SUMMED_REPS	4		/* values of a summed column per group */

/* a column of the grid */
typedef struct DomCol
{
	AttrNumber	attno;
	Oid			type;
	bool		nullable;
	bool		ordered;		/* compared by <, <=, >, >= */
	bool		summed;			/* read by a value expression */
	List	   *consts;			/* Const * of the column's type */
	List	   *cmps;			/* the recognised atoms that compare it with them */
	List	   *atoms;			/* other atoms that read this column only: evaluated on its values */
	int			nreps;			/* with NULL */
	Datum	   *reps;
	bool	   *rnull;
	bool		failed;			/* no representatives: a type without an order, too many */
	/* the representatives' groups (truth_domain_reps.c), for the slices */
	int			ngroups;		/* with NULL's */
	int		   *gstart;			/* [ngroups + 1] group g is reps[gstart[g] .. gstart[g + 1]) */
	int			siglen;			/* bytes of a group's signature: ncmps + natoms */
	uint8	   *sig;			/* [ngroups * siglen] truth values (0, 1, 2: NULL) of its atoms */
	bool		null_group;		/* the last group is NULL (no signature) */
} DomCol;

typedef struct Domain
{
	Relation	rel;
	List	   *cols;			/* DomCol * */
	List	   *opaque;			/* Node *: the opaque atoms, by equal() */
	List	   *opaque_dom;		/* int: 2 or 3 truth values */
	bool	   *null_seen;		/* [natts] the column holds a NULL (after the scan) */
	int			nclasses;
	Bitmapset **atpos;			/* [nclasses * ncols] signature positions of class k's atoms on column j */
} Domain;

/*
 * The star (truth_domain_star.c): dimensions 0..ncols-1 are d->cols, then
 * d->opaque.  A point gives every dimension a value: a column the index
 * of one of its representatives, an opaque atom 0 (true), 1 (false) or 2
 * (NULL); the base point is 0 everywhere.
 */
typedef struct DomSlices DomSlices;

typedef struct Star
{
	int			ndims;
	int		   *size;			/* [ndims] values of the dimension */
	int		   *comp;			/* [ndims] its component */
	int			ncomp;
	int64	   *cpoints;		/* [ncomp] points of the component's grid, the base included */
	int64	   *cstart;			/* [ncomp] first star point of its non-base points; -1 not laid out */
	DomSlices **slices;			/* [ncomp] a component laid out in slices, or NULL */
	int64		npoints;
	Bitmapset **dims;			/* [nclasses] the dimensions class k reads */
} Star;

/* one class's evaluation at points of the star */
typedef struct StarEval
{
	Domain	   *d;
	Star	   *s;
	TupleTableSlot *slot;
	ParamListInfo params;
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *es;
	int64		nevals;
} StarEval;

/* a column's distinct values over the table (truth_domain_values.c) */
typedef struct ColValues
{
	bool		has_null;
	bool		complete;		/* vals holds every distinct non-NULL value */
	int			n;
	Datum	   *vals;
} ColValues;

/* what is kept of a table's grid, with its classes (truth.c) */
typedef struct DomainCache
{
	MemoryContext cxt;
	int			natts;
	ColValues **cols;			/* [natts] NULL: not read yet */
	MemoryContext reps_cxt;		/* a child of cxt: the last grid's representatives */
	struct RepsCache *reps;
} DomainCache;

typedef struct ValueSet ValueSet;

struct TapasDomainVector;

extern DomCol *tapas_domain_col(Domain *d, AttrNumber attno);
extern bool tapas_domain_reps(Domain *d);
extern char *tapas_domain_key(Domain *d);
extern bool tapas_domain_reps_cached(Domain *d, const char *key);
extern void tapas_domain_reps_keep(Domain *d, const char *key);
extern DomainCache *tapas_domain_cache(Relation rel);
extern ColValues *tapas_domain_values(Relation rel, AttrNumber attno);
extern ValueSet *tapas_value_set_create(Relation rel, AttrNumber attno);
extern bool tapas_value_set_add(ValueSet *s, Datum v, bool isnull);
extern void tapas_value_set_keep(Relation rel, ValueSet *s);
extern void tapas_domain_star_vectors(Domain *d, Node **trees, int n, bool links,
									  struct TapasDomainVector *out);

/* evaluation at a point (truth_domain_star.c) */
extern void tapas_star_eval_begin(StarEval *e, Node *tree);
extern void tapas_star_eval_end(StarEval *e);
extern double tapas_star_eval_point(StarEval *e, const int *x);

/* slices (truth_domain_slices.c) */
extern int64 tapas_domain_slices_layout(Domain *d, Star *s, int c, int64 budget);
extern void tapas_domain_slice_point(Star *s, int c, int64 l, int *x);
extern int *tapas_domain_dim_values(Domain *d, int i, const Bitmapset *pos, int *nv);
extern Bitmapset *tapas_domain_dim_positions(Domain *d, int i, const int *cls, int ncls);
extern int tapas_domain_dim_groups(Domain *d, int i, const Bitmapset *pos, const int *vals, int n,
								   int *out);

/* links of two classes of a sliced component (truth_domain_pairs.c) */
extern uint8 tapas_domain_pair_links(Domain *d, Star *s, Node *ta, int a, Node *tb, int b);

#endif							/* TAPAS_TRUTH_DOMAIN_INT_H */
