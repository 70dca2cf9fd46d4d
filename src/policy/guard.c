/*-------------------------------------------------------------------------
 *
 * guard.c
 *	  Refuses the utility commands that would silently remove every
 *	  protection: DROP EXTENSION tapas, DROP SCHEMA tapas (CASCADE drops the
 *	  extension), DROP OWNED BY the extension's owner, and ALTER EXTENSION
 *	  tapas DROP (which would let the catalog table be dropped next), while
 *	  any table of this database is protected.
 *
 * Without the extension the catalog tapas.protection is gone, and with it
 * the gate: an audited role's SELECT id, rare_disease FROM patients would
 * return rows.  So dropping needs the tables unprotected first, or the
 * explicit superuser setting tapas.allow_drop_with_protections.  Audited
 * roles cannot run any of these commands anyway (they need ownership of
 * the extension or superuser); the guard protects against the admin's
 * mistake, not against an attacker.
 *
 * IDENTIFICATION
 *	  src/policy/guard.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rel.h"

#include "policy/policy.h"

bool		tapas_allow_drop_with_protections = false;

void
tapas_guard_define_gucs(void)
{
	DefineCustomBoolVariable("tapas.allow_drop_with_protections",
							 "Allows DROP EXTENSION tapas (and DROP SCHEMA tapas, DROP OWNED BY its owner) while tables are protected.",
							 "Dropping the extension removes every protection.",
							 &tapas_allow_drop_with_protections,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
}

/* does a list of String nodes (names) contain name? */
static bool
names_contain(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
	{
		Node	   *n = lfirst(lc);

		if (IsA(n, String) && strcmp(strVal(n), name) == 0)
			return true;
	}
	return false;
}

/* owner of extension tapas in this database, or InvalidOid */
static Oid
extension_owner(void)
{
	Oid			ext = get_extension_oid("tapas", true);
	Oid			owner = InvalidOid;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(ext))
		return InvalidOid;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return owner;
}

/* would this statement drop the extension? */
static bool
drops_extension(Node *parsetree)
{
	if (IsA(parsetree, DropStmt))
	{
		DropStmt   *drop = (DropStmt *) parsetree;

		if (drop->removeType == OBJECT_EXTENSION)
			return names_contain(drop->objects, "tapas");
		if (drop->removeType == OBJECT_SCHEMA)
			return names_contain(drop->objects, "tapas");
		return false;
	}
	if (IsA(parsetree, AlterExtensionContentsStmt))
	{
		AlterExtensionContentsStmt *alter = (AlterExtensionContentsStmt *) parsetree;

		return alter->action < 0 && strcmp(alter->extname, "tapas") == 0;
	}
	if (IsA(parsetree, DropOwnedStmt))
	{
		Oid			owner = extension_owner();
		ListCell   *lc;

		if (!OidIsValid(owner))
			return false;
		foreach(lc, ((DropOwnedStmt *) parsetree)->roles)
			if (get_rolespec_oid(lfirst(lc), true) == owner)
				return true;
	}
	return false;
}

/*
 * Called by the ProcessUtility hook for every utility statement, before it
 * runs: raises if it would drop the extension while tables are protected.
 */
void
tapas_guard_utility(Node *parsetree)
{
	if (tapas_allow_drop_with_protections)
		return;
	if (!IsA(parsetree, DropStmt) && !IsA(parsetree, DropOwnedStmt) &&
		!IsA(parsetree, AlterExtensionContentsStmt))
		return;
	if (!drops_extension(parsetree) || !tapas_protection_any())
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 IsA(parsetree, AlterExtensionContentsStmt) ?
			 errmsg("cannot remove objects from extension tapas while tables are protected") :
			 errmsg("cannot drop extension tapas while tables are protected"),
			 errdetail("Dropping the extension would remove every protection: audited roles could then read the protected rows."),
			 errhint("Unprotect the tables first (SELECT tapas.unprotect(table_name) FROM tapas.protected_tables), or let a superuser SET tapas.allow_drop_with_protections = on.")));
}
