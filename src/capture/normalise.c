/*-------------------------------------------------------------------------
 *
 * normalise.c
 *	  Query rewriting for capture: flatten simple views, move sensitive
 *	  WHERE conjuncts into FILTER, add the capture aggregates and the
 *	  hidden group-existence condition, one capture per term of each
 *	  aggregate's normal form.
 *
 * Runs in the planner hook on the rewritten Query of an audited session,
 * before the standard planner.  For every Query level whose only FROM item
 * is a protected table p (the audit model: src/README.md):
 *
 *	1. WHERE = N AND S, where S are the conjuncts that touch a sensitive
 *	   column.  S moves into the FILTER of every aggregate of the level, so
 *	   the rows reaching the Agg are exactly the covered set Q (rows passing
 *	   every condition that involves no sensitive column).
 *	2. Each audited aggregate is brought to its normal form (cellform.c):
 *	   a sum of terms, each a basis value phi (sensitive columns only,
 *	   canonical: basis.c) over a covered set Q (non-sensitive
 *	   conditions only: the level's WHERE, the non-sensitive FILTER
 *	   conjuncts, and one assignment of the non-sensitive atoms inside
 *	   the aggregate).  Each term is captured over its Q, so k applies to
 *	   every Q (gate.c): the terms of the level with the same Q (the same
 *	   FILTER) share one resjunk tapas._cover(key, capture, phi1, ...,
 *	   phim) FILTER (WHERE Q) (cover_build.c).  avg(x) is captured as
 *	   sum(x), count(x).
 *	   With GROUP BY over a sensitive column, a cell's covered set is its
 *	   non-sensitive group and 1[col = g] joins its basis: the gate
 *	   unions the captures of a non-sensitive group (gate.c, groups.c).
 *	   HAVING conjuncts count(..) >= t tag the count's captures, so that
 *	   the gate can drop a group they reject by its size alone (having.c).
 *	3. With GROUP BY and S non-empty, moving S out of WHERE would create
 *	   groups in which no row satisfies S.  A hidden HAVING
 *	   count(*) FILTER (WHERE S) > 0 restores the original output; the gate
 *	   evaluates HAVING itself after logging, so the suppressed groups are
 *	   logged as cells "count(*) filter (where S)" with answer 0.  A grand
 *	   total of grouping sets stays visible (GROUPING(...) test).
 *
 * Each capture carries a statistic node (statistic.c): its canonical basis
 * tree and text, the ledger key; nothing is parsed back from a string.
 * The capture aggregates and the hidden HAVING are built by cover_build.c.
 *
 * Simple views and FROM sub-queries over p are pulled up first
 * (flatten.c), so "SELECT count(*) FROM view" is audited as the query on p.
 *
 * IDENTIFICATION
 *	  src/capture/normalise.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_agg.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

static void normalise_query(Query *q, TapasCaptureInfo *info);
static void normalise_level(Query *q, int varno, const TapasProtection *prot,
							TapasCaptureInfo *info);

/* ----------------------------------------------------------------
 *		Finding protected tables
 * ----------------------------------------------------------------
 */

static bool
reads_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		return rte->rtekind == RTE_RELATION &&
			tapas_protection_lookup(rte->relid) != NULL;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_walker, ctx,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, reads_walker, ctx);
}

/* true when q, its sub-queries, CTEs or sub-links read a protected table */
bool
tapas_query_reads_protected(Query *q)
{
	return reads_walker((Node *) q, NULL);
}

/* the protected relation that is q's only FROM item, as its index, or 0 */
int
tapas_single_protected_from(Query *q)
{
	RangeTblRef *ref;
	RangeTblEntry *rte;

	if (q->jointree == NULL || list_length(q->jointree->fromlist) != 1 ||
		!IsA(linitial(q->jointree->fromlist), RangeTblRef))
		return 0;
	ref = linitial(q->jointree->fromlist);
	rte = rt_fetch(ref->rtindex, q->rtable);
	if (rte->rtekind != RTE_RELATION || tapas_protection_lookup(rte->relid) == NULL)
		return 0;
	return ref->rtindex;
}

/* index of the first protected relation in a jointree node, or 0 */
static int
jointree_protected(Node *jt, Query *q)
{
	ListCell   *lc;
	int			r;

	if (jt == NULL)
		return 0;
	if (IsA(jt, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) jt)->rtindex, q->rtable);

		return rte->rtekind == RTE_RELATION && tapas_protection_lookup(rte->relid) ?
			((RangeTblRef *) jt)->rtindex : 0;
	}
	if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
		{
			if ((r = jointree_protected(lfirst(lc), q)) != 0)
				return r;
		}
		return 0;
	}
	if (IsA(jt, JoinExpr))
	{
		if ((r = jointree_protected(((JoinExpr *) jt)->larg, q)) != 0)
			return r;
		return jointree_protected(((JoinExpr *) jt)->rarg, q);
	}
	return 0;
}

/* ----------------------------------------------------------------
 *		Walking every level
 * ----------------------------------------------------------------
 */

typedef struct WalkContext
{
	Query	   *q;				/* level being walked */
	TapasCaptureInfo *info;
} WalkContext;

static bool
levels_walker(Node *node, WalkContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		SubLink    *sl = (SubLink *) node;

		tapas_verify_sublink(sl);
		normalise_query((Query *) sl->subselect, ctx->info);
		return levels_walker(sl->testexpr, ctx);
	}
	if (IsA(node, RangeTblRef))
	{
		RangeTblEntry *rte = rt_fetch(((RangeTblRef *) node)->rtindex, ctx->q->rtable);

		if (rte->rtekind == RTE_SUBQUERY)
			normalise_query(rte->subquery, ctx->info);
		return false;
	}
	if (IsA(node, Query))
		return false;			/* reached only through RTEs we handle above */
	return expression_tree_walker(node, levels_walker, ctx);
}

static void
normalise_query(Query *q, TapasCaptureInfo *info)
{
	WalkContext ctx;
	ListCell   *lc;
	int			varno;

	tapas_verify_statement(q);
	ctx.q = q;
	ctx.info = info;
	foreach(lc, q->cteList)
		normalise_query((Query *) lfirst_node(CommonTableExpr, lc)->ctequery, info);
	(void) query_tree_walker(q, levels_walker, &ctx,
							 QTW_IGNORE_RT_SUBQUERIES | QTW_IGNORE_CTE_SUBQUERIES);
	/* does this level itself read a protected table? */
	varno = jointree_protected((Node *) q->jointree, q);
	if (varno != 0)
	{
		const TapasProtection *prot =
			tapas_protection_lookup(rt_fetch(varno, q->rtable)->relid);

		tapas_distinct_as_grouping(q);
		tapas_verify_level(q, varno, prot);
		normalise_level(q, varno, prot, info);
	}
}

/* Entry point: validate and rewrite parse; info says what to gate. */
void
tapas_normalise_query(Query *parse, TapasCaptureInfo *info)
{
	memset(info, 0, sizeof(*info));
	tapas_verify_no_cover(parse);
	tapas_flatten_query(parse);
	normalise_query(parse, info);
}

/* ----------------------------------------------------------------
 *		One protected level
 * ----------------------------------------------------------------
 */

typedef struct AggsContext
{
	int			depth;
	List	   *aggs;
} AggsContext;

static bool
aggs_walker(Node *node, AggsContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		if (((Aggref *) node)->agglevelsup != ctx->depth)
			return false;		/* belongs to an outer level */
		if (ctx->depth > 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregates of a protected table inside sub-queries are not supported")));
		ctx->aggs = lappend(ctx->aggs, node);
		return false;
	}
	if (IsA(node, Query))
	{
		bool		r;

		ctx->depth++;
		r = query_tree_walker((Query *) node, aggs_walker, ctx, 0);
		ctx->depth--;
		return r;
	}
	return expression_tree_walker(node, aggs_walker, ctx);
}

/* conjuncts with nested ANDs expanded: (a AND (b AND c)) -> a, b, c */
static List *
flatten_ands(List *conj)
{
	List	   *out = NIL;
	ListCell   *c;

	foreach(c, conj)
	{
		if (is_andclause(lfirst(c)))
			out = list_concat(out, flatten_ands(((BoolExpr *) lfirst(c))->args));
		else
			out = lappend(out, lfirst(c));
	}
	return out;
}

/* splits conjuncts into those that touch a sensitive column and the rest */
static void
split_sensitive(TapasLevelContext *lc, List *conj, const char *what,
				List **sens, List **rest)
{
	ListCell   *c;
	int			mark = tapas_prevalidate_mark();

	conj = flatten_ands(conj);
	foreach(c, conj)
	{
		Node	   *e = lfirst(c);

		tapas_allowlist_check_expr(e, what, strcmp(what, "WHERE") == 0 && !tapas_expr_refs(e, lc->varno, lc->prot->sensitive), lc->prot->relid, lc->varno);
		if (!tapas_expr_refs(e, lc->varno, lc->prot->sensitive))
		{
			*rest = lappend(*rest, e);
			continue;
		}
		if (contain_vars_of_level(e, 1) || checkExprHasSubLink(e))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("conditions on sensitive columns of protected table \"%s\" cannot use sub-queries or outer references",
							get_rel_name(lc->prot->relid))));
		tapas_verify_only_protected(e, lc->varno, "conditions", lc->prot->relid);
		*sens = lappend(*sens, e);
	}
	/* non-sensitive WHERE conjuncts guard each other's arithmetic */
	if (strcmp(what, "WHERE") == 0)
		tapas_prevalidate_guard(mark, *rest, lc->varno, lc->prot->relid);
}

/*
 * x * x in numeric, built by tapas for the sum of squares of a variance:
 * numeric holds the square of every int, float and numeric value below
 * 10^65536 without overflow.
 */
static Node *
square(Node *arg)
{
	Node	   *x = coerce_to_target_type(NULL, copyObject(arg), exprType(arg), NUMERICOID, -1,
										  COERCION_EXPLICIT, COERCE_EXPLICIT_CAST, -1);
	Oid			mul = OpernameGetOprid(list_make1(makeString("*")), NUMERICOID, NUMERICOID);

	if (x == NULL || !OidIsValid(mul))
		elog(ERROR, "tapas: no numeric square for type %u", exprType(arg));
	return (Node *) make_opclause(mul, NUMERICOID, false, (Expr *) x,
								  (Expr *) copyObject(x), InvalidOid, InvalidOid);
}

/*
 * min(x), max(x), count(DISTINCT x) over a column that is not sensitive
 * answer a fact about the quasi-identifiers of the covered set: allowed
 * when nothing sensitive decides which rows they see (no sensitive
 * argument, FILTER, WHERE conjunct or grouping key), else refused: the
 * oldest age among rare patients names a patient.  Captured as count(*)
 * over the covered set, so k applies to it.
 */
static List *
normalise_nonsensitive(TapasLevelContext *lc, Aggref *agg)
{
	const char *name = agg->aggdistinct != NIL ? "count(DISTINCT)" : get_func_name(agg->aggfnoid);
	List	   *userf = make_ands_implicit(agg->aggfilter);
	List	   *sens = NIL;
	List	   *narrow = NIL;
	ListCell   *c;

	foreach(c, agg->args)
	{
		Node	   *arg = (Node *) lfirst_node(TargetEntry, c)->expr;

		if (contain_vars_of_level(arg, 1) || checkExprHasSubLink(arg) ||
			tapas_expr_refs(arg, lc->varno, lc->prot->sensitive))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("%s of a sensitive column of protected table \"%s\" is not allowed",
							name, get_rel_name(lc->prot->relid)),
					 errdetail("It returns the value of a single row."),
					 errhint("Use count, sum, avg, variance or stddev of sensitive columns.")));
		tapas_allowlist_check_expr(arg, psprintf("the argument of %s", name), false,
								   lc->prot->relid, lc->varno);
		tapas_verify_only_protected(arg, lc->varno, "aggregate arguments", lc->prot->relid);
	}
	split_sensitive(lc, userf, "FILTER", &sens, &narrow);
	if (sens != NIL || lc->sens_where != NIL || lc->groups != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s over protected table \"%s\" is not allowed with a condition on a sensitive column",
						name, get_rel_name(lc->prot->relid)),
				 errdetail("A sensitive condition decides which rows it sees, and its answer is the value of a single row."),
				 errhint("Use count(*) FILTER (WHERE ...) or sum(...) FILTER (WHERE ...) for conditions on sensitive columns.")));
	return tapas_cover_add(lc, TAPAS_AGG_COUNT_STAR, NULL, NIL, narrow);
}

/*
 * normalises one audited aggregate (in place) and adds its captures;
 * returns their statistic nodes
 */
static List *
normalise_aggregate(TapasLevelContext *lc, Aggref *agg)
{
	TapasAggKind kind = tapas_verify_aggregate(agg, lc->prot->relid);
	Node	   *arg = NULL;
	List	   *userf = make_ands_implicit(agg->aggfilter);
	List	   *sens = NIL;
	List	   *narrow = NIL;
	List	   *all;

	if (kind == TAPAS_AGG_NONSENSITIVE)
	{
		return normalise_nonsensitive(lc, agg);
	}
	if (kind != TAPAS_AGG_COUNT_STAR)
	{
		arg = (Node *) linitial_node(TargetEntry, agg->args)->expr;
		tapas_allowlist_check_expr(arg, psprintf("the argument of %s", get_func_name(agg->aggfnoid)), false, lc->prot->relid, lc->varno);
		if (contain_vars_of_level(arg, 1) || checkExprHasSubLink(arg))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("aggregate arguments over protected table \"%s\" cannot use sub-queries or outer references",
							get_rel_name(lc->prot->relid))));
		tapas_verify_only_protected(arg, lc->varno, "aggregate arguments", lc->prot->relid);
	}
	split_sensitive(lc, userf, "FILTER", &sens, &narrow);
	all = list_concat(list_copy(lc->sens_where), sens);

	/* the answer keeps its meaning: S joins its FILTER */
	if (lc->sens_where != NIL)
		agg->aggfilter = make_ands_explicit(list_concat(copyObject(lc->sens_where), userf));

	if (kind == TAPAS_AGG_AVG || kind == TAPAS_AGG_VARIANCE)
	{
		/* the sum's captures first (statement order, EXPLAIN) */
		List	   *specs = tapas_cover_add(lc, TAPAS_AGG_SUM, arg, all, narrow);

		specs = list_concat(specs, tapas_cover_add(lc, TAPAS_AGG_COUNT, arg, all, narrow));
		if (kind == TAPAS_AGG_VARIANCE)
			specs = list_concat(specs, tapas_cover_add(lc, TAPAS_AGG_SUM, square(arg), all, narrow));
		return specs;
	}
	return tapas_cover_add(lc, kind, arg, all, narrow);
}

/*
 * The GROUP BY clauses as (sortgroupref, sensitive, expr or NULL, eqop),
 * when at least one grouping key touches a sensitive column; else NIL.
 */
static List *
sensitive_groups(TapasLevelContext *lc)
{
	List	   *groups = NIL;
	bool		any = false;
	ListCell   *c;

	foreach(c, lc->q->groupClause)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, c);
		Node	   *e = (Node *) get_sortgroupclause_expr(sgc, lc->q->targetList);
		bool		sens = tapas_expr_refs(e, lc->varno, lc->prot->sensitive);

		if (sens)
			tapas_verify_only_protected(e, lc->varno, "grouping keys", lc->prot->relid);
		any |= sens;
		groups = lappend(groups, list_make4(makeInteger(sgc->tleSortGroupRef),
											makeInteger(sens ? 1 : 0),
											sens ? copyObject(e) : NULL,
											makeInteger((int) sgc->eqop)));
	}
	return any ? groups : NIL;
}

/* the captures of a count tapas added itself: aggregate 0 */
static void
tag_hidden(List *specs)
{
	ListCell   *s;

	foreach(s, specs)
		tapas_statistic_tag_aggregate(lfirst(s), 0);
}

/*
 * A sum of sensitive values is NULL exactly when no row of its covered set
 * has a value: the NULL would tell count(x) = 0, which the sum's cell does
 * not hold (sum(income) over a zip's other people answering NULL says the
 * target is the one who reported an income).  So such a sum answers 0
 * there: COALESCE(sum(x), 0), the Aggref itself kept (its captures refer to
 * it).  count(x), audited, says whether values exist; avg and variance
 * capture it already.
 */
static Node *
sum_zero_mutator(Node *node, List *sums)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref) && list_member_ptr(sums, node))
	{
		Aggref	   *agg = (Aggref *) node;
		CoalesceExpr *c = makeNode(CoalesceExpr);
		Node	   *zero = coerce_to_target_type(NULL,
												 (Node *) makeConst(INT4OID, -1, InvalidOid, 4,
																	Int32GetDatum(0), false, true),
												 INT4OID, agg->aggtype, -1,
												 COERCION_EXPLICIT, COERCE_IMPLICIT_CAST, -1);

		if (zero == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot audit sum of type %s", format_type_be(agg->aggtype))));
		c->coalescetype = agg->aggtype;
		c->coalescecollid = agg->aggcollid;
		c->args = list_make2(agg, eval_const_expressions(NULL, zero));
		c->location = -1;
		return (Node *) c;
	}
	if (IsA(node, Query))
		return node;			/* sub-queries are levels of their own */
	return expression_tree_mutator(node, sum_zero_mutator, sums);
}

static void
normalise_level(Query *q, int varno, const TapasProtection *prot,
				TapasCaptureInfo *info)
{
	TapasLevelContext lc;
	RangeTblEntry *rte = rt_fetch(varno, q->rtable);
	AggsContext ac;
	List	   *keep = NIL;
	List	   *aggspecs = NIL;
	List	   *sums = NIL;		/* sensitive sums: 0 where they would be NULL */
	ListCell   *c;
	bool		grouped = q->groupClause != NIL || q->groupingSets != NIL;

	memset(&lc, 0, sizeof(lc));
	lc.q = q;
	lc.varno = varno;
	lc.prot = prot;
	lc.info = info;
	info->protected_read = true;
	if (prot->broken)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("protected table \"%s\" has lost its key column", get_rel_name(prot->relid)),
				 errhint("An administrator must protect it again with tapas.protect().")));
	if (prot->remapped)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot query partition \"%s\" of protected table \"%s\" directly",
						get_rel_name(rte->relid), get_rel_name(prot->relid)),
				 errdetail("Its columns are numbered unlike those of the protected table."),
				 errhint("Query \"%s\" instead.", get_rel_name(prot->relid))));
	if (rte->securityQuals != NIL &&
		tapas_expr_refs((Node *) rte->securityQuals, varno, prot->sensitive))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("row-level security policies on sensitive columns of protected table \"%s\" are not supported",
						get_rel_name(prot->relid))));
	tapas_verify_grouping(q, varno, prot);
	lc.groups = sensitive_groups(&lc);

	/* 1. WHERE = N AND S; S moves into the aggregates' FILTER */
	split_sensitive(&lc, make_ands_implicit((Expr *) q->jointree->quals), "WHERE",
					&lc.sens_where, &keep);
	q->jointree->quals = keep ? (Node *) make_ands_explicit(keep) : NULL;

	/* 2. captures for every aggregate of this level */
	ac.depth = 0;
	ac.aggs = NIL;
	(void) aggs_walker((Node *) q->targetList, &ac);
	(void) aggs_walker(q->havingQual, &ac);
	foreach(c, ac.aggs)
	{
		Aggref	   *agg = lfirst_node(Aggref, c);
		List	   *specs = normalise_aggregate(&lc, agg);
		ListCell   *s;

		foreach(s, specs)
			tapas_statistic_tag_aggregate(lfirst(s), foreach_current_index(c) + 1);
		aggspecs = lappend(aggspecs, specs);
		if (tapas_verify_aggregate(agg, prot->relid) == TAPAS_AGG_SUM)
			sums = lappend(sums, agg);
	}
	/* groups that the user's HAVING rejects by their size alone */
	tapas_having_bounds(&lc, q->havingQual, ac.aggs, aggspecs);
	if (sums != NIL)
	{
		q->targetList = (List *) sum_zero_mutator((Node *) q->targetList, sums);
		q->havingQual = sum_zero_mutator(q->havingQual, sums);
	}

	/* a GROUP BY without aggregates still answers "count(*) >= 1" per group */
	if (!q->hasAggs)
	{
		tag_hidden(tapas_cover_add(&lc, TAPAS_AGG_COUNT_STAR, NULL, lc.sens_where, NIL));
		q->hasAggs = true;
	}

	/* 3. absent groups: hidden HAVING, logged through its own capture */
	if (grouped && lc.sens_where != NIL)
	{
		Node	   *exists = tapas_cover_group_exists_qual(&lc);

		tag_hidden(tapas_cover_add(&lc, TAPAS_AGG_COUNT_STAR, NULL, lc.sens_where, NIL));
		q->havingQual = q->havingQual ?
			(Node *) make_and_qual(q->havingQual, exists) : exists;
	}
	tapas_cover_finish(&lc);
}
