/*-------------------------------------------------------------------------
 *
 * truth_domain_values.c
 *	  The distinct values of the domain grid's columns over the table,
 *	  collected by the representatives' scan (truth_domain_reps.c) and
 *	  kept per table, so that a grid cut by new constants finds its
 *	  representatives without another scan.
 *
 * A column's representatives depend on its constants: a new threshold
 * (rare AND income > t_k with a new t_k) cuts new cells, and before this
 * cache every such class paid a scan of the table for them.  The cells a
 * column occupies are those of its distinct values, so the scan keeps
 * them (up to DOMAIN_MAX_DISTINCT per column, and whether the column holds
 * a NULL): every later grid over the same columns is cut from them.  A
 * column with more distinct values, a type without a hash function or a
 * nondeterministic collation (where equal values may differ for an atom
 * such as lower(d) = 'x') keeps only whether it holds a NULL, and its
 * cells are found by the scan, as before.  Kept with the table's classes
 * in the domain cache (truth.c), dropped with them when the table changes.
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_values.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/typcache.h"

#include "audit/audit_int.h"
#include "audit/truth_domain_int.h"

#define DOMAIN_MAX_DISTINCT	65536	/* distinct values kept of one column */

/* the collector of one column's distinct values, for the hash set */
struct ValueSet
{
	AttrNumber	attno;
	MemoryContext cxt;			/* of the set and its values' copies */
	FmgrInfo	hash;
	FmgrInfo	eq;
	Oid			collation;
	int16		typlen;
	bool		typbyval;
	bool		has_null;
	bool		over;			/* past the cap, or not hashable: no values */
	struct distinct_hash *set;
};

typedef struct DistinctEntry
{
	Datum		value;
	uint32		hash;
	char		status;
} DistinctEntry;

static inline uint32
distinct_hash_value(struct distinct_hash *tb, Datum v);
static inline bool
distinct_equal(struct distinct_hash *tb, Datum a, Datum b);

#define SH_PREFIX distinct
#define SH_ELEMENT_TYPE DistinctEntry
#define SH_KEY_TYPE Datum
#define SH_KEY value
#define SH_HASH_KEY(tb, key) distinct_hash_value(tb, key)
#define SH_EQUAL(tb, a, b) distinct_equal(tb, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) a->hash
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static inline uint32
distinct_hash_value(struct distinct_hash *tb, Datum v)
{
	ValueSet   *s = tb->private_data;

	return DatumGetUInt32(FunctionCall1Coll(&s->hash, s->collation, v));
}

static inline bool
distinct_equal(struct distinct_hash *tb, Datum a, Datum b)
{
	ValueSet   *s = tb->private_data;

	return DatumGetBool(FunctionCall2Coll(&s->eq, s->collation, a, b));
}

/* the table's domain cache (truth.c's slot), created on first use */
DomainCache *
tapas_domain_cache(Relation rel)
{
	MemoryContext cxt;
	void	  **slot = tapas_audit_domain_cache(RelationGetRelid(rel), &cxt, false);
	DomainCache *dc = *slot;
	int			natts = RelationGetDescr(rel)->natts;

	if (dc != NULL && dc->natts == natts)
		return dc;
	slot = tapas_audit_domain_cache(RelationGetRelid(rel), &cxt, true);
	dc = MemoryContextAllocZero(cxt, sizeof(DomainCache));
	dc->cxt = cxt;
	dc->natts = natts;
	dc->cols = MemoryContextAllocZero(cxt, sizeof(ColValues *) * Max(natts, 1));
	*slot = dc;
	return dc;
}

/* the kept values of column attno, or NULL when the scan has not read it */
ColValues *
tapas_domain_values(Relation rel, AttrNumber attno)
{
	DomainCache *dc = tapas_domain_cache(rel);

	return attno >= 1 && attno <= dc->natts ? dc->cols[attno - 1] : NULL;
}

/* a collector of column attno's values (in the current memory context) */
ValueSet *
tapas_value_set_create(Relation rel, AttrNumber attno)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attno - 1);
	TypeCacheEntry *tc = lookup_type_cache(att->atttypid,
										   TYPECACHE_HASH_PROC_FINFO | TYPECACHE_EQ_OPR_FINFO);
	ValueSet   *s = palloc0(sizeof(ValueSet));

	s->attno = attno;
	s->cxt = CurrentMemoryContext;
	s->collation = att->attcollation;
	get_typlenbyval(att->atttypid, &s->typlen, &s->typbyval);
	s->over = !OidIsValid(tc->hash_proc) || !OidIsValid(tc->eq_opr_finfo.fn_oid) ||
		(OidIsValid(s->collation) && !get_collation_isdeterministic(s->collation));
	if (s->over)
		return s;
	fmgr_info_copy(&s->hash, &tc->hash_proc_finfo, CurrentMemoryContext);
	fmgr_info_copy(&s->eq, &tc->eq_opr_finfo, CurrentMemoryContext);
	s->set = distinct_create(CurrentMemoryContext, 256, s);
	return s;
}

/*
 * Adds a row's value; false once the set is past DOMAIN_MAX_DISTINCT (or
 * cannot hash): then it keeps only whether the column holds a NULL.
 */
bool
tapas_value_set_add(ValueSet *s, Datum v, bool isnull)
{
	DistinctEntry *e;
	bool		found;

	if (isnull)
	{
		s->has_null = true;
		return !s->over;
	}
	if (s->over)
		return false;
	if (s->set->members >= DOMAIN_MAX_DISTINCT)
	{
		s->over = true;
		distinct_destroy(s->set);
		s->set = NULL;
		return false;
	}
	e = distinct_insert(s->set, v, &found);
	if (!found)
	{
		MemoryContext old = MemoryContextSwitchTo(s->cxt);

		e->value = datumCopy(v, s->typbyval, s->typlen);
		MemoryContextSwitchTo(old);
	}
	return true;
}

/* the set's values, into *vals (palloc'd); the count */
static int
value_set_values(ValueSet *s, Datum **vals)
{
	distinct_iterator it;
	DistinctEntry *e;
	int			n = 0;

	*vals = palloc(sizeof(Datum) * Max(s->set != NULL ? s->set->members : 0, 1));
	if (s->set == NULL)
		return 0;
	distinct_start_iterate(s->set, &it);
	while ((e = distinct_iterate(s->set, &it)) != NULL)
		(*vals)[n++] = e->value;
	return n;
}

/* keeps what the set read of its column in the table's cache; frees the set */
void
tapas_value_set_keep(Relation rel, ValueSet *s)
{
	DomainCache *dc = tapas_domain_cache(rel);
	MemoryContext old = MemoryContextSwitchTo(dc->cxt);
	ColValues  *cv = palloc0(sizeof(ColValues));
	Datum	   *vals;

	cv->has_null = s->has_null;
	cv->complete = !s->over;
	if (cv->complete)
	{
		cv->n = value_set_values(s, &vals);
		cv->vals = palloc(sizeof(Datum) * Max(cv->n, 1));
		for (int i = 0; i < cv->n; i++)
			cv->vals[i] = datumCopy(vals[i], s->typbyval, s->typlen);
		pfree(vals);
	}
	MemoryContextSwitchTo(old);
	if (dc->cols[s->attno - 1] == NULL)
		dc->cols[s->attno - 1] = cv;
	if (s->set != NULL)
		distinct_destroy(s->set);
	pfree(s);
}
