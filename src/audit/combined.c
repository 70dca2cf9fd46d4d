/*-------------------------------------------------------------------------
 *
 * combined.c
 *	  The attacker's combined rows of a group of related 0/1 classes, for
 *	  the candidates test and the decoders (issue 11, item 1).
 *
 * A group of related 0/1 classes (relations.c: rare AND income > 3000,
 * rare AND NOT income > 3000, rare, ...) has patterns: the records are
 * partitioned by the group's classes that are 1 there, and each class b
 * is the sum of the pattern indicators g_rho over the patterns rho in
 * mask(b) (TapasJoint.patterns): v_b = sum_{rho in mask(b)} g_rho,
 * exactly, since every class is 0/1.  For a target T (a set of patterns,
 * v_T = sum_{rho in T} g_rho, again 0/1), the cells over one cover Q with
 * masks M_1 .. M_k give the row Q of v_T whenever T = sum_i lambda_i M_i
 * (its answer sum_i lambda_i a_i): the attacker adds the two halves of a
 * complementary split (T = rare = (rare AND x) + (rare AND NOT x)), the
 * three parts of a three-way split, or subtracts a part from the whole
 * (T = rare AND NOT x = rare - (rare AND x)).  A design row asked as the
 * halves of a split that changes from row to row (income > t_i) is then
 * one row of rare per design row: the system the attacker's OMP decodes,
 * although no single class has enough rows for its own decoder.
 *
 * So each target gets an audit entry of its own (a "combined" entry: a
 * 0/1 class whose rows are the combined rows, not in the entries' hash,
 * owned by the group's entry): its row space gives the atoms, and the
 * candidates test and the decoders (candidates.c, simulated.c in deny
 * mode, reconstructed.c otherwise) run on it exactly as on a class.  The
 * targets are the union of every pattern (the base the classes split:
 * rare) and each class's own mask (its value, also from differences); a
 * target gets its entry once some cover combines two or more cells for
 * it (otherwise its rows are one class's own and that class's entry
 * decides them).
 *
 * Simulatable: which rows are combined depends only on the covers and
 * classes of the logged cells and of the statement's (never on an
 * answer); a combined row's answer is read only where the class checks
 * read answers (the logged ones, and the true ones in log mode).
 *
 * Not covered: covers that differ (A over Q and B over Q plus one record:
 * their sum is rare over Q plus B at that record), and the public
 * count(*) as a combining row (NOT rare = ONE - rare): the row-space test
 * (joint.c) decides both exactly; here only identical covers combine.
 *
 * Cost: each logged row is hashed once (its record list) into a table of
 * covers; a statement hashes its cells' covers and solves, per cover and
 * target, a system of at most 64 masks over the group's patterns (at most
 * TAPAS_REGSET_MAX; O(patterns k^2) for k masks).  A cover keeps the member
 * whose pattern set each mask is, not the set.  Each
 * combined entry costs what a class entry costs (its row space over the
 * table's records, its decoders' matrix).
 *
 * The statement's combined rows are made by combined_batch.c; the combined
 * state is freed and its memory counted by combined_memory.c.
 *
 * IDENTIFICATION
 *	  src/audit/combined.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "audit/combined_int.h"
#include "recon/maskspan.h"
#include "util/compare.h"

#define SPAN_EPS	1e-9

StaticAssertDecl(TAPAS_COMBINED_MAX_MASKS <= TAPAS_MASKSPAN_MAX, "masks per cover");

/* the pattern sets of the masks of g, for tapas_mask_span */
static void
group_sets(const CoverGroup *g, const TapasJoint *jt, const tapas_regset_t **sets)
{
	for (int i = 0; i < g->nm; i++)
		sets[i] = &jt->patterns[g->masks[i]];
}

/* adds member m's mask (answer a) to the kept masks unless it depends on them */
void
tapas_audit_combined_add_mask(CoverGroup *g, const TapasJoint *jt, int m, double a)
{
	double		lambda[TAPAS_COMBINED_MAX_MASKS];
	const tapas_regset_t *sets[TAPAS_COMBINED_MAX_MASKS];

	if (tapas_regset_empty(&jt->patterns[m]) || g->nm == TAPAS_COMBINED_MAX_MASKS)
		return;
	group_sets(g, jt, sets);
	if (g->nm > 0 && tapas_mask_span(sets, g->nm, &jt->patterns[m], jt->npatterns, lambda))
		return;					/* implied by the kept cells: no news */
	g->masks[g->nm] = (int16) m;
	g->answers[g->nm] = a;
	g->nm++;
}

/* ----------------------------------------------------------------
 *		Covers
 * ----------------------------------------------------------------
 */

uint64
tapas_audit_combined_ids_hash(const uint32 *ids, size_t n)
{
	return hash_bytes_extended((const unsigned char *) ids, sizeof(uint32) * n, (uint64) n);
}

static uint64
cover_hash(const roaring_bitmap_t *r)
{
	uint64		n = roaring_bitmap_get_cardinality(r);
	uint32	   *ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(n, 1));
	uint64		h;

	roaring_bitmap_to_uint32_array(r, ids);
	h = tapas_audit_combined_ids_hash(ids, n);
	pfree(ids);
	return h;
}

/* the group of cover r (hash h), or -1 */
int
tapas_audit_combined_find_group(const TapasCombined *c, uint64 h, const roaring_bitmap_t *r)
{
	for (int g = c->buckets[h % c->nbuckets]; g >= 0; g = c->groups[g].next)
		if (c->groups[g].hash == h && roaring_bitmap_equals(c->groups[g].cover, r))
			return g;
	return -1;
}

static void
rehash(TapasCombined *c, int nbuckets)
{
	if (c->buckets)
		pfree(c->buckets);
	c->nbuckets = nbuckets;
	c->buckets = MemoryContextAlloc(tapas_audit_cxt(), sizeof(int) * nbuckets);
	for (int b = 0; b < nbuckets; b++)
		c->buckets[b] = -1;
	for (int g = 0; g < c->ngroups; g++)
	{
		int			b = (int) (c->groups[g].hash % (uint64) nbuckets);

		c->groups[g].next = c->buckets[b];
		c->buckets[b] = g;
	}
}

static int
new_group(TapasCombined *c, uint64 h, const roaring_bitmap_t *r)
{
	CoverGroup *g;

	if (c->ngroups == c->maxgroups)
	{
		c->maxgroups = Max(64, 2 * c->maxgroups);
		c->groups = c->groups
			? repalloc_huge(c->groups, sizeof(CoverGroup) * c->maxgroups)
			: MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(CoverGroup) * c->maxgroups);
	}
	g = &c->groups[c->ngroups];
	memset(g, 0, sizeof(*g));
	g->hash = h;
	g->cover = r;
	g->next = c->buckets[h % c->nbuckets];
	c->buckets[h % c->nbuckets] = c->ngroups;
	c->ngroups++;
	if (c->ngroups > 2 * c->nbuckets)
		rehash(c, 4 * c->nbuckets);
	return c->ngroups - 1;
}

/* ----------------------------------------------------------------
 *		Combined entries
 * ----------------------------------------------------------------
 */

static void
entry_append(TapasAuditEntry *ce, const roaring_bitmap_t *cover, double answer, int64 log_id)
{
	if (ce->nrows == ce->maxrows)
	{
		ce->maxrows = Max(64, 2 * ce->maxrows);
		ce->rows = ce->rows ? repalloc(ce->rows, sizeof(roaring_bitmap_t *) * ce->maxrows)
			: MemoryContextAlloc(tapas_audit_cxt(), sizeof(roaring_bitmap_t *) * ce->maxrows);
		ce->answers = ce->answers ? repalloc(ce->answers, sizeof(double) * ce->maxrows)
			: MemoryContextAlloc(tapas_audit_cxt(), sizeof(double) * ce->maxrows);
		ce->log_ids = ce->log_ids ? repalloc(ce->log_ids, sizeof(int64) * ce->maxrows)
			: MemoryContextAlloc(tapas_audit_cxt(), sizeof(int64) * ce->maxrows);
	}
	ce->rows[ce->nrows] = tapas_audit_cover_take(cover);
	ce->rows_bytes += roaring_bitmap_portable_size_in_bytes(ce->rows[ce->nrows]);
	ce->answers[ce->nrows] = answer;
	ce->log_ids[ce->nrows] = log_id;
	ce->nrows++;
}

/* the target's row of group g, if the group's cells give it: its answer */
bool
tapas_audit_combined_group_target(const CoverGroup *g, const TapasJoint *jt,
								  const tapas_regset_t *T, double *answer,
								  bool *combines)
{
	double		lambda[TAPAS_COMBINED_MAX_MASKS];
	const tapas_regset_t *sets[TAPAS_COMBINED_MAX_MASKS];
	int			used = 0;

	group_sets(g, jt, sets);
	if (g->nm == 0 || !tapas_mask_span(sets, g->nm, T, jt->npatterns, lambda))
		return false;
	*answer = 0;
	for (int i = 0; i < g->nm; i++)
		if (fabs(lambda[i]) > SPAN_EPS)
		{
			*answer += lambda[i] * g->answers[i];
			used++;
		}
	/* integer combinations of integer answers: no rounding noise */
	if (fabs(*answer - rint(*answer)) < 1e-6)
		*answer = rint(*answer);
	*combines = used >= 2 || !tapas_regset_equal(sets[0], T);
	return true;
}

/*
 * The entry of target t, made on first need: a 0/1 class whose truth is
 * v_T (the records of the group's classes within T), with every logged
 * combined row made so far.
 */
TapasAuditEntry *
tapas_audit_combined_target_entry(TapasCombined *c, TapasAuditEntry *e, int t)
{
	TapasJoint *jt = e->joint;
	TapasAuditEntry *ce;
	TapasClass *k = &c->classes[t];
	MemoryContext old;

	if (c->entries[t] != NULL)
		return c->entries[t];
	old = MemoryContextSwitchTo(tapas_audit_cxt());
	ce = palloc0(sizeof(TapasAuditEntry));
	ce->key = e->key;
	snprintf(ce->key.statistic, sizeof(ce->key.statistic), "count(*) combined %d of %s", t,
			 e->key.statistic);
	ce->initialised = true;
	ce->reported = roaring_bitmap_create();
	ce->sync_new = roaring_bitmap_create();
	/* the target's truth: records whose pattern lies in T */
	memset(k, 0, sizeof(*k));
	k->relid = e->key.relid;
	k->id = -1;
	k->rep = pstrdup(ce->key.statistic);
	k->binary = true;
	k->shape_binary = true;		/* a count of records whose pattern lies in T */
	k->usable = true;
	k->hash = hash_bytes_extended((const unsigned char *) ce->key.statistic,
								  strlen(ce->key.statistic), UINT64CONST(0x636f6d62));
	{
		int64		total = 0,
					n = 0;

		for (int i = 0; i < jt->ncls; i++)
			if (!tapas_regset_empty(&jt->patterns[i]) &&
				tapas_regset_subset(&jt->patterns[i], &c->targets[t]))
			{
				if (!jt->cls[i]->usable)
					k->usable = false;
				total += jt->cls[i]->nnz;
			}
		k->keys = palloc(sizeof(int64) * Max(total, 1));
		for (int i = 0; k->usable && i < jt->ncls; i++)
			if (!tapas_regset_empty(&jt->patterns[i]) &&
				tapas_regset_subset(&jt->patterns[i], &c->targets[t]))
			{
				memcpy(k->keys + n, jt->cls[i]->keys, sizeof(int64) * jt->cls[i]->nnz);
				n += jt->cls[i]->nnz;
			}
		/* the union, ascending */
		if (n > 1)
		{
			int64		w = 1;

			qsort(k->keys, n, sizeof(int64), tapas_cmp_int64);
			for (int64 i = 1; i < n; i++)
				if (k->keys[i] != k->keys[w - 1])
					k->keys[w++] = k->keys[i];
			n = w;
		}
		k->nnz = n;
		k->vals = palloc(sizeof(double) * Max(n, 1));
		for (int64 i = 0; i < n; i++)
			k->vals[i] = 1.0;
	}
	ce->cls = k;
	MemoryContextSwitchTo(old);
	c->entries[t] = ce;
	for (int g = 0; g < c->ngroups; g++)
		if (c->groups[g].done & (1u << t))
		{
			double		a;
			bool		comb;

			if (tapas_audit_combined_group_target(&c->groups[g], jt, &c->targets[t], &a, &comb))
				entry_append(ce, c->groups[g].cover, a, c->groups[g].log_id);
		}
	return ce;
}

/* the targets of the group: every pattern, then each class's mask */
static void
set_targets(TapasCombined *c, const TapasJoint *jt)
{
	tapas_regset_t all;

	c->ntargets = 0;
	tapas_regset_clear(&all);
	for (int i = 0; i < jt->ncls; i++)
		tapas_regset_or(&all, &jt->patterns[i]);
	if (!tapas_regset_empty(&all))
		c->targets[c->ntargets++] = all;
	for (int i = 0; i < jt->ncls && c->ntargets < TAPAS_COMBINED_MAX_TARGETS; i++)
	{
		bool		dup = tapas_regset_empty(&jt->patterns[i]);

		for (int t = 0; t < c->ntargets && !dup; t++)
			dup = tapas_regset_equal(&c->targets[t], &jt->patterns[i]);
		if (!dup)
			c->targets[c->ntargets++] = jt->patterns[i];
	}
}

/* takes the group entry's rows logged since the last statement */
static void
take_rows(TapasCombined *c, TapasAuditEntry *e)
{
	TapasJoint *jt = e->joint;

	for (; c->src_rows < e->nrows; c->src_rows++)
	{
		int			i = c->src_rows;
		int			m = e->row_member[i];
		uint64		h;
		int			g;
		CoverGroup *grp;

		if ((i & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		if (tapas_regset_empty(&jt->patterns[m]))
			continue;			/* a projected cell of a cut */
		h = cover_hash(e->rows[i]);
		g = tapas_audit_combined_find_group(c, h, e->rows[i]);
		if (g < 0)
			g = new_group(c, h, e->rows[i]);
		grp = &c->groups[g];
		tapas_audit_combined_add_mask(grp, jt, m, e->answers[i]);
		grp->log_id = e->log_ids[i];
		for (int t = 0; t < c->ntargets; t++)
		{
			double		a;
			bool		comb;

			if ((grp->done & (1u << t)) ||
				!tapas_audit_combined_group_target(grp, jt, &c->targets[t], &a, &comb))
				continue;
			grp->done |= 1u << t;
			if (comb && !c->combines[t])
			{
				c->combines[t] = true;
				(void) tapas_audit_combined_target_entry(c, e, t);	/* takes every done row */
			}
			else if (c->entries[t] != NULL)
				entry_append(c->entries[t], grp->cover, a, grp->log_id);
		}
	}
	c->src_last = e->nrows > 0 ? e->log_ids[e->nrows - 1] : 0;
}

/* some combined entry was closed under a smaller tapas.audit_memory */
static bool
combined_memory_retry(const TapasCombined *c)
{
	for (int t = 0; t < c->ntargets; t++)
		if (c->entries[t] != NULL && tapas_audit_memory_retry(c->entries[t]))
			return true;
	return false;
}

/* the combined state of the group's entry, current with its rows */
TapasCombined *
tapas_audit_combined_of(TapasAuditEntry *e)
{
	TapasCombined *c = e->combined;

	/*
	 * The entry's rows were forgotten (reset, rebuild), or a combined
	 * entry closed by tapas.audit_memory, which has been raised since:
	 * start again.
	 */
	if (c != NULL && (c->src_rows > e->nrows ||
					  (c->src_rows > 0 && e->log_ids[c->src_rows - 1] != c->src_last) ||
					  combined_memory_retry(c)))
		tapas_audit_combined_free(e);
	c = e->combined;
	if (c == NULL)
	{
		c = MemoryContextAllocZero(tapas_audit_cxt(), sizeof(TapasCombined));
		rehash(c, 256);
		set_targets(c, e->joint);
		e->combined = c;
	}
	take_rows(c, e);
	return c;
}
