/*-------------------------------------------------------------------------
 *
 * statistic.c
 *	  The statistic text of a cell: the key under which the ledger keeps
 *	  its query matrix, so equal statistics must give equal texts.
 *
 * Form: "count(*)", "count(x)" or "sum(x)", where x is PostgreSQL's
 * deparse of the aggregate argument, then, if the cell has sensitive
 * conditions S, " filter (where c1 AND c2 ...)" with the deparsed
 * conjuncts of S sorted bytewise and deduplicated.  Arguments and
 * conjuncts are constant-folded first (eval_const_expressions), so
 * "income > 50" and "income > $1" with $1 = 50 read alike, and "hiv =
 * true" reads "hiv"; nested ANDs are split into conjuncts, and a
 * comparison with the constant on the left is commuted ("30 < age" reads
 * "age > 30").  Column names are the table's own (varno 1 of a
 * one-relation deparse context).
 *
 * Parameters: a text that depends on PARAM_EXTERN values (prepared
 * statements, PL/pgSQL variables) is deferred: at plan time it holds the
 * text with $n (shown by EXPLAIN), TAPAS_STAT_DEFERRED, and the serialized
 * (kind, arg, conds, groups); the gate binds each execution's values and
 * builds the final text (tapas_statistic_finish / _format).
 *
 * Grouping by a sensitive column: the cell of group value g has statistic
 * "... filter (where ... AND (col = g))" (or "col IS NULL"), over the
 * covered set of its non-sensitive group (src/capture/groups.c); the gate
 * supplies g (tapas_statistic_format).
 *
 * IDENTIFICATION
 *	  src/capture/statistic.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "capture/capture.h"

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

/* binds parameters and folds constants, so 50 and $1 = 50 read alike */
static Node *
fold(Node *expr, ParamListInfo params)
{
	return eval_const_expressions(NULL, bind_param_mutator(copyObject(expr), params));
}

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

/* the deparsed conjuncts of a folded condition (nested ANDs split) */
static List *
conjunct_texts(Node *cond, List *dpcontext, List *texts)
{
	ListCell   *lc;

	if (is_andclause(cond))
	{
		foreach(lc, ((BoolExpr *) cond)->args)
			texts = conjunct_texts(lfirst(lc), dpcontext, texts);
		return texts;
	}
	return lappend(texts, deparse_expression(commute_const_left(cond), dpcontext,
											 false, false));
}

static int
cmp_cstring(const ListCell *a, const ListCell *b)
{
	return strcmp((const char *) lfirst(a), (const char *) lfirst(b));
}

/*
 * The statistic text of kind(arg) filter (where conds), arg and conds over
 * varno 1 = relid, parameters bound from params (may be NULL).
 */
static char *
statistic_build(TapasAggKind kind, Node *arg, List *conds, Oid relid,
				ParamListInfo params)
{
	List	   *ctx = deparse_context_for(get_rel_name(relid), relid);
	StringInfoData buf;
	List	   *texts = NIL;
	ListCell   *c;

	initStringInfo(&buf);
	if (kind == TAPAS_AGG_COUNT_STAR)
		appendStringInfoString(&buf, "count(*)");
	else
		appendStringInfo(&buf, "%s(%s)", kind == TAPAS_AGG_SUM ? "sum" : "count",
						 deparse_expression(fold(arg, params), ctx, false, false));
	foreach(c, conds)
		texts = conjunct_texts(fold(lfirst(c), params), ctx, texts);
	if (texts != NIL)
	{
		const char *prev = NULL;

		list_sort(texts, cmp_cstring);
		appendStringInfoString(&buf, " filter (where ");
		foreach(c, texts)
		{
			if (prev != NULL && strcmp(prev, lfirst(c)) == 0)
				continue;
			if (prev != NULL)
				appendStringInfoString(&buf, " AND ");
			appendStringInfoString(&buf, lfirst(c));
			prev = lfirst(c);
		}
		appendStringInfoChar(&buf, ')');
	}
	return buf.data;
}

/*
 * Statistic text at plan time of kind(arg) filter (where sens), arg and
 * sens over range-table entry varno (= relid).  groups, when not NIL, lists
 * the GROUP BY clauses of a level that groups by a sensitive column, each
 * (Integer sortgroupref, Integer sensitive, expr or NULL, Integer eqop);
 * every cell then also gets "expr = <its group value>" per sensitive
 * expression.  Without parameters or such groups the text is final.
 * Otherwise it is deferred: a readable text for EXPLAIN, then
 * TAPAS_STAT_DEFERRED and the serialized TapasStatSpec parts, which the
 * gate formats per execution (and per group value).
 */
char *
tapas_statistic_text(TapasAggKind kind, Node *arg, List *sens, int varno, Oid relid,
					 List *groups)
{
	Node	   *a = arg ? copyObject(arg) : NULL;
	List	   *conds = copyObject(sens);
	List	   *gs = NIL;
	ListCell   *lc;
	char	   *text;
	StringInfoData per;

	ChangeVarNodes(a, varno, 1, 0);
	ChangeVarNodes((Node *) conds, varno, 1, 0);
	text = statistic_build(kind, a, conds, relid, NULL);
	initStringInfo(&per);
	foreach(lc, groups)
	{
		List	   *g = lfirst(lc);
		Node	   *e = copyObject(lthird(g));

		if (e != NULL)
		{
			ChangeVarNodes(e, varno, 1, 0);
			appendStringInfo(&per, "%s%s", per.len ? ", " : "",
							 deparse_expression(e, deparse_context_for(get_rel_name(relid), relid),
												false, false));
		}
		gs = lappend(gs, list_make4(linitial(g), lsecond(g), e, lfourth(g)));
	}
	if (gs == NIL && !has_param_walker(a, NULL) && !has_param_walker((Node *) conds, NULL))
		return text;
	if (gs != NIL)
		text = psprintf("%s per value of %s", text, per.data);
	return psprintf("%s%c%s", text, TAPAS_STAT_DEFERRED,
					nodeToString(list_make4(makeInteger(kind), a, conds, gs)));
}

/* The parts of a deferred statistic text, or NULL when stat is final. */
TapasStatSpec *
tapas_statistic_parse(const char *stat)
{
	const char *sep = strchr(stat, TAPAS_STAT_DEFERRED);
	List	   *parts;
	TapasStatSpec *spec;

	if (sep == NULL)
		return NULL;
	parts = (List *) stringToNode(sep + 1);
	spec = palloc0(sizeof(TapasStatSpec));
	spec->kind = intVal(linitial(parts));
	spec->arg = lsecond(parts);
	spec->conds = lthird(parts);
	spec->groups = lfourth(parts);
	return spec;
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

		nt->arg = (Expr *) expr;
		nt->nulltesttype = IS_NULL;
		nt->location = -1;
		return (Node *) nt;
	}
	get_typlenbyval(exprType(expr), &typlen, &typbyval);
	return (Node *) make_opclause(eqop, BOOLOID, false, (Expr *) expr,
								  (Expr *) makeConst(exprType(expr), exprTypmod(expr),
													 exprCollation(expr), typlen,
													 value, false, typbyval),
								  InvalidOid, exprCollation(expr));
}

/*
 * The final text of a deferred statistic for one execution; gvals/gnulls
 * are the values of the sensitive group expressions of spec->groups, in
 * order (ignored when there are none).
 */
char *
tapas_statistic_format(const TapasStatSpec *spec, Oid relid, ParamListInfo params,
					   const Datum *gvals, const bool *gnulls)
{
	List	   *conds = list_copy(spec->conds);
	ListCell   *lc;
	int			i = 0;

	foreach(lc, spec->groups)
	{
		List	   *g = lfirst(lc);

		if (!intVal(lsecond(g)))
			continue;
		conds = lappend(conds, group_condition(lthird(g), (Oid) intVal(lfourth(g)),
											   gvals[i], gnulls[i]));
		i++;
	}
	return statistic_build(spec->kind, spec->arg, conds, relid, params);
}

/*
 * The final statistic text of a capture without sensitive groups for one
 * execution (palloc'd, or stat itself when it was final at plan time).
 */
char *
tapas_statistic_finish(const char *stat, Oid relid, ParamListInfo params)
{
	TapasStatSpec *spec = tapas_statistic_parse(stat);

	return spec ? tapas_statistic_format(spec, relid, params, NULL, NULL) : (char *) stat;
}
