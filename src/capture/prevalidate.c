/*-------------------------------------------------------------------------
 *
 * prevalidate.c
 *	  Arithmetic over quasi-identifiers, checked on every row of the table
 *	  before the query reads any, so that no error depends on a row.
 *
 * age + 5 > 60, age / 10 * 10, born + 365, extract(year FROM born)::int,
 * sex || '-' || zip: analysts write them every day, and each can raise
 * (integer or date out of range) on some value.  Raised per row inside the
 * query, such an error is a channel: in sum(CASE WHEN rare THEN age *
 * 23598530 ELSE 0 END) it says whether a rare patient is 91 or older.
 * Refusing every operator that can raise refuses that everyday SQL.
 *
 * So the allow-list (allowlist.c) admits a call of the built-in,
 * immutable, value-cost-free functions listed below when the whole call
 * reads only non-sensitive columns of the protected table, and records
 * it.  Before the query's first row, the gate (gate.c) evaluates every
 * recorded expression on every row of the table, under the statement's
 * snapshot, whatever the query's WHERE, FILTER or CASE would select.  An
 * error refuses the query as a whole (insufficient_privilege, the cause
 * in the detail); otherwise no evaluation in the query can raise: the
 * functions are immutable and the query reads the same rows.  What an
 * error then tells is that some row of the table holds values on which
 * the expression fails: a fact about the quasi-identifiers of the whole
 * table (like count(*) WHERE age >= 91, which tapas answers), never
 * about a sensitive value or about which rows the query selects.
 *
 * Not here, and so still refused per row: division and modulo by a row
 * value (an error at one value, a point oracle rather than an overflow at
 * an extreme one), casts from text, and every function whose cost grows
 * with a value (repeat, lpad, power): evaluated in a CASE branch, its
 * delay would still tell the rows that reach it.
 *
 * IDENTIFICATION
 *	  src/capture/prevalidate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/attmap.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_relation.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "capture/capture.h"

/*
 * Built-in immutable functions whose only errors are overflows of their
 * result type (and whose cost does not grow with a value): integer,
 * float, numeric, date, timestamp and interval arithmetic, narrowing
 * numeric casts, text concatenation and strpos.
 */
static const Oid prevalidated_funcs[] = {
	F_INT2PL, F_INT2MI, F_INT2MUL, F_INT2UM, F_INT2ABS,
	F_INT4PL, F_INT4MI, F_INT4MUL, F_INT4UM, F_INT4ABS, F_ABS_INT4,
	F_INT8PL, F_INT8MI, F_INT8MUL, F_INT8UM, F_INT8ABS, F_ABS_INT8, F_ABS_INT2,
	F_INT24PL, F_INT24MI, F_INT24MUL, F_INT42PL, F_INT42MI, F_INT42MUL,
	F_INT48PL, F_INT48MI, F_INT48MUL, F_INT84PL, F_INT84MI, F_INT84MUL,
	F_INT28PL, F_INT28MI, F_INT28MUL, F_INT82PL, F_INT82MI, F_INT82MUL,
	F_FLOAT4PL, F_FLOAT4MI, F_FLOAT4MUL, F_FLOAT8PL, F_FLOAT8MI, F_FLOAT8MUL,
	F_FLOAT48PL, F_FLOAT48MI, F_FLOAT48MUL, F_FLOAT84PL, F_FLOAT84MI, F_FLOAT84MUL,
	F_NUMERIC_ADD, F_NUMERIC_SUB, F_NUMERIC_MUL,
	F_INT4_INT8, F_INT2_INT4, F_INT2_INT8, F_INT4_NUMERIC, F_INT8_NUMERIC, F_INT2_NUMERIC,
	F_INT4_FLOAT8, F_INT8_FLOAT8, F_INT4_FLOAT4, F_INT2_FLOAT8, F_FLOAT4_FLOAT8,
	F_FLOAT8_NUMERIC,
	F_DATE_PLI, F_DATE_MII, F_DATE_MI, F_DATE_PL_INTERVAL, F_DATE_MI_INTERVAL,
	F_TIMESTAMP_PL_INTERVAL, F_TIMESTAMP_MI_INTERVAL, F_TIMESTAMP_MI,
	F_TIMESTAMPTZ_MI, F_INTERVAL_PL, F_INTERVAL_MI, F_INTERVAL_UM,
	F_TEXTCAT, F_STRPOS, F_POSITION_TEXT_TEXT,
};

/*
 * Divisions: by a non-zero constant only, where the errors left are over-
 * and underflows at extreme values; a row divisor would raise at one
 * value (a point oracle).
 */
static const Oid prevalidated_divisions[] = {
	F_FLOAT4DIV, F_FLOAT8DIV, F_FLOAT48DIV, F_FLOAT84DIV, F_NUMERIC_DIV, F_INTERVAL_DIV,
};

/* the expressions recorded while one Query is normalised (hooks.c) */
static List *collected = NIL;
static List *collected_roots = NIL;	/* their trees in the Query, for dedup */
static bool collecting = false;

void
tapas_prevalidate_collect_begin(void)
{
	collected = collected_roots = NIL;
	collecting = true;
}

/* the (relid Const, expression) pairs recorded since begin */
List *
tapas_prevalidate_collect_end(void)
{
	List	   *r = collected;

	collected = collected_roots = NIL;
	collecting = false;
	return r;
}

/* a non-NULL constant that is not zero */
static bool
nonzero_const(Node *node)
{
	Const	   *c = (Const *) node;
	Oid			typoutput;
	bool		varlena;
	char	   *text;

	if (node == NULL || !IsA(node, Const) || c->constisnull)
		return false;
	getTypeOutputInfo(c->consttype, &typoutput, &varlena);
	text = OidOutputFunctionCall(typoutput, c->constvalue);
	/* "0", "-0", "0.000", "0e5", "00:00:00": every digit zero */
	for (const char *p = text; *p; p++)
	{
		if (*p >= '1' && *p <= '9')
			return true;
		if (*p == 'e' || *p == 'E')
			break;
	}
	return false;
}

/* how many roots are recorded so far: a mark for tapas_prevalidate_guard */
int
tapas_prevalidate_mark(void)
{
	return list_length(collected);
}

/*
 * The non-sensitive WHERE conjuncts of one level guard each other, as in
 * WHERE zip <> 'N/A' AND zip::int >= 10002: the roots recorded since mark
 * that are whole conjuncts are replaced by one root, the AND of every
 * stand-alone conjunct in order, so a conjunct is checked on the rows the
 * ones before it keep.  All of them read non-sensitive columns only.
 */
void
tapas_prevalidate_guard(int mark, List *conjuncts, int varno, Oid relid)
{
	List	   *keep = NIL;
	List	   *keep_roots = NIL;
	List	   *args = NIL;
	bool		merged = false;
	ListCell   *lc;
	ListCell   *lr;

	if (!collecting || list_length(collected) <= mark)
		return;
	forboth(lc, collected, lr, collected_roots)
	{
		if (foreach_current_index(lc) >= mark && list_member_ptr(conjuncts, lfirst(lr)))
		{
			merged = true;
			continue;
		}
		keep = lappend(keep, lfirst(lc));
		keep_roots = lappend(keep_roots, lfirst(lr));
	}
	if (!merged)
		return;
	foreach(lc, conjuncts)
	{
		if (tapas_prevalidate_standalone(lfirst(lc), varno, relid))
			args = lappend(args, copyObject(lfirst(lc)));
	}
	collected = lappend(keep,
						list_make2(makeConst(OIDOID, -1, InvalidOid, sizeof(Oid),
											 ObjectIdGetDatum(relid), false, true),
								   make_ands_explicit(args)));
	collected_roots = lappend(keep_roots, NULL);
}

static bool
prevalidated_func(Oid funcid, Node *call)
{
	if (IsA(call, CoerceViaIO))
		return funcid == F_INT2IN || funcid == F_INT4IN || funcid == F_INT8IN ||
			funcid == F_NUMERIC_IN || funcid == F_FLOAT4IN || funcid == F_FLOAT8IN;
	for (int i = 0; i < lengthof(prevalidated_funcs); i++)
	{
		if (prevalidated_funcs[i] == funcid)
			return true;
	}
	for (int i = 0; i < lengthof(prevalidated_divisions); i++)
	{
		if (prevalidated_divisions[i] == funcid)
		{
			List	   *args = IsA(call, FuncExpr) ? ((FuncExpr *) call)->args :
				IsA(call, OpExpr) ? ((OpExpr *) call)->args : NIL;

			return list_length(args) == 2 && nonzero_const(lsecond(args));
		}
	}
	return false;
}

/*
 * Whether node can be evaluated on its own over a row of varno: Vars of
 * varno at this level only (at least one), no sensitive column, nothing
 * that needs an enclosing evaluation (an aggregate, a sub-query, an
 * executor parameter, the operand of an enclosing CASE).
 */
typedef struct StandaloneContext
{
	int			varno;
	const Bitmapset *sensitive;
	int			vars;
	int			case_depth;		/* inside a CASE or array coercion of node */
} StandaloneContext;

static bool
standalone_walker(Node *node, StandaloneContext *ctx)
{
	bool		r;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup != 0 || v->varno != ctx->varno || v->varattno <= 0 ||
			bms_is_member(v->varattno, ctx->sensitive))
			return true;
		ctx->vars++;
		return false;
	}
	if (IsA(node, CaseTestExpr))
		return ctx->case_depth == 0;
	if (IsA(node, Aggref) || IsA(node, SubLink) || IsA(node, GroupingFunc) ||
		IsA(node, WindowFunc) || IsA(node, Query) || IsA(node, CoerceToDomain) ||
		(IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN))
		return true;
	if (!IsA(node, CaseExpr) && !IsA(node, ArrayCoerceExpr))
		return expression_tree_walker(node, standalone_walker, ctx);
	ctx->case_depth++;
	r = expression_tree_walker(node, standalone_walker, ctx);
	ctx->case_depth--;
	return r;
}

bool
tapas_prevalidate_standalone(Node *node, int varno, Oid relid)
{
	const TapasProtection *prot = tapas_protection_lookup(relid);
	StandaloneContext ctx;

	if (!collecting || prot == NULL || varno <= 0)
		return false;
	ctx.varno = varno;
	ctx.sensitive = prot->sensitive;
	ctx.vars = 0;
	ctx.case_depth = 0;
	return !standalone_walker(node, &ctx) && ctx.vars > 0;
}

/*
 * Called by the allow-list for a call that can raise, with root its
 * largest enclosing non-sensitive expression (or NULL): records root and
 * returns true when the call is checked before the scan instead.
 */
bool
tapas_prevalidate_admit(Node *call, Node *root, Oid funcid, int varno, Oid relid)
{
	ListCell   *lc;

	if (!collecting || root == NULL || !prevalidated_func(funcid, call) ||
		func_volatile(funcid) != PROVOLATILE_IMMUTABLE)
		return false;
	foreach(lc, collected_roots)
	{
		if (lfirst(lc) == root)
			return true;
	}
	collected_roots = lappend(collected_roots, root);
	collected = lappend(collected,
						list_make2(makeConst(OIDOID, -1, InvalidOid, sizeof(Oid),
											 ObjectIdGetDatum(relid), false, true),
								   copyObject(root)));
	return true;
}

/*
 * A cast through text (zip::int with zip text) to a built-in number type,
 * whose input function is immutable: it raises on text that is not a
 * number, so it is checked on every row like the arithmetic above.
 */
bool
tapas_prevalidate_admit_cast(Node *cast, Node *root, int varno, Oid relid)
{
	CoerceViaIO *c = (CoerceViaIO *) cast;
	Oid			typinput;
	Oid			typioparam;

	switch (c->resulttype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
		case FLOAT4OID:
		case FLOAT8OID:
			break;
		default:
			return false;
	}
	switch (exprType((Node *) c->arg))
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
			break;
		default:
			return false;
	}
	getTypeInputInfo(c->resulttype, &typinput, &typioparam);
	return tapas_prevalidate_admit(cast, root, typinput, varno, relid);
}

/* ----------------------------------------------------------------
 *		The check, at executor start
 * ----------------------------------------------------------------
 */

typedef struct PrevalidateErrorContext
{
	Oid			relid;
} PrevalidateErrorContext;

/* the expressions of items over relid, Vars renumbered for rel's columns */
static List *
exprs_for(List *items, Oid relid, Relation rel, Relation parent)
{
	List	   *exprs = NIL;
	AttrMap    *map = NULL;
	ListCell   *lc;

	if (parent != NULL)
		map = build_attrmap_by_name(RelationGetDescr(rel), RelationGetDescr(parent));
	foreach(lc, items)
	{
		List	   *item = lfirst(lc);
		Node	   *e = lsecond(item);

		if (DatumGetObjectId(((Const *) linitial(item))->constvalue) != relid)
			continue;
		if (map != NULL)
		{
			bool		whole_row;
			int			varno = -1;
			List	   *vars = pull_var_clause(e, 0);

			if (vars != NIL)
				varno = ((Var *) linitial(vars))->varno;
			e = map_variable_attnos(e, varno, 0, map, InvalidOid, &whole_row);
		}
		exprs = lappend(exprs, e);
	}
	return exprs;
}

/* evaluates exprs on every row of rel (a table, not partitioned) */
static void
scan_one(Relation rel, List *exprs, EState *estate)
{
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan = table_beginscan(rel, estate->es_snapshot, 0, NULL);
	ExprContext *econtext = CreateStandaloneExprContext();
	int			n = list_length(exprs);
	ExprState **states = palloc(sizeof(ExprState *) * n);
	uint64		rows = 0;
	int			i = 0;
	ListCell   *lc;

	econtext->ecxt_param_list_info = estate->es_param_list_info;
	foreach(lc, exprs)
		states[i++] = ExecInitExpr((Expr *) lfirst(lc), NULL);
	econtext->ecxt_scantuple = slot;
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;

		if ((++rows & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		for (i = 0; i < n; i++)
			(void) ExecEvalExprSwitchContext(states[i], econtext, &isnull);
		ResetExprContext(econtext);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExprContext(econtext, true);
}

/* every leaf of relid (itself unless partitioned) */
static void
scan_table(Oid relid, List *items, EState *estate)
{
	Relation	parent = table_open(relid, AccessShareLock);
	List	   *leaves = list_make1_oid(relid);
	ListCell   *lc;

	if (parent->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		leaves = find_all_inheritors(relid, AccessShareLock, NULL);
	foreach(lc, leaves)
	{
		Oid			leaf = lfirst_oid(lc);
		Relation	rel;

		if (get_rel_relkind(leaf) == RELKIND_PARTITIONED_TABLE)
			continue;
		if (get_rel_relkind(leaf) != RELKIND_RELATION &&
			get_rel_relkind(leaf) != RELKIND_MATVIEW)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("arithmetic over columns of protected table \"%s\" cannot be checked on partition \"%s\"",
							RelationGetRelationName(parent), get_rel_name(leaf)),
					 errhint("Write the condition without arithmetic on the columns.")));
		rel = leaf == relid ? parent : table_open(leaf, AccessShareLock);
		scan_one(rel, exprs_for(items, relid, rel, rel == parent ? NULL : parent), estate);
		if (rel != parent)
			table_close(rel, AccessShareLock);
	}
	table_close(parent, AccessShareLock);
}

/*
 * Evaluates every recorded expression (items: (relid Const, expression)
 * pairs) on every row of its table.  An error refuses the query: the
 * cause goes to the detail, since it depends only on the whole table's
 * non-sensitive values.  Cancellation and out-of-memory pass through.
 */
void
tapas_prevalidate_run(List *items, EState *estate)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	List	   *relids = NIL;
	ListCell   *lc;
	volatile Oid failed = InvalidOid;
	ErrorData  *edata = NULL;

	if (items == NIL)
		return;
	foreach(lc, items)
		relids = list_append_unique_oid(relids,
										DatumGetObjectId(((Const *) linitial((List *) lfirst(lc)))->constvalue));
	if (IsInParallelMode())
	{
		foreach(lc, relids)
			scan_table(lfirst_oid(lc), items, estate);
		return;
	}
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		foreach(lc, relids)
		{
			failed = lfirst_oid(lc);
			scan_table(failed, items, estate);
		}
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		failed = InvalidOid;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_OUT_OF_MEMORY ||
			edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_END_TRY();
	if (edata != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("arithmetic or a cast in a query on protected table \"%s\" fails on some row of the table",
						get_rel_name(failed)),
				 errdetail("tapas evaluates arithmetic and casts on columns once on every row before the query, so that no error depends on the rows a query selects; here it raised SQLSTATE %s.",
						   unpack_sql_state(edata->sqlerrcode)),
				 errhint("Write it so that it cannot fail on the rows it is checked on: put a guard before it (WHERE zip <> 'N/A' AND zip::int > 5, or CASE WHEN ... THEN ... END), or cast to bigint or numeric before arithmetic.")));
}
