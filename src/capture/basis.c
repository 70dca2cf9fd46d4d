/*-------------------------------------------------------------------------
 *
 * basis.c
 *	  Canonical identity of a basis value phi: a
 *	  function of the sensitive columns of one row, kept as a node tree
 *	  that tapas builds, and its statistic text, the ledger key.
 *
 * A basis phi (over varno 1 = the protected table) is brought to the
 * product form  value * 1[indicator]  wherever algebra decides it:
 *	1. sensitive atoms are collected: boolean sensitive columns, and
 *	   maximal boolean sub-expressions that read a sensitive column but no
 *	   boolean one (income > 50, diagnosis = 'flu', income IS NULL);
 *	   comparisons are written column first (50 < income -> income > 50)
 *	   and sorted by their deparsed text; at most TAPAS_MAX_S_ATOMS;
 *	2. every assignment of the atoms (true / false / null; only true and
 *	   false for an atom that cannot be null: a NOT NULL column compared
 *	   with a constant) is substituted and folded; each result must be 0,
 *	   or one common value: a constant (count) or an expression without
 *	   atoms (sum, e.g. income);
 *	3. the indicator is the set of assignments with a non-zero result, an
 *	   exact 3-valued truth table; atoms it does not depend on are dropped
 *	   and it is written as a conjunction of per-atom literals when it is
 *	   a product set, as a disjunction of literals when its complement
 *	   is one, else as the disjunction of its minterms.
 * So rare, rare = true, rare IS TRUE, rare::int = 1, CASE WHEN rare THEN 1
 * ELSE 0 END, count(rare) FILTER (WHERE rare), sum(rare::int) and
 * count(*) FILTER (WHERE rare) are all "count(*) filter (where rare)";
 * rare IS NOT FALSE is too exactly when rare is NOT NULL.  A constant
 * factor is dropped (2 * 1[rare] is logged as 1[rare]: the same
 * knowledge).  What algebra does not decide here (two comparisons of one
 * column, income > 50 vs income >= 51; sums of several values; IN
 * lists longer than TAPAS_MAX_S_ATOMS, which stay one atom; small IN
 * lists become ORs of equalities) keeps a structural text, and is left to the joint
 * audit's unification by value.
 *
 * The text is produced by tapas from the canonical tree (PostgreSQL's
 * deparser: every literal is quoted and escaped); it is never split or
 * parsed back.  Texts longer than TAPAS_LEDGER_MAX_STATISTIC keep a
 * prefix and a 64-bit hash of the whole text.
 *
 * IDENTIFICATION
 *	  src/capture/basis.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "port/pg_bitutils.h"
#include "parser/parse_coerce.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "capture/capture.h"

/* ----------------------------------------------------------------
 *		Constants and arithmetic
 * ----------------------------------------------------------------
 */

/* the value of a numeric constant as a double; false if not numeric */
static bool
const_double(Node *node, double *v)
{
	Const	   *c;

	if (node == NULL || !IsA(node, Const) || ((Const *) node)->constisnull)
		return false;
	c = (Const *) node;
	switch (c->consttype)
	{
		case INT2OID:
			*v = DatumGetInt16(c->constvalue);
			return true;
		case INT4OID:
			*v = DatumGetInt32(c->constvalue);
			return true;
		case INT8OID:
			*v = (double) DatumGetInt64(c->constvalue);
			return true;
		case FLOAT4OID:
			*v = DatumGetFloat4(c->constvalue);
			return true;
		case FLOAT8OID:
			*v = DatumGetFloat8(c->constvalue);
			return true;
		case NUMERICOID:
			*v = DatumGetFloat8(DirectFunctionCall1(numeric_float8, c->constvalue));
			return true;
		default:
			return false;
	}
}

/* true for NULL and numeric zero: a per-row value that adds nothing */
bool
tapas_is_zero(Node *node)
{
	double		v;

	if (node != NULL && IsA(node, Const) && ((Const *) node)->constisnull)
		return true;
	return const_double(node, &v) && v == 0.0;
}

static bool
is_one(Node *node)
{
	double		v;

	return const_double(node, &v) && v == 1.0;
}

/* x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1 -> x; x * NULL -> NULL */
static Node *
arith_mutator(Node *node, void *unused)
{
	OpExpr	   *op;
	Node	   *l,
			   *r;
	char	   *name;

	if (node == NULL)
		return NULL;
	node = expression_tree_mutator(node, arith_mutator, unused);
	if (!IsA(node, OpExpr) || list_length(((OpExpr *) node)->args) != 2)
		return node;
	op = (OpExpr *) node;
	l = linitial(op->args);
	r = lsecond(op->args);
	name = get_opname(op->opno);
	if (name == NULL || strlen(name) != 1)
		return node;
	/*
	 * x * NULL is NULL.  x * 0 is not: it is 0 where x is not NULL, and
	 * inside COALESCE(nullif(age, 91) * 0, income) that difference is the
	 * target's income, so it is left for the normal form to see.
	 */
	if (name[0] == '*' && ((IsA(l, Const) && ((Const *) l)->constisnull) ||
						   (IsA(r, Const) && ((Const *) r)->constisnull)))
		return (Node *) makeNullConst(op->opresulttype, -1, InvalidOid);
	if (name[0] == '*' && is_one(l) && exprType(r) == op->opresulttype)
		return r;
	if ((name[0] == '*' || name[0] == '/') && is_one(r) && exprType(l) == op->opresulttype)
		return l;
	if (name[0] == '+' && IsA(l, Const) && !((Const *) l)->constisnull &&
		tapas_is_zero(l) && exprType(r) == op->opresulttype)
		return r;
	if ((name[0] == '+' || name[0] == '-') && IsA(r, Const) && !((Const *) r)->constisnull &&
		tapas_is_zero(r) && exprType(l) == op->opresulttype)
		return l;
	return node;
}

/* folds constants (immutable functions only) and trivial arithmetic */
Node *
tapas_simplify(Node *expr)
{
	return arith_mutator(eval_const_expressions(NULL, expr), NULL);
}

/* ----------------------------------------------------------------
 *		Sensitive atoms
 * ----------------------------------------------------------------
 */

static bool
has_bool_var_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->vartype == BOOLOID;
	return expression_tree_walker(node, has_bool_var_walker, ctx);
}

typedef struct SAtoms
{
	List	   *atoms;
	bool		overflow;
} SAtoms;

static bool
s_atoms_walker(Node *node, SAtoms *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->vartype == BOOLOID)
	{
		if (!list_member(ctx->atoms, node))
			ctx->atoms = lappend(ctx->atoms, node);
		return false;
	}
	if (!IsA(node, List) && exprType(node) == BOOLOID && !IsA(node, BoolExpr) && !IsA(node, BooleanTest) &&
		!IsA(node, CaseExpr) && !IsA(node, CoalesceExpr) && !IsA(node, Const) &&
		!IsA(node, Param) && contain_var_clause(node) && !has_bool_var_walker(node, NULL))
	{
		if (!list_member(ctx->atoms, node))
			ctx->atoms = lappend(ctx->atoms, node);
		return false;
	}
	return expression_tree_walker(node, s_atoms_walker, ctx);
}

/* "const op expr" -> "expr op' const", so 30 < age reads as age > 30 */
static Node *
commute_const_left(Node *node)
{
	OpExpr	   *op;
	Oid			comm;

	if (!IsA(node, OpExpr) || list_length(((OpExpr *) node)->args) != 2)
		return node;
	op = (OpExpr *) node;
	if (!IsA(linitial(op->args), Const) || IsA(lsecond(op->args), Const))
		return node;
	comm = get_commutator(op->opno);
	if (!OidIsValid(comm))
		return node;
	op = (OpExpr *) copyObject(op);
	op->opno = comm;
	op->opfuncid = InvalidOid;
	op->args = list_make2(lsecond(op->args), linitial(op->args));
	return (Node *) op;
}

/*
 * x IN (c1, ..., cm) -> x = c1 OR ... OR x = cm for a constant array of
 * at most TAPAS_MAX_S_ATOMS non-null elements, so both spellings meet.
 */
static Node *
in_list_mutator(Node *node, void *unused)
{
	ScalarArrayOpExpr *sa;
	Const	   *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Oid			etype;
	List	   *ors = NIL;

	if (node == NULL)
		return NULL;
	node = expression_tree_mutator(node, in_list_mutator, unused);
	if (!IsA(node, ScalarArrayOpExpr))
		return node;
	sa = (ScalarArrayOpExpr *) node;
	if (!sa->useOr || list_length(sa->args) != 2 || !IsA(lsecond(sa->args), Const) ||
		((Const *) lsecond(sa->args))->constisnull)
		return node;
	arr = lsecond(sa->args);
	etype = get_element_type(arr->consttype);
	if (!OidIsValid(etype))
		return node;
	get_typlenbyvalalign(etype, &typlen, &typbyval, &typalign);
	deconstruct_array(DatumGetArrayTypeP(arr->constvalue), etype, typlen, typbyval,
					  typalign, &elems, &nulls, &n);
	if (n < 1 || n > TAPAS_MAX_S_ATOMS)
		return node;
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			return node;
		ors = lappend(ors, make_opclause(sa->opno, BOOLOID, false,
										 (Expr *) copyObject(linitial(sa->args)),
										 (Expr *) makeConst(etype, -1, arr->constcollid, typlen,
															elems[i], false, typbyval),
										 InvalidOid, sa->inputcollid));
	}
	return n == 1 ? linitial(ors) : (Node *) make_orclause(ors);
}

/* IS NOT NULL -> NOT (IS NULL), so both spellings share one atom */
static Node *
nulltest_mutator(Node *node, void *unused)
{
	if (node == NULL)
		return NULL;
	node = expression_tree_mutator(node, nulltest_mutator, unused);
	if (IsA(node, NullTest) && ((NullTest *) node)->nulltesttype == IS_NOT_NULL &&
		!((NullTest *) node)->argisrow)
	{
		NullTest   *nt = (NullTest *) copyObject(node);

		nt->nulltesttype = IS_NULL;
		return (Node *) make_notclause((Expr *) nt);
	}
	return (Node *) commute_const_left(node);
}

/* true when atom can never be null: NOT NULL columns and constants under a strict operator */
bool
tapas_atom_not_null(Node *atom, Oid relid)
{
	ListCell   *lc;

	if (IsA(atom, NullTest))
		return true;
	if (IsA(atom, Var))
	{
		HeapTuple	tp;
		bool		nn = false;

		tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
							 Int16GetDatum(((Var *) atom)->varattno));
		if (HeapTupleIsValid(tp))
		{
			nn = ((Form_pg_attribute) GETSTRUCT(tp))->attnotnull;
			ReleaseSysCache(tp);
		}
		return nn;
	}
	if (IsA(atom, RelabelType))
		return tapas_atom_not_null((Node *) ((RelabelType *) atom)->arg, relid);
	if (IsA(atom, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) atom;

		if (!func_strict(get_opcode(op->opno)))
			return false;
		foreach(lc, op->args)
		{
			Node	   *a = lfirst(lc);

			if (IsA(a, Const) ? ((Const *) a)->constisnull : !tapas_atom_not_null(a, relid))
				return false;
		}
		return true;
	}
	return false;
}

/* ----------------------------------------------------------------
 *		The indicator: a 3-valued truth table
 * ----------------------------------------------------------------
 */

typedef struct Table
{
	int			n;				/* atoms */
	Node	   *atoms[TAPAS_MAX_S_ATOMS];
	int			dom[TAPAS_MAX_S_ATOMS]; /* 2 or 3 */
	int			size;			/* product of dom */
	bool	   *on;				/* [size] the indicator */
	bool		used[TAPAS_MAX_S_ATOMS];	/* the indicator depends on atom i */
} Table;

static int
index_of(const Table *t, const int *value)
{
	int			idx = 0;

	for (int i = t->n - 1; i >= 0; i--)
		idx = idx * t->dom[i] + value[i];
	return idx;
}

static void
decode(const Table *t, int idx, int *value)
{
	for (int i = 0; i < t->n; i++)
	{
		value[i] = idx % t->dom[i];
		idx /= t->dom[i];
	}
}

/* marks the atoms the indicator depends on */
static void
find_used(Table *t)
{
	int			value[TAPAS_MAX_S_ATOMS];

	for (int i = 0; i < t->n; i++)
	{
		t->used[i] = false;
		for (int idx = 0; idx < t->size && !t->used[i]; idx++)
		{
			decode(t, idx, value);
			for (int v = 0; v < t->dom[i]; v++)
			{
				int			saved = value[i];

				value[i] = v;
				if (t->on[index_of(t, value)] != t->on[idx])
					t->used[i] = true;
				value[i] = saved;
			}
		}
	}
}

/* the literal "atom takes a value in set" (bit v of set: value v) */
static Node *
literal(const Table *t, int i, int set)
{
	Node	   *a = copyObject(t->atoms[i]);
	int			full = (1 << t->dom[i]) - 1;
	BooleanTest *bt;

	if (set == (1 << TAPAS_TV_TRUE))
		return a;
	if (set == (1 << TAPAS_TV_FALSE) || (t->dom[i] == 2 && set == (full & ~(1 << TAPAS_TV_TRUE))))
	{
		if (IsA(a, NullTest))
		{
			((NullTest *) a)->nulltesttype = IS_NOT_NULL;
			return a;
		}
		return (Node *) make_notclause((Expr *) a);
	}
	bt = makeNode(BooleanTest);
	bt->arg = (Expr *) a;
	bt->location = -1;
	if (set == (1 << TAPAS_TV_NULL))
		bt->booltesttype = IS_UNKNOWN;
	else if (set == ((1 << TAPAS_TV_TRUE) | (1 << TAPAS_TV_NULL)))
		bt->booltesttype = IS_NOT_FALSE;
	else if (set == ((1 << TAPAS_TV_FALSE) | (1 << TAPAS_TV_NULL)))
		bt->booltesttype = IS_NOT_TRUE;
	else
		bt->booltesttype = IS_NOT_UNKNOWN;
	return (Node *) bt;
}

/*
 * The indicator as an expression: a conjunction of literals when the "on"
 * set is a product of per-atom sets, else the disjunction of its minterms;
 * NULL when it is always on.
 */
static Node *
indicator_expr(Table *t)
{
	int			sets[TAPAS_MAX_S_ATOMS];
	int			value[TAPAS_MAX_S_ATOMS];
	int			non = 0;
	int			prod = 1;
	int			unused = 1;
	List	   *lits = NIL;
	List	   *minterms = NIL;

	find_used(t);
	for (int i = 0; i < t->n; i++)
		sets[i] = 0;
	for (int idx = 0; idx < t->size; idx++)
	{
		if (!t->on[idx])
			continue;
		non++;
		decode(t, idx, value);
		for (int i = 0; i < t->n; i++)
			sets[i] |= 1 << value[i];
	}
	for (int i = 0; i < t->n; i++)
	{
		if (!t->used[i])
			continue;
		prod *= pg_popcount32(sets[i]);
		lits = lappend(lits, literal(t, i, sets[i]));
	}
	/*
	 * Unused atoms are don't-cares, so the "on" set is S_U x (their whole
	 * domains), and it is a product set exactly when |S_U| = prod |sets[i]|.
	 */
	for (int i = 0; i < t->n; i++)
		if (!t->used[i])
			unused *= t->dom[i];
	if (non == prod * unused)
		return lits == NIL ? NULL : (Node *) make_ands_explicit(lits);

	/* the "off" set a product: a disjunction of literals (a OR b) */
	lits = NIL;
	prod = 1;
	for (int i = 0; i < t->n; i++)
		sets[i] = 0;
	for (int idx = 0; idx < t->size; idx++)
	{
		if (t->on[idx])
			continue;
		decode(t, idx, value);
		for (int i = 0; i < t->n; i++)
			sets[i] |= 1 << value[i];
	}
	for (int i = 0; i < t->n; i++)
	{
		if (!t->used[i])
			continue;
		prod *= pg_popcount32(sets[i]);
		if ((((1 << t->dom[i]) - 1) & ~sets[i]) != 0)	/* else: a false literal */
			lits = lappend(lits, literal(t, i, ((1 << t->dom[i]) - 1) & ~sets[i]));
	}
	if (t->size - non == prod * unused)
		return (Node *) make_orclause(lits);
	/* the minterms over used atoms, each once */
	for (int idx = 0; idx < t->size; idx++)
	{
		List	   *m = NIL;
		bool		first = true;

		if (!t->on[idx])
			continue;
		decode(t, idx, value);
		for (int i = 0; i < t->n && first; i++)
			if (!t->used[i] && value[i] != 0)
				first = false;	/* count each used combination at its unused = 0 */
		if (!first)
			continue;
		for (int i = 0; i < t->n; i++)
			if (t->used[i])
				m = lappend(m, literal(t, i, 1 << value[i]));
		minterms = lappend(minterms, make_ands_explicit(m));
	}
	return (Node *) make_orclause(minterms);
}

/* ----------------------------------------------------------------
 *		The canonical basis
 * ----------------------------------------------------------------
 */

static int
cmp_atom(const void *a, const void *b)
{
	return strcmp(((char *const *) a)[1], ((char *const *) b)[1]);
}

/* a value without widening numeric casts: sum(income::float8) is sum(income) */
static Node *
strip_numeric_casts(Node *v)
{
	for (;;)
	{
		if (IsA(v, RelabelType))
			v = (Node *) ((RelabelType *) v)->arg;
		else if (IsA(v, FuncExpr) && ((FuncExpr *) v)->funcformat != COERCE_EXPLICIT_CALL &&
				 list_length(((FuncExpr *) v)->args) == 1 &&
				 IsA(linitial(((FuncExpr *) v)->args), Var))
		{
			Oid			from = exprType(linitial(((FuncExpr *) v)->args));
			Oid			to = ((FuncExpr *) v)->funcresulttype;

			if ((from == INT2OID || from == INT4OID || from == INT8OID || from == FLOAT4OID) &&
				(to == INT4OID || to == INT8OID || to == NUMERICOID || to == FLOAT8OID))
				v = linitial(((FuncExpr *) v)->args);
			else
				return v;
		}
		else
			return v;
	}
}

static Node *
float8_of(Node *expr)
{
	Node	   *r;

	if (exprType(expr) == FLOAT8OID)
		return expr;
	r = coerce_to_target_type(NULL, expr, exprType(expr), FLOAT8OID, -1,
							  COERCION_EXPLICIT, COERCE_EXPLICIT_CAST, -1);
	if (r == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("aggregate values over a protected table must be numbers")));
	return r;
}

static Node *
float8_const(double v)
{
	return (Node *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8),
							  Float8GetDatum(v), false, FLOAT8PASSBYVAL);
}

/* the deparsed text of expr over varno 1 = relid */
static char *
deparse(Node *expr, Oid relid)
{
	return deparse_expression(expr, deparse_context_for(get_rel_name(relid), relid),
							  false, false);
}

/* a condition's text, a top-level AND or OR without its outer parentheses */
static char *
deparse_condition(Node *cond, Oid relid)
{
	StringInfoData buf;
	ListCell   *lc;

	if (!is_andclause(cond) && !is_orclause(cond))
		return deparse(cond, relid);
	initStringInfo(&buf);
	foreach(lc, ((BoolExpr *) cond)->args)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? (is_andclause(cond) ? " AND " : " OR ") : "",
						 deparse(lfirst(lc), relid));
	return buf.data;
}

/*
 * The stable identifier of a basis value: a 64-bit hash of its canonical
 * text (hash_bytes_extended, seed 0; the same on every server).
 */
int64
tapas_basis_id(const char *text)
{
	return (int64) hash_bytes_extended((const unsigned char *) text, strlen(text), 0);
}

/* a text of any length made to fit the ledger: prefix and 64-bit hash */
static char *
fit_text(char *text)
{
	int			len = strlen(text);
	int			keep;
	uint64		h;

	if (len <= TAPAS_LEDGER_MAX_STATISTIC)
		return text;
	h = hash_bytes_extended((const unsigned char *) text, len, 0);
	keep = pg_mbcliplen(text, len, TAPAS_LEDGER_MAX_STATISTIC - 40);
	return psprintf("%.*s... #%016llx", keep, text, (unsigned long long) h);
}

/* the opaque basis: no product form found; phi itself, structural text */
static TapasBasis *
opaque(Node *phi, Oid relid, bool sensitive)
{
	TapasBasis *b = palloc0(sizeof(TapasBasis));

	b->kind = TAPAS_BASIS_VALUE;
	b->sensitive = sensitive;
	b->phi = copyObject(phi);
	b->tree = float8_of(copyObject(phi));
	b->text = fit_text(psprintf("sum(%s)", deparse(phi, relid)));
	return b;
}

/*
 * The canonical basis of phi, an expression over varno 1 = relid that
 * reads no column outside sensitive (or none at all).
 */
TapasBasis *
tapas_basis_make(Node *phi, Oid relid, const Bitmapset *sensitive)
{
	TapasBasis *b;
	SAtoms		sa;
	Table		t;
	Node	   *leaf = NULL;
	Node	   *ind;
	Node	   *value;
	char	   *atext[TAPAS_MAX_S_ATOMS * 2];
	int			vals[TAPAS_MAX_S_ATOMS];
	ListCell   *lc;
	bool		s,
				o;

	phi = tapas_simplify(nulltest_mutator(in_list_mutator(tapas_searched_case(copyObject(phi), NULL),
													  NULL), NULL));
	tapas_expr_reads(phi, 1, sensitive, &s, &o);
	b = palloc0(sizeof(TapasBasis));
	if (tapas_is_zero(phi))
	{
		b->kind = TAPAS_BASIS_ZERO;
		return b;
	}
	if (!s)
	{
		/* public: a constant is count(*); a value of public columns is its own text */
		if (IsA(phi, Const))
		{
			b->kind = TAPAS_BASIS_COUNT;
			b->phi = (Node *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true);
			b->tree = float8_const(1.0);
			b->text = pstrdup("count(*)");
			return b;
		}
		return opaque(phi, relid, false);
	}

	/* 1. sensitive atoms, sorted by their text */
	sa.atoms = NIL;
	sa.overflow = false;
	(void) s_atoms_walker(phi, &sa);
	if (list_length(sa.atoms) > TAPAS_MAX_S_ATOMS)
		return opaque(phi, relid, true);
	memset(&t, 0, sizeof(t));
	t.n = list_length(sa.atoms);
	foreach(lc, sa.atoms)
	{
		int			i = foreach_current_index(lc);

		atext[2 * i] = (char *) lfirst(lc);
		atext[2 * i + 1] = deparse(lfirst(lc), relid);
	}
	qsort(atext, t.n, 2 * sizeof(char *), cmp_atom);
	sa.atoms = NIL;
	t.size = 1;
	for (int i = 0; i < t.n; i++)
	{
		t.atoms[i] = (Node *) atext[2 * i];
		sa.atoms = lappend(sa.atoms, t.atoms[i]);
		t.dom[i] = tapas_atom_not_null(t.atoms[i], relid) ? 2 : 3;
		t.size *= t.dom[i];
		vals[i] = 0;
	}

	/* 2. every assignment gives 0 or the one common value */
	t.on = palloc0(sizeof(bool) * t.size);
	do
	{
		Node	   *r = tapas_substitute_atoms(phi, sa.atoms, vals);

		if (tapas_is_zero(r))
			continue;
		if (IsA(r, Const))
			r = (Node *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true);
		else
			r = strip_numeric_casts(r);
		if (leaf != NULL && !equal(leaf, r))
			return opaque(phi, relid, true);
		if (!IsA(r, Const))
		{
			SAtoms		inner = {NIL, false};

			(void) s_atoms_walker(r, &inner);
			if (inner.atoms != NIL || exprType(r) == BOOLOID)
				return opaque(phi, relid, true);
		}
		leaf = r;
		t.on[index_of(&t, vals)] = true;
	} while (tapas_next_assignment(vals, t.dom, t.n));
	if (leaf == NULL)
	{
		b->kind = TAPAS_BASIS_ZERO;
		return b;
	}

	/* 3. the canonical tree and its text */
	ind = indicator_expr(&t);
	b->sensitive = true;
	if (IsA(leaf, Const))
	{
		b->kind = TAPAS_BASIS_COUNT;
		b->text = pstrdup("count(*)");
	}
	else
	{
		b->kind = TAPAS_BASIS_VALUE;
		b->text = psprintf("sum(%s)", deparse(leaf, relid));
	}
	value = copyObject(leaf);
	if (ind != NULL)
	{
		b->text = psprintf("%s filter (where %s)", b->text, deparse_condition(ind, relid));
		b->phi = tapas_make_case(ind, value,
								 (Node *) makeNullConst(exprType(value), exprTypmod(value),
														exprCollation(value)));
	}
	else
		b->phi = value;
	b->tree = float8_of(copyObject(b->phi));
	b->text = fit_text(b->text);
	return b;
}
