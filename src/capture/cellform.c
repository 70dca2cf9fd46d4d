/*-------------------------------------------------------------------------
 *
 * cellform.c
 *	  The normal form of one audited aggregate:
 *	  its cell is  sum_b sum_{j in Q_b} phi_b(s_j),  covered sets Q_b
 *	  defined by non-sensitive columns only, basis values phi_b reading
 *	  only sensitive columns.
 *
 * The aggregate is first written as one per-row value f over the level's
 * covered set (rows passing the non-sensitive WHERE and FILTER conjuncts):
 *	  count(*)	CASE WHEN C THEN 1 ELSE 0 END
 *	  count(x)	CASE WHEN C AND x IS NOT NULL THEN 1 ELSE 0 END
 *	  sum(x)	CASE WHEN C THEN x END
 * with C the conjunction of the sensitive WHERE conjuncts and the rest of
 * the aggregate's FILTER.  A simple CASE (CASE x WHEN ...) is rewritten
 * into the searched form first, so its operand is no hidden atom.
 *
 * A non-sensitive atom is a maximal boolean sub-expression of f that reads
 * a column of the table and no sensitive column (age = 91, id = 123,
 * nullif(age, 91) IS NOT NULL, date_trunc('year', visit) = '2020-01-01').
 * Its value on a row is true, false or null (3-valued logic).  For every
 * assignment a of the n atoms (3^n of them, n <= TAPAS_MAX_NS_ATOMS),
 * substituting a into f and folding constants gives phi_a, a function of
 * the sensitive columns only; if a column that is not sensitive is still
 * read, the aggregate mixes both kinds in one atom (income > age * 1000)
 * and is refused.  Assignments with equal canonical phi (basis.c) are
 * merged into one term: Q = rows whose atoms take one of its assignments,
 * phi the common basis; terms with phi = 0 are dropped (they add nothing
 * to the cell).  An atom that cannot be null (zip = 1 on a NOT NULL
 * column) takes only true and false.
 *
 * Example: sum(CASE WHEN age = 91 THEN income ELSE 0 END) has one atom
 * (age = 91) and one term, income over {age = 91}: k applies to that set.
 *
 * IDENTIFICATION
 *	  src/capture/cellform.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"

#include "audit/audit.h"
#include "capture/capture.h"
#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		Column classes
 * ----------------------------------------------------------------
 */

typedef struct ReadsContext
{
	int			varno;
	const Bitmapset *sensitive;
	bool		sens;			/* reads a sensitive column */
	bool		other;			/* reads a column that is not sensitive */
} ReadsContext;

static bool
reads_walker(Node *node, ReadsContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varno == ctx->varno && v->varlevelsup == 0)
		{
			/* a whole-row reference reads every column */
			if (v->varattno <= 0 || bms_is_member(v->varattno, ctx->sensitive))
				ctx->sens = true;
			if (v->varattno <= 0 || !bms_is_member(v->varattno, ctx->sensitive))
				ctx->other = true;
		}
		return false;
	}
	return expression_tree_walker(node, reads_walker, ctx);
}

/* which kinds of columns of varno expr reads */
void
tapas_expr_reads(Node *expr, int varno, const Bitmapset *sensitive,
				 bool *sens, bool *other)
{
	ReadsContext ctx;

	ctx.varno = varno;
	ctx.sensitive = sensitive;
	ctx.sens = ctx.other = false;
	(void) reads_walker(expr, &ctx);
	*sens = ctx.sens;
	*other = ctx.other;
}

/* ----------------------------------------------------------------
 *		The per-row value f
 * ----------------------------------------------------------------
 */

static Node *
int4_const(int v)
{
	return (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
							  Int32GetDatum(v), false, true);
}

/* CASE WHEN cond THEN then ELSE otherwise END, of then's type */
Node *
tapas_make_case(Node *cond, Node *then, Node *otherwise)
{
	CaseExpr   *c = makeNode(CaseExpr);
	CaseWhen   *w = makeNode(CaseWhen);

	w->expr = (Expr *) cond;
	w->result = (Expr *) then;
	w->location = -1;
	c->casetype = exprType(then);
	c->casecollid = exprCollation(then);
	c->args = list_make1(w);
	c->defresult = (Expr *) otherwise;
	c->location = -1;
	return (Node *) c;
}

static Node *
row_value(TapasAggKind kind, Node *arg, List *sens)
{
	List	   *conds = copyObject(sens);

	if (kind == TAPAS_AGG_COUNT)
	{
		NullTest   *nt = makeNode(NullTest);

		nt->arg = (Expr *) copyObject(arg);
		nt->nulltesttype = IS_NOT_NULL;
		nt->location = -1;
		conds = lappend(conds, nt);
	}
	if (kind == TAPAS_AGG_SUM)
	{
		Node	   *x = copyObject(arg);

		if (conds == NIL)
			return x;
		return tapas_make_case((Node *) make_ands_explicit(conds), x,
							   (Node *) makeNullConst(exprType(x), exprTypmod(x),
													  exprCollation(x)));
	}
	if (conds == NIL)
		return int4_const(1);
	return tapas_make_case((Node *) make_ands_explicit(conds), int4_const(1), int4_const(0));
}

/* replaces the CaseTestExpr of one simple CASE by its operand */
static Node *
casetest_mutator(Node *node, Node *operand)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, CaseTestExpr))
		return copyObject(operand);
	if (IsA(node, CaseExpr) && ((CaseExpr *) node)->arg != NULL)
	{
		/* a nested simple CASE: only its operand refers to ours */
		CaseExpr   *c = (CaseExpr *) copyObject(node);

		c->arg = (Expr *) casetest_mutator((Node *) c->arg, operand);
		return (Node *) c;
	}
	return expression_tree_mutator(node, casetest_mutator, operand);
}

/* CASE x WHEN v THEN ... -> CASE WHEN x = v THEN ..., everywhere */
Node *
tapas_searched_case(Node *node, void *unused)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, CaseExpr) && ((CaseExpr *) node)->arg != NULL)
	{
		CaseExpr   *c = (CaseExpr *) copyObject(node);
		ListCell   *lc;

		foreach(lc, c->args)
		{
			CaseWhen   *w = lfirst_node(CaseWhen, lc);

			w->expr = (Expr *) casetest_mutator((Node *) w->expr, (Node *) c->arg);
		}
		c->arg = NULL;
		node = (Node *) c;
	}
	return expression_tree_mutator(node, tapas_searched_case, unused);
}

/* ----------------------------------------------------------------
 *		Non-sensitive atoms
 * ----------------------------------------------------------------
 */

typedef struct AtomsContext
{
	int			varno;
	const Bitmapset *sensitive;
	List	   *atoms;
} AtomsContext;

static bool
ns_atoms_walker(Node *node, AtomsContext *ctx)
{
	bool		sens,
				other;

	if (node == NULL)
		return false;
	/* argument lists (COALESCE, function and CASE arguments) have no type */
	if (!IsA(node, Query) && !IsA(node, List) && exprType(node) == BOOLOID)
	{
		tapas_expr_reads(node, ctx->varno, ctx->sensitive, &sens, &other);
		if (other && !sens)
		{
			if (!list_member(ctx->atoms, node))
				ctx->atoms = lappend(ctx->atoms, node);
			return false;
		}
	}
	return expression_tree_walker(node, ns_atoms_walker, ctx);
}

/* ----------------------------------------------------------------
 *		Substitution and simplification
 * ----------------------------------------------------------------
 */

typedef struct SubstContext
{
	List	   *atoms;
	const int  *value;			/* per atom: TAPAS_TV_TRUE, _FALSE, _NULL */
} SubstContext;

static Node *
subst_mutator(Node *node, SubstContext *ctx)
{
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, ctx->atoms)
	{
		if (equal(node, lfirst(lc)))
		{
			int			v = ctx->value[foreach_current_index(lc)];

			return (Node *) makeBoolConst(v == TAPAS_TV_TRUE, v == TAPAS_TV_NULL);
		}
	}
	return expression_tree_mutator(node, subst_mutator, ctx);
}

/* expr with atoms[i] replaced by the constant value[i], simplified */
Node *
tapas_substitute_atoms(Node *expr, List *atoms, const int *value)
{
	SubstContext ctx;

	ctx.atoms = atoms;
	ctx.value = value;
	return tapas_simplify(subst_mutator(copyObject(expr), &ctx));
}

/* the next assignment in {T, F, N}^n (domain sizes dom[i]); false after the last */
bool
tapas_next_assignment(int *value, const int *dom, int n)
{
	for (int i = 0; i < n; i++)
	{
		if (++value[i] < dom[i])
			return true;
		value[i] = 0;
	}
	return false;
}

/* "atom IS TRUE" / "IS FALSE" / "IS UNKNOWN" */
Node *
tapas_atom_test(Node *atom, int value)
{
	BooleanTest *bt = makeNode(BooleanTest);

	bt->arg = (Expr *) copyObject(atom);
	bt->booltesttype = value == TAPAS_TV_TRUE ? IS_TRUE :
		value == TAPAS_TV_FALSE ? IS_FALSE : IS_UNKNOWN;
	bt->location = -1;
	return (Node *) bt;
}

/* ----------------------------------------------------------------
 *		Terms
 * ----------------------------------------------------------------
 */

typedef struct TermBuild
{
	TapasBasis *basis;
	List	   *minterms;		/* of Node: AND of atom tests */
} TermBuild;

static Node *
minterm(List *atoms, const int *value)
{
	List	   *tests = NIL;
	ListCell   *lc;

	foreach(lc, atoms)
		tests = lappend(tests, tapas_atom_test(lfirst(lc),
											   value[foreach_current_index(lc)]));
	return (Node *) make_ands_explicit(tests);
}

/*
 * The terms of one aggregate of kind(arg) with sensitive conditions sens
 * (narrow: its non-sensitive FILTER conjuncts, only checked here), over
 * range-table entry varno of the protected table prot (list of
 * TapasTerm, conditions and values over varno).  Raises on an atom that
 * reads both kinds of columns and beyond TAPAS_MAX_NS_ATOMS atoms.
 *
 * sensitive_groups: the level groups by a sensitive key, so the gate
 * multiplies every term by 1[key = g] (groups.c).  A term whose value
 * reads another column then mixes the two as surely as a sensitive
 * FILTER does: sum(age) over the rows with diagnosis = g is
 * sum_j age_j 1[diagnosis_j = g], and the attacker knows every age_j, so
 * the answer says which records they are (91: the one person aged 91).
 * The auditor's unknowns are the basis values at each record, free
 * reals; a value with public weights is not one of them.  Refused.
 */
List *
tapas_cell_terms(TapasAggKind kind, Node *arg, List *sens, List *narrow, int varno,
				 const TapasProtection *prot, bool sensitive_groups)
{
	Node	   *f = tapas_simplify(tapas_searched_case(row_value(kind, arg, sens), NULL));
	AtomsContext ac;
	List	   *builds = NIL;
	List	   *terms = NIL;
	ListCell   *lc;
	int			n;
	int			nassign = 1;
	int			value[TAPAS_MAX_NS_ATOMS];
	int			dom[TAPAS_MAX_NS_ATOMS];

	/*
	 * Whether a volatile function runs may depend on a row (a CASE branch):
	 * a channel, and the truth must never run it (issue 10, classes 1, 2).
	 */
	if (contain_volatile_functions(f) || contain_volatile_functions((Node *) narrow))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("volatile functions are not allowed in aggregates over protected table \"%s\"",
						get_rel_name(prot->relid)),
				 errhint("Compute such values outside the aggregate, or in a CTE that reads no protected table.")));
	ac.varno = varno;
	ac.sensitive = prot->sensitive;
	ac.atoms = NIL;
	(void) ns_atoms_walker(f, &ac);
	n = list_length(ac.atoms);
	if (n > TAPAS_MAX_NS_ATOMS)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("aggregate over protected table \"%s\" combines more than %d conditions on columns that are not sensitive with sensitive values",
						get_rel_name(prot->relid), TAPAS_MAX_NS_ATOMS),
				 errhint("Move conditions that involve no sensitive column to WHERE or GROUP BY, or split the aggregate.")));
	for (int i = 0; i < n; i++)
	{
		value[i] = 0;
		dom[i] = tapas_atom_not_null(list_nth(ac.atoms, i), prot->relid) ? 2 : 3;
		nassign *= dom[i];
	}
	do
	{
		Node	   *phi = tapas_substitute_atoms(f, ac.atoms, value);
		bool		s,
					o;
		TermBuild  *tb = NULL;
		TapasBasis *b;

		CHECK_FOR_INTERRUPTS();
		if (tapas_is_zero(phi))
			continue;
		tapas_expr_reads(phi, varno, prot->sensitive, &s, &o);
		if (o && sensitive_groups)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregate over protected table \"%s\" sums a column that is not sensitive in groups of a sensitive key",
							get_rel_name(prot->relid)),
					 errdetail("Values of columns that are not sensitive are known for every row, so their sum over the rows with one sensitive value can tell which rows those are."),
					 errhint("Under a sensitive GROUP BY key, aggregate sensitive columns, constants or count(*); sum other columns in a query grouped by columns that are not sensitive.")));
		if (s && o)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregate over protected table \"%s\" combines a sensitive column and a column that is not sensitive in one expression",
							get_rel_name(prot->relid)),
					 errdetail("Conditions and values may read sensitive columns or other columns, but no single comparison or arithmetic may read both."),
					 errhint("Compare sensitive columns with constants only, and put conditions on other columns in WHERE, GROUP BY or a separate CASE condition.")));
		/* merge on the canonical basis: equal functions spelled differently */
		ChangeVarNodes(phi, varno, 1, 0);
		b = tapas_basis_make(phi, prot->relid, prot->sensitive);
		if (b->kind == TAPAS_BASIS_ZERO)
			continue;
		foreach(lc, builds)
		{
			if (equal(((TermBuild *) lfirst(lc))->basis->phi, b->phi))
				tb = lfirst(lc);
		}
		if (tb == NULL)
		{
			tb = palloc0(sizeof(TermBuild));
			tb->basis = b;
			builds = lappend(builds, tb);
		}
		if (n > 0)
			tb->minterms = lappend(tb->minterms, minterm(ac.atoms, value));
	} while (tapas_next_assignment(value, dom, n));

	foreach(lc, builds)
	{
		TermBuild  *tb = lfirst(lc);
		TapasTerm  *t = palloc0(sizeof(TapasTerm));

		t->basis = tb->basis;
		/* every assignment: the term covers the whole covered set */
		if (n > 0 && list_length(tb->minterms) < nassign)
			t->cond = list_length(tb->minterms) == 1 ? linitial(tb->minterms) :
				(Node *) make_orclause(tb->minterms);
		terms = lappend(terms, t);
	}
	return terms;
}
