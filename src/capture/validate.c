/*-------------------------------------------------------------------------
 *
 * validate.c
 *	  Refusals: query shapes that would read protected rows outside an
 *	  audited aggregate.
 *
 * Every verify_* function only checks and raises; none rewrites.  They run
 * in the planner hook, on the rewritten Query (views expanded), for
 * audited sessions only.  The rules, per Query level that reads a
 * protected table p:
 *
 *	- the level is an aggregate level (aggregates or GROUP BY): no window
 *	  functions, set-returning functions in the target list or FOR UPDATE;
 *	- p is its only FROM item, or is joined only with unprotected lookup
 *	  tables, each matched by equality on a unique column, and is not on
 *	  the nullable side of an outer join: no protected row is repeated or
 *	  NULL-extended, so covered sets stay sets of p's rows;
 *	- its aggregates are count(*), count(x), sum(x) or avg(x) over numbers,
 *	  without DISTINCT or ORDER BY inside;
 *	- every expression evaluated per row of p (WHERE, JOIN ... ON, FILTER,
 *	  aggregate arguments, grouping keys) is in the closed expression
 *	  language of allowlist.c (tapas_allowlist_check_expr), whether or not
 *	  it reads a column;
 *	- no EXISTS/IN/ANY/ALL sub-query reads p (membership leaks rows);
 *	- INSERT/UPDATE/DELETE/MERGE of p are refused (row counts are
 *	  unaudited reads; inserted rows forge the covered sets).
 *
 * SQLSTATEs: insufficient_privilege for reads that are refused on
 * principle, feature_not_supported for shapes that could be audited but
 * are not (joins, grouping by a sensitive column).
 *
 * IDENTIFICATION
 *	  src/capture/validate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "capture/capture.h"
#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		Aggregates
 * ----------------------------------------------------------------
 */

/*
 * variance(x) and stddev(x) in all spellings are functions of n, sum(x)
 * and sum(x * x): audited as those three cells.
 */
static bool
is_variance_name(const char *name)
{
	static const char *const names[] = {
		"variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop"
	};

	for (int i = 0; i < lengthof(names); i++)
	{
		if (strcmp(name, names[i]) == 0)
			return true;
	}
	return false;
}

/*
 * Aggregates that only ever see columns that are not sensitive
 * (normalise_nonsensitive refuses a sensitive argument or condition):
 * their answer is a fact about the quasi-identifiers of a covered set, like
 * min and max.  bool_and, bool_or and every are min and max of booleans;
 * corr, covar_* and regr_* are functions of the sums of the public values,
 * their squares and products; the ordered-set percentile_cont,
 * percentile_disc and mode return one row's public value, as min does.
 * Not string_agg, array_agg, json_agg and the like: they list the values
 * row by row, which a plain SELECT col is refused for.
 */
static bool
is_nonsensitive_name(const char *name, char aggkind)
{
	static const char *const normal[] = {
		"bool_and", "bool_or", "every", "corr", "covar_pop", "covar_samp",
		"regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2",
		"regr_slope", "regr_sxx", "regr_sxy", "regr_syy"
	};
	static const char *const ordered[] = {"percentile_cont", "percentile_disc", "mode"};

	if (aggkind == AGGKIND_NORMAL)
	{
		for (int i = 0; i < lengthof(normal); i++)
			if (strcmp(name, normal[i]) == 0)
				return true;
	}
	else if (aggkind == AGGKIND_ORDERED_SET)
	{
		for (int i = 0; i < lengthof(ordered); i++)
			if (strcmp(name, ordered[i]) == 0)
				return true;
	}
	return false;
}

/* The audited kind of an aggregate, or refusal. */
TapasAggKind
tapas_verify_aggregate(Aggref *agg, Oid relid)
{
	char	   *name = get_func_name(agg->aggfnoid);
	bool		catalog = get_func_namespace(agg->aggfnoid) == PG_CATALOG_NAMESPACE;
	TapasAggKind kind = TAPAS_AGG_NONE;

	if (catalog && strcmp(name, "count") == 0 && agg->aggdistinct != NIL && !agg->aggstar)
		return TAPAS_AGG_NONSENSITIVE;
	if (catalog && (strcmp(name, "min") == 0 || strcmp(name, "max") == 0) &&
		agg->aggkind == AGGKIND_NORMAL && agg->aggorder == NIL)
		return TAPAS_AGG_NONSENSITIVE;
	/* the fraction of an ordered-set aggregate is one value per group, a constant here */
	if (catalog && is_nonsensitive_name(name, agg->aggkind) && agg->aggdistinct == NIL &&
		(agg->aggkind == AGGKIND_ORDERED_SET || agg->aggorder == NIL) &&
		(agg->aggdirectargs == NIL || tapas_row_independent((Node *) agg->aggdirectargs)))
		return TAPAS_AGG_NONSENSITIVE;
	if (catalog && strcmp(name, "count") == 0)
		kind = agg->aggstar ? TAPAS_AGG_COUNT_STAR : TAPAS_AGG_COUNT;
	else if (catalog && (strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0 ||
						 is_variance_name(name)))
	{
		Oid			t = linitial_oid(agg->aggargtypes);

		if (t == INT2OID || t == INT4OID || t == INT8OID || t == NUMERICOID ||
			t == FLOAT4OID || t == FLOAT8OID)
			kind = strcmp(name, "sum") == 0 ? TAPAS_AGG_SUM :
				strcmp(name, "avg") == 0 ? TAPAS_AGG_AVG : TAPAS_AGG_VARIANCE;
	}
	if (kind == TAPAS_AGG_NONE || agg->aggkind != AGGKIND_NORMAL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("aggregate function %s is not allowed on protected table \"%s\"",
						name, get_rel_name(relid)),
				 errdetail("Only count, and sum, avg, variance and stddev of numbers, are audited, and min, max, count(DISTINCT), bool_and, bool_or, corr, covar_*, regr_*, percentile_cont, percentile_disc and mode of columns that are not sensitive; other aggregates such as string_agg and array_agg list the values of single rows."),
				 errhint("Rewrite the query with count(*), count(x), sum(x), avg(x), variance(x) or stddev(x).")));
	if (agg->aggdistinct != NIL || agg->aggorder != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("DISTINCT or ORDER BY inside aggregate %s is not supported on protected table \"%s\"",
						name, get_rel_name(relid))));
	return kind;
}

/* ----------------------------------------------------------------
 *		Statements and levels
 * ----------------------------------------------------------------
 */

/*
 * Refuses every write of p by an audited session.  UPDATE, DELETE and
 * MERGE report how many rows matched (an unaudited answer); INSERT,
 * INSERT ... SELECT and INSERT ... ON CONFLICT change the rows later
 * answers are computed over (99 fake rows pad a group of one past k, many
 * fake positives make the decoders stand down).  Views, rules and
 * triggers that write p are rewritten or run as statements of their own,
 * each planned here; ExecutorStart repeats the check on the plan
 * (tapas_plan_verify_no_write) for plans cached by an exempt session.
 */
void
tapas_verify_statement(Query *q)
{
	RangeTblEntry *rte;
	const char *name;

	if (q->resultRelation <= 0)
		return;
	rte = rt_fetch(q->resultRelation, q->rtable);
	if (rte->rtekind != RTE_RELATION || tapas_protection_lookup(rte->relid) == NULL)
		return;
	name = get_rel_name(rte->relid);
	if (q->commandType == CMD_UPDATE || q->commandType == CMD_DELETE ||
		q->commandType == CMD_MERGE)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot update or delete rows of protected table \"%s\"", name),
				 errdetail("The number of rows affected would be an unaudited answer."),
				 errhint("Write protected tables from a role that is not audited (a member of the tapas admin role).")));
	if (q->commandType == CMD_INSERT)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("cannot insert rows into protected table \"%s\"", name),
				 errdetail("Rows written by an audited role would change what later answers cover."),
				 errhint("Write protected tables from a role that is not audited (a member of the tapas admin role).")));
}

/* The FROM clause of a level, flattened. */
typedef struct JoinShape
{
	List	   *rels;			/* range-table indexes of the FROM items */
	Bitmapset  *nullable;		/* those on the nullable side of an outer join */
	List	   *quals;			/* every WHERE conjunct and join qual */
	List	   *on_quals;		/* the JOIN ... ON quals alone */
} JoinShape;

static void
collect_join(Node *jt, bool nullable, JoinShape *js)
{
	ListCell   *lc;

	if (IsA(jt, RangeTblRef))
	{
		js->rels = lappend_int(js->rels, ((RangeTblRef *) jt)->rtindex);
		if (nullable)
			js->nullable = bms_add_member(js->nullable, ((RangeTblRef *) jt)->rtindex);
	}
	else if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
			collect_join(lfirst(lc), nullable, js);
		js->quals = list_concat(js->quals, make_ands_implicit((Expr *) ((FromExpr *) jt)->quals));
	}
	else if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;
		List	   *q = make_ands_implicit((Expr *) j->quals);

		collect_join(j->larg, nullable || j->jointype == JOIN_RIGHT || j->jointype == JOIN_FULL, js);
		collect_join(j->rarg, nullable || j->jointype == JOIN_LEFT || j->jointype == JOIN_FULL, js);
		js->quals = list_concat(js->quals, q);
		js->on_quals = list_concat(js->on_quals, list_copy(q));
	}
	else
		elog(ERROR, "tapas: unrecognized join tree node %d", (int) nodeTag(jt));
}

static Var *
plain_var(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node && IsA(node, Var) && ((Var *) node)->varlevelsup == 0 ? (Var *) node : NULL;
}

/*
 * true when some qual is "r.c = other.x" with an equality operator and c
 * alone in a unique index of r: every combination of the other FROM items
 * then matches at most one row of r, so r repeats no protected row.
 */
static bool
joined_on_unique(Query *q, int r, List *quals)
{
	ListCell   *lc;
	Relation	rel = table_open(rt_fetch(r, q->rtable)->relid, AccessShareLock);
	bool		found = false;

	foreach(lc, quals)
	{
		OpExpr	   *op = lfirst(lc);
		Var		   *a;
		Var		   *b;

		if (found || !IsA(op, OpExpr) || list_length(op->args) != 2 ||
			!op_mergejoinable(op->opno, exprType(linitial(op->args))))
			continue;
		a = plain_var(linitial(op->args));
		b = plain_var(lsecond(op->args));
		if (a == NULL || b == NULL || a->varno == b->varno)
			continue;
		if (b->varno == r)
		{
			Var		   *t = a;

			a = b;
			b = t;
		}
		found = a->varno == r && a->varattno > 0 && tapas_column_is_unique(rel, a->varattno);
	}
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * What a FROM item other than a lookup table is, for the refusal of a join
 * with it: the analyst wrote a function or a sub-query, not "a protected
 * table", and the message should say so.
 */
static const char *
join_partner_kind(const RangeTblEntry *rte)
{
	switch (rte->rtekind)
	{
		case RTE_RELATION:
			if (rte->relkind == RELKIND_VIEW)
				return psprintf("view \"%s\"", get_rel_name(rte->relid));
			return psprintf("protected table \"%s\"", get_rel_name(rte->relid));
		case RTE_FUNCTION:
			return "a function in FROM";
		case RTE_SUBQUERY:
			return "a sub-query";
		case RTE_VALUES:
			return "a VALUES list";
		case RTE_CTE:
			return "a WITH query";
		case RTE_TABLEFUNC:
			return "a table function";
		default:
			return "this FROM item";
	}
}

/*
 * Joins at a protected level: audited exactly only when no protected row is
 * repeated or NULL-extended.  Other FROM items must be plain unprotected
 * tables, each matched on a column with a unique index (lookup tables);
 * the protected table is never on the nullable side of an outer join; and
 * conditions in JOIN ... ON are in the allow-list and not sensitive.
 */
static void
verify_joins(Query *q, int varno, const TapasProtection *prot)
{
	JoinShape	js;
	ListCell   *lc;
	const char *name = get_rel_name(prot->relid);

	memset(&js, 0, sizeof(js));
	collect_join((Node *) q->jointree, false, &js);
	if (list_length(js.rels) == 1)
		return;
	if (bms_is_member(varno, js.nullable))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("protected table \"%s\" cannot be on the nullable side of an outer join", name)));
	foreach(lc, js.rels)
	{
		int			r = lfirst_int(lc);
		RangeTblEntry *rte = rt_fetch(r, q->rtable);

		if (r == varno)
			continue;
		if (rte->rtekind != RTE_RELATION || rte->relkind == RELKIND_VIEW ||
			tapas_protection_lookup(rte->relid) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("protected table \"%s\" cannot be joined with %s", name,
							join_partner_kind(rte)),
					 errdetail("A protected table can only be joined with plain unprotected tables matched on a unique column."),
					 errhint("Aggregate the protected table in a sub-query, then join the result; for one answer per value of a series, use a correlated sub-query such as SELECT q, (SELECT count(*) FROM t WHERE ... q ...) FROM generate_series(1, 10) q.")));
		if (!joined_on_unique(q, r, js.quals))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("join of protected table \"%s\" with \"%s\" may repeat its rows",
							name, get_rel_name(rte->relid)),
					 errdetail("Every joined table must be matched by equality on a column with a unique index of its own (a lookup table)."),
					 errhint("Aggregate the protected table in a sub-query, then join the result.")));
	}
	foreach(lc, js.on_quals)
	{
		tapas_allowlist_check_expr(lfirst(lc), "JOIN ... ON", true, prot->relid, varno);
		if (tapas_expr_refs(lfirst(lc), varno, prot->sensitive))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("conditions on sensitive columns of protected table \"%s\" must be in WHERE, not in JOIN ... ON", name)));
	}
}

/*
 * Shape of a level whose FROM clause reads protected table varno: an
 * aggregate level where the protected table is alone or joined with
 * lookup tables (verify_joins).
 */
void
tapas_verify_level(Query *q, int varno, const TapasProtection *prot)
{
	RangeTblEntry *rte = rt_fetch(varno, q->rtable);
	const char *name = get_rel_name(rte->relid);

	if (q->hasWindowFuncs && !q->hasAggs && q->groupClause == NIL && q->groupingSets == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("window functions are not allowed on protected table \"%s\" without aggregation", name),
				 errdetail("A window function over the rows of a protected table returns a value for every row."),
				 errhint("Aggregate first: a window over the groups of an aggregate query, such as sum(count(*)) OVER (), is allowed.")));
	if (q->hasTargetSRFs)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-returning functions are not supported on protected table \"%s\"", name)));
	if (q->rowMarks != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("FOR UPDATE/SHARE is not allowed on protected table \"%s\"", name)));
	if (!q->hasAggs && q->groupClause == NIL && q->groupingSets == NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only aggregate queries are allowed on protected table \"%s\"", name),
				 errdetail("Reading individual rows (SELECT *, DISTINCT ON, LIMIT without aggregation) is refused; SELECT DISTINCT without aggregates is answered as GROUP BY."),
				 errhint("Use count(*), count(x), sum(x) or avg(x), with WHERE and GROUP BY.")));
	if (rte->inh && rte->relkind != RELKIND_PARTITIONED_TABLE && has_subclass(rte->relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("protected table \"%s\" has inheritance children", name),
				 errhint("Query it with ONLY.")));
	verify_joins(q, varno, prot);
}

/*
 * Raises unless expr (a sensitive condition, aggregate argument or
 * sensitive grouping key) references no FROM item but the protected table
 * varno: its statistic text is written over that table alone.
 */
void
tapas_verify_only_protected(Node *expr, int varno, const char *what, Oid relid)
{
	Bitmapset  *rels = pull_varnos(NULL, expr);

	if (!bms_is_empty(rels) && !(bms_num_members(rels) == 1 && bms_is_member(varno, rels)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s that involve sensitive columns of protected table \"%s\" cannot use columns of other tables",
						what, get_rel_name(relid))));
}

/* Refuses EXISTS/IN/ANY/ALL sub-queries that read a protected table. */
void
tapas_verify_sublink(SubLink *sl)
{
	if (sl->subLinkType == EXPR_SUBLINK || sl->subLinkType == ARRAY_SUBLINK ||
		sl->subLinkType == MULTIEXPR_SUBLINK || sl->subLinkType == CTE_SUBLINK)
		return;
	if (tapas_query_reads_protected((Query *) sl->subselect))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("protected tables cannot be read in EXISTS, IN, ANY or ALL sub-queries"),
				 errdetail("Membership tests reveal single rows."),
				 errhint("Use a scalar sub-query with an aggregate, e.g. (SELECT count(*) FROM ...).")));
}

/*
 * Grouping keys: in the allow-list; a key over a sensitive column (its value is an
 * answer, captured per value by the gate) not with grouping sets.
 */
void
tapas_verify_grouping(Query *q, int varno, const TapasProtection *prot)
{
	ListCell   *lc;

	foreach(lc, q->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (tle->ressortgroupref == 0 ||
			!get_sortgroupref_clause_noerr(tle->ressortgroupref, q->groupClause))
			continue;
		tapas_allowlist_check_expr((Node *) tle->expr, "GROUP BY", false, prot->relid, varno);
		if (!tapas_expr_refs((Node *) tle->expr, varno, prot->sensitive))
			continue;
		if (q->groupingSets != NIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("grouping sets over a sensitive column of protected table \"%s\" are not supported",
							get_rel_name(prot->relid)),
					 errhint("Use one aggregate per value instead, e.g. count(*) FILTER (WHERE col = value).")));
		if (contain_vars_of_level((Node *) tle->expr, 1) || checkExprHasSubLink((Node *) tle->expr))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("grouping expressions on sensitive columns of protected table \"%s\" cannot use sub-queries or outer references",
							get_rel_name(prot->relid))));
	}
}

static bool
cover_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && tapas_is_cover_aggregate(((Aggref *) node)->aggfnoid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("tapas._cover cannot be called directly"),
				 errdetail("It is tapas's own capture aggregate.")));
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, cover_walker, context, 0);
	return expression_tree_walker(node, cover_walker, context);
}

/*
 * Refuses a query that calls the capture aggregate itself: the gate would
 * log whatever relid, statistic and keys it was given.
 */
void
tapas_verify_no_cover(Query *q)
{
	(void) cover_walker((Node *) q, NULL);
}
