/*-------------------------------------------------------------------------
 *
 * having.c
 *	  HAVING conjuncts that reject a group by its size alone: the groups
 *	  below k that everyday SQL hides with HAVING count(*) >= 10.
 *
 * A count never exceeds the rows it can count: count(*), count(x),
 * count(DISTINCT x), with or without FILTER, is at most the size of the
 * union of its terms' covered sets (cellform.c: every row it counts lies
 * in the covered set Q_b of one term), so at most c = sum_b |Q_b|.  A
 * top-level HAVING conjunct
 *	count(..) >= t,  count(..) > t - 1,  t <= count(..),  t - 1 < count(..)
 * with a constant t therefore rejects every group with c < t, whatever
 * the values of the sensitive columns: the decision depends on c only,
 * which the non-sensitive columns decide (covered sets are defined by
 * them).  Such a group reveals nothing sensitive by being absent, so the
 * gate may drop it, neither released nor logged, instead of refusing the
 * query because one of its cells covers fewer than k rows (gate.c).
 * Anything else stays as it was: a conjunct over a sum or any other
 * aggregate, an OR, a NOT, a parameter, and every level grouped by a
 * sensitive column (where the size of a group depends on sensitive
 * values).  HAVING count(*) FILTER (WHERE rare) >= 1 does not reject a
 * non-empty group by its size, so small groups are still refused (TP002).
 *
 * What the gate needs travels in the statistic nodes of the count's
 * captures (statistic.c: tapas_statistic_tag_having): the conjunct's
 * number h and its threshold t.
 *
 * IDENTIFICATION
 *	  src/capture/having.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"

/* the value of an integer or numeric constant, NaN otherwise */
static double
const_value(Node *node)
{
	Const	   *c = (Const *) node;

	if (!IsA(node, Const) || c->constisnull)
		return NAN;
	switch (c->consttype)
	{
		case INT2OID:
			return DatumGetInt16(c->constvalue);
		case INT4OID:
			return DatumGetInt32(c->constvalue);
		case INT8OID:
			return (double) DatumGetInt64(c->constvalue);
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
													  c->constvalue));
		default:
			return NAN;
	}
}

/* a count aggregate of this level: count(*) or count(x) */
static bool
is_count(Node *node)
{
	Aggref	   *a = (Aggref *) node;

	return IsA(node, Aggref) && a->agglevelsup == 0 && a->aggkind == AGGKIND_NORMAL &&
		(a->aggfnoid == F_COUNT_ || a->aggfnoid == F_COUNT_ANY);
}

/* the btree strategy of opno (<, <=, =, >=, >), or 0 */
static int
op_strategy(Oid opno)
{
	List	   *interp;
	int			s = 0;

	if (!OidIsValid(opno))
		return 0;
	interp = get_op_btree_interpretation(opno);
	if (interp != NIL)
		s = ((OpBtreeInterpretation *) linitial(interp))->strategy;
	list_free_deep(interp);
	return s;
}

/*
 * The smallest number of rows a group must cover for conjunct e to hold,
 * when e is count(..) >= t or > t (either side), with *agg the count; 0
 * when e is not of that form.
 */
static int64
conjunct_min_rows(Node *e, Aggref **agg)
{
	OpExpr	   *op = (OpExpr *) e;
	Node	   *l,
			   *r;
	Oid			opno;
	double		t;
	int			s;

	if (!IsA(e, OpExpr) || list_length(op->args) != 2)
		return 0;
	l = linitial(op->args);
	r = lsecond(op->args);
	opno = op->opno;
	if (!is_count(l))
	{
		/* t <= count(..): the commutator count(..) >= t */
		Node	   *tmp = l;

		l = r;
		r = tmp;
		opno = get_commutator(opno);
	}
	if (!is_count(l) || isnan(t = const_value(r)) || opno >= FirstNormalObjectId)
		return 0;
	s = op_strategy(opno);
	*agg = (Aggref *) l;
	if (s == BTGreaterEqualStrategyNumber)
		return t > (double) PG_INT32_MAX ? PG_INT32_MAX : (int64) ceil(t);
	if (s == BTGreaterStrategyNumber)
		return t >= (double) PG_INT32_MAX ? PG_INT32_MAX : (int64) floor(t) + 1;
	return 0;
}

/*
 * Tags the captures of every count in a top-level conjunct of having
 * (the user's HAVING, before the hidden one is added) that rejects groups
 * below some size.  aggs are the level's aggregates and aggspecs, in step,
 * the statistic nodes of each one's captures.
 */
void
tapas_having_bounds(TapasLevelContext *lc, Node *having, List *aggs, List *aggspecs)
{
	ListCell   *c;
	int			h = 0;

	if (having == NULL || lc->groups != NIL)
		return;
	foreach(c, make_ands_implicit((Expr *) having))
	{
		Aggref	   *agg = NULL;
		int64		t = conjunct_min_rows(lfirst(c), &agg);
		ListCell   *a,
				   *s;

		h++;
		if (t <= 1)
			continue;			/* rejects no non-empty group */
		forboth(a, aggs, s, aggspecs)
		{
			ListCell   *sp;

			if (lfirst(a) != agg)
				continue;
			foreach(sp, (List *) lfirst(s))
				tapas_statistic_tag_having(lfirst(sp), h, t);
		}
	}
}
