/*-------------------------------------------------------------------------
 *
 * flatten.c
 *	  Pull-up of plain views and FROM sub-queries over a protected table
 *	  into the aggregate level above them.
 *
 * "SELECT count(*) FROM v WHERE hiv", with v a view "SELECT ... FROM p
 * WHERE age > 40", must be audited as the query on p: its covered set is
 * p's rows with age > 40.  The planner's pull_up_subqueries would do this
 * flattening, but only after our planner hook has run, so we do it first,
 * in the same way: the sub-query's range table is appended (Vars offset),
 * references to its outputs are replaced by its target-list expressions
 * (ReplaceVarsFromTargetList), its WHERE is AND'ed into the level's, and
 * the level's FROM becomes p.  The sub-query RTE stays in the range table
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

/* pulls sub-query RTE sidx of q (simple over p) up into q */
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
	quals = nq->jointree->quals;
	nq->jointree->fromlist = s->jointree->fromlist;
	if (s->jointree->quals != NULL)
		quals = quals == NULL ? s->jointree->quals :
			(Node *) make_and_qual(quals, s->jointree->quals);
	nq->jointree->quals = quals;
	nq->hasSubLinks = sublinks || s->hasSubLinks;
	nq->hasRowSecurity |= s->hasRowSecurity;
	memcpy(q, nq, sizeof(Query));
}

/*
 * Pulls every simple sub-query over a protected table up into the level
 * above, bottom-up through q's sub-queries, CTEs and sub-links.
 */
void
tapas_flatten_query(Query *q)
{
	RangeTblRef *ref;
	RangeTblEntry *rte;

	/* bottom-up: sub-queries, CTEs and sub-links first */
	(void) query_tree_walker(q, flatten_walker, NULL, 0);

	if (q->jointree == NULL || list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), RangeTblRef))
		return;
	ref = linitial(q->jointree->fromlist);
	rte = rt_fetch(ref->rtindex, q->rtable);
	if (rte->rtekind == RTE_SUBQUERY && !rte->lateral &&
		simple_over_protected(rte->subquery))
		pull_up(q, ref->rtindex);
}
