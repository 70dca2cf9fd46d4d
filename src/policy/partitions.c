/*-------------------------------------------------------------------------
 *
 * partitions.c
 *	  Declarative partitioning of protected tables: which partitions a
 *	  protection covers, the scan of every partition, and the utility
 *	  commands that would take a partition out of its protection.
 *
 * Protecting a partitioned table protects every partition, present and
 * future, at every depth: tapas_protection_lookup() of a partition answers
 * with its protected ancestor's entry (tapas_partition_derive), so a
 * direct query on a partition is captured, logged and audited as a query
 * on the protected table, with the same ledger table and the same record
 * identity (the key).  A partition created or attached later is covered
 * at once: CREATE TABLE ... PARTITION OF and ATTACH PARTITION invalidate
 * the parent's relcache entry, which drops the protection cache.
 *
 * Exactness rests on three facts:
 *	- the key is unique across partitions: protect() requires a unique
 *	  index on the key column alone, and PostgreSQL builds a unique index
 *	  of a partitioned table only when it contains every level's partition
 *	  key, so the partition key is the key column;
 *	- hence a partition's rows are chosen by a condition on the key, a
 *	  non-sensitive column: a direct query on a partition has a covered
 *	  set defined by non-sensitive columns like any WHERE clause (a
 *	  partition bounded by a sensitive column, which cannot happen with
 *	  that index, is refused anyway: "remapped");
 *	- the statistics of a direct query are written over the protected
 *	  table's attribute numbers: a partition whose columns are numbered
 *	  differently (a table attached with another column order, dropped
 *	  columns) is refused for direct queries ("remapped"); querying the
 *	  parent is always possible.
 * Detaching a partition would leave its rows, already logged in the
 * protected table's ledger, in a plain table with no protection and no
 * ledger, and a later protection of that table would start an empty
 * ledger the auditor cannot combine with the old one.  So DETACH
 * PARTITION of a protected table is refused, for every role, as is
 * attaching a protected table as the partition of another table (its
 * reads would go through an unprotected parent).  tapas.unprotect() first
 * makes either possible, as the administrator's explicit choice.
 *
 * IDENTIFICATION
 *	  src/policy/partitions.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/tupconvert.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "executor/tuptable.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "partitioning/partdesc.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		Protecting a partitioned table
 * ----------------------------------------------------------------
 */

/*
 * Refuses a partitioned table tapas cannot protect: a partition of it
 * protected on its own (attached before this guard existed).  Foreign
 * partitions are checked with the key (tapas_key_check_columns,
 * foreign_leaves.c).
 */
void
tapas_partition_check_protectable(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	List	   *members = find_all_inheritors(relid, AccessShareLock, NULL);
	ListCell   *lc;

	foreach(lc, members)
	{
		Oid			child = lfirst_oid(lc);
		const TapasProtection *p;

		if (child == relid)
			continue;
		p = tapas_protection_lookup(child);
		if (p != NULL && p->relid == child)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot protect partitioned table \"%s\" because its partition \"%s\" is protected on its own",
							RelationGetRelationName(rel), get_rel_name(child)),
					 errhint("Unprotect \"%s\" first.", get_rel_name(child))));
	}
	list_free(members);
}

/* attno of column attno of relation from in relation to, or InvalidAttrNumber */
static AttrNumber
same_column(Oid from, AttrNumber attno, Oid to)
{
	char	   *name = get_attname(from, attno, true);

	return name == NULL ? InvalidAttrNumber : get_attnum(to, name);
}

/*
 * true when every live column of root has the same number in partid (a
 * partition has exactly its parent's columns, maybe numbered otherwise).
 */
static bool
same_numbering(Oid root, Oid partid)
{
	/* user attributes are numbered 1 .. relnatts without gaps */
	for (AttrNumber a = 1;; a++)
	{
		HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(root), Int16GetDatum(a));
		bool		dropped;

		if (!HeapTupleIsValid(tup))
			return true;
		dropped = ((Form_pg_attribute) GETSTRUCT(tup))->attisdropped;
		ReleaseSysCache(tup);
		if (!dropped && same_column(root, a, partid) != a)
			return false;
	}
}

/* whether the partition bound of partid (with its ancestors') reads a sensitive column */
static bool
bound_is_sensitive(Oid partid, const Bitmapset *sensitive)
{
	Expr	   *qual = get_partition_qual_relid(partid);
	Bitmapset  *attnos = NULL;
	int			a = -1;

	if (qual == NULL)
		return false;
	pull_varattnos((Node *) qual, 1, &attnos);
	while ((a = bms_next_member(attnos, a)) >= 0)
	{
		if (bms_is_member(a + FirstLowInvalidHeapAttributeNumber, sensitive))
			return true;
	}
	return false;
}

/*
 * The protection of partition partid of the protected table root: root's,
 * with the partition's own attribute numbers (allocated in the current
 * memory context, the protection cache's), and "remapped" when a direct
 * read of the partition cannot be audited as a read of root.
 */
void
tapas_partition_derive(const TapasProtection *root, Oid partid, TapasProtection *out)
{
	int			a = -1;

	*out = *root;
	out->lookup_relid = partid;
	out->partition = true;
	out->sensitive = NULL;
	for (int i = 0; i < root->nkeys; i++)
	{
		out->key_attnos[i] = same_column(root->relid, root->key_attnos[i], partid);
		if (out->key_attnos[i] == InvalidAttrNumber)
			out->broken = true;
	}
	out->key_attno = out->key_attnos[0];
	while ((a = bms_next_member(root->sensitive, a)) >= 0)
	{
		AttrNumber	pa = same_column(root->relid, a, partid);

		if (pa != InvalidAttrNumber)
			out->sensitive = bms_add_member(out->sensitive, pa);
		else
			out->broken = true;
	}
	out->remapped = !same_numbering(root->relid, partid) ||
		bound_is_sensitive(partid, out->sensitive);
}

/*
 * The tables holding relid's rows: relid itself when it is a plain table,
 * else its leaf partitions (locked with lockmode): plain tables, and
 * foreign tables when the structure that keeps the key unique holds
 * (foreign_leaves.c; raises otherwise: callers fail closed).
 */
List *
tapas_protected_leaves(Oid relid, LOCKMODE lockmode)
{
	List	   *members;
	List	   *leaves = NIL;
	ListCell   *lc;
	bool		foreign = false;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return list_make1_oid(relid);
	members = find_all_inheritors(relid, lockmode, NULL);
	foreach(lc, members)
	{
		char		kind = get_rel_relkind(lfirst_oid(lc));

		if (kind == RELKIND_RELATION || kind == RELKIND_FOREIGN_TABLE)
			leaves = lappend_oid(leaves, lfirst_oid(lc));
		foreign |= kind == RELKIND_FOREIGN_TABLE;
		if (kind != RELKIND_RELATION && kind != RELKIND_FOREIGN_TABLE &&
			kind != RELKIND_PARTITIONED_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("partition \"%s\" of protected table \"%s\" cannot be read by tapas",
							get_rel_name(lfirst_oid(lc)), get_rel_name(relid)),
					 errdetail("Only plain and foreign tables can be partitions of a protected table.")));
	}
	list_free(members);
	if (foreign)
	{
		const TapasProtection *p = tapas_protection_lookup(relid);

		if (p != NULL)
			tapas_foreign_check_structure(p->relid, p);
	}
	return leaves;
}

/* ----------------------------------------------------------------
 *		Scanning every partition
 * ----------------------------------------------------------------
 */

struct TapasTableScan
{
	Relation	root;			/* the protected table (rows come in its format) */
	Snapshot	snapshot;
	List	   *leaves;			/* tapas_protected_leaves() */
	int			next;			/* index of the next leaf to open */
	Relation	rel;			/* the leaf being scanned, or NULL */
	TableScanDesc scan;
	TapasForeignRead *remote;	/* a foreign leaf's read, instead of scan */
	TupleTableSlot *slot;		/* the leaf's slot */
	TupleTableSlot *rootslot;	/* rows converted to root's format */
	TupleConversionMap *map;	/* leaf -> root, NULL when the same */
};

/*
 * Begins a heap scan of every row of relid (a plain table, or every leaf
 * partition of a partitioned one) under snapshot, returning the rows in
 * relid's own attribute numbering.  Allocates in the current context.
 */
TapasTableScan *
tapas_table_scan_begin(Oid relid, Snapshot snapshot)
{
	TapasTableScan *s = palloc0(sizeof(TapasTableScan));

	s->root = table_open(relid, AccessShareLock);
	s->snapshot = snapshot;
	s->leaves = tapas_protected_leaves(relid, AccessShareLock);
	s->rootslot = MakeSingleTupleTableSlot(RelationGetDescr(s->root), &TTSOpsVirtual);
	return s;
}

static void
leaf_close(TapasTableScan *s)
{
	if (s->rel == NULL)
		return;
	if (s->remote != NULL)
	{
		tapas_foreign_read_end(s->remote);
		s->remote = NULL;
		table_close(s->rel, AccessShareLock);
		s->rel = NULL;
		return;
	}
	table_endscan(s->scan);
	ExecDropSingleTupleTableSlot(s->slot);
	if (s->map != NULL)
		free_conversion_map(s->map);
	if (s->rel != s->root)
		table_close(s->rel, AccessShareLock);
	s->rel = NULL;
	s->map = NULL;
}

/* opens the next leaf; false when there is none */
static bool
leaf_open(TapasTableScan *s)
{
	Oid			leaf;

	if (s->next >= list_length(s->leaves))
		return false;
	leaf = list_nth_oid(s->leaves, s->next++);
	s->rel = leaf == RelationGetRelid(s->root) ? s->root : table_open(leaf, AccessShareLock);
	if (s->rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
	{
		/* rows come in root's format from a query tapas writes */
		s->remote = tapas_foreign_read_begin(s->root, leaf);
		return true;
	}
	s->slot = table_slot_create(s->rel, NULL);
	s->scan = table_beginscan(s->rel, s->snapshot, 0, NULL);
	s->map = convert_tuples_by_name(RelationGetDescr(s->rel), RelationGetDescr(s->root));
	return true;
}

/* The next row in the protected table's format, or NULL at the end. */
TupleTableSlot *
tapas_table_scan_next(TapasTableScan *s)
{
	for (;;)
	{
		if (s->rel == NULL && !leaf_open(s))
			return NULL;
		if (s->remote != NULL && tapas_foreign_read_next(s->remote, s->rootslot))
			return s->rootslot;
		if (s->remote == NULL && table_scan_getnextslot(s->scan, ForwardScanDirection, s->slot))
			return s->map == NULL ? s->slot :
				execute_attr_map_slot(s->map->attrMap, s->slot, s->rootslot);
		leaf_close(s);
	}
}

void
tapas_table_scan_end(TapasTableScan *s)
{
	leaf_close(s);
	ExecDropSingleTupleTableSlot(s->rootslot);
	table_close(s->root, AccessShareLock);
	list_free(s->leaves);
	pfree(s);
}

/* ----------------------------------------------------------------
 *		ATTACH and DETACH PARTITION
 * ----------------------------------------------------------------
 */

static void
check_partition_cmd(AlterTableStmt *stmt, AlterTableCmd *cmd)
{
	Oid			parent;
	Oid			child;
	const TapasProtection *p;

	if (cmd->subtype != AT_AttachPartition && cmd->subtype != AT_DetachPartition &&
		cmd->subtype != AT_DetachPartitionFinalize)
		return;
	parent = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(parent))
		return;
	if (cmd->subtype != AT_AttachPartition)
	{
		if ((p = tapas_protection_lookup(parent)) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot detach a partition of protected table \"%s\"", get_rel_name(p->relid)),
					 errdetail("Its rows are logged in the protected table's ledger; detached, they would be a table without protection."),
					 errhint("Unprotect the table first with tapas.unprotect(), or copy the rows you need from a role that is not audited.")));
		return;
	}
	child = RangeVarGetRelid(((PartitionCmd *) cmd->def)->name, NoLock, true);
	if (OidIsValid(child) && (p = tapas_protection_lookup(child)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot attach protected table \"%s\" as a partition", get_rel_name(child)),
				 errdetail("Its rows would be read through a parent table that is not protected as it is."),
				 errhint("Unprotect it first with tapas.unprotect(), then protect the new parent.")));
}

/* Refuses ATTACH and DETACH PARTITION that would take rows out of a protection. */
void
tapas_partition_guard_utility(Node *parsetree)
{
	AlterTableStmt *stmt;
	ListCell   *lc;

	if (!IsA(parsetree, AlterTableStmt))
		return;
	stmt = (AlterTableStmt *) parsetree;
	if (stmt->objtype != OBJECT_TABLE || !tapas_protection_any())
		return;
	foreach(lc, stmt->cmds)
		check_partition_cmd(stmt, lfirst_node(AlterTableCmd, lc));
}

/*
 * After ALTER TABLE ... ATTACH PARTITION succeeded: a hashed key's rows of
 * the attached table are registered (keys.c), in the same transaction.
 */
void
tapas_partition_after_utility(Node *parsetree)
{
	AlterTableStmt *stmt;
	ListCell   *lc;

	if (!IsA(parsetree, AlterTableStmt))
		return;
	stmt = (AlterTableStmt *) parsetree;
	if (stmt->objtype != OBJECT_TABLE || !tapas_protection_any())
		return;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		Oid			parent;
		Oid			child;

		if (cmd->subtype != AT_AttachPartition)
			continue;
		parent = RangeVarGetRelid(stmt->relation, NoLock, true);
		child = RangeVarGetRelid(((PartitionCmd *) cmd->def)->name, NoLock, true);
		if (OidIsValid(parent) && OidIsValid(child))
			tapas_key_register_partition(parent, child);
	}
}
