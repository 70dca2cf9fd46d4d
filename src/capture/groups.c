/*-------------------------------------------------------------------------
 *
 * groups.c
 *	  Cells of a capture whose level groups by a sensitive column.
 *
 * Grouping by a sensitive column works like a
 * sensitive condition.  With "GROUP BY zip, hiv", the cell of group
 * (z, g) is the statistic "... filter (where hiv = g)" over the covered
 * set of the non-sensitive group zip = z: every row of zip z passing the
 * non-sensitive conditions, whatever its hiv.  The capture aggregate runs
 * per output group (z, g), so the gate collects one row per output group
 * here and, after the drain:
 *	1. classifies the rows by their non-sensitive key values ("buckets",
 *	   one per non-sensitive group) and by their sensitive key values
 *	   ("values": the domain seen in this execution);
 *	2. per bucket, unions the covered keys of its rows (disjoint: the
 *	   rows of a bucket have different sensitive values);
 *	3. emits one cell per bucket and value: the answer of the row with
 *	   that value, or 0 when the bucket has none (an absent group: the
 *	   analyst learns that its statistic is 0); a value for which the
 *	   basis vanishes (GROUP BY rare with FILTER (WHERE NOT rare), value
 *	   true) is a known 0 and no cell.
 * The values are those of the execution and every other combination of
 * the sensitive keys' values over the rows the table holds now: each key
 * (a column, or a computed key such as lower(diagnosis), diagnosis =
 * 'hiv', rare::int) is evaluated by tapas on every row (its own heap
 * scan, at most TAPAS_MAX_DOMAIN combinations): a value that no group
 * produced is an answer too (0), so GROUP BY rare over a group of one
 * value logs the 0-cell of the other (issue 10, class 5); so does every
 * value an administrator declared (tapas.declare_domain), held by no
 * row yet.  At most TAPAS_MAX_GROUPED_CELLS cells per capture and execution,
 * else an error.
 *
 * Classification sorts row pointers by a hash of the key values
 * (datum_image_hash) and compares equal-hash rows with datum_image_eq, so
 * it is O(n log n) in the number of output groups.  Rows and cells live
 * in the memory context given by the gate (reset per execution).
 *
 * IDENTIFICATION
 *	  src/capture/groups.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "capture/capture.h"

#define TAPAS_MAX_GROUPED_CELLS 100000
#define TAPAS_MAX_DOMAIN		1000	/* values of a sensitive grouping column */

typedef struct GroupRow
{
	Datum	   *vals;			/* [ngroups] grouping key values (copied) */
	bool	   *nulls;			/* [ngroups] */
	double		answer;
	const int64 *keys;			/* covered keys of this output group */
	int64		nkeys;
	uint32		hash;			/* of the keys being classified */
	int			bucket;			/* class by non-sensitive keys */
	int			value;			/* class by sensitive keys */
} GroupRow;

struct TapasGroupedCover
{
	const TapasStatSpec *spec;
	Oid			relid;
	int			ngroups;
	AttrNumber *att;			/* [ngroups] scan attno of each grouping key */
	bool	   *sens;			/* [ngroups] key touches a sensitive column */
	int16	   *typlen;			/* [ngroups] */
	bool	   *typbyval;		/* [ngroups] */
	Node	  **exprs;			/* [ngroups] each sensitive key's expression
								 * over varno 1 (NULL for the others) */
	GroupRow  **rows;			/* this execution's output groups */
	int			nrows;
	int			maxrows;
};

/*
 * Grouping configuration of one capture, or NULL when its level does not
 * group by a sensitive column.  groupcols: (sortgroupref, scan attno)
 * pairs from the plan.
 */
TapasGroupedCover *
tapas_grouped_create(const TapasStatSpec *spec, List *groupcols, TupleDesc desc)
{
	TapasGroupedCover *gc;
	ListCell   *lc;
	int			i = 0;

	if (spec == NULL || spec->groups == NIL)
		return NULL;
	gc = palloc0(sizeof(TapasGroupedCover));
	gc->spec = spec;
	gc->relid = spec->relid;
	gc->ngroups = list_length(spec->groups);
	gc->att = palloc(sizeof(AttrNumber) * gc->ngroups);
	gc->sens = palloc(sizeof(bool) * gc->ngroups);
	gc->typlen = palloc(sizeof(int16) * gc->ngroups);
	gc->typbyval = palloc(sizeof(bool) * gc->ngroups);
	foreach(lc, spec->groups)
	{
		List	   *g = lfirst(lc);
		ListCell   *c;

		gc->att[i] = 0;
		foreach(c, groupcols)
		{
			if (intVal(linitial(lfirst(c))) == intVal(linitial(g)))
				gc->att[i] = intVal(lsecond(lfirst(c)));
		}
		/*
		 * plan.c finds every grouping column the Agg outputs, also when
		 * setrefs dropped its label (a sub-query over the groups, issue
		 * 13); a plan that does not pass the group's value to the gate
		 * cannot be audited, so it is refused (fail closed).
		 */
		if (gc->att[i] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("grouping by a sensitive column of protected table \"%s\" cannot be audited in this query",
							get_rel_name(gc->relid)),
					 errdetail("The plan does not pass the grouping column's value to the audit, so the groups cannot be told apart."),
					 errhint("Aggregate in one level (count(*) FILTER (WHERE col = value) per value), or return the groups as they are (SELECT col, count(*) ... GROUP BY col).")));
		gc->sens[i] = intVal(lsecond(g)) != 0;
		gc->typlen[i] = TupleDescAttr(desc, gc->att[i] - 1)->attlen;
		gc->typbyval[i] = TupleDescAttr(desc, gc->att[i] - 1)->attbyval;
		i++;
	}
	gc->exprs = palloc0(sizeof(Node *) * gc->ngroups);
	i = 0;
	foreach(lc, spec->groups)
	{
		if (gc->sens[i])
			gc->exprs[i] = lthird((List *) lfirst(lc));
		i++;
	}
	return gc;
}

static bool rows_equal(const TapasGroupedCover *gc, const GroupRow *a, const GroupRow *b,
					   bool sens);

/* whether row r has the sensitive key values of some row of rows[0..n) */
static bool
values_seen(const TapasGroupedCover *gc, const GroupRow *r, GroupRow *const *rows, int n)
{
	for (int i = 0; i < n; i++)
	{
		if (rows_equal(gc, r, rows[i], true))
			return true;
	}
	return false;
}

/*
 * The image of the table's domain under the sensitive grouping keys: each
 * key expression (a column, or an allow-listed expression of sensitive
 * columns: lower(diagnosis), diagnosis = 'hiv', rare::int) evaluated by
 * tapas on every row the table holds now (its own heap scan under the
 * statement's snapshot, ExecEvalExpr), the combinations that no row of
 * this execution has: absent groups whose 0 the analyst learns (issue 10,
 * class 5).  Appends one value row each (no keys) to *extra.  The
 * allow-list admits only expressions that cannot raise on any value, so
 * the scan raises only on a cancel or the TAPAS_MAX_DOMAIN limit.
 */
/* the domain scan's state: key expressions, and the combinations found */
typedef struct DomainScan
{
	TapasGroupedCover *gc;
	ExprState **st;
	ExprContext *econtext;
	GroupRow	probe;
	GroupRow  **extra;
	int			n;
	int			max;
} DomainScan;

/* evaluates the keys on slot; keeps the combination if no row has it */
static void
domain_add(DomainScan *ds, TupleTableSlot *slot)
{
	TapasGroupedCover *gc = ds->gc;
	GroupRow   *r;

	ds->econtext->ecxt_scantuple = slot;
	for (int g = 0; g < gc->ngroups; g++)
		if (ds->st[g] != NULL)
			ds->probe.vals[g] = ExecEvalExprSwitchContext(ds->st[g], ds->econtext,
														  &ds->probe.nulls[g]);
	if (!values_seen(gc, &ds->probe, gc->rows, gc->nrows) &&
		!values_seen(gc, &ds->probe, ds->extra, ds->n))
	{
		if (ds->n == TAPAS_MAX_DOMAIN)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("grouping by a sensitive column with more than %d values is not supported",
							TAPAS_MAX_DOMAIN),
					 errhint("Group by a coarser expression of the column.")));
		if (ds->n == ds->max)
		{
			ds->max *= 2;
			ds->extra = repalloc(ds->extra, sizeof(GroupRow *) * ds->max);
		}
		r = ds->extra[ds->n++] = palloc0(sizeof(GroupRow));
		r->vals = palloc0(sizeof(Datum) * gc->ngroups);
		r->nulls = palloc0(sizeof(bool) * gc->ngroups);
		for (int g = 0; g < gc->ngroups; g++)
		{
			if (ds->st[g] == NULL)
				continue;
			r->nulls[g] = ds->probe.nulls[g];
			r->vals[g] = ds->probe.nulls[g] ? (Datum) 0 :
				datumCopy(ds->probe.vals[g], gc->typbyval[g], gc->typlen[g]);
		}
	}
	ResetExprContext(ds->econtext);
}

/*
 * The values an administrator declared for the sensitive columns of
 * gc's table (tapas.declare_domain, table tapas.sensitive_domain): each
 * value of column c is a virtual row with c = value and every other
 * column NULL, whose keys are evaluated like a stored row's.  Exact for a
 * key over one column (GROUP BY diagnosis, lower(diagnosis)).
 */
static void
declared_values(DomainScan *ds, Relation rel)
{
	Oid			nsp = get_namespace_oid("tapas", false);
	Oid			domrel = get_relname_relid("sensitive_domain", nsp);
	TupleDesc	desc = RelationGetDescr(rel);
	TupleTableSlot *vslot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	Relation	dom;
	TableScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(domrel))
		return;
	dom = table_open(domrel, AccessShareLock);
	scan = table_beginscan(dom, GetActiveSnapshot(), 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(heap_getattr(tup, 1, RelationGetDescr(dom), &isnull));
		int			attnum = DatumGetInt16(heap_getattr(tup, 2, RelationGetDescr(dom), &isnull));
		Datum		arr = heap_getattr(tup, 4, RelationGetDescr(dom), &isnull);
		Datum	   *texts;
		bool	   *tnulls;
		int			ntexts;
		Form_pg_attribute att;
		Oid			typinput;
		Oid			typioparam;

		if (relid != ds->gc->relid || isnull || attnum < 1 || attnum > desc->natts)
			continue;
		att = TupleDescAttr(desc, attnum - 1);
		if (att->attisdropped)
			continue;
		getTypeInputInfo(att->atttypid, &typinput, &typioparam);
		deconstruct_array(DatumGetArrayTypeP(arr), TEXTOID, -1, false, TYPALIGN_INT,
						  &texts, &tnulls, &ntexts);
		for (int i = 0; i < ntexts; i++)
		{
			ExecClearTuple(vslot);
			for (int a = 0; a < desc->natts; a++)
				vslot->tts_isnull[a] = true;
			vslot->tts_isnull[attnum - 1] = tnulls[i];
			if (!tnulls[i])
				vslot->tts_values[attnum - 1] =
					OidInputFunctionCall(typinput, TextDatumGetCString(texts[i]),
										 typioparam, att->atttypmod);
			ExecStoreVirtualTuple(vslot);
			domain_add(ds, vslot);
		}
	}
	table_endscan(scan);
	table_close(dom, AccessShareLock);
	ExecDropSingleTupleTableSlot(vslot);
}

static int
domain_values(TapasGroupedCover *gc, ParamListInfo params, GroupRow ***extra)
{
	Relation	rel = table_open(gc->relid, AccessShareLock);
	TapasTableScan *scan = tapas_table_scan_begin(gc->relid, GetActiveSnapshot());
	TupleTableSlot *slot;
	EState	   *estate = CreateExecutorState();
	DomainScan	ds;
	uint64		rows = 0;

	ds.gc = gc;
	ds.econtext = GetPerTupleExprContext(estate);
	ds.st = palloc0(sizeof(ExprState *) * gc->ngroups);
	estate->es_param_list_info = params;
	for (int g = 0; g < gc->ngroups; g++)
		if (gc->exprs[g] != NULL)
			ds.st[g] = ExecPrepareExpr((Expr *) copyObject(gc->exprs[g]), estate);
	ds.probe.vals = palloc0(sizeof(Datum) * gc->ngroups);
	ds.probe.nulls = palloc0(sizeof(bool) * gc->ngroups);
	ds.n = 0;
	ds.max = 16;
	ds.extra = palloc(sizeof(GroupRow *) * ds.max);
	while ((slot = tapas_table_scan_next(scan)) != NULL)
	{
		if ((++rows & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		domain_add(&ds, slot);
	}
	tapas_table_scan_end(scan);
	declared_values(&ds, rel);
	FreeExecutorState(estate);
	table_close(rel, AccessShareLock);
	*extra = ds.extra;
	return ds.n;
}

/* Forgets the rows of the previous execution (their memory was reset). */
void
tapas_grouped_reset(TapasGroupedCover *gc)
{
	gc->rows = NULL;
	gc->nrows = gc->maxrows = 0;
}

/* Records one output group: its scan values, answer and covered keys. */
void
tapas_grouped_add(TapasGroupedCover *gc, MemoryContext cxt, const Datum *values,
				  const bool *isnull, double answer, const int64 *keys, int64 nkeys)
{
	GroupRow   *r = MemoryContextAllocZero(cxt, sizeof(GroupRow));

	r->vals = MemoryContextAlloc(cxt, sizeof(Datum) * gc->ngroups);
	r->nulls = MemoryContextAlloc(cxt, sizeof(bool) * gc->ngroups);
	for (int i = 0; i < gc->ngroups; i++)
	{
		int			a = gc->att[i] - 1;
		MemoryContext old = MemoryContextSwitchTo(cxt);

		r->nulls[i] = isnull[a];
		r->vals[i] = isnull[a] ? (Datum) 0 :
			datumCopy(values[a], gc->typbyval[i], gc->typlen[i]);
		MemoryContextSwitchTo(old);
	}
	r->answer = answer;
	r->keys = keys;
	r->nkeys = nkeys;
	if (gc->nrows == gc->maxrows)
	{
		gc->maxrows = Max(16, gc->maxrows * 2);
		gc->rows = gc->rows == NULL ?
			MemoryContextAlloc(cxt, sizeof(GroupRow *) * gc->maxrows) :
			repalloc(gc->rows, sizeof(GroupRow *) * gc->maxrows);
	}
	gc->rows[gc->nrows++] = r;
}

/* true when both captures saw the same groups with the same answers and sizes */
bool
tapas_grouped_same(const TapasGroupedCover *a, const TapasGroupedCover *b)
{
	if (a->nrows != b->nrows)
		return false;
	for (int i = 0; i < a->nrows; i++)
	{
		if (a->rows[i]->nkeys != b->rows[i]->nkeys || a->rows[i]->answer != b->rows[i]->answer)
			return false;
	}
	return true;
}

/* equal keys of the sensitive (or non-sensitive) kind */
static bool
rows_equal(const TapasGroupedCover *gc, const GroupRow *a, const GroupRow *b, bool sens)
{
	for (int i = 0; i < gc->ngroups; i++)
	{
		if (gc->sens[i] != sens)
			continue;
		if (a->nulls[i] != b->nulls[i])
			return false;
		if (!a->nulls[i] &&
			!datum_image_eq(a->vals[i], b->vals[i], gc->typbyval[i], gc->typlen[i]))
			return false;
	}
	return true;
}

static uint32
row_hash(const TapasGroupedCover *gc, const GroupRow *r, bool sens)
{
	uint32		h = 0;

	for (int i = 0; i < gc->ngroups; i++)
	{
		if (gc->sens[i] != sens)
			continue;
		h = hash_combine(h, r->nulls[i] ? 0x9e3779b9 :
						 datum_image_hash(r->vals[i], gc->typbyval[i], gc->typlen[i]));
	}
	return h;
}

static int
cmp_hash(const void *a, const void *b)
{
	uint32		x = (*(GroupRow *const *) a)->hash;
	uint32		y = (*(GroupRow *const *) b)->hash;

	return x < y ? -1 : x > y;
}

/*
 * Numbers the classes of rows with equal keys of one kind (0, 1, ...) into
 * r->bucket or r->value; returns the number of classes.
 */
static int
classify(TapasGroupedCover *gc, bool sens)
{
	GroupRow  **sorted = palloc(sizeof(GroupRow *) * Max(gc->nrows, 1));
	int			nclasses = 0;
	int			run = 0;

	for (int i = 0; i < gc->nrows; i++)
	{
		gc->rows[i]->hash = row_hash(gc, gc->rows[i], sens);
		sorted[i] = gc->rows[i];
	}
	qsort(sorted, gc->nrows, sizeof(GroupRow *), cmp_hash);
	for (int i = 0; i < gc->nrows; i++)
	{
		int			cls = -1;

		if (i > 0 && sorted[i]->hash != sorted[i - 1]->hash)
			run = i;			/* first row of this equal-hash run */
		for (int j = run; j < i && cls < 0; j++)
		{
			if (rows_equal(gc, sorted[i], sorted[j], sens))
				cls = sens ? sorted[j]->value : sorted[j]->bucket;
		}
		if (cls < 0)
			cls = nclasses++;
		if (sens)
			sorted[i]->value = cls;
		else
			sorted[i]->bucket = cls;
	}
	pfree(sorted);
	return nclasses;
}

/* the statistic text of value class v, from a row that has it (NULL: none) */
static char *
value_statistic(TapasGroupedCover *gc, const GroupRow *r, ParamListInfo params, Node **tree)
{
	Datum	   *vals = palloc(sizeof(Datum) * gc->ngroups);
	bool	   *nulls = palloc(sizeof(bool) * gc->ngroups);
	int			n = 0;

	for (int i = 0; i < gc->ngroups; i++)
	{
		if (!gc->sens[i])
			continue;
		vals[n] = r->vals[i];
		nulls[n] = r->nulls[i];
		n++;
	}
	return tapas_statistic_format(gc->spec, params, vals, nulls, tree);
}

/*
 * The cells of this execution (palloc'd in CurrentMemoryContext, keys
 * shared per bucket); returns their number in *ncells.
 */
TapasCell *
tapas_grouped_cells(TapasGroupedCover *gc, ParamListInfo params, int *ncells)
{
	int			nb = classify(gc, false);
	int			nv = classify(gc, true);
	GroupRow  **extra = NULL;
	int			nextra = gc->nrows > 0 ? domain_values(gc, params, &extra) : 0;
	char	  **stats = palloc(sizeof(char *) * Max(nv + nextra, 1));
	Node	  **trees = palloc0(sizeof(Node *) * Max(nv + nextra, 1));
	int		   *row_of = palloc(sizeof(int) * Max(nv + nextra, 1));
	TapasCell  *cells;
	int			n = 0;

	if ((int64) nb * nv > TAPAS_MAX_GROUPED_CELLS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("grouping by a sensitive column answers too many cells"),
				 errdetail("At most %d cells per aggregate are captured.", TAPAS_MAX_GROUPED_CELLS)));
	for (int v = 0; v < nv; v++)
		stats[v] = NULL;
	for (int i = 0; i < gc->nrows; i++)
	{
		if (stats[gc->rows[i]->value] == NULL)
			stats[gc->rows[i]->value] = value_statistic(gc, gc->rows[i], params,
														&trees[gc->rows[i]->value]);
	}
	/* values of the table's domain that no output group has: 0-cells */
	for (int x = 0; x < nextra; x++)
		stats[nv + x] = value_statistic(gc, extra[x], params, &trees[nv + x]);
	nv += nextra;
	cells = palloc(sizeof(TapasCell) * Max((int64) nb * nv, 1));
	for (int b = 0; b < nb; b++)
	{
		int64		total = 0;
		int64	   *keys;

		CHECK_FOR_INTERRUPTS();
		for (int v = 0; v < nv; v++)
			row_of[v] = -1;
		for (int i = 0; i < gc->nrows; i++)
		{
			if (gc->rows[i]->bucket != b)
				continue;
			row_of[gc->rows[i]->value] = i;
			total += gc->rows[i]->nkeys;
		}
		keys = palloc_extended(sizeof(int64) * Max(total, 1), MCXT_ALLOC_HUGE);
		total = 0;
		for (int v = 0; v < nv; v++)
		{
			if (row_of[v] < 0)
				continue;
			memcpy(keys + total, gc->rows[row_of[v]]->keys,
				   sizeof(int64) * gc->rows[row_of[v]]->nkeys);
			total += gc->rows[row_of[v]]->nkeys;
		}
		for (int v = 0; v < nv; v++)
		{
			if (stats[v] == NULL)
				continue;		/* the basis vanishes for this value */
			cells[n].relid = gc->relid;
			cells[n].statistic = stats[v];
			cells[n].answer = row_of[v] >= 0 ? gc->rows[row_of[v]]->answer : 0.0;
			cells[n].keys = keys;
			cells[n].nkeys = total;
			cells[n].basis = trees[v];
			n++;
		}
	}
	*ncells = n;
	return cells;
}
