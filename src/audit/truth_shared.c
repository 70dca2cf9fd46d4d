/*-------------------------------------------------------------------------
 *
 * truth_shared.c
 *	  Truth vectors shared between backends, so that a new backend does
 *	  not scan the table once per class in its first audited statement.
 *
 * A class's truth (truth_read.c) is a scan of the table evaluating the
 * class's canonical tree per row: at 10^7 records about 28 % of a new
 * backend's first statement.  Here a backend that read a truth while the
 * table's write stamp (truth_stamp.c) held still publishes a copy in the
 * DSA area of the row-space copies (state_shared.c), and a backend that
 * needs the truth of the same tree over the same table takes the copy
 * when the stamp is the same now.
 *
 * A copy is named by (database, table, tree): a 64-bit hash of the
 * canonical tree's text (nodeToString: tapas built it, capture/basis.c)
 * and of the protection's key columns (they name the records).  It
 * carries the stamp it was read at, the table's cumulative statistics
 * stamp (truth_read.c: writes that bypass the hooks still move it, late),
 * its number of nonzero records and rows, and a CRC-32C of its bytes
 * (keys then values, as TapasClass holds them).  It is used only when
 * every one of these matches; otherwise the backend reads the table, as
 * before.  Why the stamp makes this exact: truth_stamp.c.
 *
 * Memory: the copies count against a quarter of tapas.audit_shared_memory
 * (least recently used evicted first); the area itself is bounded by the
 * whole setting.  Every use of the area is guarded (state_shared.c): a
 * copy that cannot be made or read costs a scan, never the statement.
 *
 * IDENTIFICATION
 *	  src/audit/truth_shared.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/dsa.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "policy/policy.h"
#include "util/crc32c.h"

#define TRUTH_SLOTS		64

typedef struct TruthSlot
{
	bool		used;
	Oid			dbid;
	Oid			relid;
	uint64		tree;			/* hash of the tree and the key columns */
	uint64		stamp;			/* write stamp when read */
	int64		stat_stamp;		/* cumulative statistics stamp when read */
	int64		nnz;
	int64		nrecords;
	uint32		crc;
	Size		bytes;
	dsa_pointer blob;			/* keys[nnz] then vals[nnz] */
	uint64		last_used;
	uint64		copies;
} TruthSlot;

typedef struct TruthShared
{
	LWLock	   *lock;
	uint64		clock;
	Size		total_bytes;
	TruthSlot	slots[TRUTH_SLOTS];
} TruthShared;

static TruthShared *tshared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
truth_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(TruthShared)));
	RequestNamedLWLockTranche("tapas_audit_shared_truth", 1);
}

static void
truth_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	tshared = ShmemInitStruct("tapas audit shared truth", sizeof(TruthShared), &found);
	if (!found)
	{
		memset(tshared, 0, sizeof(TruthShared));
		tshared->lock = &(GetNamedLWLockTranche("tapas_audit_shared_truth"))->lock;
	}
	LWLockRelease(AddinShmemInitLock);
}

void
tapas_audit_truth_shared_install(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = truth_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = truth_shmem_startup;
}

/*
 * The tree's text without its parse locations (":location N", offsets
 * into the query that built it, which differ between spellings of one
 * tree), in place.
 */
static size_t
strip_locations(char *text)
{
	static const char tag[] = ":location ";
	char	   *in = text,
			   *out = text;

	while (*in)
	{
		if (strncmp(in, tag, sizeof(tag) - 1) == 0)
		{
			in += sizeof(tag) - 1;
			if (*in == '-')
				in++;
			while (*in >= '0' && *in <= '9')
				in++;
			continue;
		}
		*out++ = *in++;
	}
	*out = '\0';
	return out - text;
}

/* the name of c's truth: its tree and the protection's key columns */
static uint64
tree_hash(const TapasClass *c, const TapasProtection *p)
{
	char	   *text = nodeToString(c->vtree);
	size_t		len = strip_locations(text);
	uint64		h = hash_bytes_extended((const unsigned char *) text, len, 0x7472757468);
	uint64		k[3 + 2 * TAPAS_MAX_KEY_COLUMNS] = {0};

	k[0] = p->key_hashed;
	k[1] = p->nkeys;
	k[2] = ((uint64) p->key_attno << 32) | p->key_type;
	for (int i = 0; i < p->nkeys && i < TAPAS_MAX_KEY_COLUMNS; i++)
	{
		k[3 + 2 * i] = p->key_attnos[i];
		k[4 + 2 * i] = p->key_types[i];
	}
	pfree(text);
	return h ^ hash_bytes_extended((const unsigned char *) k, sizeof(k), h);
}

/* whether copies may be used at all */
static bool
enabled(void)
{
	return tshared != NULL && tapas_audit_shared_memory_kb > 0;
}

/*
 * Whether relid or a leaf of it is a foreign table: its rows change on
 * another server, where no stamp of this one moves; its truth is never
 * shared.
 */
static bool
has_foreign_leaf(Oid relid)
{
	List	   *leaves;
	ListCell   *lc;
	bool		foreign = false;

	if (get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE)
		return true;
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return false;
	leaves = tapas_protected_leaves(relid, AccessShareLock);
	foreach(lc, leaves)
		foreign |= get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE;
	list_free(leaves);
	return foreign;
}

/*
 * The stamp a copy of relid's truth is tagged with now, or false when it
 * is unknown (a write in flight, statistics unreadable, a foreign leaf).
 */
bool
tapas_audit_truth_stamp(Oid relid, uint64 *stamp, int64 *stat_stamp)
{
	if (has_foreign_leaf(relid) || !tapas_audit_write_stamp(relid, stamp))
		return false;
	*stat_stamp = tapas_audit_table_change_stamp(relid);
	return *stat_stamp >= 0;
}

/* ----------------------------------------------------------------
 *		Taking a copy
 * ----------------------------------------------------------------
 */

typedef struct TakeArgs
{
	TapasClass *c;
	uint64		tree;
	uint64		stamp;
	int64		stat_stamp;
	bool		taken;
} TakeArgs;

static void
take_guarded(void *arg)
{
	TakeArgs   *t = arg;
	TapasClass *c = t->c;
	dsa_area   *area = tapas_audit_shared_dsa();

	if (area == NULL)
		return;
	LWLockAcquire(tshared->lock, LW_SHARED);
	for (int i = 0; i < TRUTH_SLOTS; i++)
	{
		TruthSlot  *s = &tshared->slots[i];
		const char *bytes;
		Size		half;

		if (!s->used || s->dbid != MyDatabaseId || s->relid != c->relid || s->tree != t->tree ||
			s->stamp != t->stamp || s->stat_stamp != t->stat_stamp)
			continue;
		bytes = dsa_get_address(area, s->blob);
		half = sizeof(int64) * s->nnz;
		if (s->bytes != 2 * half || tapas_crc32c(bytes, s->bytes) != s->crc)
		{
			ereport(LOG_SERVER_ONLY,
					(errmsg("tapas: shared truth of table %u not used: it fails its checksum",
							c->relid)));
			break;
		}
		c->keys = MemoryContextAllocHuge(tapas_audit_cxt(), Max(half, sizeof(int64)));
		c->vals = MemoryContextAllocHuge(tapas_audit_cxt(), Max(half, sizeof(double)));
		memcpy(c->keys, bytes, half);
		memcpy(c->vals, bytes + half, half);
		c->nnz = s->nnz;
		c->nrecords = s->nrecords;
		s->copies++;			/* counters only: a lost increment is harmless */
		s->last_used = ++tshared->clock;
		t->taken = true;
		break;
	}
	LWLockRelease(tshared->lock);
}

/*
 * Fills c's truth (keys, vals, nnz, nrecords) from a copy that matches
 * the table's stamp now; false when there is none (the caller reads).
 */
bool
tapas_audit_truth_shared_take(TapasClass *c, const TapasProtection *prot)
{
	TakeArgs	t = {c, 0, 0, 0, false};

	if (!enabled() || !tapas_audit_truth_stamp(c->relid, &t.stamp, &t.stat_stamp))
		return false;
	t.tree = tree_hash(c, prot);
	if (!tapas_audit_shared_run(take_guarded, &t) || !t.taken)
	{
		if (t.taken)
		{
			pfree(c->keys);
			pfree(c->vals);
		}
		c->keys = NULL;
		c->vals = NULL;
		c->nnz = 0;
		return false;
	}
	return true;
}

/* ----------------------------------------------------------------
 *		Publishing a copy
 * ----------------------------------------------------------------
 */

/* evicts least recently used copies until bytes more fit in limit */
static bool
make_room(Size bytes, Size limit)
{
	dsa_area   *area = tapas_audit_shared_dsa();

	while (tshared->total_bytes + bytes > limit)
	{
		TruthSlot  *lru = NULL;

		for (int i = 0; i < TRUTH_SLOTS; i++)
			if (tshared->slots[i].used &&
				(lru == NULL || tshared->slots[i].last_used < lru->last_used))
				lru = &tshared->slots[i];
		if (lru == NULL)
			return false;
		dsa_free(area, lru->blob);
		tshared->total_bytes -= lru->bytes;
		memset(lru, 0, sizeof(*lru));
	}
	return true;
}

typedef struct PublishArgs
{
	const TapasClass *c;
	uint64		tree;
	uint64		stamp;
	int64		stat_stamp;
} PublishArgs;

static void
publish_guarded(void *arg)
{
	PublishArgs *p = arg;
	const TapasClass *c = p->c;
	dsa_area   *area = tapas_audit_shared_dsa();
	Size		half = sizeof(int64) * c->nnz;
	Size		limit = (Size) tapas_audit_shared_memory_kb * 1024 / 4;
	dsa_pointer blob;
	char	   *bytes;
	uint32		crc;
	TruthSlot  *slot = NULL;

	if (area == NULL || 2 * half > limit || c->nnz <= 0)
		return;
	blob = dsa_allocate_extended(area, 2 * half, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	if (!DsaPointerIsValid(blob))
		return;
	bytes = dsa_get_address(area, blob);
	memcpy(bytes, c->keys, half);
	memcpy(bytes + half, c->vals, half);
	crc = tapas_crc32c(bytes, 2 * half);
	LWLockAcquire(tshared->lock, LW_EXCLUSIVE);
	/* the same tree's older copy goes; then room for this one */
	for (int i = 0; i < TRUTH_SLOTS; i++)
	{
		TruthSlot  *s = &tshared->slots[i];

		if (s->used && s->dbid == MyDatabaseId && s->relid == c->relid && s->tree == p->tree)
		{
			dsa_free(area, s->blob);
			tshared->total_bytes -= s->bytes;
			memset(s, 0, sizeof(*s));
		}
	}
	if (make_room(2 * half, limit))
	{
		TruthSlot  *lru = NULL;

		for (int i = 0; i < TRUTH_SLOTS && slot == NULL; i++)
		{
			if (!tshared->slots[i].used)
				slot = &tshared->slots[i];
			else if (lru == NULL || tshared->slots[i].last_used < lru->last_used)
				lru = &tshared->slots[i];
		}
		if (slot == NULL)
		{
			/* every slot used: the least recently used one goes */
			dsa_free(area, lru->blob);
			tshared->total_bytes -= lru->bytes;
			memset(lru, 0, sizeof(*lru));
			slot = lru;
		}
	}
	if (slot != NULL)
	{
		slot->used = true;
		slot->dbid = MyDatabaseId;
		slot->relid = c->relid;
		slot->tree = p->tree;
		slot->stamp = p->stamp;
		slot->stat_stamp = p->stat_stamp;
		slot->nnz = c->nnz;
		slot->nrecords = c->nrecords;
		slot->crc = crc;
		slot->bytes = 2 * half;
		slot->blob = blob;
		slot->last_used = ++tshared->clock;
		tshared->total_bytes += 2 * half;
	}
	LWLockRelease(tshared->lock);
	if (slot == NULL)
		dsa_free(area, blob);
}

/*
 * Publishes c's truth, read while the table's stamp was stamp (checked
 * by the caller before and after the read).
 */
void
tapas_audit_truth_shared_publish(const TapasClass *c, const TapasProtection *prot,
								 uint64 stamp, int64 stat_stamp)
{
	PublishArgs p = {c, 0, stamp, stat_stamp};

	if (!enabled())
		return;
	p.tree = tree_hash(c, prot);
	(void) tapas_audit_shared_run(publish_guarded, &p);
}

/* ----------------------------------------------------------------
 *		tapas.audit_shared_truths()
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(tapas_sql_audit_shared_truths);

/* the truth copies of this database: sizes and counters only (admin only) */
Datum
tapas_sql_audit_shared_truths(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TruthSlot	copy[TRUTH_SLOTS];

	tapas_require_admin("read the tapas shared audit state");
	InitMaterializedSRF(fcinfo, 0);
	if (tshared == NULL)
		PG_RETURN_VOID();
	LWLockAcquire(tshared->lock, LW_SHARED);
	memcpy(copy, tshared->slots, sizeof(copy));
	LWLockRelease(tshared->lock);
	for (int i = 0; i < TRUTH_SLOTS; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false};
		TruthSlot  *s = &copy[i];

		if (!s->used || s->dbid != MyDatabaseId)
			continue;
		values[0] = ObjectIdGetDatum(s->relid);
		values[1] = Int64GetDatum(s->nnz);
		values[2] = Int64GetDatum(s->nrecords);
		values[3] = Int64GetDatum((int64) s->bytes);
		values[4] = Int64GetDatum((int64) s->copies);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_VOID();
}
