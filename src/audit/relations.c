/*-------------------------------------------------------------------------
 *
 * relations.c
 *	  Linear relations between the basis-value classes of a table, found
 *	  on the domain grid (truth_domain.c), and the groups of related classes whose cells the joint
 *	  system (joint.c) audits together.
 *
 * Classes (truth.c) with identical truth vectors are one class already.
 * Classes whose truth vectors are linearly related are not: the cells of
 * count(*) FILTER (WHERE rare AND income > 3000), count(*) FILTER (WHERE
 * rare AND NOT income > 3000) and count(*) FILTER (WHERE rare) combine
 * (the first two add up to the third), and so do sum(income) FILTER
 * (WHERE rare) + sum(income) FILTER (WHERE NOT rare) = sum(income), or
 * sum(rare::int * 2) = 2 count(*) FILTER (WHERE rare).  The kernel
 * (recon/linrel.h) keeps an echelon basis of the classes' truth vectors
 * modulo the audit's secret prime, in the order the classes were created,
 * and groups the classes that take part in a relation (the components);
 * a class in no relation keeps its own system (determined.c), as before.
 * Each group gets 0/1 coordinates (regions) when it has them, or split
 * coordinates (a cell taken as known region by region: sum(health) with
 * count(*) FILTER (WHERE health = v) for each v); a group with neither
 * (more than TAPAS_LINREL_MAX_REGIONS regions, recon/regset.h) is audited
 * as incomplete (the caller fails closed).
 *
 * Relations are found on the domain grid (truth_domain.c): they hold as
 * functions of the sensitive columns on every row the grid stands for, so
 * no coincidence of this table's rows relates two classes (a decision that
 * used one would tell it).  A class whose truth cannot be read is related
 * to nothing.  The classes of a component of the grid that cannot be
 * built (too many points, a column type without an order:
 * truth_domain_star.c) are related by value, among themselves, in a second
 * kernel over the table's records, as before the grid: a coincidence may
 * then relate two of them, but no relation an attacker could use is
 * missed, and the other components keep their grid.
 *
 * The groups are kept per backend and table in the audit cache and
 * recomputed when the table's class list grows; a group whose classes
 * are unchanged keeps its identity, and with it its audit entries.
 * Everything is dropped with the table's classes (truth.c).
 *
 * IDENTIFICATION
 *	  src/audit/relations.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "recon/linrel.h"

typedef struct TableRelations
{
	Oid			relid;			/* hash key */
	tapas_linrel_t *lr[2];		/* on the grid, by value (NULL: none); malloc'd by the kernel */
	uint64		npoints[2];		/* ONE's support: the grid's points, the table's records (0: none) */
	int			nadded;			/* classes 1..nadded of the table are in lr */
	int			planned;		/* nadded when the groups were computed */
	List	   *joints;			/* TapasJoint *, the current groups */
	TapasJoint **of;			/* [ofmax] group of class id i + 1, or NULL */
	int			ofmax;
	TapasJoint *overflow;		/* classes past TAPAS_LINREL_MAX_CLASSES */
} TableRelations;

static HTAB *relations = NULL;

static TableRelations *
table_relations(Oid relid, bool create)
{
	bool		found;
	TableRelations *tr;

	if (relations == NULL)
	{
		HASHCTL		ctl;

		if (!create)
			return NULL;
		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(TableRelations);
		ctl.hcxt = tapas_audit_cxt();
		relations = hash_create("tapas class relations", 16, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	tr = hash_search(relations, &relid, create ? HASH_ENTER : HASH_FIND, &found);
	if (tr != NULL && !found)
	{
		memset(((char *) tr) + sizeof(Oid), 0, sizeof(TableRelations) - sizeof(Oid));
		tr->planned = -1;
	}
	return tr;
}

static void
joint_free(TapasJoint *jt)
{
	tapas_audit_drop_joint_entries(jt);
	pfree(jt->cls);
	pfree(jt->regions);
	pfree(jt->test);
	pfree(jt->patterns);
	pfree(jt->name);
	pfree(jt);
}

void
tapas_audit_relations_drop(Oid relid)
{
	TableRelations *tr = table_relations(relid, false);
	ListCell   *lc;

	if (tr == NULL)
		return;
	foreach(lc, tr->joints)
		joint_free(lfirst(lc));
	list_free(tr->joints);
	if (tr->overflow)
		joint_free(tr->overflow);
	if (tr->of)
		pfree(tr->of);
	for (int g = 0; g < 2; g++)
		if (tr->lr[g] != NULL)
			tapas_linrel_free(tr->lr[g]);
	hash_search(relations, &relid, HASH_REMOVE, NULL);
}

/*
 * "related classes 1,3,4: rep; rep; rep", the key of the group's entries;
 * classes of a cut's other part whose cells enter only as rows of the
 * cut class (patterns 0) are listed after "via" (and not by text).
 */
static char *
joint_name(TapasClass **cls, const tapas_regset_t *patterns, int n)
{
	StringInfoData s;
	bool		via = false;

	initStringInfo(&s);
	appendStringInfoString(&s, "related classes ");
	for (int i = 0, k = 0; i < n; i++)
		if (patterns == NULL || !tapas_regset_empty(&patterns[i]))
			appendStringInfo(&s, "%s%d", k++ ? "," : "", cls[i]->id);
	for (int i = 0; patterns != NULL && i < n; i++)
		if (tapas_regset_empty(&patterns[i]))
		{
			appendStringInfo(&s, "%s%d", via ? "," : " via ", cls[i]->id);
			via = true;
		}
	appendStringInfoString(&s, ":");
	for (int i = 0, k = 0; i < n; i++)
		if (patterns == NULL || !tapas_regset_empty(&patterns[i]))
			appendStringInfo(&s, "%s %s", k++ ? ";" : "", cls[i]->rep);
	if (s.len > TAPAS_LEDGER_MAX_STATISTIC)
		s.data[TAPAS_LEDGER_MAX_STATISTIC] = '\0';
	return s.data;
}

/* the coordinates of a group, from the kernel's plan (or none) */
typedef struct JointCoords
{
	const tapas_regset_t *regions;	/* [n] rows */
	const tapas_regset_t *test;	/* [n] values */
	const tapas_regset_t *patterns; /* [n] patterns */
	int			nregions;
	int			npatterns;
	bool		split;
	bool		one;
} JointCoords;

static TapasJoint *
joint_make(Oid relid, TapasClass **cls, int n, const JointCoords *co)
{
	MemoryContext old = MemoryContextSwitchTo(tapas_audit_cxt());
	TapasJoint *jt = palloc0(sizeof(TapasJoint));

	jt->relid = relid;
	jt->ncls = n;
	jt->cls = palloc(sizeof(TapasClass *) * Max(n, 1));
	memcpy(jt->cls, cls, sizeof(TapasClass *) * n);
	jt->regions = palloc0(sizeof(tapas_regset_t) * Max(n, 1));
	jt->test = palloc0(sizeof(tapas_regset_t) * Max(n, 1));
	jt->patterns = palloc0(sizeof(tapas_regset_t) * Max(n, 1));
	jt->nregions = jt->npatterns = -1;
	if (co)
	{
		memcpy(jt->regions, co->regions, sizeof(tapas_regset_t) * n);
		memcpy(jt->test, co->test, sizeof(tapas_regset_t) * n);
		memcpy(jt->patterns, co->patterns, sizeof(tapas_regset_t) * n);
		jt->nregions = co->nregions;
		jt->npatterns = co->npatterns;
		jt->split = co->split;
		jt->one = co->one;
	}
	jt->name = joint_name(cls, co ? co->patterns : NULL, n);
	MemoryContextSwitchTo(old);
	return jt;
}

/*
 * The table's records, the support of the public class ONE (count(*)):
 * from the classes whose truth was read (each saw the table whole); 0 if
 * none, and then ONE is left out of the plan.
 */
static uint64
table_records(List *classes)
{
	ListCell   *lc;

	foreach(lc, classes)
	{
		TapasClass *c = lfirst(lc);

		if (c->usable && c->nrecords > 0)
			return (uint64) c->nrecords;
	}
	return 0;
}

/* a new kernel in *lr (the old one freed) */
static void
kernel_renew(tapas_linrel_t **lr)
{
	if (*lr != NULL)
		tapas_linrel_free(*lr);
	*lr = tapas_linrel_create(tapas_audit_prime());
	if (*lr == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory in the joint audit")));
}

/* adds a class's vector (NULL: related to nothing) to kernel lr */
static void
kernel_add(TableRelations *tr, tapas_linrel_t *lr, TapasClass *c,
		   const int64 *keys, const double *vals, int64 nnz)
{
	tapas_status st = TAPAS_ELIMIT;

	if (tr->nadded < TAPAS_LINREL_MAX_CLASSES)
		st = tapas_linrel_add(lr, keys, vals, (size_t) nnz);
	if (st == TAPAS_ENOMEM)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory in the joint audit")));
	if (st == TAPAS_ELIMIT && tr->overflow == NULL)
		tr->overflow = joint_make(c->relid, &c, 1, NULL);
	/* TAPAS_EINVAL: a value that is not finite; the class is related to nothing */
}

/*
 * Adds the table's classes to new kernels whenever their list grew: the
 * classes' domain vectors (truth_domain.c) are over a grid that the new
 * classes' constants refine, so the relations are found again on the new
 * grid, from the start (groups whose classes are unchanged keep their
 * identity and entries: plan_groups).  A class whose domain vector is not
 * exact (its component of the grid fell back, truth_domain_star.c) is
 * related by value, in a second kernel over the table's records, to the
 * other such classes: a relation between it and an exact class holds
 * only through ONE, as two components' functions do, which both kernels
 * model (linrel_plan.c).  A class whose truth cannot be read is related
 * to nothing.
 */
static void
add_new_classes(TableRelations *tr, List *classes)
{
	int			K = list_length(classes);
	int			nk = Min(K, TAPAS_LINREL_MAX_CLASSES);
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "tapas relations",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	TapasClass **cls = palloc(sizeof(TapasClass *) * Max(nk, 1));
	TapasDomainVector *dv = palloc0(sizeof(TapasDomainVector) * Max(nk, 1));
	int		   *at = palloc(sizeof(int) * Max(nk, 1));
	int			nd = 0;
	bool		by_value = false;

	for (int i = 0; i < nk; i++)
	{
		TapasClass *c = list_nth(classes, i);

		at[i] = -1;
		if (c->usable && c->vtree != NULL)
		{
			at[i] = nd;
			cls[nd++] = c;
		}
	}
	if (nd > 0)
		tapas_audit_domain_vectors(cls[0]->relid, cls, nd, false, dv);
	/* every exact vector is over the same star: its points are ONE's support */
	tr->npoints[0] = 0;
	for (int i = 0; i < nd; i++)
	{
		by_value |= !dv[i].exact;
		cls[i]->no_grid |= !dv[i].exact;
		if (dv[i].exact)
			tr->npoints[0] = (uint64) dv[i].npoints;
	}
	kernel_renew(&tr->lr[0]);
	if (by_value)
		kernel_renew(&tr->lr[1]);
	else if (tr->lr[1] != NULL)
	{
		tapas_linrel_free(tr->lr[1]);
		tr->lr[1] = NULL;
	}
	tr->npoints[1] = by_value ? table_records(classes) : 0;
	for (tr->nadded = 0; tr->nadded < K; tr->nadded++)
	{
		TapasClass *c = list_nth(classes, tr->nadded);
		TapasDomainVector *v = tr->nadded < nk && at[tr->nadded] >= 0 ? &dv[at[tr->nadded]] : NULL;
		bool		exact = v != NULL && v->exact;

		CHECK_FOR_INTERRUPTS();
		kernel_add(tr, tr->lr[0], c, exact ? v->keys : NULL, exact ? v->vals : NULL,
				   exact ? v->nnz : 0);
		if (by_value)
			kernel_add(tr, tr->lr[1], c, !exact && c->usable ? c->keys : NULL,
					   !exact && c->usable ? c->vals : NULL, !exact && c->usable ? c->nnz : 0);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}

/* an existing group with this name (kept, with its entries), or NULL */
static TapasJoint *
take_existing(List **old, const char *name)
{
	ListCell   *lc;

	foreach(lc, *old)
	{
		TapasJoint *jt = lfirst(lc);

		if (strcmp(jt->name, name) == 0)
		{
			*old = foreach_delete_current(*old, lc);
			return jt;
		}
	}
	return NULL;
}

/* the groups of kernel g's plan, appended to tr->joints (kept ones taken from *old) */
static void
plan_kernel(TableRelations *tr, int g, List *classes, List **old)
{
	tapas_linrel_plan_t plan;
	MemoryContext oldcxt;
	int			K = Min(tr->nadded, TAPAS_LINREL_MAX_CLASSES);

	if (tapas_linrel_plan(tr->lr[g], tr->npoints[g], &plan) != TAPAS_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory in the joint audit")));
	for (uint32 c = 0; c < plan.ncomp; c++)
	{
		int			cap = K + (int) plan.nextra;
		TapasClass **cls = palloc(sizeof(TapasClass *) * cap);
		tapas_regset_t *reg = palloc(sizeof(tapas_regset_t) * cap);
		tapas_regset_t *test = palloc(sizeof(tapas_regset_t) * cap);
		tapas_regset_t *pat = palloc(sizeof(tapas_regset_t) * cap);
		int			n = 0,
					nhome;
		char	   *name;
		TapasJoint *jt;
		JointCoords co;

		for (int b = 0; b < K; b++)
			if (plan.comp[b] == (int32) c)
			{
				cls[n] = list_nth(classes, b);
				test[n] = plan.test[b];
				pat[n] = plan.patterns[b];
				reg[n++] = plan.regions[b];
			}
		nhome = n;
		/* a cut's shared and projected classes (recon/linrel.h) */
		for (uint32 x = 0; x < plan.nextra; x++)
			if (plan.extra[x].comp == c)
			{
				cls[n] = list_nth(classes, plan.extra[x].cls);
				test[n] = plan.extra[x].test;
				pat[n] = plan.extra[x].patterns;
				reg[n++] = plan.extra[x].regions;
			}
		co.regions = reg;
		co.test = test;
		co.patterns = pat;
		co.nregions = plan.nregions[c];
		co.npatterns = plan.npatterns[c];
		co.split = plan.split[c] != 0;
		co.one = plan.one[c] != 0;
		name = joint_name(cls, pat, n);
		jt = take_existing(old, name);
		if (jt == NULL)
			jt = joint_make(cls[0]->relid, cls, n, &co);
		pfree(name);
		for (int m = 0; m < nhome; m++)
			tr->of[cls[m]->id - 1] = jt;	/* its home */
		oldcxt = MemoryContextSwitchTo(tapas_audit_cxt());
		tr->joints = lappend(tr->joints, jt);
		MemoryContextSwitchTo(oldcxt);
		pfree(cls);
		pfree(reg);
		pfree(test);
		pfree(pat);
	}
	tapas_linrel_plan_clear(&plan);
}

/* recomputes the groups from the kernels' plans */
static void
plan_groups(TableRelations *tr, List *classes)
{
	List	   *old = tr->joints;
	int			K = Min(tr->nadded, TAPAS_LINREL_MAX_CLASSES);
	ListCell   *lc;

	tr->joints = NIL;
	if (tr->ofmax < tr->nadded)
	{
		tr->ofmax = Max(64, 2 * tr->nadded);
		tr->of = tr->of ? repalloc(tr->of, sizeof(TapasJoint *) * tr->ofmax)
			: MemoryContextAlloc(tapas_audit_cxt(), sizeof(TapasJoint *) * tr->ofmax);
	}
	for (int i = 0; i < tr->nadded; i++)
		tr->of[i] = i < K ? NULL : tr->overflow;
	for (int g = 0; g < 2; g++)
		if (tr->lr[g] != NULL)
			plan_kernel(tr, g, classes, &old);
	foreach(lc, old)
		joint_free(lfirst(lc));
	list_free(old);
	tr->planned = tr->nadded;
}

TapasJoint *
tapas_audit_joint_of(Oid relid, const TapasClass *cls)
{
	TableRelations *tr = table_relations(relid, true);
	List	   *classes = tapas_audit_table_classes(relid);

	if (tr->nadded < list_length(classes))
		add_new_classes(tr, classes);
	if (tr->planned != tr->nadded)
		plan_groups(tr, classes);
	if (cls == NULL || cls->id < 1 || cls->id > tr->nadded)
		return NULL;
	/*
	 * Past TAPAS_LINREL_MAX_CLASSES classes the kernel cannot tell which
	 * classes combine with the ones it does not hold: a class the kernel
	 * holds may be related to one past the limit (an attacker's 256 classes
	 * logged first, then the halves of a split), so every class of the table
	 * is audited as incomplete (fails closed) until tapas.reset.
	 */
	if (tr->overflow != NULL)
		return tr->overflow;
	return tr->of[cls->id - 1];
}

/* every group that cls is a member of (its home first), or NIL */
List *
tapas_audit_joints_of(Oid relid, const TapasClass *cls)
{
	TapasJoint *home = tapas_audit_joint_of(relid, cls);
	TableRelations *tr = table_relations(relid, false);
	List	   *out = NIL;
	ListCell   *lc;

	if (home == NULL)
		return NIL;
	out = list_make1(home);
	foreach(lc, tr->joints)
	{
		TapasJoint *jt = lfirst(lc);

		if (jt != home && tapas_audit_joint_member(jt, cls) >= 0)
			out = lappend(out, jt);
	}
	return out;
}

int
tapas_audit_joint_member(const TapasJoint *jt, const TapasClass *cls)
{
	for (int i = 0; i < jt->ncls; i++)
		if (jt->cls[i] == cls)
			return i;
	return -1;
}
