/*-------------------------------------------------------------------------
 *
 * truth_stamp.c
 *	  The write stamp of a table: a counter in shared memory that every
 *	  write to the table moves, so that a truth vector read by one backend
 *	  can be used by another exactly while the table has not changed
 *	  (truth_shared.c).
 *
 * Why not the cumulative statistics.  The per-backend truth cache
 * (truth.c) compares the table's insert/update/delete counters, which
 * other backends flush to shared memory up to a second or more after
 * they commit, and which TRUNCATE, pg_stat_reset and a server restart do
 * not move the right way.  A truth shared between backends needs a stamp
 * that no committed write can leave unchanged.
 *
 * The counters.  WRITE_BUCKETS buckets of (count, inflight), indexed by a
 * hash of (database, table): a write to table R moves the bucket of R, of
 * each ancestor (a row inserted into a partition is a row of its parents)
 * and of each descendant (a row inserted into a parent lands in one of its
 * partitions), so whichever of them is protected sees it.  Two tables in
 * one bucket only invalidate each other more often.  A transaction's
 * first write to R increments count and inflight before the write; the
 * end of the transaction (commit, once visible, or abort) increments
 * count again and decrements inflight.  The writes counted are those of
 * the executor (INSERT, UPDATE, DELETE, MERGE, in any statement, function
 * or trigger: ExecutorStart of a plan that modifies) and of TRUNCATE,
 * COPY FROM, ALTER TABLE (a rewrite, ATTACH and DETACH PARTITION) and DROP
 * TABLE (a dropped partition), seen by ProcessUtility.  A prepared
 * transaction keeps its tables in flight until the server restarts.
 *
 * The stamp of P is valid only when no write to P is in flight; it mixes
 * the count with the server's start time (the counters start at zero at
 * every start).  A reader takes the stamp s, then a new snapshot, reads
 * the truth, and takes the stamp again: if both are valid and equal, the
 * truth is the table's content at s (every write counted in s had ended
 * before the snapshot, as inflight was 0; no write began before the
 * second stamp, as count did not move).  A user of a copy tagged s checks
 * that the stamp is s now, valid: every write since has moved it.
 * Writes that bypass both hooks (logical replication's apply worker, an
 * extension writing heap tuples directly) are not counted: a reader also
 * compares the table's cumulative statistics (truth_shared.c), which they
 * do move, a second or so late.
 *
 * IDENTIFICATION
 *	  src/audit/truth_stamp.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parsetree.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"

#define WRITE_BUCKETS	4096

typedef struct WriteBucket
{
	pg_atomic_uint64 count;
	pg_atomic_uint32 inflight;
} WriteBucket;

static WriteBucket *buckets = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* the buckets this transaction holds in flight (a bitmap over WRITE_BUCKETS) */
static uint64 held[WRITE_BUCKETS / 64];
static bool holding = false;

static uint32
bucket_of(Oid dbid, Oid relid)
{
	return hash_combine(hash_bytes_uint32(dbid), hash_bytes_uint32(relid)) % WRITE_BUCKETS;
}

/* marks bucket b written by this transaction (in flight until its end) */
static void
bucket_write(uint32 b)
{
	if (buckets == NULL)
		return;
	if (!(held[b / 64] & (UINT64CONST(1) << (b % 64))))
	{
		held[b / 64] |= UINT64CONST(1) << (b % 64);
		pg_atomic_fetch_add_u32(&buckets[b].inflight, 1);
		holding = true;
	}
	pg_atomic_fetch_add_u64(&buckets[b].count, 1);
}

/* a write to relid: its bucket, its ancestors' and its descendants' */
static void
relation_written(Oid relid)
{
	List	   *rels;
	ListCell   *lc;

	if (!OidIsValid(relid))
		return;
	bucket_write(bucket_of(MyDatabaseId, relid));
	if (get_rel_relispartition(relid))
	{
		rels = get_partition_ancestors(relid);
		foreach(lc, rels)
			bucket_write(bucket_of(MyDatabaseId, lfirst_oid(lc)));
		list_free(rels);
	}
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE || has_subclass(relid))
	{
		rels = find_all_inheritors(relid, NoLock, NULL);
		foreach(lc, rels)
			bucket_write(bucket_of(MyDatabaseId, lfirst_oid(lc)));
		list_free(rels);
	}
}

static void
relation_written_rv(RangeVar *rv)
{
	if (rv != NULL)
		relation_written(RangeVarGetRelid(rv, NoLock, true));
}

/* the end of the transaction: every bucket it held moves again and leaves flight */
static void
stamp_xact_callback(XactEvent event, void *arg)
{
	if (!holding)
		return;
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PARALLEL_COMMIT && event != XACT_EVENT_PARALLEL_ABORT &&
		event != XACT_EVENT_PREPARE)
		return;
	for (uint32 w = 0; w < WRITE_BUCKETS / 64; w++)
		while (held[w] != 0)
		{
			uint32		b = w * 64 + pg_rightmost_one_pos64(held[w]);

			held[w] &= held[w] - 1;
			pg_atomic_fetch_add_u64(&buckets[b].count, 1);
			/* a prepared transaction stays in flight until the server restarts */
			if (event != XACT_EVENT_PREPARE)
				pg_atomic_fetch_sub_u32(&buckets[b].inflight, 1);
		}
	holding = false;
}

static void
stamp_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *ps = queryDesc->plannedstmt;

	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY) &&
		(ps->commandType != CMD_SELECT || ps->hasModifyingCTE))
	{
		ListCell   *lc;

		foreach(lc, ps->resultRelations)
			relation_written(rt_fetch(lfirst_int(lc), ps->rtable)->relid);
	}
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* the utility statements that change a table's rows (see the banner) */
static void
utility_writes(Node *stmt)
{
	ListCell   *lc;

	switch (nodeTag(stmt))
	{
		case T_TruncateStmt:
			foreach(lc, ((TruncateStmt *) stmt)->relations)
				relation_written_rv(lfirst(lc));
			break;
		case T_CopyStmt:
			if (((CopyStmt *) stmt)->is_from)
				relation_written_rv(((CopyStmt *) stmt)->relation);
			break;
		case T_AlterTableStmt:
			relation_written_rv(((AlterTableStmt *) stmt)->relation);
			foreach(lc, ((AlterTableStmt *) stmt)->cmds)
			{
				AlterTableCmd *cmd = lfirst(lc);

				if ((cmd->subtype == AT_AttachPartition || cmd->subtype == AT_DetachPartition) &&
					IsA(cmd->def, PartitionCmd))
					relation_written_rv(((PartitionCmd *) cmd->def)->name);
			}
			break;
		case T_DropStmt:
			if (((DropStmt *) stmt)->removeType == OBJECT_TABLE ||
				((DropStmt *) stmt)->removeType == OBJECT_FOREIGN_TABLE)
				foreach(lc, ((DropStmt *) stmt)->objects)
				{
					/* a malformed name is the DROP's own error, raised after */
					if (list_length(lfirst(lc)) <= 3)
						relation_written_rv(makeRangeVarFromNameList(lfirst(lc)));
				}
			break;
		default:
			break;
	}
}

static void
stamp_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	utility_writes(pstmt->utilityStmt);
	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

/*
 * The write stamp of relid (see the banner): false when a write to it is
 * in flight (the stamp is then unknown).
 */
bool
tapas_audit_write_stamp(Oid relid, uint64 *stamp)
{
	WriteBucket *b;

	*stamp = 0;
	if (buckets == NULL)
		return false;
	b = &buckets[bucket_of(MyDatabaseId, relid)];
	if (pg_atomic_read_u32(&b->inflight) != 0)
		return false;
	pg_memory_barrier();
	*stamp = pg_atomic_read_u64(&b->count) ^ ((uint64) PgStartTime * UINT64CONST(0x9E3779B97F4A7C15));
	pg_memory_barrier();
	return pg_atomic_read_u32(&b->inflight) == 0;
}

static void
stamp_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(WriteBucket) * WRITE_BUCKETS));
}

static void
stamp_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	buckets = ShmemInitStruct("tapas write stamps", sizeof(WriteBucket) * WRITE_BUCKETS, &found);
	if (!found)
		for (int i = 0; i < WRITE_BUCKETS; i++)
		{
			pg_atomic_init_u64(&buckets[i].count, 0);
			pg_atomic_init_u32(&buckets[i].inflight, 0);
		}
	LWLockRelease(AddinShmemInitLock);
}

void
tapas_audit_write_stamp_install(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = stamp_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = stamp_shmem_startup;
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = stamp_ExecutorStart;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = stamp_ProcessUtility;
	RegisterXactCallback(stamp_xact_callback, NULL);
}
