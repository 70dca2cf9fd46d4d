/*-------------------------------------------------------------------------
 *
 * truth_read.c
 *	  Reading a class's truth vector: its canonical tree evaluated by tapas
 *	  over a heap scan of the table (every partition), sorted by key with
 *	  interrupt checks; and the table change stamp that invalidates it.
 *
 * IDENTIFICATION
 *	  src/audit/truth_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"


#include "access/xact.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "pgstat.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "common/hashfn.h"

#include "audit/audit_int.h"

/* changes to one table known to this backend (shared counters + own pending) */
static int64
leaf_change_stamp(Oid relid)
{
	PgStat_StatTabEntry *t;
	PgStat_TableStatus *own;
	int64		stamp = 0;

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

/*
 * Changes to relid known to this backend: over its leaf partitions when
 * it is partitioned (the partitioned table itself counts nothing), each
 * leaf's count mixed with its OID, so that a partition created, attached
 * or dropped also moves the stamp; a foreign leaf counts by the digest of
 * its rows, read from the remote server (foreign_leaves.c).  A stamp that cannot be read (a
 * partition that cannot be scanned) is -1, which never matches.
 */
int64
tapas_audit_table_change_stamp(Oid relid)
{
	List	   *leaves;
	ListCell   *lc;
	uint64		stamp = 0;

	pgstat_clear_snapshot();
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return leaf_change_stamp(relid);
	leaves = tapas_protected_leaves(relid, AccessShareLock);
	foreach(lc, leaves)
	{
		Oid			leaf = lfirst_oid(lc);
		int64		own;

		/* a foreign leaf's rows change where no counter here moves: its digest */
		if (get_rel_relkind(leaf) == RELKIND_FOREIGN_TABLE)
			own = tapas_foreign_leaf_stamp(relid, tapas_protection_lookup(relid), leaf);
		else
			own = leaf_change_stamp(leaf);
		stamp += (uint64) own + hash_bytes_uint32(leaf) * UINT64CONST(0x9E3779B97F4A7C15);
	}
	list_free(leaves);
	return (int64) (stamp & ~(UINT64CONST(1) << 63));
}

/*
 * The record key of the scanned row (in the protected table's format): the
 * integer key, or the record identity of a hashed key (policy/keys.c),
 * as the capture computes it.
 */
static int64
slot_key(TupleTableSlot *slot, const TapasProtection *p, bool *isnull)
{
	Datum		d;
	Datum		values[TAPAS_MAX_KEY_COLUMNS];
	bool		nulls[TAPAS_MAX_KEY_COLUMNS];

	if (p->key_hashed)
	{
		*isnull = false;
		for (int i = 0; i < p->nkeys; i++)
		{
			values[i] = slot_getattr(slot, p->key_attnos[i], &nulls[i]);
			*isnull |= nulls[i];
		}
		return *isnull ? 0 : tapas_key_hash(p->nkeys, values, nulls, p->key_typlen, p->key_typbyval);
	}
	d = slot_getattr(slot, p->key_attno, isnull);
	if (*isnull)
		return 0;
	return p->key_type == INT8OID ? DatumGetInt64(d) :
		p->key_type == INT4OID ? (int64) DatumGetInt32(d) : (int64) DatumGetInt16(d);
}

static int
cmp_key_val(const void *x, const void *y)
{
	const int64 *a = (const int64 *) x,
			   *b = (const int64 *) y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* pairs (key, value) per sorted block between two interrupt checks */
#define SORT_BLOCK	(INT64CONST(1) << 16)

/*
 * Sorts the n (key, value) pairs of kv by key, honouring a cancel within
 * a fraction of a second at any n (a qsort of 10^7 pairs is seconds
 * without one): nothing to do when the heap holds the keys in order (the
 * usual load order); else blocks of SORT_BLOCK pairs are sorted, then
 * merged pairwise bottom-up through a buffer, with an interrupt check per
 * block and per SORT_BLOCK pairs merged.
 */
static void
sort_key_vals(int64 *kv, int64 n)
{
	int64	   *src = kv,
			   *dst;
	int64		i,
				width;

	for (i = 1; i < n; i++)
		if (kv[2 * (i - 1)] > kv[2 * i])
			break;
	if (i >= n)
		return;
	for (i = 0; i < n; i += SORT_BLOCK)
	{
		CHECK_FOR_INTERRUPTS();
		qsort(kv + 2 * i, Min(SORT_BLOCK, n - i), 2 * sizeof(int64), cmp_key_val);
	}
	if (n <= SORT_BLOCK)
		return;
	dst = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * 2 * n);
	for (width = SORT_BLOCK; width < n; width *= 2)
	{
		for (int64 lo = 0; lo < n; lo += 2 * width)
		{
			int64		mid = Min(lo + width, n),
						hi = Min(lo + 2 * width, n),
						a = lo,
						b = mid,
						k = lo;

			while (k < hi)
			{
				if ((k & (SORT_BLOCK - 1)) == 0)
					CHECK_FOR_INTERRUPTS();
				if (b >= hi || (a < mid && src[2 * a] <= src[2 * b]))
				{
					dst[2 * k] = src[2 * a];
					dst[2 * k + 1] = src[2 * a + 1];
					a++;
				}
				else
				{
					dst[2 * k] = src[2 * b];
					dst[2 * k + 1] = src[2 * b + 1];
					b++;
				}
				k++;
			}
		}
		/* the next pass reads what this one wrote */
		{
			int64	   *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != kv)
	{
		memcpy(kv, src, sizeof(int64) * 2 * n);
		pfree(src);
	}
	else
		pfree(dst);
}

/* the (key, value) pairs of one tree while the scan runs */
typedef struct TruthAcc
{
	ExprState  *expr;
	int64	   *kv;				/* [2 max] key, then the value's bits */
	int64		n;
	int64		max;
} TruthAcc;

/* appends (key, d) to a's pairs */
static inline void
acc_push(TruthAcc *a, int64 key, double d)
{
	if (a->n == a->max)
	{
		a->max *= 2;
		a->kv = repalloc_huge(a->kv, sizeof(int64) * 2 * a->max);
	}
	a->kv[2 * a->n] = key;
	memcpy(&a->kv[2 * a->n + 1], &d, sizeof(double));
	a->n++;
}

/* c's truth from a's pairs, sorted by key, into the audit context */
static void
acc_finish(TapasClass *c, TruthAcc *a, uint64 rows)
{
	sort_key_vals(a->kv, a->n);
	c->nnz = a->n;
	c->nrecords = (int64) rows;
	c->binary = true;
	c->keys = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(int64) * Max(a->n, 1));
	c->vals = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(double) * Max(a->n, 1));
	for (int64 i = 0; i < a->n; i++)
	{
		c->keys[i] = a->kv[2 * i];
		memcpy(&c->vals[i], &a->kv[2 * i + 1], sizeof(double));
		if (c->vals[i] != 1.0)
			c->binary = false;
	}
	pfree(a->kv);
	a->kv = NULL;
}

/*
 * Evaluates the trees of cs[0..k) (classes of one table) on every row of
 * the table in one heap scan under snap (ExecEvalExpr in tapas's own code:
 * no query is planned and the capture stays on), keeping for each the rows
 * with v <> 0, sorted by key.  One scan serves every class of a statement
 * whose truth is new to the backend (tapas_audit_truth_preread): the heap
 * is read once, each tree evaluated on each row, exactly as k scans would.
 * Runs in a subtransaction: false (and nothing kept in any class) on any
 * error other than a cancel.
 */
static bool
read_truths(TapasClass **cs, int k, const TapasProtection *prot, Snapshot snap)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		TapasTableScan *scan = tapas_table_scan_begin(cs[0]->relid, snap);
		EState	   *estate = CreateExecutorState();
		ExprContext *econtext = GetPerTupleExprContext(estate);
		TruthAcc   *acc = palloc0(sizeof(TruthAcc) * k);
		TupleTableSlot *slot;
		uint64		rows = 0;

		for (int i = 0; i < k; i++)
		{
			acc[i].expr = ExecPrepareExpr((Expr *) copyObject(cs[i]->vtree), estate);
			acc[i].max = 1024;
			acc[i].kv = MemoryContextAllocHuge(caller, sizeof(int64) * 2 * acc[i].max);
		}
		while ((slot = tapas_table_scan_next(scan)) != NULL)
		{
			bool		knull = false;
			bool		have_key = false;
			int64		key = 0;

			if ((++rows & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			econtext->ecxt_scantuple = slot;
			for (int i = 0; i < k; i++)
			{
				bool		vnull;
				Datum		v = ExecEvalExprSwitchContext(acc[i].expr, econtext, &vnull);
				double		d = vnull ? 0.0 : DatumGetFloat8(v);

				if (d == 0.0)
					continue;
				if (!have_key)
				{
					key = slot_key(slot, prot, &knull);
					have_key = true;
				}
				if (!knull)
					acc_push(&acc[i], key, d);
			}
			ResetExprContext(econtext);
		}
		FreeExecutorState(estate);
		tapas_table_scan_end(scan);
		for (int i = 0; i < k; i++)
			acc_finish(cs[i], &acc[i], rows);
		pfree(acc);
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
		for (int i = 0; i < k; i++)
		{
			/* what acc_finish had moved into the audit context */
			if (cs[i]->keys)
				pfree(cs[i]->keys);
			if (cs[i]->vals)
				pfree(cs[i]->vals);
			cs[i]->keys = NULL;
			cs[i]->vals = NULL;
			cs[i]->nnz = 0;
		}
		return false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/*
 * The truths of cs[0..k) (classes of one table) from the table, and a copy
 * of each for other backends when the table held still while it was read
 * (truth_stamp.c): the stamp, then a new snapshot for the scan, then the
 * stamp again.  Without a valid stamp (a write in flight, copies off) the
 * scan runs under the active snapshot, as the per-backend cache always
 * did.
 */
bool
tapas_audit_truths_read(TapasClass **cs, int k, const TapasProtection *prot)
{
	uint64		stamp0,
				stamp1;
	int64		stat0,
				stat1;
	Snapshot	snap;
	volatile bool ok = false;

	if (tapas_audit_shared_memory_kb <= 0 || !tapas_audit_truth_stamp(cs[0]->relid, &stamp0, &stat0))
		return read_truths(cs, k, prot, GetActiveSnapshot());
	snap = RegisterSnapshot(GetLatestSnapshot());
	PG_TRY();
	{
		ok = read_truths(cs, k, prot, snap);
	}
	PG_FINALLY();
	{
		UnregisterSnapshot(snap);
	}
	PG_END_TRY();
	if (ok && tapas_audit_truth_stamp(cs[0]->relid, &stamp1, &stat1) &&
		stamp1 == stamp0 && stat1 == stat0)
		for (int i = 0; i < k; i++)
			tapas_audit_truth_shared_publish(cs[i], prot, stamp0, stat0);
	return ok;
}

/*
 * Reads c's truth vector and its hash: read already with the other new
 * classes of the statement (truth_preread.c), or from another backend's
 * copy when the table has not changed since it was read (truth_shared.c),
 * else from the table.  False if it cannot be read.
 */
bool
tapas_audit_class_read_truth(TapasClass *c)
{
	const TapasProtection *prot = tapas_protection_lookup(c->relid);

	if (c->vtree == NULL || prot == NULL)
		return false;
	if (tapas_audit_truth_pending_take(c) || tapas_audit_truth_shared_take(c, prot))
	{
		c->binary = true;
		for (int64 i = 0; i < c->nnz && c->binary; i++)
			c->binary = c->vals[i] == 1.0;
	}
	else if (!tapas_audit_truths_read(&c, 1, prot))
		return false;
	for (int64 i = 0; i < c->nnz; i++)
		if (c->vals[i] == 0.0)
			c->vals[i] = 0.0;	/* -0 and 0 are one value */
	/* a constant on every record: count(*) times it, public */
	c->is_one = c->nnz > 0 && c->nnz == c->nrecords;
	for (int64 i = 1; i < c->nnz && c->is_one; i++)
		c->is_one = c->vals[i] == c->vals[0];
	c->hash = hash_bytes_extended((const unsigned char *) c->keys,
								  (int) Min(sizeof(int64) * c->nnz, (size_t) PG_INT32_MAX), 0x7461706173ULL) ^
		hash_bytes_extended((const unsigned char *) c->vals,
							(int) Min(sizeof(double) * c->nnz, (size_t) PG_INT32_MAX), (uint64) c->nnz);
	return true;
}

