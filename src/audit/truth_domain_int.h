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

struct TapasDomainVector;

extern DomCol *tapas_domain_col(Domain *d, AttrNumber attno);
extern bool tapas_domain_reps(Domain *d);
extern void tapas_domain_star_vectors(Domain *d, Node **trees, int n,
									  struct TapasDomainVector *out);

#endif							/* TAPAS_TRUTH_DOMAIN_INT_H */
