/*-------------------------------------------------------------------------
 *
 * truth.c
 *	  The auditor's truth: the per-row value v of a logged statistic, read
 *	  from the table for the reconstruction audit (reconstructed.c).
 *
 * The truth is evaluated by tapas, never by re-running the analyst's
 * expression (issue 10, class 2).  The gate hands every cell with the
 * canonical basis tree of its statistic (capture/basis.c: a float8
 * expression over the table's columns built by tapas from the normal form,
 * e.g. CASE WHEN rare THEN 1 ELSE 0 END); this file keeps one tree per
 * (table, statistic) for the life of the backend (the basis registry) and
 * evaluates it with ExecInitExpr / ExecEvalExpr over a heap scan of the
 * table in its own code.  No query is planned and nothing is switched off:
 * the capture stays on for anything the tree could call.  A statistic
 * whose tree this backend never saw (one read back from the ledger only)
 * has no usable truth.  Errors of the evaluation (e.g. a division by zero
 * on some row) are swallowed, never shown to the analyst: the truth is
 * then unusable for this statistic.  The result is cached in the entry and
 * re-read when the table's change counters move (cumulative statistics
 * plus this backend's pending counts; other backends publish theirs
 * within seconds).
 *
 * Memory: the registry and the trees live in the audit cache context
 * (tapas_audit_cxt); a truth read runs in a temporary executor state.
 *
 * IDENTIFICATION
 *	  src/audit/truth.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		The basis registry
 * ----------------------------------------------------------------
 */

typedef struct BasisKey
{
	Oid			relid;
	char		statistic[TAPAS_LEDGER_MAX_STATISTIC + 1];
} BasisKey;

typedef struct BasisEntry
{
	BasisKey	key;			/* hash key: must be first */
	Node	   *tree;			/* in tapas_audit_cxt() */
} BasisEntry;

static HTAB *bases = NULL;

static BasisEntry *
basis_lookup(Oid relid, const char *statistic, HASHACTION action, bool *found)
{
	BasisKey	key;

	if (bases == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(BasisKey);
		ctl.entrysize = sizeof(BasisEntry);
		ctl.hcxt = tapas_audit_cxt();
		bases = hash_create("tapas basis registry", 256, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&key, 0, sizeof(key));
	key.relid = relid;
	strlcpy(key.statistic, statistic, sizeof(key.statistic));
	return hash_search(bases, &key, action, found);
}

/* Remembers the basis trees of a statement's cells (capture/gate.c). */
void
tapas_audit_register_bases(const TapasCell *cells, int ncells)
{
	for (int i = 0; i < ncells; i++)
	{
		BasisEntry *b;
		bool		found;

		if (cells[i].basis == NULL || cells[i].statistic == NULL ||
			strlen(cells[i].statistic) > TAPAS_LEDGER_MAX_STATISTIC)
			continue;
		b = basis_lookup(cells[i].relid, cells[i].statistic, HASH_ENTER, &found);
		if (!found)
		{
			MemoryContext old = MemoryContextSwitchTo(tapas_audit_cxt());

			b->tree = copyObject((Node *) cells[i].basis);
			MemoryContextSwitchTo(old);
		}
	}
}

/*
 * Sets e->sensitive (v reads a sensitive column) and e->vtree (NULL when
 * this backend has no tree for the statistic).  A statistic without a
 * tree is treated as sensitive unless it is the plain count(*).
 */
void
tapas_audit_prepare_statistic(TapasAuditEntry *e)
{
	const TapasProtection *prot = tapas_protection_lookup(e->key.relid);
	BasisEntry *b;
	bool		found;
	Bitmapset  *attnos = NULL;
	int			a = -1;

	e->sensitive = strcmp(e->key.statistic, "count(*)") != 0;
	e->vtree = NULL;
	if (prot == NULL)
		return;
	b = basis_lookup(e->key.relid, e->key.statistic, HASH_FIND, &found);
	if (b == NULL)
		return;
	e->vtree = b->tree;
	pull_varattnos(b->tree, 1, &attnos);
	e->sensitive = false;
	while ((a = bms_next_member(attnos, a)) >= 0)
		if (bms_is_member(a + FirstLowInvalidHeapAttributeNumber, prot->sensitive))
			e->sensitive = true;
}

/* ----------------------------------------------------------------
 *		The truth
 * ----------------------------------------------------------------
 */

/* changes to relid known to this backend (shared counters + own pending) */
static int64
table_change_stamp(Oid relid)
{
	PgStat_StatTabEntry *t;
	PgStat_TableStatus *own;
	int64		stamp = 0;

	pgstat_clear_snapshot();
	t = pgstat_fetch_stat_tabentry(relid);
	if (t != NULL)
		stamp += t->tuples_inserted + t->tuples_updated + t->tuples_deleted;
	own = find_tabstat_entry(relid);
	if (own != NULL)
	{
		stamp += own->t_counts.t_tuples_inserted + own->t_counts.t_tuples_updated +
			own->t_counts.t_tuples_deleted;
		for (PgStat_TableXactStatus *x = own->trans; x != NULL; x = x->upper)
			stamp += x->tuples_inserted + x->tuples_updated + x->tuples_deleted;
	}
	return stamp;
}

/* the key of the scanned row as int8 */
static int64
slot_key(TupleTableSlot *slot, AttrNumber attno, Oid type, bool *isnull)
{
	Datum		d = slot_getattr(slot, attno, isnull);

	if (*isnull)
		return 0;
	return type == INT8OID ? DatumGetInt64(d) :
		type == INT4OID ? (int64) DatumGetInt32(d) : (int64) DatumGetInt16(d);
}

/*
 * Evaluates e->vtree on every row of the table (a heap scan under the
 * active snapshot), keeping the first TRUTH_MAX_NONZERO + 1 rows with
 * v <> 0.  Runs in a subtransaction: false (and nothing kept) on any error
 * other than a cancel.
 */
static bool
read_truth(TapasAuditEntry *e, const TapasProtection *prot)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		Relation	rel = table_open(e->key.relid, AccessShareLock);
		EState	   *estate = CreateExecutorState();
		ExprContext *econtext = GetPerTupleExprContext(estate);
		ExprState  *expr = ExecPrepareExpr((Expr *) copyObject(e->vtree), estate);
		TupleTableSlot *slot = table_slot_create(rel, NULL);
		TableScanDesc scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
		int64		keys[TRUTH_MAX_NONZERO + 1];
		double		vals[TRUTH_MAX_NONZERO + 1];
		int			n = 0;
		uint64		rows = 0;

		while (n <= TRUTH_MAX_NONZERO && table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		vnull,
						knull;
			Datum		v;

			if ((++rows & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			econtext->ecxt_scantuple = slot;
			v = ExecEvalExprSwitchContext(expr, econtext, &vnull);
			ResetExprContext(econtext);
			if (vnull || DatumGetFloat8(v) == 0.0)
				continue;
			keys[n] = slot_key(slot, prot->key_attno, prot->key_type, &knull);
			vals[n] = DatumGetFloat8(v);
			if (!knull)
				n++;
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		FreeExecutorState(estate);
		table_close(rel, AccessShareLock);

		e->nnz = n;
		e->truth_binary = true;
		e->nz_keys = MemoryContextAlloc(tapas_audit_cxt(), sizeof(int64) * Max(n, 1));
		e->nz_vals = MemoryContextAlloc(tapas_audit_cxt(), sizeof(double) * Max(n, 1));
		for (int i = 0; i < n; i++)
		{
			e->nz_keys[i] = keys[i];
			e->nz_vals[i] = vals[i];
			if (vals[i] != 1.0)
				e->truth_binary = false;
		}
		ReleaseCurrentSubTransaction();
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(caller);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		/* a cancel must still cancel; any other error stays hidden */
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(err);
		FreeErrorData(err);
		return false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/* makes e's truth cache current; false if the truth is unusable */
bool
tapas_audit_ensure_truth(TapasAuditEntry *e)
{
	const TapasProtection *prot;
	int64		stamp;

	if (e->vtree == NULL)
		tapas_audit_prepare_statistic(e);	/* a tree registered since */
	if (e->vtree == NULL || !e->sensitive)
		return false;
	stamp = table_change_stamp(e->key.relid);
	if (e->truth == TRUTH_OK && stamp == e->truth_stamp)
		return true;
	if (e->truth == TRUTH_UNUSABLE && stamp == e->truth_stamp)
		return false;
	prot = tapas_protection_lookup(e->key.relid);
	if (prot == NULL)
		return false;
	if (e->nz_keys)
		pfree(e->nz_keys);
	if (e->nz_vals)
		pfree(e->nz_vals);
	e->nz_keys = NULL;
	e->nz_vals = NULL;
	e->nnz = 0;
	e->truth_stamp = stamp;
	e->truth = read_truth(e, prot) ? TRUTH_OK : TRUTH_UNUSABLE;
	return e->truth == TRUTH_OK;
}
