/*-------------------------------------------------------------------------
 *
 * flatten.c
 *	  Pull-up of plain views and FROM sub-queries over a protected table
 *	  into the aggregate level above them, and SELECT DISTINCT without
 *	  aggregates as GROUP BY: the rewrites that give a level the shape the
 *	  audit knows before it is verified.
 *
 * "SELECT count(*) FROM v WHERE hiv", with v a view "SELECT ... FROM p
 * WHERE age > 40", must be audited as the query on p: its covered set is
 * p's rows with age > 40.  The planner's pull_up_subqueries would do this
 * flattening, but only after our planner hook has run, so we do it first,
 * in the same way: the sub-query's range table is appended (Vars offset),
 * references to its outputs are replaced by its target-list expressions
 * (ReplaceVarsFromTargetList), its WHERE is AND'ed into the level's, and
 * its place in the level's FROM (alone, or joined with lookup tables, but
 * never on the nullable side of an outer join) is taken by p.  The sub-query RTE stays in the range table
 * unreferenced, as after the planner's own pull-up; the view's own
 * permission-check entries come along with its range table.
 *
 * Simple means: a SELECT with p as its only FROM item and no aggregates,
 * grouping, HAVING, window functions, set-returning functions, DISTINCT,
 * LIMIT/OFFSET, set operations, locking or CTEs; not LATERAL.  ORDER BY in
 * the sub-query is dropped (it has no meaning without LIMIT).
 *
 * IDENTIFICATION
 *	  src/capture/flatten.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"

#include "capture/capture.h"

static bool
flatten_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		tapas_flatten_query((Query *) node);
		return false;
	}
	return expression_tree_walker(node, flatten_walker, ctx);
}

/* a plain projection and filter of a protected table */
static bool
simple_over_protected(Query *s)
{
	return s->commandType == CMD_SELECT && !s->hasAggs && s->groupClause == NIL &&
		s->groupingSets == NIL && s->havingQual == NULL && !s->hasWindowFuncs &&
		!s->hasTargetSRFs && s->distinctClause == NIL && s->limitCount == NULL &&
		s->limitOffset == NULL && s->setOperations == NULL && s->rowMarks == NIL &&
		s->cteList == NIL && !s->hasModifyingCTE && !s->hasForUpdate &&
		tapas_single_protected_from(s) != 0;
}

/* replaces the RangeTblRef to sidx in a jointree node by "by" */
static Node *
replace_ref(Node *jt, int sidx, Node *by)
{
	ListCell   *lc;

	if (IsA(jt, RangeTblRef))
		return ((RangeTblRef *) jt)->rtindex == sidx ? by : jt;
	if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
			lfirst(lc) = replace_ref(lfirst(lc), sidx, by);
	}
	else if (IsA(jt, JoinExpr))
	{
		((JoinExpr *) jt)->larg = replace_ref(((JoinExpr *) jt)->larg, sidx, by);
		((JoinExpr *) jt)->rarg = replace_ref(((JoinExpr *) jt)->rarg, sidx, by);
	}
	return jt;
}

/*
 * Pulls sub-query RTE sidx of q (simple over p, not on the nullable side of
 * an outer join) up into q: its WHERE joins q's WHERE, which is equivalent
 * for a FROM item whose rows are never NULL-extended.
 */
static void
pull_up(Query *q, int sidx)
{
	RangeTblEntry *srte = rt_fetch(sidx, q->rtable);
	Query	   *s = copyObject(srte->subquery);
	int			offset = list_length(q->rtable);
	Query	   *nq;
	bool		sublinks = q->hasSubLinks;
	Node	   *quals;

	OffsetVarNodes((Node *) s, offset, 0);
	q->rtable = list_concat(q->rtable, s->rtable);
	nq = (Query *) ReplaceVarsFromTargetList((Node *) q, sidx, 0, srte,
											 s->targetList,
											 REPLACEVARS_REPORT_ERROR, 0,
											 &sublinks);
	nq->jointree = (FromExpr *) replace_ref((Node *) nq->jointree, sidx,
											linitial(s->jointree->fromlist));
	quals = nq->jointree->quals;
	if (s->jointree->quals != NULL)
		quals = quals == NULL ? s->jointree->quals :
			(Node *) make_and_qual(quals, s->jointree->quals);
	nq->jointree->quals = quals;
	nq->hasSubLinks = sublinks || s->hasSubLinks;
	nq->hasRowSecurity |= s->hasRowSecurity;
	memcpy(q, nq, sizeof(Query));
}

/* the first pullable sub-query FROM item outside nullable sides, or 0 */
static int
find_pullable(Query *q, Node *jt, bool nullable)
{
	ListCell   *lc;
	int			r;

	if (IsA(jt, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);

		return !nullable && rte->rtekind == RTE_SUBQUERY && !rte->lateral &&
			simple_over_protected(rte->subquery) ? ((RangeTblRef *) jt)->rtindex : 0;
	}
	if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
		{
			if ((r = find_pullable(q, lfirst(lc), nullable)) != 0)
				return r;
		}
		return 0;
	}
	if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		if ((r = find_pullable(q, j->larg, nullable || j->jointype == JOIN_RIGHT ||
							   j->jointype == JOIN_FULL)) != 0)
			return r;
		return find_pullable(q, j->rarg, nullable || j->jointype == JOIN_LEFT ||
							 j->jointype == JOIN_FULL);
	}
	return 0;
}

/*
 * Pulls every simple sub-query over a protected table up into the level
 * above, bottom-up through q's sub-queries, CTEs and sub-links.
 */
void
tapas_flatten_query(Query *q)
{
	int			sidx;

	/* bottom-up: sub-queries, CTEs and sub-links first */
	(void) query_tree_walker(q, flatten_walker, NULL, 0);

	if (q->jointree == NULL || q->setOperations != NULL)
		return;
	while ((sidx = find_pullable(q, (Node *) q->jointree, false)) != 0)
		pull_up(q, sidx);
}

/*
 * SELECT DISTINCT a, b over a protected level without aggregation is
 * GROUP BY a, b: the same rows, and each group is then a covered set bound
 * by k and logged like any other (DISTINCT ON, which keeps one row of each
 * group, is not rewritten: it reads rows).
 */
void
tapas_distinct_as_grouping(Query *q)
{
	if (q->distinctClause == NIL || q->hasDistinctOn || q->hasAggs ||
		q->groupClause != NIL || q->groupingSets != NIL || q->hasWindowFuncs)
		return;
	q->groupClause = q->distinctClause;
	q->distinctClause = NIL;
}
