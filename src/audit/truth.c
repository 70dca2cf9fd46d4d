/*-------------------------------------------------------------------------
 *
 * truth.c
 *	  Basis-value classes: every sensitive statistic of a protected table
 *	  is mapped to the class of statistics whose per-row value v has the
 *	  same truth vector over the table, read from the table itself.
 *
 * The joint system (DESIGN.md section 2) has one unknown per (record,
 * basis value), and basis values whose truth vectors are identical are
 * ONE unknown: "count(*) filter (where rare)", "sum((rare)::integer)" and
 * "sum(CASE WHEN rare THEN 1 ELSE 0 END)" all have v_j = 1[rare_j], so an
 * attacker adds their cells as cells of one statistic.  Until the normal
 * form identifies basis values structurally (issue 10), a class is found
 * by value: the full truth vector {(key, v) : v != 0}, sorted by key, is
 * hashed, and a class with the same hash is taken only after an exact
 * comparison of the vectors.  Unifying by value may also merge statistics
 * that agree on this table by coincidence; that only adds rows an
 * attacker who knew the coincidence could combine (more refusals, never
 * fewer).  A class is named by the first statistic text seen of it (its
 * "basis id", TapasClass.rep).
 *
 * The truth is evaluated by tapas, never by re-running the analyst's
 * expression (issue 10): the gate hands every cell with the canonical
 * basis tree of its statistic (capture/basis.c), kept here per (table,
 * statistic) for the life of the backend (the basis registry), and
 * evaluated with ExecEvalExpr over a heap scan of the table (of every
 * partition of a partitioned table: policy/partitions.c).  A statistic
 * logged by another backend gets its tree from the ledger, which keeps
 * the nodeToString of the first tree logged with each statistic
 * (ledger.h: tapas_ledger_basis): a tree tapas built, read back with
 * stringToNode, so no analyst text is parsed.  Errors of the evaluation
 * are swallowed, never shown to the analyst: the class is then "unusable"
 * (identified by its text alone), and so is a statistic without any tree
 * (an older ledger file); while a table has an unusable class, its joint
 * system may miss that class's cells, and every audit of the table fails
 * closed (tapas_audit_truth_unknown, decide.c).
 *
 * The classes of a table are kept per backend and dropped, with every
 * audit entry of the table, when the table's change counters move
 * (cumulative statistics plus this backend's pending counts): the entries
 * are then rebuilt from the ledger against the new truth.
 *
 * IDENTIFICATION
 *	  src/audit/truth.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/sysattr.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "nodes/readfuncs.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "common/hashfn.h"
#include "utils/hsearch.h"
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
 * Whether a tree read back from the ledger has the shape of a basis tapas
 * builds: a float8 expression over the columns of varno 1 only, without
 * parameters, sub-queries or aggregates.  The ledger holds only trees
 * tapas serialised itself (ledger.h), so this is a check against damage,
 * not against the analyst.
 */
static bool
basis_shape_walker(Node *node, void *unused)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		return v->varno != 1 || v->varlevelsup != 0 || v->varattno <= 0;
	}
	if (IsA(node, Param) || IsA(node, SubLink) || IsA(node, SubPlan) ||
		IsA(node, Aggref) || IsA(node, WindowFunc) || IsA(node, GroupingFunc))
		return true;
	return expression_tree_walker(node, basis_shape_walker, unused);
}

/*
 * The basis tree another backend logged with the statistic (ledger.h:
 * tapas_ledger_basis), registered here; NULL when the ledger has none.
 */
static Node *
basis_from_ledger(Oid relid, const char *stat)
{
	char	   *text = tapas_ledger_basis(relid, stat);
	MemoryContext old;
	Node	   *tree;
	BasisEntry *b;
	bool		found;

	if (text == NULL)
		return NULL;
	old = MemoryContextSwitchTo(tapas_audit_cxt());
	tree = stringToNode(text);
	MemoryContextSwitchTo(old);
	pfree(text);
	if (tree == NULL || IsA(tree, List) || exprType(tree) != FLOAT8OID ||
		basis_shape_walker(tree, NULL))
		return NULL;
	b = basis_lookup(relid, stat, HASH_ENTER, &found);
	if (!found)
		b->tree = tree;
	return b->tree;
}

/*
 * *sensitive: v reads a sensitive column; returns the canonical tree of v:
 * the one this backend built, else the one the ledger holds (logged by
 * any backend), or NULL when neither exists.  A statistic without a tree
 * counts as sensitive unless it is the plain count(*).
 */
static Node *
statistic_prepare(Oid relid, const char *stat, bool *sensitive)
{
	const TapasProtection *prot = tapas_protection_lookup(relid);
	BasisEntry *b;
	bool		found;
	Bitmapset  *attnos = NULL;
	int			a = -1;
	Node	   *tree;

	*sensitive = strcmp(stat, "count(*)") != 0;
	if (prot == NULL)
		return NULL;
	b = basis_lookup(relid, stat, HASH_FIND, &found);
	tree = b != NULL ? b->tree : basis_from_ledger(relid, stat);
	if (tree == NULL)
		return NULL;
	pull_varattnos(tree, 1, &attnos);
	*sensitive = false;
	while ((a = bms_next_member(attnos, a)) >= 0)
		if (bms_is_member(a + FirstLowInvalidHeapAttributeNumber, prot->sensitive))
			*sensitive = true;
	return tree;
}

/* ----------------------------------------------------------------
 *		The truth
 * ----------------------------------------------------------------
 */

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
 * or dropped also moves the stamp.  A stamp that cannot be read (a
 * partition that cannot be scanned) is -1, which never matches.
 */
static int64
table_change_stamp(Oid relid)
{
	List	   *leaves;
	ListCell   *lc;
	uint64		stamp = 0;

	pgstat_clear_snapshot();
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return leaf_change_stamp(relid);
	leaves = tapas_protected_leaves(relid, AccessShareLock);
	foreach(lc, leaves)
		stamp += (uint64) leaf_change_stamp(lfirst_oid(lc)) +
			hash_bytes_uint32(lfirst_oid(lc)) * UINT64CONST(0x9E3779B97F4A7C15);
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

/*
 * Evaluates c's tree on every row of the table (a heap scan under the
 * active snapshot, ExecEvalExpr in tapas's own code: no query is planned
 * and the capture stays on), keeping the rows with v <> 0, sorted by key.
 * Runs in a subtransaction: false (and nothing kept) on any error other
 * than a cancel.
 */
static bool
read_truth(TapasClass *c, const TapasProtection *prot)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		TapasTableScan *scan = tapas_table_scan_begin(c->relid, GetActiveSnapshot());
		EState	   *estate = CreateExecutorState();
		ExprContext *econtext = GetPerTupleExprContext(estate);
		ExprState  *expr = ExecPrepareExpr((Expr *) copyObject(c->vtree), estate);
		TupleTableSlot *slot;
		int64		max = 1024;
		int64		n = 0;
		int64	   *kv = MemoryContextAllocHuge(caller, sizeof(int64) * 2 * max);
		uint64		rows = 0;

		while ((slot = tapas_table_scan_next(scan)) != NULL)
		{
			bool		vnull,
						knull;
			Datum		v;
			double		d;
			int64		key;

			if ((++rows & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			econtext->ecxt_scantuple = slot;
			v = ExecEvalExprSwitchContext(expr, econtext, &vnull);
			ResetExprContext(econtext);
			if (vnull || DatumGetFloat8(v) == 0.0)
				continue;
			d = DatumGetFloat8(v);
			key = slot_key(slot, prot, &knull);
			if (knull)
				continue;
			if (n == max)
			{
				max *= 2;
				kv = repalloc_huge(kv, sizeof(int64) * 2 * max);
			}
			kv[2 * n] = key;
			memcpy(&kv[2 * n + 1], &d, sizeof(double));
			n++;
		}
		FreeExecutorState(estate);
		tapas_table_scan_end(scan);

		sort_key_vals(kv, n);
		c->nnz = n;
		c->nrecords = (int64) rows;
		c->binary = true;
		c->keys = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(int64) * Max(n, 1));
		c->vals = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(double) * Max(n, 1));
		for (int64 i = 0; i < n; i++)
		{
			c->keys[i] = kv[2 * i];
			memcpy(&c->vals[i], &kv[2 * i + 1], sizeof(double));
			if (c->vals[i] != 1.0)
				c->binary = false;
		}
		pfree(kv);
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
		c->nnz = 0;
		return false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/* reads c's truth vector and its hash; false if it cannot be read */
static bool
class_read_truth(TapasClass *c)
{
	const TapasProtection *prot = tapas_protection_lookup(c->relid);

	if (c->vtree == NULL || prot == NULL)
		return false;
	if (!read_truth(c, prot))
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

/* ----------------------------------------------------------------
 *		The registry: statistic text -> class, classes per table
 * ----------------------------------------------------------------
 */

typedef struct StatKey
{
	Oid			relid;
	char		statistic[TAPAS_LEDGER_MAX_STATISTIC + 1];
} StatKey;

typedef struct StatEnt
{
	StatKey		key;			/* hash key: must be first */
	TapasClass *cls;			/* NULL: the statistic is not sensitive */
	double		scale;			/* the statistic is scale * cls + offset per record */
	double		offset;			/* (1, 0): cls itself; (-1, 1): its complement */
} StatEnt;

typedef struct RelClasses
{
	Oid			relid;			/* hash key */
	int64		stamp;			/* table change counter when read */
	List	   *classes;		/* TapasClass *, in order of creation */
} RelClasses;

static HTAB *stat_map = NULL;
static HTAB *rel_map = NULL;

static void
registry_init(void)
{
	HASHCTL		ctl;

	if (stat_map != NULL)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(StatKey);
	ctl.entrysize = sizeof(StatEnt);
	ctl.hcxt = tapas_audit_cxt();
	stat_map = hash_create("tapas statistic classes", 64, &ctl,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(RelClasses);
	ctl.hcxt = tapas_audit_cxt();
	rel_map = hash_create("tapas table classes", 16, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
class_free(TapasClass *c)
{
	if (c->keys)
		pfree(c->keys);
	if (c->vals)
		pfree(c->vals);
	pfree(c->rep);
	pfree(c);
}

/* forgets the classes of relid and every audit entry built on them */
static void
registry_drop_relation(RelClasses *r)
{
	HASH_SEQ_STATUS seq;
	StatEnt    *s;
	ListCell   *lc;

	tapas_audit_drop_relation(r->relid);
	hash_seq_init(&seq, stat_map);
	while ((s = hash_seq_search(&seq)) != NULL)
		if (s->key.relid == r->relid)
			hash_search(stat_map, &s->key, HASH_REMOVE, NULL);
	foreach(lc, r->classes)
		class_free(lfirst(lc));
	list_free(r->classes);
	r->classes = NIL;
}

/* the classes of relid, dropped first if the table changed since they were read */
static RelClasses *
relation_classes(Oid relid, bool check)
{
	RelClasses *r;
	bool		found;
	int64		stamp;

	registry_init();
	r = hash_search(rel_map, &relid, HASH_ENTER, &found);
	if (!found)
	{
		r->classes = NIL;
		r->stamp = table_change_stamp(relid);
		return r;
	}
	if (!check)
		return r;
	stamp = table_change_stamp(relid);
	if (r->stamp != stamp)
	{
		registry_drop_relation(r);
		r->stamp = stamp;
	}
	return r;
}

/* the classes of relid known to this backend, in order of creation (relations.c) */
List *
tapas_audit_table_classes(Oid relid)
{
	return relation_classes(relid, false)->classes;
}

void
tapas_audit_classes_check(Oid relid)
{
	(void) relation_classes(relid, true);
}

/* an existing class of r whose truth equals c's (hash, then every value) */
static TapasClass *
find_equal_class(RelClasses *r, const TapasClass *c)
{
	ListCell   *lc;

	foreach(lc, r->classes)
	{
		TapasClass *o = lfirst(lc);

		if (o->usable && o->hash == c->hash && o->nnz == c->nnz &&
			memcmp(o->keys, c->keys, sizeof(int64) * c->nnz) == 0 &&
			memcmp(o->vals, c->vals, sizeof(double) * c->nnz) == 0)
			return o;
	}
	return NULL;
}

/*
 * A binary class whose truth is c's complement over the table: the two
 * supports are disjoint and together hold every record.  A count of the
 * complement over cover Q is |Q| minus the count of the class, and |Q| is
 * public (count(*) over the same rows answers whenever the cell passed
 * k), so the two are one unknown, with the complement's answers flipped
 * (count(*) FILTER (WHERE NOT rare) over everyone, then FILTER (WHERE
 * rare) over everyone but one, isolate that one otherwise).
 */
static TapasClass *
find_complement_class(RelClasses *r, const TapasClass *c)
{
	ListCell   *lc;

	if (!c->binary || c->nrecords <= 0)
		return NULL;
	foreach(lc, r->classes)
	{
		TapasClass *o = lfirst(lc);
		int64		i = 0,
					j = 0;

		if (!o->usable || !o->binary || o->nrecords != c->nrecords ||
			o->nnz + c->nnz != c->nrecords)
			continue;
		while (i < o->nnz && j < c->nnz && o->keys[i] != c->keys[j])
		{
			if (o->keys[i] < c->keys[j])
				i++;
			else
				j++;
		}
		if (i == o->nnz || j == c->nnz)
			return o;			/* disjoint, and sizes add up to the table */
	}
	return NULL;
}

/*
 * Whether c's truth w is a v + b on every record of the table, v being
 * o's (a != 0): sum(income + 1000) is sum(income) plus 1000 |Q|,
 * sum(CASE WHEN rare THEN 2 ELSE 1 END) is count(rare) plus |Q|, and |Q|
 * is public, so the two are one unknown with c's answers mapped back,
 * (answer - b |Q|) / a.  Otherwise the two are related only through the
 * public count(*) (recon/linrel_plan.c), in coordinates that split on
 * every distinct income.  Exact: a and b from two records with distinct v,
 * then w == a v + b checked at every record (records in neither support
 * have v = w = 0, so b = 0 if there are any).  O(nnz of both).
 */
static bool
affine_of(const TapasClass *o, const TapasClass *c, double *a, double *b)
{
	int64		i,
				j,
				nunion = 0;
	int			npts = 0;
	double		pv[2] = {0, 0},
				pw[2] = {0, 0};

	if (o->nrecords != c->nrecords || o->nrecords <= 0)
		return false;
	/* two points with distinct v, and the size of the union of the supports */
	for (i = 0, j = 0; i < o->nnz || j < c->nnz; nunion++)
	{
		double		v = 0,
					w = 0;

		if (j == c->nnz || (i < o->nnz && o->keys[i] < c->keys[j]))
			v = o->vals[i++];
		else if (i == o->nnz || c->keys[j] < o->keys[i])
			w = c->vals[j++];
		else
		{
			v = o->vals[i++];
			w = c->vals[j++];
		}
		if (npts == 0 || (npts == 1 && v != pv[0]))
		{
			pv[npts] = v;
			pw[npts++] = w;
		}
	}
	if (nunion < o->nrecords && npts < 2 && (npts == 0 || pv[0] != 0))
	{
		pv[npts] = 0;
		pw[npts++] = 0;
	}
	if (npts < 2)
		return false;			/* o is constant: a multiple of count(*) */
	*a = (pw[0] - pw[1]) / (pv[0] - pv[1]);
	*b = pw[0] - *a * pv[0];
	if (*a == 0 || !isfinite(*a) || !isfinite(*b) || (nunion < o->nrecords && *b != 0))
		return false;
	for (i = 0, j = 0; i < o->nnz || j < c->nnz;)
	{
		double		v = 0,
					w = 0;

		if (j == c->nnz || (i < o->nnz && o->keys[i] < c->keys[j]))
			v = o->vals[i++];
		else if (i == o->nnz || c->keys[j] < o->keys[i])
			w = c->vals[j++];
		else
		{
			v = o->vals[i++];
			w = c->vals[j++];
		}
		if (*a * v + *b != w)
			return false;
	}
	return true;
}

/* a class whose truth c's is affine in (affine_of), or NULL */
static TapasClass *
find_affine_class(RelClasses *r, const TapasClass *c, double *a, double *b)
{
	ListCell   *lc;

	foreach(lc, r->classes)
	{
		TapasClass *o = lfirst(lc);
		double		ta,
					tb;

		/* *a and *b are set only on success */
		if (o->usable && !o->is_one && affine_of(o, c, &ta, &tb))
		{
			*a = ta;
			*b = tb;
			return o;
		}
	}
	return NULL;
}

/*
 * Called before a statement's cells are grouped: a statistic that was
 * classed without a tree (taken from the ledger) and now has one makes the
 * table's classes be built again, with its truth.
 */
void
tapas_audit_class_refresh(Oid relid, const char *statistic)
{
	RelClasses *r = relation_classes(relid, false);
	StatKey		k;
	StatEnt    *s;
	bool		found;

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s != NULL && s->cls != NULL && s->cls->vtree == NULL &&
		basis_lookup(relid, statistic, HASH_FIND, &found) != NULL)
		registry_drop_relation(r);
}

TapasClass *
tapas_audit_class(Oid relid, const char *statistic)
{
	RelClasses *r = relation_classes(relid, false);
	StatKey		k;
	StatEnt    *s;
	bool		found;
	bool		sensitive;
	Node	   *v;
	TapasClass *c;
	TapasClass *same;
	double		scale = 1,
				offset = 0;
	MemoryContext old;

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s != NULL)
		return s->cls;
	v = statistic_prepare(relid, statistic, &sensitive);
	c = NULL;
	if (sensitive)
	{
		old = MemoryContextSwitchTo(tapas_audit_cxt());
		c = palloc0(sizeof(TapasClass));
		c->relid = relid;
		c->rep = pstrdup(statistic);
		c->vtree = v;			/* owned by the basis registry */
		MemoryContextSwitchTo(old);
		c->usable = class_read_truth(c);
		same = c->usable ? find_equal_class(r, c) : NULL;
		if (same == NULL && c->usable && (same = find_complement_class(r, c)) != NULL)
		{
			scale = -1;
			offset = 1;
		}
		if (same == NULL && c->usable && !c->is_one)
			same = find_affine_class(r, c, &scale, &offset);
		if (same != NULL)
		{
			class_free(c);
			c = same;
		}
		else
		{
			old = MemoryContextSwitchTo(tapas_audit_cxt());
			c->id = list_length(r->classes) + 1;
			r->classes = lappend(r->classes, c);
			MemoryContextSwitchTo(old);
		}
	}
	s = hash_search(stat_map, &k, HASH_ENTER, &found);
	s->cls = c;
	s->scale = scale;
	s->offset = offset;
	return c;
}

/*
 * The answer of a cell of statistic over nkeys covered records as its
 * class's: nkeys minus it when the statistic counts the class's
 * complement (find_complement_class), (answer - b nkeys) / a when it is
 * a times the class plus b (find_affine_class).  Call after
 * tapas_audit_class.
 */
double
tapas_audit_class_answer(Oid relid, const char *statistic, double answer, int64 nkeys)
{
	StatKey		k;
	StatEnt    *s;

	if (stat_map == NULL)
		return answer;
	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s == NULL || (s->scale == 1 && s->offset == 0))
		return answer;
	return (answer - s->offset * (double) nkeys) / s->scale;
}

/*
 * Whether some class of relid this backend knows (every sensitive
 * statistic of the ledger, once an audit entry of the table has synced)
 * has a truth that cannot be read: no basis tree (a ledger of an older
 * version, tapas.ledger_record) or one whose evaluation failed.  Such a
 * class may be the same unknown as another (issue 10: sum(income) logged
 * by one connection, sum(coalesce(income, 0)) by another), so the joint
 * system is incomplete and the caller fails closed; *statistic gets the
 * class's text.
 */
bool
tapas_audit_truth_unknown(Oid relid, const char **statistic)
{
	RelClasses *r = relation_classes(relid, false);
	ListCell   *lc;

	foreach(lc, r->classes)
	{
		TapasClass *c = lfirst(lc);

		if (!c->usable)
		{
			*statistic = c->rep;
			return true;
		}
	}
	return false;
}

/* points e's truth at its class's; false if the class's truth is unusable */
bool
tapas_audit_ensure_truth(TapasAuditEntry *e)
{
	TapasClass *c = e->cls;

	if (c == NULL || !c->usable)
		return false;
	e->nnz = c->nnz;
	e->nz_keys = c->keys;
	e->nz_vals = c->vals;
	e->truth_binary = c->binary;
	return true;
}
