/*-------------------------------------------------------------------------
 *
 * truth_domain_reps.c
 *	  The representatives of the domain grid's columns (truth_domain.c):
 *	  one value per occupied group of cells that the column's atoms treat
 *	  alike, cut from the columns' distinct values.
 *
 * A new class builds the grid twice over the same classes, once for its
 * identity and implications (truth_identity.c) and once for the relations
 * (relations.c): the second takes the first's representatives from a
 * cache per table (truth_domain_cache.c), kept with the table's classes (truth.c) and dropped
 * with them when the table changes.  The first cuts them from the
 * columns' distinct values, kept in the same cache by the first scan that
 * reads the columns (truth_domain_values.c): a class with a new constant
 * costs no scan of the table for its grid, only the scan of its truth.
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_reps.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "executor/executor.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

#include "audit/audit_int.h"
#include "audit/truth_domain_int.h"
#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		Representatives: one row value per occupied cell of each column
 * ----------------------------------------------------------------
 */

/* a column's cells: below c_1, = c_1, between c_1 and c_2, ..., above c_k; NULL */
typedef struct CellScan
{
	DomCol	   *col;
	FmgrInfo	cmp;
	Oid			collation;
	int			k;				/* distinct constants, ascending */
	Datum	   *c;
	int16		typlen;
	bool		typbyval;
	int			natoms;			/* the column's own atoms (DomCol.atoms) */
	ExprState **states;
	int			ncmps;			/* its recognised atoms (DomCol.cmps) */
	ExprState **cmp_states;
	int			ncells;			/* (2k + 1) 3^natoms: cell and atoms' truth values */
	bool	   *seen;			/* [ncells] */
	Datum	   *lo;				/* [ncells] least value seen in the cell */
	Datum	   *hi;				/* [ncells] greatest */
	bool		null_seen;
} CellScan;

static CellScan *cmp_scan;

static bool domain_reps_build(Domain *d, bool scan);

static int
cmp_datum(const void *a, const void *b)
{
	return DatumGetInt32(FunctionCall2Coll(&cmp_scan->cmp, cmp_scan->collation,
										   *(const Datum *) a, *(const Datum *) b));
}

static int
cmp3(CellScan *cs, Datum a, Datum b)
{
	return DatumGetInt32(FunctionCall2Coll(&cs->cmp, cs->collation, a, b));
}

/* false when the column's type has no btree order */
static bool
cells_init(CellScan *cs, DomCol *col, Relation rel, EState *estate)
{
	TypeCacheEntry *tc = lookup_type_cache(col->type, TYPECACHE_CMP_PROC_FINFO);
	ListCell   *lc;
	int			n = 0;

	memset(cs, 0, sizeof(*cs));
	cs->col = col;
	if (!OidIsValid(tc->cmp_proc))
		return false;
	fmgr_info_copy(&cs->cmp, &tc->cmp_proc_finfo, CurrentMemoryContext);
	cs->collation = TupleDescAttr(RelationGetDescr(rel), col->attno - 1)->attcollation;
	get_typlenbyval(col->type, &cs->typlen, &cs->typbyval);
	cs->c = palloc(sizeof(Datum) * (list_length(col->consts) + 1));
	foreach(lc, col->consts)
		cs->c[n++] = ((Const *) lfirst(lc))->constvalue;
	cmp_scan = cs;
	qsort(cs->c, n, sizeof(Datum), cmp_datum);
	for (int i = 0; i < n; i++)
		if (cs->k == 0 || cmp3(cs, cs->c[cs->k - 1], cs->c[i]) != 0)
			cs->c[cs->k++] = cs->c[i];
	cs->natoms = list_length(col->atoms);
	cs->ncells = 2 * cs->k + 1;
	for (int i = 0; i < cs->natoms; i++)
		cs->ncells *= 3;
	if (cs->ncells > 65536)
		return false;
	cs->states = palloc(sizeof(ExprState *) * Max(cs->natoms, 1));
	foreach(lc, col->atoms)
		cs->states[foreach_current_index(lc)] = ExecPrepareExpr((Expr *) copyObject(lfirst(lc)), estate);
	cs->ncmps = list_length(col->cmps);
	cs->cmp_states = palloc(sizeof(ExprState *) * Max(cs->ncmps, 1));
	foreach(lc, col->cmps)
		cs->cmp_states[foreach_current_index(lc)] = ExecPrepareExpr((Expr *) copyObject(lfirst(lc)), estate);
	cs->seen = palloc0(sizeof(bool) * cs->ncells);
	cs->lo = palloc0(sizeof(Datum) * cs->ncells);
	cs->hi = palloc0(sizeof(Datum) * cs->ncells);
	return true;
}

/* the cell of value v: 2i + 1 for c_i, 2i for the gap below it */
static int
cell_of(CellScan *cs, Datum v)
{
	int			lo = 0,
				hi = cs->k;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int			r = cmp3(cs, v, cs->c[mid]);

		if (r == 0)
			return 2 * mid + 1;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 2 * lo;
}

static void
cells_add(CellScan *cs, Datum v, bool isnull, ExprContext *econtext)
{
	int			cell;

	if (isnull)
	{
		cs->null_seen = true;
		return;
	}
	cell = cell_of(cs, v);
	for (int i = 0; i < cs->natoms; i++)
	{
		bool		anull;
		Datum		t = ExecEvalExprSwitchContext(cs->states[i], econtext, &anull);

		cell = 3 * cell + (anull ? 2 : DatumGetBool(t) ? 1 : 0);
	}
	if (!cs->seen[cell])
	{
		cs->seen[cell] = true;
		cs->lo[cell] = datumCopy(v, cs->typbyval, cs->typlen);
		cs->hi[cell] = cs->lo[cell];
		return;
	}
	if (!cs->col->summed)
		return;					/* one value per cell is enough */
	if (cmp3(cs, v, cs->lo[cell]) < 0)
		cs->lo[cell] = datumCopy(v, cs->typbyval, cs->typlen);
	if (cmp3(cs, v, cs->hi[cell]) > 0)
		cs->hi[cell] = datumCopy(v, cs->typbyval, cs->typlen);
}

/*
 * An opaque atom is never NULL when it is strict in the columns it reads
 * and none of them holds a NULL: then it takes two truth values, not
 * three, so that rare AND lower(d) = 'x' and rare AND NOT lower(d) = 'x'
 * add up to rare, as an attacker who knows d is never NULL can add them.
 */
static void
opaque_nullability(Domain *d)
{
	ListCell   *lc;

	foreach(lc, d->opaque)
	{
		Node	   *atom = lfirst(lc);
		Bitmapset  *attnos = NULL;
		int			a = -1;
		bool		nulls = contain_nonstrict_functions(atom);

		pull_varattnos(atom, 1, &attnos);
		while (!nulls && (a = bms_next_member(attnos, a)) >= 0)
		{
			int			attno = a + FirstLowInvalidHeapAttributeNumber;

			nulls = attno < 1 || d->null_seen[attno - 1];
		}
		if (!nulls)
			list_nth_cell(d->opaque_dom, foreach_current_index(lc))->int_value = 2;
	}
}


/*
 * The representatives of every column of d: from the cache of the last
 * grid (truth_domain_cache.c), else from the columns' kept distinct values
 * (truth_domain_values.c), else from a scan of the table, which keeps
 * them; kept in the cache when it succeeds.  A column past the values
 * kept costs a second scan the first time, and one scan every time after.
 */
bool
tapas_domain_reps(Domain *d)
{
	char	   *key = tapas_domain_key(d);

	if (tapas_domain_reps_cached(d, key))
		return true;

	/*
	 * without a scan; else with one, which keeps the values; else a column
	 * was found to have too many, and a second scan reads its cells
	 */
	if (!domain_reps_build(d, false) && !domain_reps_build(d, true) &&
		!domain_reps_build(d, true))
		return false;
	tapas_domain_reps_keep(d, key);
	return true;
}

/* the columns whose NULLs tell an opaque atom's truth values (opaque_nullability) */
static bool *
opaque_columns(Domain *d)
{
	int			natts = RelationGetDescr(d->rel)->natts;
	bool	   *need = palloc0(sizeof(bool) * natts);
	ListCell   *lc;

	foreach(lc, d->opaque)
	{
		Bitmapset  *attnos = NULL;
		int			a = -1;

		pull_varattnos(lfirst(lc), 1, &attnos);
		while ((a = bms_next_member(attnos, a)) >= 0)
		{
			int			attno = a + FirstLowInvalidHeapAttributeNumber;

			if (attno >= 1 && attno <= natts)
				need[attno - 1] = true;
		}
	}
	return need;
}

/* passes a column's values (and NULL) through its cells, as rows of the table would */
static void
cells_feed(CellScan *cs, const Datum *vals, int n, bool has_null, TupleTableSlot *slot,
		   ExprContext *econtext)
{
	int			a = cs->col->attno - 1;

	ExecClearTuple(slot);
	for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	ExecStoreVirtualTuple(slot);
	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < n; i++)
	{
		if ((i & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
		slot->tts_values[a] = vals[i];
		slot->tts_isnull[a] = false;
		cells_add(cs, vals[i], false, econtext);
		ResetExprContext(econtext);
	}
	if (has_null)
		cells_add(cs, (Datum) 0, true, econtext);
}

/*
 * The signature of cell j: the truth value (0, 1, 2 for NULL) of each
 * recognised atom of the column at the cell's value, then the cell's
 * truth values of the column's own atoms (its index modulo 3^natoms).
 * Every recognised atom is constant on a cell (they compare the column
 * with the constants that cut the cells), so its value stands for all.
 */
static void
cell_signature(CellScan *cs, int j, TupleTableSlot *slot, ExprContext *econtext, uint8 *sig)
{
	int32		own = cs->ncells / (2 * cs->k + 1);	/* 3^natoms */

	slot->tts_values[cs->col->attno - 1] = cs->lo[j];
	slot->tts_isnull[cs->col->attno - 1] = false;
	econtext->ecxt_scantuple = slot;
	for (int i = 0; i < cs->ncmps; i++)
	{
		bool		isnull;
		Datum		t = ExecEvalExprSwitchContext(cs->cmp_states[i], econtext, &isnull);

		sig[i] = isnull ? 2 : DatumGetBool(t) ? 1 : 0;
	}
	ResetExprContext(econtext);
	own = j % own;
	memcpy(sig + cs->ncmps, &own, sizeof(own));
}

static uint8 *sig_of;
static size_t sig_len;

static int
cmp_signature(const void *a, const void *b)
{
	int			x = *(const int *) a,
				y = *(const int *) b;
	int			r = memcmp(sig_of + x * sig_len, sig_of + y * sig_len, sig_len);

	return r != 0 ? r : x - y;
}

/*
 * The occupied cells of cs in groups of one signature: order[] holds them
 * by signature, group g is order[start[g] .. start[g + 1]), each in
 * ascending cell order (so ascending values); returns the number of
 * groups.  Every class reads the column only through its atoms and its
 * value expressions (a summed column), so the cells of one group are the
 * same row to every class but for the column's value itself.
 */
static int
cells_groups(CellScan *cs, TupleTableSlot *slot, ExprContext *econtext, int *order, int *start)
{
	int			n = 0,
				g = 0;

	sig_len = cs->ncmps + sizeof(int32);	/* cell_signature */
	sig_of = palloc0(sig_len * cs->ncells);
	ExecClearTuple(slot);
	for (int i = 0; i < slot->tts_tupleDescriptor->natts; i++)
		slot->tts_isnull[i] = true;
	ExecStoreVirtualTuple(slot);
	for (int j = 0; j < cs->ncells; j++)
	{
		if ((j & 255) == 255)
			CHECK_FOR_INTERRUPTS();
		if (cs->seen[j])
		{
			cell_signature(cs, j, slot, econtext, sig_of + j * sig_len);
			order[n++] = j;
		}
	}
	qsort(order, n, sizeof(int), cmp_signature);
	for (int i = 0; i < n; i++)
		if (i == 0 || memcmp(sig_of + order[i] * sig_len, sig_of + order[i - 1] * sig_len, sig_len) != 0)
			start[g++] = i;
	start[g] = n;
	return g;
}

/*
 * Keeps the groups' signatures in the column, for the slices of the star
 * (truth_domain_slices.c): one byte per recognised atom, then one per own
 * atom (the trits of cell_signature's int32, most significant first).
 */
static void
groups_keep(CellScan *cs, const int *order, const int *start, int ngroups)
{
	DomCol	   *c = cs->col;

	c->siglen = cs->ncmps + cs->natoms;
	c->sig = palloc0(Max(c->siglen, 1) * (ngroups + 1));
	for (int g = 0; g < ngroups; g++)
	{
		const uint8 *from = sig_of + order[start[g]] * sig_len;
		uint8	   *to = c->sig + g * c->siglen;
		int32		own;

		memcpy(to, from, cs->ncmps);
		memcpy(&own, from + cs->ncmps, sizeof(own));
		for (int a = cs->natoms - 1; a >= 0; a--, own /= 3)
			to[cs->ncmps + a] = (uint8) (own % 3);
	}
}

/*
 * The representatives of one group of cells (order[a .. b)): a column
 * that no value expression reads needs one; a summed one its least and
 * greatest values, as a single cell had, and up to GROUP_SUMMED_REPS
 * spread between them (value expressions taken as equal when they agree
 * there, as on a cell's extremes before: exact for affine ones).
 */
static void
group_reps(CellScan *cs, const int *order, int a, int b, DomCol *c)
{
	Datum	   *v = palloc(sizeof(Datum) * 2 * (b - a));
	int			n = 0;

	for (int i = a; i < b; i++)
	{
		int			j = order[i];

		v[n++] = cs->lo[j];
		if (cs->col->summed && cmp3(cs, cs->lo[j], cs->hi[j]) != 0)
			v[n++] = cs->hi[j];
		if (!cs->col->summed)
			break;
	}
	for (int k = 0; k < Min(n, GROUP_SUMMED_REPS); k++)
		c->reps[c->nreps++] = v[n <= GROUP_SUMMED_REPS ? k
								: (int) ((int64) k * (n - 1) / (GROUP_SUMMED_REPS - 1))];
	pfree(v);
}

/*
 * A column's representatives from its cells, in cs->col, one group of
 * cells of one signature at a time (cells_groups): the IN list of 1,501
 * incomes cuts income into two groups, in the list or not, not into
 * 3,003 cells (sql/49_audit_domain section 11).  False if it has none.
 */
static bool
cells_finish(CellScan *cs, TupleTableSlot *slot, ExprContext *econtext)
{
	DomCol	   *c = cs->col;
	int		   *order = palloc(sizeof(int) * cs->ncells);
	int		   *start = palloc(sizeof(int) * (cs->ncells + 1));
	int			ngroups = cells_groups(cs, slot, econtext, order, start);

	c->reps = palloc(sizeof(Datum) * (GROUP_SUMMED_REPS * ngroups + 1));
	c->rnull = palloc0(sizeof(bool) * (GROUP_SUMMED_REPS * ngroups + 1));
	c->gstart = palloc(sizeof(int) * (ngroups + 2));
	c->nreps = 0;
	groups_keep(cs, order, start, ngroups);
	for (int g = 0; g < ngroups; g++)
	{
		c->gstart[g] = c->nreps;
		group_reps(cs, order, start[g], start[g + 1], c);
	}
	c->ngroups = ngroups;
	c->null_group = cs->null_seen;
	if (cs->null_seen)
	{
		/* NULL: a group of its own, last, with no signature (slices never merge it) */
		c->gstart[c->ngroups++] = c->nreps;
		c->rnull[c->nreps] = true;
		c->reps[c->nreps++] = (Datum) 0;
	}
	c->gstart[c->ngroups] = c->nreps;
	pfree(sig_of);
	pfree(order);
	pfree(start);
	if (c->nreps == 0)
		return false;			/* an empty table has no grid */
	/* only the classes of this column's component fall back (truth_domain_star.c) */
	if (c->nreps > DOMAIN_MAX_REPS)
	{
		c->failed = true;
		c->nreps = 0;
	}
	return true;
}

/*
 * One scan of the table that keeps the distinct values of the columns
 * need[] names (those not kept yet), and passes the rows of a column
 * known to have too many through its cells (fed[i]: cs[i] has them all).
 */
static void
values_scan(Domain *d, CellScan *cs, bool *fed, const bool *need, ExprContext *econtext)
{
	int			natts = RelationGetDescr(d->rel)->natts;
	int			ncols = list_length(d->cols);
	ValueSet  **sets = palloc0(sizeof(ValueSet *) * natts);
	CellScan  **of = palloc0(sizeof(CellScan *) * natts);
	TapasTableScan *scan;
	TupleTableSlot *slot;
	uint64		rows = 0;

	for (int i = 0; i < ncols; i++)
		if (!cs[i].col->failed)
			of[cs[i].col->attno - 1] = &cs[i];
	for (int a = 0; a < natts; a++)
		if (need[a] && tapas_domain_values(d->rel, a + 1) == NULL)
			sets[a] = tapas_value_set_create(d->rel, a + 1);
	for (int i = 0; i < ncols; i++)
	{
		ColValues  *cv = tapas_domain_values(d->rel, cs[i].col->attno);

		/* values kept, but not all of them: the cells from the rows */
		fed[i] = !cs[i].col->failed && cv != NULL && !cv->complete;
	}
	scan = tapas_table_scan_begin(RelationGetRelid(d->rel), GetActiveSnapshot());
	while ((slot = tapas_table_scan_next(scan)) != NULL)
	{
		if ((++rows & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int a = 0; a < natts; a++)
		{
			CellScan   *c = of[a];
			bool		isnull;
			Datum		v;

			if (sets[a] == NULL && (c == NULL || !fed[c - cs]))
				continue;
			v = slot_getattr(slot, a + 1, &isnull);
			if (sets[a] != NULL)
				(void) tapas_value_set_add(sets[a], v, isnull);
			if (c != NULL && fed[c - cs])
			{
				econtext->ecxt_scantuple = slot;
				cells_add(c, v, isnull, econtext);
				ResetExprContext(econtext);
			}
		}
	}
	tapas_table_scan_end(scan);
	for (int a = 0; a < natts; a++)
		if (sets[a] != NULL)
			tapas_value_set_keep(d->rel, sets[a]);
}

/*
 * The representatives of every column of d: per column, a value of each
 * cell its constants cut that holds one (its least and greatest for a
 * summed column, so that value expressions that differ differ there),
 * and NULL when the column holds one.  The cells a column occupies are
 * those of its distinct values, kept per table (truth_domain_values.c);
 * without scan, false unless every column needed has them; with it, one
 * scan of the table keeps them.  What the auditor takes from the data is
 * only which cells of each column are occupied, one column at a time, a
 * marginal fact like the column's domain, which an attacker is assumed to
 * know (diagnosis is one of five codes, income is never NULL); never how
 * the columns combine on a record, so no coincidence between columns is
 * used (hiv = rare).
 */
static bool
domain_reps_build(Domain *d, bool scan)
{
	int			ncols = list_length(d->cols);
	int			natts = RelationGetDescr(d->rel)->natts;
	CellScan   *cs = palloc(sizeof(CellScan) * Max(ncols, 1));
	bool	   *fed = palloc0(sizeof(bool) * Max(ncols, 1));
	bool	   *need = opaque_columns(d);
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *vslot = MakeSingleTupleTableSlot(RelationGetDescr(d->rel), &TTSOpsVirtual);
	bool		ok = true;
	ListCell   *lc;

	foreach(lc, d->cols)
	{
		DomCol	   *c = lfirst(lc);

		c->failed = !cells_init(&cs[foreach_current_index(lc)], c, d->rel, estate);
		need[c->attno - 1] |= !c->failed;
	}
	if (scan)
		values_scan(d, cs, fed, need, econtext);
	d->null_seen = palloc0(sizeof(bool) * natts);
	for (int a = 0; a < natts && ok; a++)
	{
		ColValues  *cv = tapas_domain_values(d->rel, a + 1);

		ok = !need[a] || cv != NULL;
		d->null_seen[a] = cv != NULL && cv->has_null;
	}
	for (int i = 0; i < ncols && ok; i++)
	{
		ColValues  *cv = tapas_domain_values(d->rel, cs[i].col->attno);

		if (cs[i].col->failed)
			continue;
		if (fed[i])
		{
			cs[i].null_seen |= cv->has_null;	/* NULLs read before its set stopped */
			continue;
		}
		ok = cv->complete;
		if (ok)
			cells_feed(&cs[i], cv->vals, cv->n, cv->has_null, vslot, econtext);
	}
	if (ok)
		opaque_nullability(d);
	for (int i = 0; i < ncols && ok; i++)
		if (!cs[i].col->failed)
			ok = cells_finish(&cs[i], vslot, econtext);
	ExecDropSingleTupleTableSlot(vslot);
	FreeExecutorState(estate);
	return ok;
}
