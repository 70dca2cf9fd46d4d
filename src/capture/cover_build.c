/*-------------------------------------------------------------------------
 *
 * cover_build.c
 *	  Expression building for normalise.c: the resjunk capture aggregate
 *	  tapas._cover(key, v, capture) of one statistic, and the
 *	  hidden group-existence condition count(*) FILTER (WHERE S) > 0.
 *
 * tapas_cover_add appends one capture per term of the aggregate's normal
 * form (cellform.c), deduplicated by (v, FILTER) within the level: v is
 * the term's canonical basis value (basis.c), the capture's FILTER the
 * non-sensitive part of the aggregate's own FILTER and the term's
 * non-sensitive assignment; what it logs travels as a statistic node
 * (statistic.c) in TapasCaptureInfo, indexed by the third argument.
 * tapas_cover_group_exists_qual builds the hidden HAVING of step 3 of
 * normalise.c, or'ed with a GROUPING(...) test that keeps a grand total of
 * grouping sets visible (at most 31 grouping columns).
 *
 * IDENTIFICATION
 *	  src/capture/cover_build.c
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

/* ----------------------------------------------------------------
 *		Building the capture aggregate
 * ----------------------------------------------------------------
 */

static Node *
coerce_to(Node *expr, Oid type)
{
	Node	   *r = coerce_to_target_type(NULL, expr, exprType(expr), type, -1,
										  COERCION_EXPLICIT, COERCE_EXPLICIT_CAST, -1);

	if (r == NULL)
		elog(ERROR, "tapas: cannot cast type %s to %s",
			 format_type_be(exprType(expr)), format_type_be(type));
	return r;
}

/*
 * The key argument of a capture over the level's varno: the integer key
 * column as int4 or int8, or for any other key (uuid, text, composite)
 * its record identity tapas._key_id(columns) (policy/keys.c).
 */
static Node *
key_argument(TapasLevelContext *lc, Oid *keytype)
{
	const TapasProtection *p = lc->prot;
	Oid			relid = rt_fetch(lc->varno, lc->q->rtable)->relid;
	List	   *args = NIL;

	if (!p->key_hashed)
	{
		*keytype = p->key_type == INT8OID ? INT8OID : INT4OID;
		return coerce_to((Node *) makeVar(lc->varno, p->key_attno, p->key_type, -1, InvalidOid, 0),
						 *keytype);
	}
	for (int i = 0; i < p->nkeys; i++)
	{
		Oid			type;
		int32		typmod;
		Oid			coll;

		get_atttypetypmodcoll(relid, p->key_attnos[i], &type, &typmod, &coll);
		args = lappend(args, makeVar(lc->varno, p->key_attnos[i], type, typmod, coll, 0));
	}
	*keytype = INT8OID;
	return (Node *) makeFuncExpr(tapas_key_id_oid(), INT8OID, args, InvalidOid, InvalidOid,
								 COERCE_EXPLICIT_CALL);
}

static TargetEntry *
arg_tle(Node *expr, int resno)
{
	return makeTargetEntry((Expr *) expr, resno, NULL, false);
}

/*
 * Appends a resjunk tapas._cover(key, v, capture) with the given FILTER
 * and contribution v (over the level's varno), unless an equal capture is
 * there already; returns the statistic node of the capture.
 */
static Node *
add_capture(TapasLevelContext *lc, Node *v, Node *filter, Node *spec)
{
	Aggref	   *cover;
	Node	   *key;
	Oid			keytype;
	ListCell   *s,
			   *f,
			   *n;

	forthree(s, lc->stats, f, lc->filters, n, lc->specs)
	{
		if (equal(lfirst(s), v) && equal(lfirst(f), filter))
			return lfirst(n);
	}
	lc->stats = lappend(lc->stats, v);
	lc->filters = lappend(lc->filters, filter);
	lc->specs = lappend(lc->specs, spec);

	key = key_argument(lc, &keytype);
	cover = makeNode(Aggref);
	cover->aggfnoid = tapas_cover_aggregate_oid(keytype);
	cover->aggtype = BYTEAOID;
	cover->aggcollid = InvalidOid;
	cover->inputcollid = InvalidOid;
	cover->aggtranstype = InvalidOid;
	cover->aggargtypes = list_make3_oid(keytype, FLOAT8OID, INT4OID);
	cover->args = list_make3(arg_tle(key, 1),
							 arg_tle(copyObject(v), 2),
							 arg_tle((Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
														Int32GetDatum(lc->info->ncovers),
														false, true), 3));
	cover->aggfilter = (Expr *) copyObject(filter);
	cover->aggkind = AGGKIND_NORMAL;
	cover->agglevelsup = 0;
	cover->aggsplit = AGGSPLIT_SIMPLE;
	cover->aggno = cover->aggtransno = -1;
	cover->location = -1;
	lc->q->targetList = lappend(lc->q->targetList,
								makeTargetEntry((Expr *) cover,
												list_length(lc->q->targetList) + 1,
												pstrdup("tapas_cover"), true));
	lc->info->covers = lappend(lc->info->covers, spec);
	lc->info->ncovers++;
	return spec;
}

/*
 * Captures one audited aggregate kind(arg) with sensitive conditions sens
 * and non-sensitive FILTER conjuncts narrow: one capture per term of its
 * normal form (cellform.c), its FILTER narrow AND the term's condition,
 * its v the term's canonical basis (basis.c), a tree tapas builds.  A cell
 * with two or more sensitive bases has its captures flagged incomplete:
 * the auditor cannot yet audit their sum (gate.c fails closed).  Returns
 * the statistic nodes of its terms (shared with equal captures).
 */
List *
tapas_cover_add(TapasLevelContext *lc, TapasAggKind kind, Node *arg, List *sens, List *narrow)
{
	List	   *terms = tapas_cell_terms(kind, arg, sens, narrow, lc->varno, lc->prot);
	List	   *sensitive_specs = NIL;
	List	   *specs = NIL;
	ListCell   *c;

	foreach(c, terms)
	{
		TapasTerm  *t = lfirst(c);
		TapasBasis *b = t->basis;
		Node	   *v;
		List	   *fl = list_copy(narrow);
		Node	   *spec;

		v = copyObject(b->tree);
		ChangeVarNodes(v, 1, lc->varno, 0);
		if (t->cond != NULL)
			fl = lappend(fl, copyObject(t->cond));
		spec = add_capture(lc, v, fl ? (Node *) make_ands_explicit(copyObject(fl)) : NULL,
						   tapas_statistic_node(lc->prot->relid, b, lc->groups, lc->varno,
														 t->cond != NULL));
		if (b->sensitive && !list_member_ptr(sensitive_specs, spec))
			sensitive_specs = lappend(sensitive_specs, spec);
		specs = list_append_unique_ptr(specs, spec);
	}
	if (list_length(sensitive_specs) >= 2)
	{
		foreach(c, sensitive_specs)
			tapas_statistic_mark_incomplete(lfirst(c));
	}
	return specs;
}

/* ----------------------------------------------------------------
 *		The hidden group-existence condition
 * ----------------------------------------------------------------
 */

/* count(*) FILTER (WHERE S), built by hand */
static Aggref *
make_count_star(List *sens)
{
	Aggref	   *a = makeNode(Aggref);

	a->aggfnoid = F_COUNT_;
	a->aggtype = INT8OID;
	a->aggtranstype = InvalidOid;
	a->aggstar = true;
	a->aggkind = AGGKIND_NORMAL;
	a->aggsplit = AGGSPLIT_SIMPLE;
	a->aggno = a->aggtransno = -1;
	a->aggfilter = sens ? make_ands_explicit(copyObject(sens)) : NULL;
	a->location = -1;
	return a;
}

/* true when the grouping sets of q include the empty set (a grand total) */
static bool
has_empty_grouping_set(Query *q)
{
	List	   *sets;
	ListCell   *lc;

	if (q->groupingSets == NIL)
		return false;
	sets = expand_grouping_sets(q->groupingSets, q->groupDistinct, -1);
	foreach(lc, sets)
	{
		if (lfirst(lc) == NIL)
			return true;
	}
	return false;
}

/*
 * The hidden group-existence condition count(*) FILTER (WHERE S) > 0, or'ed
 * with "this is the grand total" when grouping sets include ().
 */
Node *
tapas_cover_group_exists_qual(TapasLevelContext *lc)
{
	Query	   *q = lc->q;
	Oid			gt = OpernameGetOprid(list_make1(makeString(">")), INT8OID, INT8OID);
	Node	   *cond;

	cond = (Node *) make_opclause(gt, BOOLOID, false,
								  (Expr *) make_count_star(lc->sens_where),
								  (Expr *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
													 Int64GetDatum(0), false, FLOAT8PASSBYVAL),
								  InvalidOid, InvalidOid);
	if (has_empty_grouping_set(q))
	{
		GroupingFunc *g = makeNode(GroupingFunc);
		ListCell   *c;
		int			n = 0;
		Oid			eq = OpernameGetOprid(list_make1(makeString("=")), INT4OID, INT4OID);

		foreach(c, q->groupClause)
		{
			SortGroupClause *sgc = lfirst_node(SortGroupClause, c);

			g->args = lappend(g->args,
							  copyObject(get_sortgroupclause_expr(sgc, q->targetList)));
			g->refs = lappend_int(g->refs, sgc->tleSortGroupRef);
			n++;
		}
		if (n > 31)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many grouping columns on a protected table")));
		g->location = -1;
		cond = (Node *) make_orclause(list_make2(cond,
												 make_opclause(eq, BOOLOID, false, (Expr *) g,
															   (Expr *) makeConst(INT4OID, -1, InvalidOid, 4,
																				  Int32GetDatum((1 << n) - 1), false, true),
															   InvalidOid, InvalidOid)));
	}
	return cond;
}
