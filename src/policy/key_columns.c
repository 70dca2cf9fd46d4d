/*-------------------------------------------------------------------------
 *
 * key_columns.c
 *	  The key columns of a protection, checked at protect(): they exist, are
 *	  NOT NULL and have a unique index, and whether their records are named by a
 *	  hash (keys.c).
 *
 * IDENTIFICATION
 *	  src/policy/key_columns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/trigger.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "policy/policy.h"

/*
 * true when rel has a unique index (immediate, valid, no predicate, no
 * expression) on exactly the columns attnos[0..n-1], in any order: at
 * most one row per combination of their values.
 */
bool
tapas_columns_are_unique(Relation rel, const AttrNumber *attnos, int n)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		unique = false;

	foreach(lc, indexes)
	{
		HeapTuple	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;
		bool		same;

		if (!HeapTupleIsValid(itup))
			continue;
		idx = (Form_pg_index) GETSTRUCT(itup);
		same = idx->indisunique && idx->indimmediate && idx->indisvalid &&
			idx->indnkeyatts == n &&
			heap_attisnull(itup, Anum_pg_index_indpred, NULL) &&
			heap_attisnull(itup, Anum_pg_index_indexprs, NULL);
		for (int i = 0; i < n && same; i++)
		{
			bool		found = false;

			for (int j = 0; j < n; j++)
				found |= idx->indkey.values[j] == attnos[i];
			same = found;
		}
		unique |= same;
		ReleaseSysCache(itup);
	}
	list_free(indexes);
	return unique;
}

/* true when column attno of rel has a unique index of its own */
bool
tapas_column_is_unique(Relation rel, AttrNumber attno)
{
	return tapas_columns_are_unique(rel, &attno, 1);
}

/* "a", or "(a, b)": the key columns for messages */
static char *
key_columns_text(const Datum *names, int n)
{
	StringInfoData buf;

	if (n == 1)
		return psprintf("column \"%s\"", NameStr(*DatumGetName(names[0])));
	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "(", NameStr(*DatumGetName(names[i])));
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/* the remote content of every foreign leaf of rel: distinct keys inside the bounds */
static void
foreign_leaves_check(Relation rel, const TapasProtection *p)
{
	List	   *members = find_all_inheritors(RelationGetRelid(rel), AccessShareLock, NULL);
	ListCell   *lc;

	foreach(lc, members)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			(void) tapas_foreign_leaf_stamp(RelationGetRelid(rel), p, lfirst_oid(lc));
	list_free(members);
}

/*
 * Checks the key columns p->key_attnos[0 .. nkeys-1] of rel (names in
 * names) and fills in their types: NOT NULL, and unique together through
 * a unique index on exactly them (across partitions for a partitioned
 * table, whose unique indexes contain the partition key).
 */
void
tapas_key_check_columns(Relation rel, TapasProtection *p, const Datum *names)
{
	char	   *cols = key_columns_text(names, p->nkeys);

	for (int i = 0; i < p->nkeys; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), p->key_attnos[i] - 1);

		if (!att->attnotnull)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key column \"%s\" must be declared NOT NULL", NameStr(att->attname)),
					 errhint("ALTER TABLE %s ALTER COLUMN %s SET NOT NULL",
							 quote_identifier(RelationGetRelationName(rel)),
							 quote_identifier(NameStr(att->attname)))));
		p->key_types[i] = att->atttypid;
		p->key_typlen[i] = att->attlen;
		p->key_typbyval[i] = att->attbyval;
	}
	p->key_attno = p->key_attnos[0];
	p->key_type = p->key_types[0];
	p->key_hashed = tapas_key_is_hashed(p);
	if (tapas_columns_are_unique(rel, p->key_attnos, p->nkeys))
		return;
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE &&
		tapas_foreign_check_structure(RelationGetRelid(rel), p))
	{
		foreign_leaves_check(rel, p);
		return;
	}
	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key %s must be unique across the partitions of \"%s\"",
						cols, RelationGetRelationName(rel)),
				 errdetail("A unique index of a partitioned table must contain its partition key, and tapas needs a unique index on exactly the key columns."),
				 errhint("Partition the table by its key columns, or make the key a composite key that contains the partition key, with a PRIMARY KEY or UNIQUE constraint on it.")));
	if (p->nkeys == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key %s must have a unique index of its own", cols),
				 errhint("Declare it PRIMARY KEY or UNIQUE (not deferrable, no predicate).")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key %s must have a unique index on exactly these columns", cols),
			 errhint("Declare PRIMARY KEY %s or UNIQUE %s (not deferrable, no predicate).", cols, cols)));
}
