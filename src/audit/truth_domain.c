/*-------------------------------------------------------------------------
 *
 * truth_domain.c
 *	  The classes of a table as functions of a row's sensitive columns:
 *	  their values on a finite set of rows that represents every possible
 *	  row (the domain grid), built from the statistics' structure alone,
 *	  never from the table's data.
 *
 * Why: two statistics are one unknown, or linearly related, when they are
 * so as functions; if they merely agree on this table's data (the hiv
 * patients happen to be the rare ones), an audit that merges them decides
 * by data the attacker does not know, and its refusal tells it (issue 11,
 * items 1 and 5: "refusals that themselves reveal the answer").  So class
 * identity (truth.c) and the relations between classes (relations.c) are
 * decided on the grid.
 *
 * The grid.  The atoms of the classes' canonical trees (capture/basis.c)
 * are recognised when they compare one column with constants: a boolean
 * column, IS [NOT] NULL, IS TRUE / FALSE, a btree comparison (<, <=, =,
 * >=, >, <>) of the column with a constant of its own type and collation,
 * and = ANY or <> ALL of a constant array.  Every other atom (lower(d) =
 * 'x', LIKE, a comparison of two columns) is opaque: a free truth value,
 * true, false or null, independent of everything else.  The constants of
 * a column cut its values into cells (below the least, each constant, each
 * gap between two, above the greatest, NULL); cells on which every
 * recognised atom of the column takes the same truth value are one group,
 * and the column's representatives are one value of each group that the
 * table's column occupies (its least, greatest and up to two between when
 * the column is summed; truth_domain_reps.c), read by one scan.  The grid is
 * the product of the columns' representatives and the opaque atoms' truth
 * values: every row that takes, column by column, values the columns hold.
 *
 * The attacker model behind it: each column's marginal domain is known
 * (diagnosis is one of five codes, income is never NULL: what a data
 * dictionary says), how the columns combine on a record is not.  Two
 * classes equal on the grid are equal on every such row: a row lies in
 * one cell per column, whose representative gives every recognised atom
 * the row's truth value, opaque atoms range freely (more rows than exist),
 * and a class is its value expression times its indicator, whose value
 * expressions are taken as equal when they agree at the summed columns'
 * extreme values per cell.  A relation on the grid holds on every such
 * table for the same reason.  What the data tells the decisions is thus
 * only which cells each column occupies; a coincidence between columns
 * (the hiv patients are the rare ones) is never used, and neither is an
 * equality that needs an opaque atom's meaning (lower(d) = 'hiv' against
 * d = 'hiv' on lower-case data): those are different unknowns.
 *
 * The classes are evaluated on a star of the grid's independent components,
 * not on the product (truth_domain_star.c), a component above
 * DOMAIN_MAX_POINTS points on its slices (truth_domain_slices.c).  A
 * component whose slices are too many, or with a column of too many
 * representatives, leaves its classes inexact, and an evaluation error
 * every class: the callers then fall back to the classes' truth over the
 * table.
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/snapmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "access/sysattr.h"
#include "access/table.h"

#include "audit/audit_int.h"
#include "policy/policy.h"

#include "audit/truth_domain_int.h"

DomCol *
tapas_domain_col(Domain *d, AttrNumber attno)
{
	ListCell   *lc;
	DomCol	   *c;
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(d->rel), attno - 1);

	foreach(lc, d->cols)
	{
		c = lfirst(lc);
		if (c->attno == attno)
			return c;
	}
	c = palloc0(sizeof(DomCol));
	c->attno = attno;
	c->type = att->atttypid;
	c->nullable = !att->attnotnull;
	d->cols = lappend(d->cols, c);
	return c;
}

/* the column Var of node (under a RelabelType), or NULL */
static Var *
column_of(Node *node)
{
	while (node != NULL && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node != NULL && IsA(node, Var) && ((Var *) node)->varno == 1 &&
		((Var *) node)->varattno > 0 && ((Var *) node)->varlevelsup == 0)
		return (Var *) node;
	return NULL;
}

/* the btree strategy of opno for type (1..5), 6 for <>, 0 if none */
static int
comparison_strategy(Oid opno, Oid type)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_BTREE_OPFAMILY | TYPECACHE_EQ_OPR);
	int			s;

	if (!OidIsValid(tc->btree_opf))
		return 0;
	s = get_op_opfamily_strategy(opno, tc->btree_opf);
	if (s >= 1 && s <= 5)
		return s;
	if (OidIsValid(tc->eq_opr) && get_negator(tc->eq_opr) == opno)
		return 6;
	return 0;
}

static void
add_const(DomCol *c, Const *k)
{
	if (!k->constisnull)
		c->consts = lappend(c->consts, k);
}

/* a boolean column's cells are true and false (and NULL) */
static void
bool_cells(DomCol *c)
{
	if (c->type != BOOLOID || c->consts != NIL)
		return;
	c->consts = list_make2(makeBoolConst(false, false), makeBoolConst(true, false));
}

/* whether atom compares one column with constants; records its constants */
static bool
recognise_consts(Domain *d, Node *atom, Var **col)
{
	Var		   *v;

	if ((*col = v = column_of(atom)) != NULL && v->vartype == BOOLOID)
	{
		bool_cells(tapas_domain_col(d, v->varattno));
		return true;
	}
	if (IsA(atom, NullTest) && (*col = v = column_of((Node *) ((NullTest *) atom)->arg)) != NULL)
	{
		(void) tapas_domain_col(d, v->varattno);
		return true;
	}
	if (IsA(atom, BooleanTest) && (*col = v = column_of((Node *) ((BooleanTest *) atom)->arg)) != NULL)
	{
		bool_cells(tapas_domain_col(d, v->varattno));
		return true;
	}
	if (IsA(atom, OpExpr) && list_length(((OpExpr *) atom)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) atom;
		Node	   *k = lsecond(op->args);
		int			s;
		DomCol	   *c;

		*col = v = column_of(linitial(op->args));
		if (v == NULL || !IsA(k, Const) || ((Const *) k)->consttype != v->vartype)
			return false;
		s = comparison_strategy(op->opno, v->vartype);
		if (s == 0 || op->inputcollid != v->varcollid)
			return false;
		c = tapas_domain_col(d, v->varattno);
		c->ordered |= s != 3 && s != 6;
		add_const(c, (Const *) k);
		return true;
	}
	if (IsA(atom, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) atom;
		Node	   *k = lsecond(sa->args);
		int			s;
		DomCol	   *c;
		ArrayType  *arr;
		Datum	   *elems;
		bool	   *nulls;
		int			n;
		int16		typlen;
		bool		typbyval;
		char		typalign;

		*col = v = column_of(linitial(sa->args));
		if (v == NULL || !IsA(k, Const) || ((Const *) k)->constisnull)
			return false;
		s = comparison_strategy(sa->opno, v->vartype);
		if (!((s == 3 && sa->useOr) || (s == 6 && !sa->useOr)) || sa->inputcollid != v->varcollid)
			return false;
		arr = DatumGetArrayTypeP(((Const *) k)->constvalue);
		if (ARR_ELEMTYPE(arr) != v->vartype)
			return false;
		get_typlenbyvalalign(v->vartype, &typlen, &typbyval, &typalign);
		deconstruct_array(arr, v->vartype, typlen, typbyval, typalign, &elems, &nulls, &n);
		c = tapas_domain_col(d, v->varattno);
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				c->consts = lappend(c->consts, makeConst(v->vartype, v->vartypmod, v->varcollid,
														 typlen, elems[i], false, typbyval));
		return true;
	}
	return false;
}

/*
 * recognise_consts, keeping the atom with its column: the cells its
 * constants cut that every such atom treats alike are one representative
 * (truth_domain_reps.c), so a long IN list does not cut a column into more
 * than the grid holds
 */
static bool
recognise(Domain *d, Node *atom)
{
	Var		   *v;
	DomCol	   *c;

	if (!recognise_consts(d, atom, &v))
		return false;
	c = tapas_domain_col(d, v->varattno);
	c->cmps = list_append_unique(c->cmps, atom);
	return true;
}

/* marks the columns read outside the atoms: the value expression's */
typedef struct SummedCtx
{
	Domain	   *d;
	List	   *atoms;
} SummedCtx;

static bool
summed_walker(Node *node, SummedCtx *ctx)
{
	if (node == NULL)
		return false;
	if (list_member(ctx->atoms, node))
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == 1 && ((Var *) node)->varattno > 0)
	{
		tapas_domain_col(ctx->d, ((Var *) node)->varattno)->summed = true;
		return false;
	}
	return expression_tree_walker(node, summed_walker, ctx);
}

/*
 * atom with its operator negated (a <> b for a = b, NOT LIKE for LIKE), or
 * NULL: the canonical form writes NOT (x = c) as x <> c, and the two are
 * one opaque truth value and its negation, not two free ones.
 */
static Node *
negated(Node *atom)
{
	OpExpr	   *op;
	Oid			neg;

	if (!IsA(atom, OpExpr) || !OidIsValid(neg = get_negator(((OpExpr *) atom)->opno)))
		return NULL;
	op = (OpExpr *) copyObject(atom);
	op->opno = neg;
	op->opfuncid = InvalidOid;
	set_opfuncid(op);
	return (Node *) op;
}

static Param *
opaque_param(int j)
{
	Param	   *p = makeNode(Param);

	p->paramkind = PARAM_EXTERN;
	p->paramid = j + 1;
	p->paramtype = BOOLOID;
	p->paramtypmod = -1;
	p->paramcollid = InvalidOid;
	p->location = -1;
	return p;
}

/* the tree with the opaque atoms of d as boolean Params 1, 2, ... (or their negations) */
static Node *
param_mutator(Node *node, Domain *d)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, d->opaque)
	{
		Node	   *neg = negated(lfirst(lc));

		if (neg != NULL && equal(node, neg))
			return (Node *) makeBoolExpr(NOT_EXPR,
										 list_make1(opaque_param(foreach_current_index(lc))), -1);
	}
	foreach(lc, d->opaque)
	{
		if (equal(node, lfirst(lc)))
			return (Node *) opaque_param(foreach_current_index(lc));
	}
	return expression_tree_mutator(node, param_mutator, d);
}

/*
 * An atom that reads one column and nothing else (lower(d) = 'hiv', d LIKE
 * 'h%', abs(income) > 5): a function of that column, evaluated on the
 * column's values by the scan (tapas_domain_reps), whose representatives are
 * then one per occupied cell and truth value of these atoms.  So
 * lower(d) = 'hiv' and d = 'hiv' are one class when the column's values
 * are lower case, as an attacker who knows the column's domain knows.
 */
static bool
column_atom(Domain *d, Node *atom)
{
	Bitmapset  *attnos = NULL;
	int			a;
	DomCol	   *c;

	pull_varattnos(atom, 1, &attnos);
	if (bms_num_members(attnos) != 1 || contain_volatile_functions(atom))
		return false;
	a = bms_singleton_member(attnos) + FirstLowInvalidHeapAttributeNumber;
	if (a < 1)
		return false;
	c = tapas_domain_col(d, (AttrNumber) a);
	if (list_length(c->atoms) >= COLUMN_MAX_ATOMS)
		return false;
	if (!list_member(c->atoms, atom))
		c->atoms = lappend(c->atoms, atom);
	return true;
}

/* collects the atoms and summed columns of tree into d */
static void
collect(Domain *d, Node *tree)
{
	List	   *atoms = tapas_basis_atoms(tree);
	ListCell   *lc;
	SummedCtx	ctx = {d, atoms};

	foreach(lc, atoms)
	{
		Node	   *a = lfirst(lc);

		Node	   *neg = negated(a);

		if (!list_member(d->opaque, a) && !(neg != NULL && list_member(d->opaque, neg)) &&
			!recognise(d, a) && !column_atom(d, a))
		{
			d->opaque = lappend(d->opaque, a);
			d->opaque_dom = lappend_int(d->opaque_dom,
										tapas_atom_not_null(a, RelationGetRelid(d->rel)) ? 2 : 3);
		}
	}
	(void) summed_walker(tree, &ctx);
}
/*
 * The signature positions (truth_domain_reps.c) of the atoms of class k's
 * tree on each column, in d->atpos: the slices of the star merge a
 * column's groups by the atoms of the classes that read them
 * (truth_domain_slices.c).
 */
static void
atom_positions(Domain *d, int k, Node *tree)
{
	int			ncols = list_length(d->cols);
	List	   *atoms = tapas_basis_atoms(tree);
	ListCell   *la;

	foreach(la, atoms)
	{
		ListCell   *lc;

		foreach(lc, d->cols)
		{
			DomCol	   *c = lfirst(lc);
			Bitmapset **pos = &d->atpos[k * ncols + foreach_current_index(lc)];
			ListCell   *lx;

			foreach(lx, c->cmps)
				if (equal(lfirst(lx), lfirst(la)))
					*pos = bms_add_member(*pos, foreach_current_index(lx));
			foreach(lx, c->atoms)
				if (equal(lfirst(lx), lfirst(la)))
					*pos = bms_add_member(*pos, list_length(c->cmps) + foreach_current_index(lx));
		}
	}
}

/*
 * The domain vectors of the n classes cls (of one table, each with its
 * tree), in out[n] (allocated in the current memory context): their values
 * on the grid their atoms cut; with links, also how the last class's
 * support lies among the others' in a sliced component (out[n-1].links).
 * Every out[k].exact is false when the grid cannot be built (a type it
 * cannot represent, too many points) or a class has no tree, or the
 * evaluation fails; the callers then fall back.
 */
void
tapas_audit_domain_vectors(Oid relid, TapasClass **cls, int n, bool links,
						   TapasDomainVector *out)
{
	Domain		d;
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	memset(out, 0, sizeof(TapasDomainVector) * n);
	memset(&d, 0, sizeof(d));
	for (int k = 0; k < n; k++)
	{
		out[k].comp = -1;
		if (cls[k]->vtree == NULL)
			return;
	}
	d.rel = table_open(relid, AccessShareLock);
	for (int k = 0; k < n; k++)
		collect(&d, cls[k]->vtree);
	d.nclasses = n;
	d.atpos = palloc0(sizeof(Bitmapset *) * Max(n * list_length(d.cols), 1));
	for (int k = 0; k < n; k++)
		atom_positions(&d, k, cls[k]->vtree);
	if (tapas_domain_reps(&d))
	{
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(caller);
		PG_TRY();
		{
			Node	  **trees = palloc(sizeof(Node *) * Max(n, 1));

			for (int k = 0; k < n; k++)
				trees[k] = param_mutator(copyObject(cls[k]->vtree), &d);
			tapas_domain_star_vectors(&d, trees, n, links, out);
			ReleaseCurrentSubTransaction();
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(caller);
			edata = CopyErrorData();
			FlushErrorState();
			RollbackAndReleaseCurrentSubTransaction();
			if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
				ReThrowError(edata);
			FreeErrorData(edata);
			for (int k = 0; k < n; k++)
				out[k].exact = false;
		}
		PG_END_TRY();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
	}
	else
		elog(DEBUG1, "tapas: no domain grid for the %d classes of table \"%s\" (the classes are off the grid)",
			 n, RelationGetRelationName(d.rel));
	table_close(d.rel, AccessShareLock);
}
