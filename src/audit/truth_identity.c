/*-------------------------------------------------------------------------
 *
 * truth_identity.c
 *	  Whether a new basis-value class is an existing one: the same function
 *	  of a row's sensitive columns, its complement, or an affine image of
 *	  it, decided on the domain grid (truth_domain.c), with the fallback on
 *	  truth vectors when the grid cannot be built; and the implications
 *	  and meetings between classes' supports that the same grid gives
 *	  (implied.c).  The registry that keeps the classes is truth.c.
 *
 * IDENTIFICATION
 *	  src/audit/truth_identity.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"

/* the classes searched (a view of the table's list) */
typedef struct ClassList
{
	List	   *classes;
} ClassList;

/* an existing class of r whose truth equals c's (hash, then every value) */
static TapasClass *
find_equal_class(ClassList *r, const TapasClass *c)
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
find_complement_class(ClassList *r, const TapasClass *c)
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
find_affine_class(ClassList *r, const TapasClass *c, double *a, double *b)
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
find_same_by_value(ClassList *r, TapasClass *c, double *scale, double *offset)
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

/*
 * Whether the vector a's support lies inside b's (both sorted; neither
 * public): sum(income) FILTER (WHERE rare AND income > 3000) implies
 * count(*) FILTER (WHERE rare), and so does rare AND age < 40.
 */
static bool
support_inside(const TapasClass *a, const TapasClass *b)
{
	int64		j = 0;

	if (a->nnz == 0 || a->is_one || b->is_one || a->nnz > b->nnz)
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

/*
 * Whether the vectors a and b share a point of their supports (both
 * sorted), neither lying inside the other: rare AND income > 1500 AND
 * age < 60 and rare AND income > 1600 AND age < 70 (implied.c).
 */
static bool
supports_meet(const TapasClass *a, const TapasClass *b)
{
	int64		i = 0,
				j = 0;

	if (a->nnz == 0 || b->nnz == 0 || a->is_one || b->is_one ||
		support_inside(a, b) || support_inside(b, a))
		return false;
	while (i < a->nnz && j < b->nnz)
	{
		if (a->keys[i] == b->keys[j])
			return true;
		if (a->keys[i] < b->keys[j])
			i++;
		else
			j++;
	}
	return false;
}

/* appends id to the list *ids of *n (in the audit's context) */
static void
add_id(int **ids, int *n, int id)
{
	MemoryContext old = MemoryContextSwitchTo(tapas_audit_cxt());

	*ids = *ids ? repalloc(*ids, sizeof(int) * (*n + 1)) : palloc(sizeof(int));
	(*ids)[(*n)++] = id;
	MemoryContextSwitchTo(old);
}

/* adds the class id to o's implications */
void
tapas_audit_class_add_implication(TapasClass *o, int id)
{
	add_id(&o->implies, &o->nimplies, id);
}

/* adds the class id to the classes whose support meets o's */
void
tapas_audit_class_add_meet(TapasClass *o, int id)
{
	add_id(&o->meets, &o->nmeets, id);
}

/* how the supports of a and b lie: a inside b, b inside a, meeting */
typedef struct PairLinks
{
	bool		inside;
	bool		contains;
	bool		meet;
} PairLinks;

static PairLinks
pair_links(const TapasClass *a, const TapasClass *b)
{
	PairLinks	l = {support_inside(a, b), support_inside(b, a), supports_meet(a, b)};

	return l;
}

/*
 * The links of a and b on the grid's star (truth_domain_star.c), a of
 * component ca, b of cb.  Of one component, the star holds their whole
 * grid.  Of two, the product pairs every point of a's with every point of
 * b's: a lies inside b iff a is nonempty and b has no zero, and they meet
 * iff both are nonempty and neither lies inside the other.
 */
static PairLinks
grid_links(const TapasClass *a, int ca, const TapasClass *b, int cb)
{
	PairLinks	l;

	if (ca == cb && ca >= 0)
		return pair_links(a, b);
	l.inside = a->nnz > 0 && !a->is_one && !b->is_one && b->nnz == b->nrecords;
	l.contains = b->nnz > 0 && !b->is_one && !a->is_one && a->nnz == a->nrecords;
	l.meet = a->nnz > 0 && b->nnz > 0 && !a->is_one && !b->is_one && !l.inside && !l.contains;
	return l;
}

/*
 * The links of a and b of one sliced component of the grid, from the
 * pair's own grid (truth_domain_pairs.c: code), with the guards of
 * support_inside and supports_meet on their vectors; by the records (ra,
 * rb) when the pair's grid was too large.
 */
static PairLinks
sliced_links(const TapasClass *a, const TapasClass *b, uint8 code, const TapasClass *ra,
			 const TapasClass *rb)
{
	PairLinks	l;
	bool		some = a->nnz > 0 && b->nnz > 0 && !a->is_one && !b->is_one;

	if ((code & DOMAIN_LINK_KNOWN) == 0)
		return pair_links(ra, rb);
	l.inside = some && (code & DOMAIN_LINK_INSIDE) != 0;
	l.contains = some && (code & DOMAIN_LINK_CONTAINS) != 0;
	l.meet = some && !l.inside && !l.contains && (code & DOMAIN_LINK_MEET) != 0;
	return l;
}

/* appends o to the links' lists that l says */
static void
add_links(TapasClassLinks *links, TapasClass *o, PairLinks l)
{
	if (l.inside)
		links->c_implies = lappend(links->c_implies, o);
	if (l.contains)
		links->implies_c = lappend(links->implies_c, o);
	if (l.meet)
		links->meets = lappend(links->meets, o);
}

/*
 * The fallback's links: supports over the table's records.  A coincidence
 * (every hiv patient is rare) then links two classes, and a refusal may
 * tell it; but an attacker who forces the fallback (constants enough to
 * pass the grid's points) does not unlink the classes it combines
 * (rare AND income > t_k over random halves, implied.c).
 */
static void
links_by_value(ClassList *r, TapasClass *c, TapasClassLinks *links)
{
	ListCell   *lc;

	foreach(lc, r->classes)
	{
		TapasClass *o = lfirst(lc);

		if (o->usable)
			add_links(links, o, pair_links(c, o));
	}
}

TapasClass *
tapas_audit_class_same(List *classes, TapasClass *c, double *scale, double *offset,
					   TapasClassLinks *links)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "tapas domain",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int			n = list_length(classes);
	ClassList	all = {classes};
	ClassList  *r = &all;
	TapasClass **cls = palloc(sizeof(TapasClass *) * (n + 1));
	TapasDomainVector *dv = palloc(sizeof(TapasDomainVector) * (n + 1));
	ClassList	views;
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
	tapas_audit_domain_vectors(c->relid, cls, k + 1, true, dv);
	dv_exact = dv[k].exact;
	c->no_grid = !dv_exact;
	for (int i = 0; i < k; i++)
		if (!dv[i].exact && !cls[i]->no_grid)
		{
			MemoryContextSwitchTo(old); /* the lists outlive tmp */
			links->lost = lappend(links->lost, cls[i]);
			MemoryContextSwitchTo(tmp);
		}
	c->broke_grid = links->lost != NIL;
	links->grid_exact = dv_exact;
	if (dv[k].exact)
	{
		TapasClass **view = palloc(sizeof(TapasClass *) * (k + 1));

		memset(&views, 0, sizeof(views));
		for (int i = 0; i < k; i++)
		{
			view[i] = dv[i].exact ? domain_view(cls[i], &dv[i]) : NULL;
			if (view[i] != NULL)
				views.classes = lappend(views.classes, view[i]);
		}
		cview = domain_view(c, &dv[k]);
		links->grid_binary = cview->binary;
		found = find_equal_class(&views, cview);
		if (found == NULL && (found = find_complement_class(&views, cview)) != NULL)
		{
			*scale = -1;
			*offset = 1;
		}
		if (found == NULL && !cview->is_one)
			found = find_affine_class(&views, cview, scale, offset);

		/*
		 * implications between classes (implied.c): supports nested or
		 * meeting on the grid; with a class whose component fell back, over
		 * the table's records (links_by_value)
		 */
		MemoryContextSwitchTo(old); /* the lists outlive tmp */
		for (int i = 0; found == NULL && i < k; i++)
			add_links(links, cls[i], view[i] == NULL ? pair_links(c, cls[i])
					  : dv[k].sliced && dv[i].comp == dv[k].comp
					  ? sliced_links(cview, view[i], dv[k].links[i], c, cls[i])
					  : grid_links(cview, dv[k].comp, view[i], dv[i].comp));
		MemoryContextSwitchTo(tmp);
	}
	for (int i = 0; found != NULL && i < k; i++)
		if (cls[i]->id == found->id)
			same = cls[i];
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	if (!dv_exact)
	{
		same = find_same_by_value(r, c, scale, offset);
		if (same == NULL)
			links_by_value(r, c, links);
	}
	return same;
}

