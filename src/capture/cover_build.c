/*-------------------------------------------------------------------------
 *
 * cover_build.c
 *	  Expression building for normalise.c: the resjunk capture aggregate
 *	  tapas._cover(key, capture, v1, ..., vm) of each covered set, and the
 *	  hidden group-existence condition count(*) FILTER (WHERE S) > 0.
 *
 * tapas_cover_add adds one statistic per term of the aggregate's normal
 * form (cellform.c), deduplicated by (v, FILTER) within the level: v is
 * the term's canonical basis value (basis.c), the FILTER the non-sensitive
 * part of the aggregate's own FILTER and the term's non-sensitive
 * assignment.  The statistics of one level with the same FILTER (one
 * covered set) share one capture tapas._cover(key, capture, v1, ..., vm),
 * their values its arguments; what each logs travels as a statistic node
 * (statistic.c) in TapasCaptureInfo, indexed by the capture argument.
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
 * The capture of one covered set of a level: its FILTER (the non-sensitive
 * conditions) and the statistics it answers, one per value argument.  Its
 * Aggref is made when the level is done (tapas_cover_finish): the level's
 * target list is rewritten in between (normalise.c's sum_zero_mutator
 * copies it), so an Aggref made earlier could be left behind.
 */
typedef struct TapasCapture
{
	Node	   *filter;			/* the capture's FILTER, or NULL */
	List	   *values;			/* [m] the values v (dedup) */
	List	   *specs;			/* [m] their statistic nodes, in step */
	int			id;				/* its index in info->covers */
} TapasCapture;

/*
 * Values per capture: the transition function takes the state, the key,
 * the capture id and the values, at most FUNC_MAX_ARGS arguments; a
 * covered set with more statistics gets a second capture (its keys
 * collected twice).
 */
#define CAPTURE_MAX_VALUES	64

/* a new capture over filter, without statistics yet */
static TapasCapture *
new_capture(TapasLevelContext *lc, Node *filter)
{
	TapasCapture *cap = palloc0(sizeof(TapasCapture));

	cap->filter = filter;
	cap->id = lc->info->ncovers++;
	lc->info->covers = lappend(lc->info->covers, NIL);
	lc->captures = lappend(lc->captures, cap);
	return cap;
}

/*
 * The statistic node of the term with contribution v (over the level's
 * varno) over the covered set of FILTER filter: an equal term's, if the
 * level has one already; else spec, added as a value of the capture of
 * that covered set (made if there is none yet).  Statistics share a
 * capture only when their FILTERs are equal: the capture collects the key
 * of every row that passes its FILTER whatever the values, so they cover
 * exactly the same rows in every group (cover.c).
 */
static Node *
add_capture(TapasLevelContext *lc, Node *v, Node *filter, Node *spec)
{
	TapasCapture *room = NULL;
	ListCell   *c,
			   *s,
			   *n;

	foreach(c, lc->captures)
	{
		TapasCapture *cap = lfirst(c);

		if (!equal(cap->filter, filter))
			continue;
		forboth(s, cap->values, n, cap->specs)
		{
			if (equal(lfirst(s), v))
				return lfirst(n);
		}
		if (list_length(cap->values) < CAPTURE_MAX_VALUES)
			room = cap;
	}
	if (room == NULL)
		room = new_capture(lc, filter);
	room->values = lappend(room->values, v);
	room->specs = lappend(room->specs, spec);
	list_nth_cell(lc->info->covers, room->id)->ptr_value =
		lappend(list_nth(lc->info->covers, room->id),
				list_make2(makeInteger(lc->info->nstats++), spec));
	return spec;
}

/*
 * The argument that passes value v (a float8) to the capture: v, or the
 * int2, int4, int8 or float4 expression x when v is the built-in cast
 * x::float8, which the capture then does itself, by the same C conversion
 * (cover.c, cover_value), saving a function call per row.
 */
static Node *
value_argument(Node *v, Oid *type)
{
	FuncExpr   *f = (FuncExpr *) v;

	*type = FLOAT8OID;
	if (!IsA(v, FuncExpr) || list_length(f->args) != 1)
		return v;
	switch (f->funcid)
	{
		case F_FLOAT8_INT2:
		case F_FLOAT8_INT4:
		case F_FLOAT8_INT8:
		case F_FLOAT8_FLOAT4:
			break;
		default:
			return v;
	}
	/* the input types of those casts (not a domain over them) */
	switch (exprType(linitial(f->args)))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
			*type = exprType(linitial(f->args));
			return linitial(f->args);
		default:
			return v;
	}
}

/* tapas._cover(key, id, v1, ..., vm) FILTER (WHERE filter) of cap */
static Aggref *
capture_aggref(TapasLevelContext *lc, const TapasCapture *cap)
{
	Aggref	   *cover = makeNode(Aggref);
	Node	   *key;
	Oid			keytype;
	ListCell   *v;

	key = key_argument(lc, &keytype);
	cover->aggfnoid = tapas_cover_aggregate_oid(keytype);
	cover->aggtype = BYTEAOID;
	cover->aggcollid = InvalidOid;
	cover->inputcollid = InvalidOid;
	cover->aggtranstype = InvalidOid;
	cover->aggargtypes = list_make2_oid(keytype, INT4OID);
	cover->args = list_make2(arg_tle(key, 1),
							 arg_tle((Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
														Int32GetDatum(cap->id), false, true), 2));
	foreach(v, cap->values)
	{
		Oid			type;
		Node	   *arg = value_argument(lfirst(v), &type);

		cover->aggargtypes = lappend_oid(cover->aggargtypes, type);
		cover->args = lappend(cover->args, arg_tle(copyObject(arg),
												   list_length(cover->args) + 1));
	}
	cover->aggfilter = (Expr *) copyObject(cap->filter);
	cover->aggkind = AGGKIND_NORMAL;
	cover->aggvariadic = false; /* VARIADIC "any": the values stay arguments */
	cover->agglevelsup = 0;
	cover->aggsplit = AGGSPLIT_SIMPLE;
	cover->aggno = cover->aggtransno = -1;
	cover->location = -1;
	return cover;
}

/*
 * Appends the level's captures to its target list, resjunk, in the order
 * they were made, once every statistic of the level is known.
 */
void
tapas_cover_finish(TapasLevelContext *lc)
{
	ListCell   *c;

	foreach(c, lc->captures)
		lc->q->targetList = lappend(lc->q->targetList,
									makeTargetEntry((Expr *) capture_aggref(lc, lfirst(c)),
													list_length(lc->q->targetList) + 1,
													pstrdup("tapas_cover"), true));
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
	List	   *terms = tapas_cell_terms(kind, arg, sens, narrow, lc->varno, lc->prot,
										 lc->groups != NIL);
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
