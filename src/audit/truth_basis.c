/*-------------------------------------------------------------------------
 *
 * truth_basis.c
 *	  The basis registry: the canonical tree of every sensitive statistic of
 *	  a protected table, the one this backend built (capture/basis.c) or the
 *	  one the ledger keeps (truth.c explains why no analyst text is parsed).
 *
 * IDENTIFICATION
 *	  src/audit/truth_basis.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"


#include "catalog/namespace.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"

#include "audit/audit_int.h"

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
Node *
tapas_audit_statistic_tree(Oid relid, const char *stat, bool *sensitive)
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

/* whether this backend holds the canonical tree of (relid, statistic) */
bool
tapas_audit_basis_known(Oid relid, const char *statistic)
{
	bool		found;

	return basis_lookup(relid, statistic, HASH_FIND, &found) != NULL;
}
