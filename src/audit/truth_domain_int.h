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

#include "nodes/pg_list.h"
#include "utils/rel.h"

#define DOMAIN_MAX_POINTS	4096	/* points of the star (truth_domain_star.c) */
#define DOMAIN_MAX_REPS		512		/* representatives of one column */
#define COLUMN_MAX_ATOMS	5		/* atoms evaluated on one column's values */

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
} DomCol;

typedef struct Domain
{
	Relation	rel;
	List	   *cols;			/* DomCol * */
	List	   *opaque;			/* Node *: the opaque atoms, by equal() */
	List	   *opaque_dom;		/* int: 2 or 3 truth values */
	bool	   *null_seen;		/* [natts] the column holds a NULL (after the scan) */
} Domain;

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
extern DomainCache *tapas_domain_cache(Relation rel);
extern ColValues *tapas_domain_values(Relation rel, AttrNumber attno);
extern ValueSet *tapas_value_set_create(Relation rel, AttrNumber attno);
extern bool tapas_value_set_add(ValueSet *s, Datum v, bool isnull);
extern void tapas_value_set_keep(Relation rel, ValueSet *s);
extern void tapas_domain_star_vectors(Domain *d, Node **trees, int n,
									  struct TapasDomainVector *out);

#endif							/* TAPAS_TRUTH_DOMAIN_INT_H */
