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
#include "utils/memutils.h"

#include "audit/audit_int.h"

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
		r->stamp = tapas_audit_table_change_stamp(relid);
		return r;
	}
	if (!check)
		return r;
	stamp = tapas_audit_table_change_stamp(relid);
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
 * One step of the walk over the union of o's and c's supports (both sorted
 * by key): the next record's values in o (*v) and in c (*w), 0 where a
 * vector has none.
 */
static inline void
union_step(const TapasClass *o, const TapasClass *c, int64 *i, int64 *j,
		   double *v, double *w)
{
	*v = 0;
	*w = 0;
	if (*j == c->nnz || (*i < o->nnz && o->keys[*i] < c->keys[*j]))
		*v = o->vals[(*i)++];
	else if (*i == o->nnz || c->keys[*j] < o->keys[*i])
		*w = c->vals[(*j)++];
	else
	{
		*v = o->vals[(*i)++];
		*w = c->vals[(*j)++];
	}
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
		double		v,
					w;

		union_step(o, c, &i, &j, &v, &w);
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
		double		v,
					w;

		union_step(o, c, &i, &j, &v, &w);
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

/* c's domain vector v in the form of a class, for the finders above */
static TapasClass *
domain_view(const TapasClass *c, const TapasDomainVector *v)
{
	TapasClass *d = palloc(sizeof(TapasClass));

	*d = *c;
	d->keys = v->keys;
	d->vals = v->vals;
	d->nnz = v->nnz;
	d->nrecords = v->npoints;
	d->binary = true;
	for (int64 i = 0; i < v->nnz && d->binary; i++)
		d->binary = v->vals[i] == 1.0;
	d->is_one = v->nnz > 0 && v->nnz == v->npoints;
	for (int64 i = 1; i < v->nnz && d->is_one; i++)
		d->is_one = v->vals[i] == v->vals[0];
	d->hash = hash_bytes_extended((const unsigned char *) v->keys, (int) (sizeof(int64) * v->nnz), 1) ^
		hash_bytes_extended((const unsigned char *) v->vals, (int) (sizeof(double) * v->nnz), 2);
	d->id = c->id;
	return d;
}

/*
 * An existing class of r that is the same function of a row's sensitive
 * columns as c (*scale = 1, *offset = 0), its complement (-1, 1: a count
 * over Q of NOT x is |Q| minus that of x, and |Q| is public), or an affine
 * image of it (sum(income + 1000) is sum(income) plus 1000 |Q|), or NULL.
 * Decided on the domain grid (truth_domain.c), never on the table's data:
 * classes that merely agree on this table's rows (the hiv patients are
 * the rare ones) stay two unknowns, so that no decision depends on the
 * coincidence.  When the grid cannot be built, only the canonical text
 * (the statistic key itself) identifies.
 */
/*
 * The fallback when the grid cannot be built (more than its points, a
 * column type without an order, an evaluation error): the classes' truth
 * vectors over the table, as before the grid.  That may merge a
 * coincidence (and tell it by a refusal), but never misses a spelling an
 * attacker could combine: an attacker who could force the fallback (by
 * logging classes with many constants) gets no split-spelling leak from it.
 */
static TapasClass *
find_same_by_value(RelClasses *r, TapasClass *c, double *scale, double *offset)
{
	TapasClass *same = find_equal_class(r, c);

	if (same == NULL && (same = find_complement_class(r, c)) != NULL)
	{
		*scale = -1;
		*offset = 1;
	}
	if (same == NULL && !c->is_one)
		same = find_affine_class(r, c, scale, offset);
	return same;
}

/* whether the 0/1 vector a's support lies inside b's (both sorted) */
static bool
support_inside(const TapasClass *a, const TapasClass *b)
{
	int64		j = 0;

	if (!a->binary || !b->binary || a->nnz == 0 || a->is_one || b->is_one || a->nnz > b->nnz)
		return false;
	for (int64 i = 0; i < a->nnz; i++)
	{
		while (j < b->nnz && b->keys[j] < a->keys[i])
			j++;
		if (j == b->nnz || b->keys[j] != a->keys[i])
			return false;
	}
	return true;
}

/* adds the class id to o's implications (in the audit's context) */
static void
add_implication(TapasClass *o, int id)
{
	MemoryContext old = MemoryContextSwitchTo(tapas_audit_cxt());

	o->implies = o->implies ? repalloc(o->implies, sizeof(int) * (o->nimplies + 1))
		: palloc(sizeof(int));
	o->implies[o->nimplies++] = id;
	MemoryContextSwitchTo(old);
}

static TapasClass *
find_same_function(RelClasses *r, TapasClass *c, double *scale, double *offset,
				   List **c_implies, List **implies_c)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "tapas domain",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int			n = list_length(r->classes);
	TapasClass **cls = palloc(sizeof(TapasClass *) * (n + 1));
	TapasDomainVector *dv = palloc(sizeof(TapasDomainVector) * (n + 1));
	RelClasses	views;
	TapasClass *cview;
	TapasClass *same = NULL;
	TapasClass *found = NULL;
	int			k = 0;
	bool		dv_exact;
	ListCell   *lc;

	foreach(lc, r->classes)
	{
		TapasClass *o = lfirst(lc);

		if (o->usable && o->vtree != NULL)
			cls[k++] = o;
	}
	cls[k] = c;
	tapas_audit_domain_vectors(c->relid, cls, k + 1, dv);
	dv_exact = dv[k].exact;
	if (dv[k].exact)
	{
		memset(&views, 0, sizeof(views));
		for (int i = 0; i < k; i++)
			if (dv[i].exact)
				views.classes = lappend(views.classes, domain_view(cls[i], &dv[i]));
		cview = domain_view(c, &dv[k]);
		found = find_equal_class(&views, cview);
		if (found == NULL && (found = find_complement_class(&views, cview)) != NULL)
		{
			*scale = -1;
			*offset = 1;
		}
		if (found == NULL && !cview->is_one)
			found = find_affine_class(&views, cview, scale, offset);
		/* implications between 0/1 classes (candidates.c): supports nested on the grid */
		foreach(lc, views.classes)
		{
			TapasClass *o = lfirst(lc);

			for (int i = 0; found == NULL && i < k; i++)
				if (cls[i]->id == o->id)
				{
					MemoryContextSwitchTo(old);	/* the lists outlive tmp */
					if (support_inside(cview, o))
						*c_implies = lappend(*c_implies, cls[i]);
					if (support_inside(o, cview))
						*implies_c = lappend(*implies_c, cls[i]);
					MemoryContextSwitchTo(tmp);
				}
		}
	}
	for (int i = 0; found != NULL && i < k; i++)
		if (cls[i]->id == found->id)
			same = cls[i];
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	if (!dv_exact)
		same = find_same_by_value(r, c, scale, offset);
	return same;
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
	List	   *c_implies = NIL;
	List	   *implies_c = NIL;
	ListCell   *lc;

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s != NULL)
		return s->cls;
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
		same = c->usable ? find_same_function(r, c, &scale, &offset, &c_implies, &implies_c) : NULL;
		if (same != NULL)
		{
			tapas_audit_class_free(c);
			c = same;
		}
		else
		{
			old = MemoryContextSwitchTo(tapas_audit_cxt());
			c->id = list_length(r->classes) + 1;
			r->classes = lappend(r->classes, c);
			MemoryContextSwitchTo(old);
			foreach(lc, c_implies)
				add_implication(c, ((TapasClass *) lfirst(lc))->id);
			foreach(lc, implies_c)
				add_implication(lfirst(lc), c->id);
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
