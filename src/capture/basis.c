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
 * knowledge); several constants are not one factor (CASE WHEN rare THEN
 * 2 ELSE 1 END is 1 + 1[rare]) and keep a structural text.  What algebra
 * does not decide here (two comparisons of one column, income > 50 vs
 * income >= 51; sums of several values; IN
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

#include "audit/audit.h"
#include "capture/capture.h"

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
	List	   *atoms;
	Table		t;
	Node	   *leaf = NULL;
	Node	   *count_value = NULL;	/* the first non-zero constant result */
	Node	   *ind;
	Node	   *value;
	char	   *atext[TAPAS_MAX_S_ATOMS * 2];
	int			vals[TAPAS_MAX_S_ATOMS];
	ListCell   *lc;
	bool		s,
				o;

	phi = tapas_basis_prepare(phi);
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
	atoms = tapas_basis_atoms(phi);
	if (list_length(atoms) > TAPAS_MAX_S_ATOMS)
		return opaque(phi, relid, true);
	memset(&t, 0, sizeof(t));
	t.n = list_length(atoms);
	foreach(lc, atoms)
	{
		int			i = foreach_current_index(lc);

		atext[2 * i] = (char *) lfirst(lc);
		atext[2 * i + 1] = deparse(lfirst(lc), relid);
	}
	qsort(atext, t.n, 2 * sizeof(char *), cmp_atom);
	atoms = NIL;
	t.size = 1;
	for (int i = 0; i < t.n; i++)
	{
		t.atoms[i] = (Node *) atext[2 * i];
		atoms = lappend(atoms, t.atoms[i]);
		t.dom[i] = tapas_atom_not_null(t.atoms[i], relid) ? 2 : 3;
		t.size *= t.dom[i];
		vals[i] = 0;
	}

	/* 2. every assignment gives 0 or the one common value */
	t.on = palloc0(sizeof(bool) * t.size);
	do
	{
		Node	   *r = tapas_substitute_atoms(phi, atoms, vals);

		if (tapas_is_zero(r))
			continue;
		if (IsA(r, Const))
		{
			/*
			 * One common constant c is c * 1[indicator], the knowledge of
			 * 1[indicator]; several (CASE WHEN rare THEN 2 ELSE 1 END is
			 * 1 + 1[rare], a count no indicator gives) keep the structural
			 * text, left to the joint audit's relations by value.
			 */
			if (count_value == NULL)
				count_value = r;
			else if (!tapas_const_same_value(count_value, r))
				return opaque(phi, relid, true);
			r = (Node *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(1), false, true);
		}
		else
			r = strip_numeric_casts(r);
		if (leaf != NULL && !equal(leaf, r))
			return opaque(phi, relid, true);
		if (!IsA(r, Const))
		{
			if (tapas_basis_atoms(r) != NIL || exprType(r) == BOOLOID)
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
