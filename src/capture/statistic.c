/*-------------------------------------------------------------------------
 *
 * statistic.c
 *	  What one capture logs, carried through the plan as nodes, and the
 *	  statistic text (the ledger key) of each execution.
 *
 * A capture logs one basis value (basis.c) over its covered set.  The plan
 * carries, per capture, a List node (relid, canonical basis phi over
 * varno 1, its plan-time text, the GROUP BY clauses when a grouping key is
 * sensitive, flags): plain nodes, so copyObject and the plan cache keep
 * them.  Nothing is serialised into or parsed back from a string.
 *
 * Parameters: a basis that holds PARAM_EXTERN values (prepared
 * statements, PL/pgSQL variables) is bound per execution: the gate
 * replaces each $n by the Const of its value and canonicalises again, so
 * "income > $1" with $1 = 50 and "income > 50" have one text.
 *
 * Grouping by a sensitive column: the cell of group value g has the basis
 * 1[expr = g] * phi (or 1[expr IS NULL] * phi), canonicalised, over the
 * covered set of its non-sensitive group (src/capture/groups.c); the gate
 * supplies g (tapas_statistic_format).
 *
 * IDENTIFICATION
 *	  src/capture/statistic.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

#define SPEC_FINAL		1
#define SPEC_INCOMPLETE	2
#define SPEC_SPLIT		4

static bool
has_param_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)
		return true;
	return expression_tree_walker(node, has_param_walker, ctx);
}

/* replaces PARAM_EXTERN by the Const of its current value */
static Node *
bind_param_mutator(Node *node, ParamListInfo params)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)
	{
		Param	   *p = (Param *) node;
		ParamExternData work;
		ParamExternData *prm;
		int16		typlen;
		bool		typbyval;

		if (params == NULL || p->paramid < 1 || p->paramid > params->numParams)
			return node;
		prm = params->paramFetch != NULL ?
			params->paramFetch(params, p->paramid, false, &work) :
			&params->params[p->paramid - 1];
		if (prm->ptype != p->paramtype)
			return node;
		get_typlenbyval(prm->ptype, &typlen, &typbyval);
		return (Node *) makeConst(p->paramtype, p->paramtypmod, p->paramcollid, typlen,
								  prm->isnull ? (Datum) 0 : datumCopy(prm->value, typbyval, typlen),
								  prm->isnull, typbyval);
	}
	return expression_tree_mutator(node, bind_param_mutator, params);
}

/*
 * The statistic node of a capture of basis (over varno 1) on relid; split
 * when its covered set is one term of a split condition (cellform.c).
 * groups, when not NIL, lists the GROUP BY clauses of a level that groups
 * by a sensitive column, each (Integer sortgroupref, Integer sensitive,
 * expr over varno or NULL, Integer eqop); stored over varno 1.
 */
Node *
tapas_statistic_node(Oid relid, TapasBasis *basis, List *groups, int varno, bool split)
{
	List	   *gs = NIL;
	ListCell   *lc;
	int			flags = 0;

	foreach(lc, groups)
	{
		List	   *g = lfirst(lc);
		Node	   *e = copyObject(lthird(g));

		if (e != NULL)
			ChangeVarNodes(e, varno, 1, 0);
		gs = lappend(gs, list_make4(linitial(g), lsecond(g), e, lfourth(g)));
	}
	if (gs == NIL && !has_param_walker(basis->phi, NULL))
		flags |= SPEC_FINAL;
	if (split)
		flags |= SPEC_SPLIT;
	return (Node *) list_concat(list_make5(makeInteger((int) relid), copyObject(basis->phi),
										   makeString(pstrdup(basis->text)), gs, makeInteger(flags)),
								list_make3(copyObject(basis->tree), NIL, NIL));
}

/* the parts of a statistic node (no copy) */
TapasStatSpec *
tapas_statistic_spec(Node *node)
{
	List	   *l = (List *) node;
	TapasStatSpec *spec = palloc0(sizeof(TapasStatSpec));
	int			flags = intVal(list_nth(l, 4));

	spec->relid = (Oid) intVal(linitial(l));
	spec->phi = lsecond(l);
	spec->text = strVal(lthird(l));
	spec->groups = lfourth(l);
	spec->final = (flags & SPEC_FINAL) != 0;
	spec->incomplete = (flags & SPEC_INCOMPLETE) != 0;
	spec->split = (flags & SPEC_SPLIT) != 0;
	spec->tree = list_nth(l, 5);
	spec->having = list_nth(l, 6);
	spec->aggs = list_nth(l, 7);
	return spec;
}

/* flags the capture as one term of a cell with several sensitive bases */
void
tapas_statistic_mark_incomplete(Node *node)
{
	Integer    *flags = (Integer *) list_nth((List *) node, 4);

	flags->ival |= SPEC_INCOMPLETE;
}

/*
 * Tags the capture as a term of a count in HAVING conjunct h that rejects
 * a group covering fewer than t rows (having.c); t is clipped to INT_MAX
 * (no group has more rows).
 */
void
tapas_statistic_tag_having(Node *node, int h, int64 t)
{
	ListCell   *cell = list_nth_cell((List *) node, 6);
	List	   *tags = lfirst(cell);

	tags = lappend(tags, makeInteger(h));
	tags = lappend(tags, makeInteger((int) Min(t, (int64) PG_INT32_MAX)));
	lfirst(cell) = tags;
}

/*
 * Records that the capture is a term of aggregate n of its level (1, 2,
 * ... in order of appearance; 0: tapas's own hidden count), for
 * tapas.last_capture()
 */
void
tapas_statistic_tag_aggregate(Node *node, int n)
{
	ListCell   *cell = list_nth_cell((List *) node, 7);
	List	   *aggs = lfirst(cell);
	ListCell   *lc;

	foreach(lc, aggs)
	{
		if (intVal(lfirst(lc)) == n)
			return;
	}
	lfirst(cell) = lappend(aggs, makeInteger(n));
}

/* "expr = value", or "expr IS NULL" */
static Node *
group_condition(Node *expr, Oid eqop, Datum value, bool isnull)
{
	int16		typlen;
	bool		typbyval;

	if (isnull)
	{
		NullTest   *nt = makeNode(NullTest);

		nt->arg = (Expr *) copyObject(expr);
		nt->nulltesttype = IS_NULL;
		nt->location = -1;
		return (Node *) nt;
	}
	get_typlenbyval(exprType(expr), &typlen, &typbyval);
	return (Node *) make_opclause(eqop, BOOLOID, false, (Expr *) copyObject(expr),
								  (Expr *) makeConst(exprType(expr), exprTypmod(expr),
													 exprCollation(expr), typlen,
													 value, false, typbyval),
								  InvalidOid, exprCollation(expr));
}

/*
 * The statistic text of one execution (spec->text itself when final), or
 * NULL when this group value makes the basis vanish (a known 0), and in
 * *tree its per-row value (float8, over varno 1) for the auditor's truth;
 * gvals/gnulls are the values of the sensitive group expressions of
 * spec->groups, in order (ignored when there are none).
 */
char *
tapas_statistic_format(const TapasStatSpec *spec, ParamListInfo params,
					   const Datum *gvals, const bool *gnulls, Node **tree)
{
	const TapasProtection *prot;
	List	   *conds = NIL;
	Node	   *phi;
	ListCell   *lc;
	int			i = 0;
	TapasBasis *b;

	*tree = spec->tree;
	if (spec->final)
		return spec->text;
	prot = tapas_protection_lookup(spec->relid);
	if (prot == NULL)
		return spec->text;
	foreach(lc, spec->groups)
	{
		List	   *g = lfirst(lc);

		if (!intVal(lsecond(g)))
			continue;
		conds = lappend(conds, group_condition(lthird(g), (Oid) intVal(lfourth(g)),
											   gvals[i], gnulls[i]));
		i++;
	}
	phi = copyObject(spec->phi);
	if (conds != NIL)
		phi = tapas_make_case((Node *) make_ands_explicit(conds), phi,
							  (Node *) makeNullConst(exprType(phi), exprTypmod(phi),
													 exprCollation(phi)));
	b = tapas_basis_make(bind_param_mutator(phi, params), spec->relid, prot->sensitive);
	/* a group value that makes the basis vanish answers a known 0: no cell */
	*tree = b->tree;
	return b->kind == TAPAS_BASIS_ZERO ? NULL : b->text;
}
