/*-------------------------------------------------------------------------
 *
 * fold.c
 *	  Row-independent sub-expressions of audited queries, and their
 *	  evaluation once before the scan.
 *
 * A sub-expression with no column, no parameter and no sub-query, made
 * only of immutable built-in functions, is evaluated once at planning
 * time (tapas_allowlist_fold_query): 10 * 2 becomes 20, and 1/0 raises
 * "division by zero" for every table content alike, so no per-row branch
 * runs it only for some rows.  A folded value above TAPAS_MAX_FOLD bytes
 * refuses the query, and repeat, lpad, rpad and array_fill are checked
 * before they run, so the query is refused without building the value:
 * size is what makes a constant expensive per row (the timing channel;
 * see allowlist.c for the rest of the cost bounds).
 *
 * IDENTIFICATION
 *	  src/capture/fold.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "capture/capture.h"

#define TAPAS_MAX_FOLD		65536	/* bytes of a folded value */

/*
 * true when node may depend on the row, or runs code tapas does not own:
 * a Var, an aggregate, a sub-query, a user function, operator or type.
 * Parameters count as row-dependent unless *params_ok points to true.
 */
static bool
row_dependent_walker(Node *node, bool *params_ok)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Param:
			if (*params_ok && ((Param *) node)->paramkind == PARAM_EXTERN)
				return false;
			return true;
		case T_Var:
		case T_Aggref:
		case T_GroupingFunc:
		case T_WindowFunc:
		case T_SubLink:
		case T_CaseTestExpr:
		case T_CoerceToDomain:
		case T_NextValueExpr:
		case T_SetToDefault:
		case T_CurrentOfExpr:
		case T_PlaceHolderVar:
			return true;
		case T_FuncExpr:
			if (((FuncExpr *) node)->funcid >= FirstNormalObjectId ||
				((FuncExpr *) node)->funcretset)
				return true;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			if (((OpExpr *) node)->opfuncid >= FirstNormalObjectId)
				return true;
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			if (((ScalarArrayOpExpr *) node)->opfuncid >= FirstNormalObjectId)
				return true;
			break;
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
			if (exprType(node) >= FirstNormalObjectId)
				return true;
			break;
		default:
			break;
	}
	return expression_tree_walker(node, row_dependent_walker, params_ok);
}

/*
 * A row-independent sub-expression of built-in, non-volatile functions
 * over constants and parameters, in an expression evaluated for every row
 * the scan reads: it runs for each row whatever the sensitive values, so
 * whether it raises depends on no sensitive value (plpgsql's "age > 20 +
 * i % 30" under a generic plan).
 */
bool
tapas_row_independent(Node *node)
{
	bool		params_ok = true;

	return !IsA(node, Var) && !row_dependent_walker(node, &params_ok) &&
		!contain_volatile_functions(node);
}

/* a call of immutable built-in functions over constants only */
static bool
foldable(Node *node)
{
	bool		params_ok = false;

	switch (nodeTag(node))
	{
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
			break;
		default:
			return false;
	}
	return !row_dependent_walker(node, &params_ok) && !contain_mutable_functions(node);
}

/* the value of PARAM_EXTERN p when the plan is built for it alone, or NULL */
static Const *
bound_param(Param *p, ParamListInfo params)
{
	ParamExternData *prm;
	ParamExternData prmdata;
	int16		typlen;
	bool		typbyval;

	if (params == NULL || p->paramkind != PARAM_EXTERN || p->paramid <= 0 ||
		p->paramid > params->numParams)
		return NULL;
	prm = params->paramFetch ? params->paramFetch(params, p->paramid, false, &prmdata) :
		&params->params[p->paramid - 1];
	if (!OidIsValid(prm->ptype) || !(prm->pflags & PARAM_FLAG_CONST) ||
		prm->ptype != p->paramtype)
		return NULL;
	get_typlenbyval(p->paramtype, &typlen, &typbyval);
	return makeConst(p->paramtype, p->paramtypmod, p->paramcollid, (int) typlen,
					 prm->isnull ? (Datum) 0 : datumCopy(prm->value, typbyval, typlen),
					 prm->isnull, typbyval);
}

static pg_attribute_noreturn() void
refuse_fold(double bytes)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("constant expression in a query on a protected table is too large"),
			 errdetail("Its value would have %.0f bytes; at most %d are allowed: a large value costs time in every row that uses it.",
					   bytes, TAPAS_MAX_FOLD),
			 errhint("Shorten the constant expression.")));
	pg_unreachable();
}

/* the bytes of constant argument i of a call, -1 if not a non-null Const */
static double
fold_arg_bytes(List *args, int i)
{
	Const	   *c = list_length(args) > i ? (Const *) list_nth(args, i) : NULL;

	if (c == NULL || !IsA(c, Const) || c->constisnull)
		return -1;
	return c->constlen == -1 ? (double) VARSIZE_ANY(DatumGetPointer(c->constvalue)) :
		c->constlen > 0 ? c->constlen : -1;
}

/* an int4 constant argument i of a call, or 0 */
static double
fold_arg_int(List *args, int i)
{
	Const	   *c = list_length(args) > i ? (Const *) list_nth(args, i) : NULL;

	if (c == NULL || !IsA(c, Const) || c->constisnull || c->consttype != INT4OID)
		return 0;
	return DatumGetInt32(c->constvalue);
}

/*
 * Before a call that grows a value from a count is folded: refuses when
 * its result would exceed TAPAS_MAX_FOLD, without building it.  The value
 * is checked again after any fold (fold_check_result).
 */
static void
fold_check_growth(Node *node)
{
	FuncExpr   *f = IsA(node, FuncExpr) ? (FuncExpr *) node : NULL;
	double		bytes = 0;

	if (f == NULL)
		return;
	switch (f->funcid)
	{
		case F_REPEAT:			/* repeat(text, count) */
			bytes = Max(fold_arg_bytes(f->args, 0), 0) * fold_arg_int(f->args, 1);
			break;
		case F_LPAD_TEXT_INT4_TEXT:	/* lpad/rpad(text, length[, fill]): up to 4 bytes a character */
		case F_LPAD_TEXT_INT4:
		case F_RPAD_TEXT_INT4_TEXT:
		case F_RPAD_TEXT_INT4:
			bytes = 4 * fold_arg_int(f->args, 1);
			break;
		case F_ARRAY_FILL_ANYELEMENT__INT4:
		case F_ARRAY_FILL_ANYELEMENT__INT4__INT4:
			{
				Const	   *dims = (Const *) lsecond(f->args);
				ArrayType  *a;
				int			n;
				int32	   *d;

				if (!IsA(dims, Const) || dims->constisnull)
					return;
				a = DatumGetArrayTypeP(dims->constvalue);
				if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != INT4OID)
					return;		/* array_fill raises for these itself */
				n = ARR_DIMS(a)[0];
				d = (int32 *) ARR_DATA_PTR(a);
				bytes = 8;
				for (int i = 0; i < n; i++)
					bytes *= Max(d[i], 0);
				break;
			}
		default:
			return;
	}
	if (bytes > TAPAS_MAX_FOLD)
		refuse_fold(bytes);
}

/* a folded value above TAPAS_MAX_FOLD bytes refuses the query */
static void
fold_check_result(Const *c)
{
	if (!c->constisnull && c->constlen == -1 &&
		VARSIZE_ANY(DatumGetPointer(c->constvalue)) > TAPAS_MAX_FOLD)
		refuse_fold((double) VARSIZE_ANY(DatumGetPointer(c->constvalue)));
	if (!c->constisnull && c->constlen == -2 &&
		strlen(DatumGetCString(c->constvalue)) > TAPAS_MAX_FOLD)
		refuse_fold((double) strlen(DatumGetCString(c->constvalue)));
}

/* bottom-up, so a call becomes foldable once its arguments are folded */
static Node *
fold_mutator(Node *node, ParamListInfo params)
{
	Const	   *c;

	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, fold_mutator, params, 0);
	if (IsA(node, Param) && (c = bound_param((Param *) node, params)) != NULL)
		return (Node *) c;
	node = expression_tree_mutator(node, fold_mutator, params);
	if (foldable(node))
	{
		Const	   *folded;

		fold_check_growth(node);
		folded = (Const *) evaluate_expr((Expr *) node, exprType(node), exprTypmod(node),
										 exprCollation(node));
		fold_check_result(folded);
		return (Node *) folded;
	}
	return node;
}

/*
 * Evaluates, once and now, every row-independent sub-expression of q made
 * only of immutable built-in functions over constants, replacing it by its
 * value; parameters of a plan built for their values alone (a custom plan,
 * PARAM_FLAG_CONST) count as constants, as in eval_const_expressions.  An
 * error it raises is raised here, before any row is read; so is the
 * refusal of a folded value above TAPAS_MAX_FOLD bytes.
 */
void
tapas_allowlist_fold_query(Query *q, ParamListInfo params)
{
	(void) query_tree_mutator(q, fold_mutator, params, QTW_DONT_COPY_QUERY);
}
