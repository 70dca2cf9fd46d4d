/*-------------------------------------------------------------------------
 *
 * truth_domain_cache.c
 *	  The cache of the last domain grid's representatives and groups, per
 *	  table, kept with the table's classes (truth.c).
 *
 * A new class builds the grid twice over the same classes, once for its
 * identity and implications (truth_identity.c) and once for the relations
 * (relations.c): the second takes the first's representatives from here
 * instead of cutting them again (truth_domain_reps.c).
 *
 * IDENTIFICATION
 *	  src/audit/truth_domain_cache.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "audit/truth_domain_int.h"

/* ----------------------------------------------------------------
 *		The cache of the last grid's representatives
 * ----------------------------------------------------------------
 */

struct RepsCache
{
	char	   *key;			/* tapas_domain_key of the grid */
	int			ncols;
	int		   *nreps;			/* [ncols] */
	Datum	  **reps;			/* [ncols][nreps] */
	bool	  **rnull;
	DomCol	   *groups;			/* [ncols] their ngroups, gstart, siglen, sig, null_group */
	int			natts;
	bool	   *null_seen;		/* [natts] */
	int			nopaque;
	int		   *opaque_dom;		/* [nopaque] after opaque_nullability */
};
typedef struct RepsCache RepsCache;

/*
 * What the representatives depend on, besides the table's data: the
 * columns with their constants, atoms and use, and the opaque atoms.
 */
char *
tapas_domain_key(Domain *d)
{
	StringInfoData k;
	ListCell   *lc;

	initStringInfo(&k);
	foreach(lc, d->cols)
	{
		DomCol	   *c = lfirst(lc);

		appendStringInfo(&k, "%d %u %d %d %s %s %s;", c->attno, c->type, c->summed, c->ordered,
						 nodeToString(c->consts), nodeToString(c->atoms), nodeToString(c->cmps));
	}
	appendStringInfo(&k, "|%s", nodeToString(d->opaque));
	foreach(lc, d->opaque_dom)
		appendStringInfo(&k, " %d", lfirst_int(lc));
	return k.data;
}

/* copies from's groups (not its representatives) into to, in the current context */
static void
groups_copy(DomCol *to, const DomCol *from)
{
	to->ngroups = from->failed ? 0 : from->ngroups;
	to->siglen = from->siglen;
	to->null_group = from->null_group;
	to->gstart = palloc(sizeof(int) * (to->ngroups + 1));
	to->sig = palloc0(Max(to->siglen, 1) * (to->ngroups + 1));
	if (to->ngroups > 0)
	{
		memcpy(to->gstart, from->gstart, sizeof(int) * (to->ngroups + 1));
		memcpy(to->sig, from->sig, to->siglen * to->ngroups);
	}
	else
		to->gstart[0] = 0;
}

/* d's representatives from the cache, if it holds those of key */
bool
tapas_domain_reps_cached(Domain *d, const char *key)
{
	RepsCache  *rc = tapas_domain_cache(d->rel)->reps;
	int			natts = RelationGetDescr(d->rel)->natts;
	ListCell   *lc;

	if (rc == NULL || strcmp(rc->key, key) != 0 || rc->natts != natts ||
		rc->ncols != list_length(d->cols) || rc->nopaque != list_length(d->opaque_dom))
		return false;
	foreach(lc, d->cols)
	{
		DomCol	   *c = lfirst(lc);
		int			i = foreach_current_index(lc);

		c->failed = rc->nreps[i] < 0;
		c->nreps = Max(rc->nreps[i], 0);
		c->reps = palloc(sizeof(Datum) * Max(c->nreps, 1));
		c->rnull = palloc(sizeof(bool) * Max(c->nreps, 1));
		memcpy(c->reps, rc->reps[i], sizeof(Datum) * c->nreps);
		memcpy(c->rnull, rc->rnull[i], sizeof(bool) * c->nreps);
		groups_copy(c, &rc->groups[i]);
	}
	d->null_seen = palloc(sizeof(bool) * natts);
	memcpy(d->null_seen, rc->null_seen, sizeof(bool) * natts);
	foreach(lc, d->opaque_dom)
		lfirst_int(lc) = rc->opaque_dom[foreach_current_index(lc)];
	return true;
}

/* keeps d's representatives (read for key) in the table's cache */
void
tapas_domain_reps_keep(Domain *d, const char *key)
{
	DomainCache *dc = tapas_domain_cache(d->rel);
	MemoryContext old;
	RepsCache  *rc;
	int			natts = RelationGetDescr(d->rel)->natts;
	ListCell   *lc;

	if (dc->reps_cxt != NULL)
		MemoryContextDelete(dc->reps_cxt);
	dc->reps_cxt = AllocSetContextCreate(dc->cxt, "tapas domain grid representatives",
										 ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(dc->reps_cxt);
	rc = palloc0(sizeof(RepsCache));

	rc->key = pstrdup(key);
	rc->ncols = list_length(d->cols);
	rc->nreps = palloc(sizeof(int) * Max(rc->ncols, 1));
	rc->reps = palloc(sizeof(Datum *) * Max(rc->ncols, 1));
	rc->rnull = palloc(sizeof(bool *) * Max(rc->ncols, 1));
	rc->groups = palloc0(sizeof(DomCol) * Max(rc->ncols, 1));
	foreach(lc, d->cols)
	{
		DomCol	   *c = lfirst(lc);
		int			i = foreach_current_index(lc);
		int16		typlen;
		bool		typbyval;

		get_typlenbyval(c->type, &typlen, &typbyval);
		groups_copy(&rc->groups[i], c);
		rc->nreps[i] = c->failed ? -1 : c->nreps;
		rc->reps[i] = palloc(sizeof(Datum) * Max(c->nreps, 1));
		rc->rnull[i] = palloc(sizeof(bool) * Max(c->nreps, 1));
		for (int j = 0; j < c->nreps; j++)
		{
			rc->rnull[i][j] = c->rnull[j];
			rc->reps[i][j] = c->rnull[j] ? (Datum) 0 : datumCopy(c->reps[j], typbyval, typlen);
		}
	}
	rc->natts = natts;
	rc->null_seen = palloc(sizeof(bool) * natts);
	memcpy(rc->null_seen, d->null_seen, sizeof(bool) * natts);
	rc->nopaque = list_length(d->opaque_dom);
	rc->opaque_dom = palloc(sizeof(int) * Max(rc->nopaque, 1));
	foreach(lc, d->opaque_dom)
		rc->opaque_dom[foreach_current_index(lc)] = lfirst_int(lc);
	MemoryContextSwitchTo(old);
	dc->reps = rc;
}
