/*-------------------------------------------------------------------------
 *
 * sensitive_atoms.c
 *	  The sensitive atoms of a basis value: the boolean sub-expressions
 *	  whose truth values its canonical form (capture/basis.c) enumerates,
 *	  and that the domain grid (truth_domain.c) evaluates.  Here, below
 *	  both, because capture builds on audit.
 *
 * IDENTIFICATION
 *	  src/audit/sensitive_atoms.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "audit/audit.h"

static bool
has_bool_var_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->vartype == BOOLOID;
	return expression_tree_walker(node, has_bool_var_walker, ctx);
}

typedef struct SAtoms
{
	List	   *atoms;
} SAtoms;

static bool
s_atoms_walker(Node *node, SAtoms *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->vartype == BOOLOID)
	{
		if (!list_member(ctx->atoms, node))
			ctx->atoms = lappend(ctx->atoms, node);
		return false;
	}
	if (!IsA(node, List) && exprType(node) == BOOLOID && !IsA(node, BoolExpr) && !IsA(node, BooleanTest) &&
		!IsA(node, CaseExpr) && !IsA(node, CoalesceExpr) && !IsA(node, Const) &&
		!IsA(node, Param) && contain_var_clause(node) && !has_bool_var_walker(node, NULL))
	{
		if (!list_member(ctx->atoms, node))
			ctx->atoms = lappend(ctx->atoms, node);
		return false;
	}
	return expression_tree_walker(node, s_atoms_walker, ctx);
}

/* true when atom can never be null: NOT NULL columns and constants under a strict operator */
bool
tapas_atom_not_null(Node *atom, Oid relid)
{
	ListCell   *lc;

	if (IsA(atom, NullTest))
		return true;
	if (IsA(atom, Var))
	{
		HeapTuple	tp;
		bool		nn = false;

		tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
							 Int16GetDatum(((Var *) atom)->varattno));
		if (HeapTupleIsValid(tp))
		{
			nn = ((Form_pg_attribute) GETSTRUCT(tp))->attnotnull;
			ReleaseSysCache(tp);
		}
		return nn;
	}
	if (IsA(atom, RelabelType))
		return tapas_atom_not_null((Node *) ((RelabelType *) atom)->arg, relid);
	if (IsA(atom, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) atom;

		if (!func_strict(get_opcode(op->opno)))
			return false;
		foreach(lc, op->args)
		{
			Node	   *a = lfirst(lc);

			if (IsA(a, Const) ? ((Const *) a)->constisnull : !tapas_atom_not_null(a, relid))
				return false;
		}
		return true;
	}
	return false;
}

/*
 * The sensitive atoms of phi, in order of first appearance: boolean
 * sensitive columns, and maximal boolean sub-expressions that read a
 * column but no boolean one.
 */
List *
tapas_basis_atoms(Node *phi)
{
	SAtoms		sa = {NIL};

	(void) s_atoms_walker(phi, &sa);
	return sa.atoms;
}

