/*-------------------------------------------------------------------------
 *
 * allowlist_calls.c
 *	  Which built-in calls cannot raise on any row: the classes of
 *	  functions and operators that allowlist.c admits beyond those marked
 *	  leakproof (widening numeric casts, btree comparison operators, casts
 *	  to text through a built-in output function) and tapas.design_member
 *	  with constant design arguments.
 *
 * IDENTIFICATION
 *	  src/capture/allowlist_calls.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/dependency.h"
#include "catalog/pg_cast.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "capture/capture.h"

/*
 * The cast function pg_cast names for from -> to: a one-argument
 * function between the same types is not a cast (factorial(int8) returns
 * numeric, costs O(its argument) and raises on large ones).
 */
static bool
is_cast_function(Oid funcid, Oid from, Oid to)
{
	HeapTuple	tup = SearchSysCache2(CASTSOURCETARGET, ObjectIdGetDatum(from),
									  ObjectIdGetDatum(to));
	bool		r;

	if (!HeapTupleIsValid(tup))
		return false;
	r = ((Form_pg_cast) GETSTRUCT(tup))->castfunc == funcid;
	ReleaseSysCache(tup);
	return r;
}

/* widening casts between pg_catalog numeric types cannot fail */
bool
tapas_allow_widening_cast(Oid funcid, Oid from, Oid to)
{
	bool		widening;

	if (funcid >= FirstNormalObjectId)
		return false;
	switch (from)
	{
		case BOOLOID:
			widening = to == INT4OID;
			break;
		case INT2OID:
			widening = to == INT4OID || to == INT8OID || to == FLOAT4OID ||
				to == FLOAT8OID || to == NUMERICOID;
			break;
		case INT4OID:
			widening = to == INT8OID || to == FLOAT4OID || to == FLOAT8OID || to == NUMERICOID;
			break;
		case INT8OID:
			widening = to == FLOAT4OID || to == FLOAT8OID || to == NUMERICOID;
			break;
		case FLOAT4OID:
			widening = to == FLOAT8OID;
			break;
		default:
			widening = false;
	}
	return widening && is_cast_function(funcid, from, to);
}

/*
 * Comparison operators of PostgreSQL's own btree operator classes (e.g.
 * numeric's <, =, >) cannot fail on any input even where pg_proc does not
 * mark them leakproof.
 */
bool
tapas_allow_builtin_comparison(Oid opno)
{
	return opno < FirstNormalObjectId && get_op_btree_interpretation(opno) != NIL;
}

/* tapas.design_member: the C function of that name that belongs to tapas */
bool
tapas_allow_is_design_member(Oid funcid)
{
	HeapTuple	tup;
	Form_pg_proc p;
	Oid			ext = get_extension_oid("tapas", true);
	bool		r;

	if (!OidIsValid(ext))
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		return false;
	p = (Form_pg_proc) GETSTRUCT(tup);
	r = p->prolang == ClanguageId && strcmp(NameStr(p->proname), "design_member") == 0;
	ReleaseSysCache(tup);
	r = r && getExtensionOfObject(ProcedureRelationId, funcid) == ext;
	return r;
}

/*
 * design_member(method, n, s, query_no, record, k, seed): record is the
 * row argument.  With constant design arguments, a probe call (record 1)
 * raises now for an invalid design, whatever the rows; parameters (only
 * where the call runs for every row) cannot be probed.
 */
bool
tapas_allow_design_member_call(Oid funcid, List *args, bool params_ok, uint32 *rowargs)
{
	ListCell   *lc;
	List	   *probe = NIL;
	bool		params = false;

	*rowargs = 1 << 4;
	foreach(lc, args)
	{
		Node	   *a = lfirst(lc);

		if (foreach_current_index(lc) == 4)
			a = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
								   Int64GetDatum(1), false, FLOAT8PASSBYVAL);
		else if (params_ok && IsA(a, Param))
			params = true;
		else if (!IsA(a, Const))
			return false;
		probe = lappend(probe, a);
	}
	/* the planner, not the parser, adds the defaults k = 0, seed = 0 */
	while (list_length(probe) < 7)
		probe = lappend(probe, makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
										 Int64GetDatum(0), false, FLOAT8PASSBYVAL));
	if (!params && exprType(list_nth(args, 4)) == INT8OID)
		(void) evaluate_expr((Expr *) makeFuncExpr(funcid, BOOLOID, probe, InvalidOid,
												   InvalidOid, COERCE_EXPLICIT_CALL),
							 BOOLOID, -1, InvalidOid);
	return true;
}

/* a cast to text through a built-in output function cannot raise */
bool
tapas_allow_text_output_cast(CoerceViaIO *c)
{
	Oid			from = exprType((Node *) c->arg);
	Oid			typoutput;
	bool		varlena;

	if (c->resulttype != TEXTOID || from >= FirstNormalObjectId)
		return false;
	getTypeOutputInfo(from, &typoutput, &varlena);
	return typoutput < FirstNormalObjectId;
}
