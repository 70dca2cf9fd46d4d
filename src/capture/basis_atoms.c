/*-------------------------------------------------------------------------
 *
 * basis_atoms.c
 *	  The algebra under a basis value's canonical form (basis.c): constant
 *	  arithmetic, and the sensitive atoms of phi, with comparisons written
 *	  column first and small IN lists as ORs of equalities.
 *
 * IDENTIFICATION
 *	  src/capture/basis_atoms.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "audit/audit.h"
#include "capture/capture.h"

/* ----------------------------------------------------------------
 *		Constants and arithmetic
 * ----------------------------------------------------------------
 */

/* the value of a numeric constant as a double; false if not numeric */
static bool
const_double(Node *node, double *v)
{
	Const	   *c;

	if (node == NULL || !IsA(node, Const) || ((Const *) node)->constisnull)
		return false;
	c = (Const *) node;
	switch (c->consttype)
	{
		case INT2OID:
			*v = DatumGetInt16(c->constvalue);
			return true;
		case INT4OID:
			*v = DatumGetInt32(c->constvalue);
			return true;
		case INT8OID:
			*v = (double) DatumGetInt64(c->constvalue);
			return true;
		case FLOAT4OID:
			*v = DatumGetFloat4(c->constvalue);
			return true;
		case FLOAT8OID:
			*v = DatumGetFloat8(c->constvalue);
			return true;
		case NUMERICOID:
			*v = DatumGetFloat8(DirectFunctionCall1(numeric_float8, c->constvalue));
			return true;
		default:
			return false;
	}
}

/* true for NULL and numeric zero: a per-row value that adds nothing */
bool
tapas_is_zero(Node *node)
{
	double		v;

	if (node != NULL && IsA(node, Const) && ((Const *) node)->constisnull)
		return true;
	return const_double(node, &v) && v == 0.0;
}

/*
 * true when constants a and b are the same number exactly (numeric 1.0 and
 * 1 are; numeric 2 and 2.0000000000000001 are not, as a sum would tell),
 * or equal nodes otherwise
 */
bool
tapas_const_same_value(Node *a, Node *b)
{
	Const	   *ca = (Const *) a,
			   *cb = (Const *) b;

	if (!IsA(a, Const) || !IsA(b, Const) || ca->consttype != cb->consttype ||
		ca->constisnull || cb->constisnull)
		return equal(a, b);
	if (ca->consttype == NUMERICOID)
		return DatumGetBool(DirectFunctionCall2(numeric_eq, ca->constvalue, cb->constvalue));
	return equal(a, b);
}

static bool
is_one(Node *node)
{
	double		v;

	return const_double(node, &v) && v == 1.0;
}

/* x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1 -> x; x * NULL -> NULL */
static Node *
arith_mutator(Node *node, void *unused)
{
	OpExpr	   *op;
	Node	   *l,
			   *r;
	char	   *name;

	if (node == NULL)
		return NULL;
	node = expression_tree_mutator(node, arith_mutator, unused);
	if (!IsA(node, OpExpr) || list_length(((OpExpr *) node)->args) != 2)
		return node;
	op = (OpExpr *) node;
	l = linitial(op->args);
	r = lsecond(op->args);
	name = get_opname(op->opno);
	if (name == NULL || strlen(name) != 1)
		return node;
	/*
	 * x * NULL is NULL.  x * 0 is not: it is 0 where x is not NULL, and
	 * inside COALESCE(nullif(age, 91) * 0, income) that difference is the
	 * target's income, so it is left for the normal form to see.
	 */
	if (name[0] == '*' && ((IsA(l, Const) && ((Const *) l)->constisnull) ||
						   (IsA(r, Const) && ((Const *) r)->constisnull)))
		return (Node *) makeNullConst(op->opresulttype, -1, InvalidOid);
	if (name[0] == '*' && is_one(l) && exprType(r) == op->opresulttype)
		return r;
	if ((name[0] == '*' || name[0] == '/') && is_one(r) && exprType(l) == op->opresulttype)
		return l;
	if (name[0] == '+' && IsA(l, Const) && !((Const *) l)->constisnull &&
		tapas_is_zero(l) && exprType(r) == op->opresulttype)
		return r;
	if ((name[0] == '+' || name[0] == '-') && IsA(r, Const) && !((Const *) r)->constisnull &&
		tapas_is_zero(r) && exprType(l) == op->opresulttype)
		return l;
	return node;
}

/* folds constants (immutable functions only) and trivial arithmetic */
Node *
tapas_simplify(Node *expr)
{
	return arith_mutator(eval_const_expressions(NULL, expr), NULL);
}

/* ----------------------------------------------------------------
 *		Sensitive atoms
 * ----------------------------------------------------------------
 */

/* "const op expr" -> "expr op' const", so 30 < age reads as age > 30 */
static Node *
commute_const_left(Node *node)
{
	OpExpr	   *op;
	Oid			comm;

	if (!IsA(node, OpExpr) || list_length(((OpExpr *) node)->args) != 2)
		return node;
	op = (OpExpr *) node;
	if (!IsA(linitial(op->args), Const) || IsA(lsecond(op->args), Const))
		return node;
	comm = get_commutator(op->opno);
	if (!OidIsValid(comm))
		return node;
	op = (OpExpr *) copyObject(op);
	op->opno = comm;
	op->opfuncid = InvalidOid;
	op->args = list_make2(lsecond(op->args), linitial(op->args));
	return (Node *) op;
}

/*
 * x IN (c1, ..., cm) -> x = c1 OR ... OR x = cm for a constant array of
 * at most TAPAS_MAX_S_ATOMS non-null elements, so both spellings meet.
 */
static Node *
in_list_mutator(Node *node, void *unused)
{
	ScalarArrayOpExpr *sa;
	Const	   *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Oid			etype;
	List	   *ors = NIL;

	if (node == NULL)
		return NULL;
	node = expression_tree_mutator(node, in_list_mutator, unused);
	if (!IsA(node, ScalarArrayOpExpr))
		return node;
	sa = (ScalarArrayOpExpr *) node;
	if (!sa->useOr || list_length(sa->args) != 2 || !IsA(lsecond(sa->args), Const) ||
		((Const *) lsecond(sa->args))->constisnull)
		return node;
	arr = lsecond(sa->args);
	etype = get_element_type(arr->consttype);
	if (!OidIsValid(etype))
		return node;
	get_typlenbyvalalign(etype, &typlen, &typbyval, &typalign);
	deconstruct_array(DatumGetArrayTypeP(arr->constvalue), etype, typlen, typbyval,
					  typalign, &elems, &nulls, &n);
	if (n < 1 || n > TAPAS_MAX_S_ATOMS)
		return node;
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			return node;
		ors = lappend(ors, make_opclause(sa->opno, BOOLOID, false,
										 (Expr *) copyObject(linitial(sa->args)),
										 (Expr *) makeConst(etype, -1, arr->constcollid, typlen,
															elems[i], false, typbyval),
										 InvalidOid, sa->inputcollid));
	}
	return n == 1 ? linitial(ors) : (Node *) make_orclause(ors);
}

/* IS NOT NULL -> NOT (IS NULL), so both spellings share one atom */
static Node *
nulltest_mutator(Node *node, void *unused)
{
	if (node == NULL)
		return NULL;
	node = expression_tree_mutator(node, nulltest_mutator, unused);
	if (IsA(node, NullTest) && ((NullTest *) node)->nulltesttype == IS_NOT_NULL &&
		!((NullTest *) node)->argisrow)
	{
		NullTest   *nt = (NullTest *) copyObject(node);

		nt->nulltesttype = IS_NULL;
		return (Node *) make_notclause((Expr *) nt);
	}
	return (Node *) commute_const_left(node);
}

/*
 * phi with searched CASEs, small IN lists and IS NULL tests of NOT NULL
 * expressions rewritten, and its arithmetic simplified: the form whose
 * atoms tapas_basis_make assigns.  phi itself is not changed.
 */
Node *
tapas_basis_prepare(Node *phi)
{
	return tapas_simplify(nulltest_mutator(in_list_mutator(tapas_searched_case(copyObject(phi), NULL),
														   NULL), NULL));
}
