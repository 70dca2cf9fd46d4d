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
 * attacker adds their cells as cells of one statistic.  The canonical form
 * (capture/basis.c) gives most spellings one text; the rest (income >= 51
 * and income > 50 on an integer column, complements, affine images) are
 * found as functions on the domain grid (truth_domain.c): a class is taken
 * as an existing one only when the two are the same function of a row's
 * sensitive columns on every row the grid stands for, never because they
 * agree on this table's rows (the hiv patients being the rare ones): such
 * a merge would make the decision, and so the refusal, tell the
 * coincidence (issue 11 item 5).  The same grid gives the implications
 * between 0/1 classes (implied.c).  A class is named by the first
 * statistic text seen of it (its
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
 * The basis registry is truth_basis.c; reading the truth, truth_read.c.
 *
 * IDENTIFICATION
 *	  src/audit/truth.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "common/hashfn.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "policy/policy.h"
#include "recon/linrel.h"

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
	bool		no_grid;		/* off the domain grid when it was classed */
} StatEnt;

typedef struct RelClasses
{
	Oid			relid;			/* hash key */
	int64		stamp;			/* table change counter when read */
	uint64		generation;		/* and the ledger's reset generation */
	List	   *classes;		/* TapasClass *, in order of creation */
	MemoryContext domain_cxt;	/* the domain grid's cache (truth_domain_reps.c), */
	void	   *domain_cache;	/* valid as long as the classes */
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

/* frees a class made by this file or by truth_preread.c: its arrays and text */
void
tapas_audit_class_free(TapasClass *c)
{
	if (c->keys)
		pfree(c->keys);
	if (c->vals)
		pfree(c->vals);
	if (c->implies)
		pfree(c->implies);
	if (c->meets)
		pfree(c->meets);
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
		tapas_audit_class_free(lfirst(lc));
	list_free(r->classes);
	r->classes = NIL;
	if (r->domain_cxt != NULL)
		MemoryContextDelete(r->domain_cxt);
	r->domain_cxt = NULL;
	r->domain_cache = NULL;
}

/*
 * the classes of relid, dropped first (check) if the table changed or the
 * ledger was reset since they were read
 */
static RelClasses *
relation_classes(Oid relid, bool check)
{
	RelClasses *r;
	bool		found;
	int64		stamp;
	int64		nkeys;
	uint64		generation;

	registry_init();
	r = hash_search(rel_map, &relid, HASH_ENTER, &found);
	if (found && !check)
		return r;
	stamp = tapas_audit_table_change_stamp(relid);
	tapas_ledger_key_state(relid, &nkeys, &generation);
	if (!found)
	{
		r->classes = NIL;
		r->domain_cxt = NULL;
		r->domain_cache = NULL;
	}
	/*
	 * A tapas.reset empties the logged rows the classes were counted over
	 * (tapas_audit_class_room) and the relations between them: start over.
	 */
	else if (r->stamp != stamp || r->generation != generation)
		registry_drop_relation(r);
	r->stamp = stamp;
	r->generation = generation;
	return r;
}

/*
 * The slot of relid's domain grid cache (truth_domain_reps.c), in *cxt, a
 * context that lives as long as the table's classes: both are dropped
 * when the table changes.  renew: a new, empty context for a new cache.
 */
void	  **
tapas_audit_domain_cache(Oid relid, MemoryContext *cxt, bool renew)
{
	RelClasses *r = relation_classes(relid, false);

	if (renew || r->domain_cxt == NULL)
	{
		if (r->domain_cxt != NULL)
			MemoryContextDelete(r->domain_cxt);
		r->domain_cxt = AllocSetContextCreate(tapas_audit_cxt(), "tapas domain grid cache",
											  ALLOCSET_SMALL_SIZES);
		r->domain_cache = NULL;
	}
	*cxt = r->domain_cxt;
	return &r->domain_cache;
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

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s != NULL && s->cls != NULL && s->cls->vtree == NULL &&
		tapas_audit_basis_known(relid, statistic))
		registry_drop_relation(r);
}

/* whether statistic of relid is classed already (tapas_audit_class reads no truth) */
bool
tapas_audit_class_known(Oid relid, const char *statistic)
{
	StatKey		k;

	(void) relation_classes(relid, false);
	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	return hash_search(stat_map, &k, HASH_FIND, NULL) != NULL;
}

/* tapas.audit_classes_per_role: -1 a quarter of the table's classes */
int			tapas_audit_classes_per_role = -1;

/*
 * Refuses a statement of role that brings relid's class cls, not yet in a
 * logged row, when nnew of its earlier cells brought new classes too and
 * there is no room for one more: past the classes the joint audit holds
 * per table (relations.c: past them, every class of the table fails
 * closed, for every role), or past role's share of them
 * (tapas.audit_classes_per_role).  One role's flood of new statistics then
 * refuses only that role's new statistics, and the classes logged so far
 * stay audited.  Counted over the logged rows, after the statement's sync
 * has classed them all (tapas_audit_class_logged), so that neither a new
 * session nor a refused statement changes the count.  Whether a statistic
 * is a new class is decided on the domain grid, never by a record's
 * value: the refusal tells nothing about a record.
 */
void
tapas_audit_class_room(Oid relid, const TapasClass *cls, Oid role, int nnew)
{
	RelClasses *r = relation_classes(relid, false);
	int			quota = tapas_audit_classes_per_role < 0 ?
		TAPAS_LINREL_MAX_CLASSES / 4 : tapas_audit_classes_per_role;
	int			logged = nnew;
	int			mine = nnew;
	ListCell   *lc;

	if (cls->logged || cls->is_one)
		return;
	foreach(lc, r->classes)
	{
		TapasClass *c = lfirst(lc);

		logged += c->logged;
		mine += c->logged && c->creator == role;
	}
	if (logged >= TAPAS_LINREL_MAX_CLASSES)
		ereport(ERROR,
				(errcode(ERRCODE_TAPAS_LEDGER_FULL),
				 errmsg("tapas cannot audit a new statistic of table \"%s\"",
						get_rel_name(relid)),
				 errdetail("The joint audit of the table holds %d classes of statistics, its maximum; no answer was released.",
						   TAPAS_LINREL_MAX_CLASSES),
				 errhint("Use the statistics asked before, or ask an administrator to run tapas.reset().")));
	if (quota > 0 && mine >= quota)
		ereport(ERROR,
				(errcode(ERRCODE_TAPAS_LEDGER_FULL),
				 errmsg("tapas audit class quota of this role on table \"%s\" is exhausted",
						get_rel_name(relid)),
				 errdetail("The role's statistics on the table make %d classes, the most tapas.audit_classes_per_role allows; no answer was released.",
						   quota),
				 errhint("Use the statistics asked before, or ask an administrator to raise tapas.audit_classes_per_role or to run tapas.reset().")));
}

/*
 * Adds c to r's classes, with the implications and meets of links, and
 * takes the grid from the classes it takes it from (links->lost).
 */
static void
class_register(RelClasses *r, TapasClass *c, const TapasClassLinks *links)
{
	MemoryContext old = MemoryContextSwitchTo(tapas_audit_cxt());
	ListCell   *lc;

	c->id = list_length(r->classes) + 1;
	r->classes = lappend(r->classes, c);
	MemoryContextSwitchTo(old);
	foreach(lc, links->c_implies)
	{
		tapas_audit_class_add_implication(c, ((TapasClass *) lfirst(lc))->id);
		((TapasClass *) lfirst(lc))->nimplied_by++;
	}
	foreach(lc, links->implies_c)
	{
		tapas_audit_class_add_implication(lfirst(lc), c->id);
		c->nimplied_by++;
	}
	foreach(lc, links->meets)
	{
		tapas_audit_class_add_meet(c, ((TapasClass *) lfirst(lc))->id);
		tapas_audit_class_add_meet(lfirst(lc), c->id);
	}
	foreach(lc, links->lost)
		((TapasClass *) lfirst(lc))->no_grid = true;
}

/*
 * The class of statistic (NULL: it reads no sensitive column).  A new
 * class joins the table's classes, except in deny mode one off the domain
 * grid (its component has none, or its arrival would take the grid from
 * others) that no logged row has (!logged): its statement is refused
 * (tapas_audit_statistic_no_grid), and were its class kept, this
 * backend's grid would stay without the component after the refusal.  A
 * logged row's class always joins them: the joint system must hold every
 * logged cell.
 */
static TapasClass *
class_of(Oid relid, const char *statistic, bool logged)
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
	TapasClassLinks links = {NIL, NIL, NIL, false, false, NIL};
	bool		no_grid = false;

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s != NULL)
	{
		if (logged && s->cls != NULL && s->cls->id == 0)
			class_register(r, s->cls, &links);	/* off the grid, then logged */
		return s->cls;
	}
	v = tapas_audit_statistic_tree(relid, statistic, &sensitive);
	c = NULL;
	if (sensitive)
	{
		old = MemoryContextSwitchTo(tapas_audit_cxt());
		c = palloc0(sizeof(TapasClass));
		c->relid = relid;
		c->rep = pstrdup(statistic);
		c->vtree = v;			/* owned by the basis registry */
		MemoryContextSwitchTo(old);
		c->usable = tapas_audit_class_read_truth(c);
		same = c->usable ? tapas_audit_class_same(r->classes, c, &scale, &offset, &links) : NULL;
		no_grid = c->no_grid || c->broke_grid;
		c->shape_binary = links.grid_exact ? links.grid_binary
			: c->usable ? c->binary : strncmp(c->rep, "count(", 6) == 0;
		if (same != NULL)
		{
			tapas_audit_class_free(c);
			c = same;
		}
		else if (logged || !no_grid || tapas_mode != TAPAS_MODE_DENY)
			class_register(r, c, &links);
	}
	s = hash_search(stat_map, &k, HASH_ENTER, &found);
	s->cls = c;
	s->scale = scale;
	s->offset = offset;
	s->no_grid = no_grid;
	return c;
}

/*
 * The class of a statistic of a logged row of role: the first such row
 * seen makes role the class's creator (the snapshots are in log_id order
 * and a class's first sync reads every row of the table).
 */
TapasClass *
tapas_audit_class_logged(Oid relid, const char *statistic, Oid role)
{
	TapasClass *c = class_of(relid, statistic, true);

	if (c != NULL && !c->logged)
	{
		c->logged = true;
		c->creator = role;
	}
	return c;
}

TapasClass *
tapas_audit_class(Oid relid, const char *statistic)
{
	return class_of(relid, statistic, false);
}

/*
 * Whether statistic (classed: tapas_audit_class) is off the domain grid:
 * its class's component could not be built when it was classed or since,
 * or its arrival took the grid from other classes.  Its identity with the
 * other classes, and their relations, would then come from the records'
 * values, and a decision on it could tell a coincidence of the data
 * (dm4's hiv patient being its rare one): the audit fails closed instead
 * (decide.c).  Whether a component has a grid depends on the statistics'
 * constants and the groups of values they cut, not on the records'
 * secrets.
 */
bool
tapas_audit_statistic_no_grid(Oid relid, const char *statistic)
{
	StatKey		k;
	StatEnt    *s;

	if (stat_map == NULL)
		return false;
	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	return s != NULL && s->cls != NULL && (s->no_grid || s->cls->no_grid);
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

/*
 * 0/1 values as a function of the sensitive columns (on the domain grid),
 * never because this table's values happen to be 0/1: the candidates
 * test's prior differs between the two kinds, and a decision that told
 * the kind would tell the coincidence.
 */
bool
tapas_audit_class_is_binary(const TapasClass *c)
{
	return c->shape_binary;
}

/* whether c is a multiple of count(*), public (relations.c): no record to narrow */
bool
tapas_audit_class_is_public(const TapasClass *c)
{
	return c->usable && c->is_one;
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
