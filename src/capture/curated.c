/*-------------------------------------------------------------------------
 *
 * curated.c
 *	  The curated part of the allow-list: built-in functions that are not
 *	  marked leakproof but cannot raise on any value of one argument once
 *	  their other arguments are valid constants.
 *
 * Analysts apply date_trunc, extract, to_char, lower, substr, round,
 * width_bucket, age ... to quasi-identifiers.  pg_proc marks none of them
 * leakproof, because each raises on some input (an unknown field name, a
 * negative substring length, a bad format).  Those inputs are the
 * constant arguments: for a fixed valid constant, no value of the "row"
 * argument raises.  So an entry admits a call when
 *	- every argument but the row argument is a non-null Const (constant
 *	  sub-expressions are folded first, allowlist.c), and
 *	- a probe evaluation of the call, with a sample value in place of the
 *	  row argument, succeeds at planning time: an invalid constant then
 *	  raises once, before any row is read, whatever the table holds, and
 *	- the entry's own extra condition holds (divisor, bucket count).
 * Each entry says below why no row value can raise.  The row argument is
 * itself checked by the allow-list walker.
 *
 * Known limits, documented per entry: a date after 294276 AD does not fit
 * a timestamp; nothing else here depends on the stored values.
 *
 * IDENTIFICATION
 *	  src/capture/curated.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "capture/capture.h"

/* extra conditions on the constant arguments */
typedef enum CuratedRule
{
	CUR_PLAIN,					/* no condition beyond the probe */
	CUR_INT_DIVISOR,			/* integer / c, c not 0 and not -1 (INT_MIN / -1) */
	CUR_INT_MODULUS,			/* integer % c, c not 0 */
	CUR_NUM_DIVISOR,			/* numeric / c, |c| >= 1: no overflow */
	CUR_NUM_SCALE,				/* round/trunc(numeric, c): |c| <= 1000 (cost) */
	CUR_BUCKET,					/* width_bucket over a non-NaN, count < INT_MAX */
	CUR_LIKE,					/* the pattern does not end with an escape */
	CUR_NUM_BOUNDED				/* numeric/float8 + - * c, c a bounded constant,
								 * on either side */
} CuratedRule;

/*
 * What drives an entry's cost per call (the timing channel, allowlist.c):
 * COST_ROW: only the row argument's own value (linear in its size at
 * most), never the constants; COST_BYTES: also the size of constant
 * argument costarg, at most costmax bytes; COST_VALUE: also the value of
 * integer constant costarg, at most costmax in absolute value.  The bound
 * holds where the call is evaluated only for some rows (CASE branches,
 * FILTER, aggregate arguments, GROUP BY); where it runs for every row the
 * scan reads, its cost depends on no sensitive value.
 */
typedef enum CuratedCost
{
	COST_ROW,
	COST_BYTES,
	COST_VALUE
} CuratedCost;

typedef struct CuratedFunc
{
	Oid			funcid;
	int			rowarg;			/* 0-based index of the row argument */
	CuratedRule rule;
	CuratedCost cost;
	int			costarg;		/* the cost-driving constant argument */
	int			costmax;		/* its bound: bytes, or absolute value */
} CuratedFunc;

/* to_char formats, LIKE patterns: a few dozen bytes in practice */
#define COST_MAX_PATTERN	256
/* numeric divisors: the division loop is O(digits of the divisor) per result digit */
#define COST_MAX_DIVISOR	64
/* round/trunc scale: the result's digits */
#define COST_MAX_SCALE		1000

/*
 * Why each entry cannot raise on any row value (PostgreSQL 15 sources):
 *
 * date_trunc(field, timestamp|timestamptz|interval): the field is checked
 *	 before the value; infinite values are returned as is; a truncation
 *	 only moves a value towards an earlier representable one.
 * date_part/extract(field, date|timestamp|timestamptz|interval|time): the
 *	 field, and whether the type supports it ("hour" of a date), are checked
 *	 by the probe; infinite values give +-Infinity or NULL.
 * to_char(timestamp|timestamptz|interval|numeric|int|float8, format): a
 *	 format error ("multiple decimal points") depends on the format only;
 *	 infinite timestamps give NULL, numbers too wide give "###".
 * lower, upper, initcap, btrim(text), length, char_length, octet_length:
 *	 total functions on valid text.
 * substr/substring(text, start[, len]), left, right: only a negative
 *	 constant length raises (the probe).
 * textlike/textnlike/texticlike/texticnlike (LIKE, ILIKE): only a pattern
 *	 ending with the escape character raises, and only when a value's
 *	 match reaches that end, so the probe cannot see it: such patterns are
 *	 refused here (an odd number of trailing backslashes).  A collation
 *	 that LIKE does not support raises before matching (the probe).
 * round/trunc(numeric[, scale]), round/trunc/floor/ceil(float8),
 *	 floor/ceil(numeric), abs(numeric|float8): total; abs(int) is not here
 *	 (abs(INT_MIN) overflows).  The scale is bounded: its cost grows with it.
 * int2/int4/int8 div and mod by a constant: only 0 (and -1 for division,
 *	 INT_MIN / -1) raise.
 * numeric / c and div(numeric, c) with |c| >= 1: the result is no larger
 *	 than the dividend, so it cannot overflow; numeric % c, c <> 0.
 * width_bucket(x, lo, hi, count) over an integer x widened to numeric or
 *	 float8, or over extract/date_part (never NaN; +-Infinity falls in the
 *	 outer buckets): the bounds and count are checked by the probe;
 *	 count < INT_MAX so count + 1 does not overflow.
 * age(timestamp[, timestamp]), age(timestamptz[, timestamptz]): total on
 *	 finite and infinite values (checked against PostgreSQL 15).
 * timestamp -> date, timestamptz -> date: every timestamp is a date.
 * date -> timestamp, date -> timestamptz: raise only for dates after
 *	 294276 AD, beyond the timestamp range (known limit).
 * now(), statement_timestamp(): no arguments.
 * numeric and float8 x + c, x - c, c - x, x * c, c * x with a finite
 *	 constant c, |c| <= 10^15 for + and -, 10^-6 <= |c| <= 10^6 (or 0) for
 *	 *, and a numeric c of at most 100 decimals: |x + c| and |x * c| stay
 *	 below the type's limit unless |x| is within 10^6 of it (numeric:
 *	 10^131066; float8: 1.8e302), and a float8 product underflows only
 *	 for a subnormal x (below 1e-317).  Known limit, like the dates above:
 *	 no stored value of a real table comes near them.  Integers are not
 *	 here: salary * 1000 overflows int4 at a salary of 2,147,484 (cast
 *	 to numeric first).
 *
 * Cost (CuratedCost): date_trunc, extract, date_part, age and the date
 * casts are O(1); lower, upper, initcap, btrim, length, substr, left and
 * right are linear in the row value, whatever the constants (a substring
 * is no longer than its input); integer division is O(1); to_char is
 * linear in its format and LIKE is O(pattern x value): the format and the
 * pattern are bounded; numeric division is O(digits of the divisor) per
 * result digit: the divisor is bounded; round/trunc(numeric, scale) build
 * up to scale digits: the scale is bounded; width_bucket is O(1) in its
 * count; numeric and float8 arithmetic with a bounded constant (at most
 * 100 decimals) is linear in the row value.  Functions whose cost grows with an argument's value beyond
 * these (repeat, lpad, rpad, regexp_*, power, factorial, generate_series,
 * string_agg ...) are not curated: per row they are refused.
 */
static const CuratedFunc curated[] = {
	{F_DATE_TRUNC_TEXT_TIMESTAMP, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_TRUNC_TEXT_TIMESTAMPTZ, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_TRUNC_TEXT_INTERVAL, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_PART_TEXT_DATE, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_PART_TEXT_TIMESTAMP, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_PART_TEXT_TIMESTAMPTZ, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_PART_TEXT_INTERVAL, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_PART_TEXT_TIME, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_EXTRACT_TEXT_DATE, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_EXTRACT_TEXT_TIMESTAMP, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_EXTRACT_TEXT_TIMESTAMPTZ, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_EXTRACT_TEXT_INTERVAL, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_EXTRACT_TEXT_TIME, 1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_TO_CHAR_TIMESTAMP_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TO_CHAR_TIMESTAMPTZ_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TO_CHAR_INTERVAL_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TO_CHAR_NUMERIC_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TO_CHAR_INT4_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TO_CHAR_INT8_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TO_CHAR_FLOAT8_TEXT, 0, CUR_PLAIN, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_LOWER_TEXT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_UPPER_TEXT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_INITCAP, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_BTRIM_TEXT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_LENGTH_TEXT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_CHAR_LENGTH_TEXT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_OCTET_LENGTH_TEXT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_SUBSTR_TEXT_INT4_INT4, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_SUBSTR_TEXT_INT4, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_SUBSTRING_TEXT_INT4_INT4, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_SUBSTRING_TEXT_INT4, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_LEFT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_RIGHT, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_TEXTLIKE, 0, CUR_LIKE, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TEXTNLIKE, 0, CUR_LIKE, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TEXTICLIKE, 0, CUR_LIKE, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_TEXTICNLIKE, 0, CUR_LIKE, COST_BYTES, 1, COST_MAX_PATTERN},
	{F_ROUND_NUMERIC, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_ROUND_NUMERIC_INT4, 0, CUR_NUM_SCALE, COST_VALUE, 1, COST_MAX_SCALE},
	{F_TRUNC_NUMERIC, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_TRUNC_NUMERIC_INT4, 0, CUR_NUM_SCALE, COST_VALUE, 1, COST_MAX_SCALE},
	{F_FLOOR_NUMERIC, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_CEIL_NUMERIC, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_CEILING_NUMERIC, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_ABS_NUMERIC, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_ROUND_FLOAT8, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_TRUNC_FLOAT8, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_FLOOR_FLOAT8, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_CEIL_FLOAT8, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_CEILING_FLOAT8, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_ABS_FLOAT8, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_INT2DIV, 0, CUR_INT_DIVISOR, COST_ROW, 0, 0},
	{F_INT4DIV, 0, CUR_INT_DIVISOR, COST_ROW, 0, 0},
	{F_INT8DIV, 0, CUR_INT_DIVISOR, COST_ROW, 0, 0},
	{F_INT2MOD, 0, CUR_INT_MODULUS, COST_ROW, 0, 0},
	{F_INT4MOD, 0, CUR_INT_MODULUS, COST_ROW, 0, 0},
	{F_INT8MOD, 0, CUR_INT_MODULUS, COST_ROW, 0, 0},
	{F_NUMERIC_DIV, 0, CUR_NUM_DIVISOR, COST_BYTES, 1, COST_MAX_DIVISOR},
	{F_DIV, 0, CUR_NUM_DIVISOR, COST_BYTES, 1, COST_MAX_DIVISOR},
	{F_NUMERIC_MOD, 0, CUR_INT_MODULUS, COST_BYTES, 1, COST_MAX_DIVISOR},
	{F_WIDTH_BUCKET_NUMERIC_NUMERIC_NUMERIC_INT4, 0, CUR_BUCKET, COST_ROW, 0, 0},
	{F_WIDTH_BUCKET_FLOAT8_FLOAT8_FLOAT8_INT4, 0, CUR_BUCKET, COST_ROW, 0, 0},
	{F_AGE_TIMESTAMP, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_AGE_TIMESTAMPTZ, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_TIMESTAMP_DATE, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_TIMESTAMPTZ_DATE, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_TIMESTAMP, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_DATE_TIMESTAMPTZ, 0, CUR_PLAIN, COST_ROW, 0, 0},
	{F_NUMERIC_ADD, 0, CUR_NUM_BOUNDED, COST_ROW, 0, 0},
	{F_NUMERIC_SUB, 0, CUR_NUM_BOUNDED, COST_ROW, 0, 0},
	{F_NUMERIC_MUL, 0, CUR_NUM_BOUNDED, COST_ROW, 0, 0},
	{F_FLOAT8PL, 0, CUR_NUM_BOUNDED, COST_ROW, 0, 0},
	{F_FLOAT8MI, 0, CUR_NUM_BOUNDED, COST_ROW, 0, 0},
	{F_FLOAT8MUL, 0, CUR_NUM_BOUNDED, COST_ROW, 0, 0},
	{F_NOW, -1, CUR_PLAIN, COST_ROW, 0, 0},
	{F_STATEMENT_TIMESTAMP, -1, CUR_PLAIN, COST_ROW, 0, 0},
};

/* age(a, b) has two row arguments: both are checked by the walker */
static bool
two_row_args(Oid funcid)
{
	return funcid == F_AGE_TIMESTAMP_TIMESTAMP || funcid == F_AGE_TIMESTAMPTZ_TIMESTAMPTZ;
}

static const CuratedFunc *
curated_lookup(Oid funcid)
{
	for (int i = 0; i < lengthof(curated); i++)
	{
		if (curated[i].funcid == funcid)
			return &curated[i];
	}
	return NULL;
}

/* numeric/float8 arithmetic with a bounded constant (CUR_NUM_BOUNDED) */
bool
tapas_curated_arithmetic(Oid funcid)
{
	const CuratedFunc *cf = curated_lookup(funcid);

	return cf != NULL && cf->rule == CUR_NUM_BOUNDED;
}

/* a sample value of type typid for the probe, or NULL if none */
static Const *
sample_const(Oid typid)
{
	const char *text;
	Oid			typinput;
	Oid			typioparam;
	int16		typlen;
	bool		typbyval;

	switch (typid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
		case FLOAT8OID:
			text = "7";
			break;
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			text = "2000-02-29 12:34:56";
			break;
		case INTERVALOID:
			text = "1 day";
			break;
		case TIMEOID:
			text = "12:34:56";
			break;
		case TEXTOID:
			text = "Ab c";
			break;
		default:
			return NULL;
	}
	getTypeInputInfo(typid, &typinput, &typioparam);
	get_typlenbyval(typid, &typlen, &typbyval);
	return makeConst(typid, -1, InvalidOid, typlen,
					 OidInputFunctionCall(typinput, (char *) text, typioparam, -1),
					 false, typbyval);
}

/* the constant argument i, or NULL unless it is a non-null Const */
static Const *
const_arg(List *args, int i)
{
	Node	   *a = list_nth(args, i);

	while (IsA(a, RelabelType))
		a = (Node *) ((RelabelType *) a)->arg;
	return IsA(a, Const) && !((Const *) a)->constisnull ? (Const *) a : NULL;
}

static bool
is_param(List *args, int i)
{
	Node	   *a = list_nth(args, i);

	while (IsA(a, RelabelType))
		a = (Node *) ((RelabelType *) a)->arg;
	return IsA(a, Param) && ((Param *) a)->paramkind == PARAM_EXTERN;
}

/* the type of expr under widening casts and relabelling */
static Oid
base_type(Node *expr)
{
	for (;;)
	{
		if (IsA(expr, RelabelType))
			expr = (Node *) ((RelabelType *) expr)->arg;
		else if (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->funcformat != COERCE_EXPLICIT_CALL &&
				 list_length(((FuncExpr *) expr)->args) == 1)
			expr = linitial(((FuncExpr *) expr)->args);
		else
			return exprType(expr);
	}
}

static bool
integer_type(Oid t)
{
	return t == INT2OID || t == INT4OID || t == INT8OID;
}

/* an operand that cannot be NaN: an integer, or a date part (never NaN) */
static bool
never_nan(Node *expr)
{
	Oid			f;

	if (integer_type(base_type(expr)))
		return true;
	while (IsA(expr, RelabelType) ||
		   (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->funcformat != COERCE_EXPLICIT_CALL &&
			list_length(((FuncExpr *) expr)->args) == 1))
		expr = IsA(expr, RelabelType) ? (Node *) ((RelabelType *) expr)->arg :
			linitial(((FuncExpr *) expr)->args);
	if (!IsA(expr, FuncExpr))
		return false;
	f = ((FuncExpr *) expr)->funcid;
	return f == F_EXTRACT_TEXT_DATE || f == F_EXTRACT_TEXT_TIMESTAMP ||
		f == F_EXTRACT_TEXT_TIMESTAMPTZ || f == F_EXTRACT_TEXT_INTERVAL ||
		f == F_DATE_PART_TEXT_DATE || f == F_DATE_PART_TEXT_TIMESTAMP ||
		f == F_DATE_PART_TEXT_TIMESTAMPTZ || f == F_DATE_PART_TEXT_INTERVAL;
}

/* numeric or integer constant as a double, for bounds (NaN for others) */
static double
const_number(Const *c)
{
	if (c == NULL)
		return NAN;
	switch (c->consttype)
	{
		case FLOAT8OID:
			return DatumGetFloat8(c->constvalue);
		case INT2OID:
			return DatumGetInt16(c->constvalue);
		case INT4OID:
			return DatumGetInt32(c->constvalue);
		case INT8OID:
			return (double) DatumGetInt64(c->constvalue);
		case NUMERICOID:
			return numeric_is_nan(DatumGetNumeric(c->constvalue)) ? NAN :
				DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
												   c->constvalue));
		default:
			return NAN;
	}
}

/* a LIKE pattern that does not end with an unescaped escape character */
static bool
like_pattern_complete(Const *c)
{
	text	   *t = DatumGetTextPP(c->constvalue);
	const char *p = VARDATA_ANY(t);
	int			n = VARSIZE_ANY_EXHDR(t);
	int			trailing = 0;

	while (trailing < n && p[n - 1 - trailing] == '\\')
		trailing++;
	return trailing % 2 == 0;
}

/* CUR_NUM_BOUNDED: the constant may be on either side; 0 or 1 */
static int
row_side(const CuratedFunc *cf, List *args)
{
	return cf->rule == CUR_NUM_BOUNDED && list_length(args) == 2 &&
		const_arg(args, 0) != NULL && const_arg(args, 1) == NULL ? 1 : cf->rowarg;
}

/* the bounds of CUR_NUM_BOUNDED (see the list above) */
static bool
bounded_operand(Oid funcid, Const *c)
{
	double		v = const_number(c);
	bool		product = funcid == F_NUMERIC_MUL || funcid == F_FLOAT8MUL;

	if (isnan(v) || isinf(v))
		return false;
	if (c->consttype == NUMERICOID &&
		DatumGetInt32(DirectFunctionCall1(numeric_scale, c->constvalue)) > 100)
		return false;
	if (!product)
		return fabs(v) <= 1e15;
	return v == 0 || (fabs(v) >= 1e-6 && fabs(v) <= 1e6);
}

static bool
rule_holds(const CuratedFunc *cf, List *args)
{
	Const	   *c;
	double		v;

	switch (cf->rule)
	{
		case CUR_PLAIN:
			return true;
		case CUR_INT_DIVISOR:
		case CUR_INT_MODULUS:
			c = const_arg(args, 1);
			v = const_number(c);
			return !isnan(v) && v != 0 && (cf->rule == CUR_INT_MODULUS || v != -1);
		case CUR_NUM_DIVISOR:
			v = const_number(const_arg(args, 1));
			return !isnan(v) && fabs(v) >= 1;
		case CUR_NUM_SCALE:
			/* as the cost bound: evaluated for every row, a scale is still bounded */
			c = const_arg(args, 1);
			return abs(DatumGetInt32(c->constvalue)) <= COST_MAX_SCALE;
		case CUR_LIKE:
			return like_pattern_complete(const_arg(args, 1));
		case CUR_NUM_BOUNDED:
			return bounded_operand(cf->funcid, const_arg(args, 1 - row_side(cf, args)));
		case CUR_BUCKET:
			c = const_arg(args, 3);
			return never_nan(linitial(args)) &&
				DatumGetInt32(c->constvalue) < PG_INT32_MAX;
	}
	return false;
}

/*
 * Where the call runs only for some rows: raises unless its cost-driving
 * constant is within the entry's bound (CuratedCost).
 */
static void
verify_cost(const CuratedFunc *cf, List *args)
{
	Const	   *c;
	int64		v;

	if (cf->cost == COST_ROW || (c = const_arg(args, cf->costarg)) == NULL)
		return;
	if (cf->cost == COST_BYTES)
	{
		v = c->constlen == -1 ? (int64) VARSIZE_ANY_EXHDR(DatumGetPointer(c->constvalue)) :
			c->constlen;
		if (v <= cf->costmax)
			return;
	}
	else
	{
		v = c->consttype == INT4OID ? DatumGetInt32(c->constvalue) :
			c->consttype == INT8OID ? DatumGetInt64(c->constvalue) : 0;
		if (Abs(v) <= cf->costmax)
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("argument %d of function %s is too large for a query on a protected table",
					cf->costarg + 1, get_func_name(cf->funcid)),
			 errdetail("Evaluated only for some rows, at most %s %d is allowed: its cost would tell the rows that evaluate it.",
					   cf->cost == COST_BYTES ? "bytes" : "an absolute value of", cf->costmax),
			 errhint("Use a shorter constant, or move the condition to WHERE.")));
}

/*
 * Evaluates the probe call; an error it raises depends on the constant
 * arguments only (the row argument is a sample), so it is raised again as
 * an invalid argument (22023) naming the function, with the original
 * message as detail, before any row is read.  Re-raising at once is what
 * makes catching without a subtransaction safe.
 */
static void
probe_call(FuncExpr *probe)
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		(void) evaluate_expr((Expr *) probe, probe->funcresulttype, -1, InvalidOid);
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(cxt);
		err = CopyErrorData();
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid constant argument of function %s in a query on a protected table",
						get_func_name(probe->funcid)),
				 errdetail("%s", err->message),
				 errhint("The constant arguments are checked before any row is read.")));
	}
	PG_END_TRY();
}

/*
 * true when the call funcid(args) is admitted by the curated list: its
 * constant arguments are valid (probe) and no value of its row argument
 * can raise.  A probe that raises raises here, at planning time, for every
 * table content alike.  With params_ok (the call runs for every row the
 * scan reads, whatever the sensitive values), a parameter may stand for a
 * constant argument of an entry without extra rule; it cannot be probed.
 * *rowargs tells the caller which arguments are row arguments (bit i
 * set), so it checks only those further.
 */
bool
tapas_curated_call(Oid funcid, List *args, Oid inputcollid, bool params_ok,
				   uint32 *rowargs)
{
	const CuratedFunc *cf = curated_lookup(funcid);
	List	   *probe_args = NIL;
	FuncExpr   *probe;
	ListCell   *lc;
	bool		params = false;
	int			rowarg;

	if (two_row_args(funcid))
	{
		*rowargs = 3;
		return true;
	}
	if (cf == NULL || list_length(args) > 31)
		return false;
	rowarg = row_side(cf, args);
	*rowargs = rowarg >= 0 ? (uint32) 1 << rowarg : 0;
	foreach(lc, args)
	{
		int			i = foreach_current_index(lc);
		Node	   *a;

		if (i == rowarg)
		{
			a = (Node *) sample_const(exprType(lfirst(lc)));
			if (a == NULL)
				return false;
		}
		else if (params_ok && cf->rule == CUR_PLAIN && is_param(args, i))
		{
			a = lfirst(lc);
			params = true;
		}
		else if ((a = (Node *) const_arg(args, i)) == NULL)
			return false;
		probe_args = lappend(probe_args, a);
	}
	if (!rule_holds(cf, args))
		return false;
	if (!params_ok)
		verify_cost(cf, args);
	if (probe_args == NIL || params)
		return true;
	probe = makeFuncExpr(funcid, get_func_rettype(funcid), probe_args,
						 InvalidOid, inputcollid, COERCE_EXPLICIT_CALL);
	probe_call(probe);
	return true;
}
