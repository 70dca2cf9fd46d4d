/*-------------------------------------------------------------------------
 *
 * inspect.c
 *	  Per-backend copy of the cells logged by the last statement that
 *	  captured any, and tapas.last_capture() to read it (admin only).
 *
 * The gates of one client statement (sub-plans, SPI queries of functions,
 * several FETCHes of a cursor count as their own statements) append here
 * after the ledger accepted their cells; a gate of a later statement
 * (different statement start time) first clears the list.  This is an
 * inspection and test aid next to the ledger, not a second ledger: it is
 * lost at disconnect and holds one statement.
 *
 * Memory: "tapas last capture", a child of TopMemoryContext, reset when a
 * new statement captures.
 *
 * IDENTIFICATION
 *	  src/capture/inspect.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "capture/capture.h"
#include "policy/policy.h"
#include "util/compare.h"

PG_FUNCTION_INFO_V1(tapas_sql_last_capture);

typedef struct CapturedCell
{
	Oid			relid;
	char	   *statistic;
	double		answer;
	int64		nkeys;
	int64	   *keys;			/* covered keys, sorted when read */
	bool		sorted;			/* keys sorted yet (lazily, off the hot path) */
	int			group;			/* output group of its gate, 0: unknown */
	int			naggs;
	int		   *aggs;			/* [naggs] aggregates it is a term of */
} CapturedCell;

static MemoryContext capture_cxt = NULL;
static List *captured = NIL;	/* of CapturedCell, in capture_cxt */
static TimestampTz captured_at = 0; /* statement start of the list */

static int
cmp_int(const void *a, const void *b)
{
	int			x = *(const int *) a,
				y = *(const int *) b;

	return (x > y) - (x < y);
}

/* Keeps a copy of the cells just logged (groups and aggs may be NULL). */
void
tapas_capture_record(const TapasCell *cells, int ncells, const int *groups, List *const *aggs)
{
	TimestampTz now = GetCurrentStatementStartTimestamp();
	MemoryContext old;

	if (capture_cxt == NULL)
		capture_cxt = AllocSetContextCreate(TopMemoryContext, "tapas last capture",
											ALLOCSET_DEFAULT_SIZES);
	if (now != captured_at)
	{
		MemoryContextReset(capture_cxt);
		captured = NIL;
		captured_at = now;
	}
	old = MemoryContextSwitchTo(capture_cxt);
	for (int i = 0; i < ncells; i++)
	{
		CapturedCell *c = palloc(sizeof(CapturedCell));
		CapturedCell *same = NULL;

		c->relid = cells[i].relid;
		c->statistic = pstrdup(cells[i].statistic);
		c->answer = cells[i].answer;
		c->nkeys = cells[i].nkeys;
		/* the gate's cells of one group share keys arrays: so do their copies */
		if (i > 0 && cells[i].keys == cells[i - 1].keys && cells[i].nkeys == cells[i - 1].nkeys)
			same = llast(captured);
		if (same != NULL)
			c->keys = same->keys;	/* sorting it in place keeps it the same set */
		else
		{
			c->keys = MemoryContextAllocHuge(capture_cxt, Max(c->nkeys, 1) * sizeof(int64));
			memcpy(c->keys, cells[i].keys, c->nkeys * sizeof(int64));
		}
		c->sorted = false;
		c->group = groups ? groups[i] : 0;
		c->naggs = aggs ? list_length(aggs[i]) : 0;
		c->aggs = palloc(sizeof(int) * Max(c->naggs, 1));
		for (int a = 0; a < c->naggs; a++)
			c->aggs[a] = intVal(list_nth(aggs[i], a));
		qsort(c->aggs, c->naggs, sizeof(int), cmp_int);
		captured = lappend(captured, c);
	}
	MemoryContextSwitchTo(old);
}

/*
 * tapas.last_capture(OUT relid regclass, OUT statistic text, OUT answer
 * float8, OUT covered bigint, OUT keys bigint[], OUT basis_id bigint, OUT
 * grp integer, OUT aggregates integer[]) returns setof record; basis_id
 * is tapas_basis_id(statistic).  One row per logged term (a basis value
 * over a covered set); the answered cell it belongs to is (grp, one of
 * aggregates): grp numbers the output groups of the statement's gate in
 * the order it drained them (NULL when grouped by a sensitive column),
 * aggregates are the aggregates of the query level the term belongs to,
 * 1, 2, ... in order of appearance (select list, then HAVING), 0 for the
 * count tapas adds itself (absent groups).
 */
Datum
tapas_sql_last_capture(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	tapas_require_admin("inspect captured cells");
	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, captured)
	{
		CapturedCell *c = lfirst(lc);
		Datum		values[8];
		bool		nulls[8] = {false, false, false, false, false, false, false, false};
		Datum	   *adatums = palloc(sizeof(Datum) * Max(c->naggs, 1));
		Datum	   *elems = palloc(sizeof(Datum) * Max(c->nkeys, 1));

		if (!c->sorted)
			qsort(c->keys, c->nkeys, sizeof(int64), tapas_cmp_int64);
		c->sorted = true;
		for (int64 j = 0; j < c->nkeys; j++)
			elems[j] = Int64GetDatum(c->keys[j]);
		values[0] = ObjectIdGetDatum(c->relid);
		values[1] = CStringGetTextDatum(c->statistic);
		values[2] = Float8GetDatum(c->answer);
		values[3] = Int64GetDatum(c->nkeys);
		values[4] = PointerGetDatum(construct_array(elems, (int) c->nkeys, INT8OID,
													sizeof(int64), FLOAT8PASSBYVAL,
													TYPALIGN_DOUBLE));
		values[5] = Int64GetDatum(tapas_basis_id(c->statistic));
		values[6] = Int32GetDatum(c->group);
		nulls[6] = c->group == 0;
		for (int a = 0; a < c->naggs; a++)
			adatums[a] = Int32GetDatum(c->aggs[a]);
		values[7] = PointerGetDatum(construct_array(adatums, c->naggs, INT4OID, sizeof(int32),
													true, TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
