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
} CapturedCell;

static MemoryContext capture_cxt = NULL;
static List *captured = NIL;	/* of CapturedCell, in capture_cxt */
static TimestampTz captured_at = 0; /* statement start of the list */

/* Keeps a copy of the cells just logged. */
void
tapas_capture_record(const TapasCell *cells, int ncells)
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

		c->relid = cells[i].relid;
		c->statistic = pstrdup(cells[i].statistic);
		c->answer = cells[i].answer;
		c->nkeys = cells[i].nkeys;
		c->keys = MemoryContextAllocHuge(capture_cxt, Max(c->nkeys, 1) * sizeof(int64));
		memcpy(c->keys, cells[i].keys, c->nkeys * sizeof(int64));
		c->sorted = false;
		captured = lappend(captured, c);
	}
	MemoryContextSwitchTo(old);
}

/*
 * tapas.last_capture(OUT relid regclass, OUT statistic text, OUT answer
 * float8, OUT covered bigint, OUT keys bigint[], OUT basis_id bigint)
 * returns setof record; basis_id is tapas_basis_id(statistic).
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
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};
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
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
