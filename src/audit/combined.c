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

#include "audit/audit_int.h"
#include "recon/binmat.h"
#include "recon/maskspan.h"
#include "recon/sparse_search.h"
#include "util/compare.h"

#define SPAN_EPS	1e-9

StaticAssertDecl(TAPAS_COMBINED_MAX_MASKS <= TAPAS_MASKSPAN_MAX, "masks per cover");

/* the cells logged over one cover */
typedef struct CoverGroup
{
	uint64		hash;
	int			next;			/* next group with the same hash bucket, or -1 */
	const roaring_bitmap_t *cover;	/* a row of the group's entry (not owned) */
	int			nm;				/* masks kept: linearly independent */
	int16		masks[TAPAS_COMBINED_MAX_MASKS];	/* each the patterns of this member */
	double		answers[TAPAS_COMBINED_MAX_MASKS];
	int64		log_id;			/* the newest cell's */
	uint32		done;			/* bit t: target t's row was made */
} CoverGroup;

struct TapasCombined
{
	int			src_rows;		/* rows of the group's entry taken */
	int64		src_last;		/* log_id of the last of them (a reset shows) */
	int			ngroups;
	int			maxgroups;
	CoverGroup *groups;
	int			nbuckets;
	int		   *buckets;		/* [nbuckets] first group, or -1 */
	int			ntargets;
	tapas_regset_t targets[TAPAS_COMBINED_MAX_TARGETS];
	bool		combines[TAPAS_COMBINED_MAX_TARGETS];	/* a cover combined 2+ cells */
	TapasAuditEntry *entries[TAPAS_COMBINED_MAX_TARGETS];	/* or NULL */
	TapasClass	classes[TAPAS_COMBINED_MAX_TARGETS];
};

/* the pattern sets of the masks of g, for tapas_mask_span */
static void
group_sets(const CoverGroup *g, const TapasJoint *jt, const tapas_regset_t **sets)
{
	for (int i = 0; i < g->nm; i++)
		sets[i] = &jt->patterns[g->masks[i]];
}

/* adds member m's mask (answer a) to the kept masks unless it depends on them */
static void
group_add_mask(CoverGroup *g, const TapasJoint *jt, int m, double a)
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

static uint64
ids_hash(const uint32 *ids, size_t n)
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
	h = ids_hash(ids, n);
	pfree(ids);
	return h;
}

/* the group of cover r (hash h), or -1 */
static int
find_group(const TapasCombined *c, uint64 h, const roaring_bitmap_t *r)
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

/* frees a combined entry's contents */
static void
combined_entry_free(TapasAuditEntry *ce)
{
	tapas_audit_trial_end(ce);
	for (int i = 0; i < ce->nrows; i++)
		roaring_bitmap_free(ce->rows[i]);
	tapas_rowspace_free(ce->rs);
	tapas_binmat_free(ce->A);
	tapas_binmat_colbytes_free(ce->P);
	tapas_sparse_hashes_free(ce->H);
	roaring_bitmap_free(ce->reported);
	roaring_bitmap_free(ce->sync_new);
	tapas_audit_candidates_reset(ce);
	if (ce->rows)
		pfree(ce->rows);
	if (ce->answers)
		pfree(ce->answers);
	if (ce->log_ids)
		pfree(ce->log_ids);
	if (ce->design_tags)
		pfree(ce->design_tags);
	pfree(ce);
}

void
tapas_audit_combined_free(TapasAuditEntry *e)
{
	TapasCombined *c = e->combined;

	if (c == NULL)
		return;
	for (int t = 0; t < c->ntargets; t++)
	{
		if (c->entries[t])
			combined_entry_free(c->entries[t]);
		if (c->classes[t].rep)
			pfree(c->classes[t].rep);
		if (c->classes[t].keys)
			pfree(c->classes[t].keys);
		if (c->classes[t].vals)
			pfree(c->classes[t].vals);
	}
	if (c->groups)
		pfree(c->groups);
	if (c->buckets)
		pfree(c->buckets);
	pfree(c);
	e->combined = NULL;
}

/*
 * Bytes held by the combined rows of the group entry e: the covers' table
 * and each combined entry (its row space, decoder matrix, rows) with its
 * class's truth.  Counted in e's own (tapas_audit_entry_memory), so that
 * tapas.audit_memory bounds them with the rest of the (table, scope): the
 * combined entries are in no hash of their own, and a flood of related
 * classes would otherwise grow them past the bound unseen.
 */
size_t
tapas_audit_combined_memory(const TapasAuditEntry *e)
{
	const TapasCombined *c = e->combined;
	size_t		bytes;

	if (c == NULL)
		return 0;
	bytes = sizeof(TapasCombined) + (size_t) c->maxgroups * sizeof(CoverGroup) +
		(size_t) c->nbuckets * sizeof(int);
	for (int t = 0; t < c->ntargets; t++)
	{
		if (c->entries[t] != NULL)
			bytes += sizeof(TapasAuditEntry) + tapas_audit_entry_memory(c->entries[t]);
		bytes += (size_t) c->classes[t].nnz * (sizeof(int64) + sizeof(double));
	}
	return bytes;
}

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
	ce->rows[ce->nrows] = roaring_bitmap_copy(cover);
	ce->rows_bytes += roaring_bitmap_portable_size_in_bytes(ce->rows[ce->nrows]);
	ce->answers[ce->nrows] = answer;
	ce->log_ids[ce->nrows] = log_id;
	ce->nrows++;
}

/* the target's row of group g, if the group's cells give it: its answer */
static bool
group_target(const CoverGroup *g, const TapasJoint *jt, const tapas_regset_t *T,
			 double *answer, bool *combines)
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
static TapasAuditEntry *
target_entry(TapasCombined *c, TapasAuditEntry *e, int t)
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

			if (group_target(&c->groups[g], jt, &c->targets[t], &a, &comb))
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
		g = find_group(c, h, e->rows[i]);
		if (g < 0)
			g = new_group(c, h, e->rows[i]);
		grp = &c->groups[g];
		group_add_mask(grp, jt, m, e->answers[i]);
		grp->log_id = e->log_ids[i];
		for (int t = 0; t < c->ntargets; t++)
		{
			double		a;
			bool		comb;

			if ((grp->done & (1u << t)) ||
				!group_target(grp, jt, &c->targets[t], &a, &comb))
				continue;
			grp->done |= 1u << t;
			if (comb && !c->combines[t])
			{
				c->combines[t] = true;
				(void) target_entry(c, e, t);	/* takes every done row */
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
static TapasCombined *
combined_of(TapasAuditEntry *e)
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

/*
 * The combined entries of the group entry e with the statement's cells
 * (batch, member[i]: the class of cell i): for each target with an entry,
 * a batch over it (batches[t].entry NULL: none).  Returns the number of
 * targets.  The rows are made from the covers and classes alone.
 */
int
tapas_audit_combined(TapasAuditBatch *batch, const int16 *member, TapasAuditBatch *out)
{
	TapasAuditEntry *e = batch->entry;
	TapasJoint *jt = e->joint;
	TapasCombined *c;
	int			nt;
	CoverGroup *tmp;
	int		   *tmp_of;			/* [ncells] the statement's group of each cell */
	int			ntmp = 0;
	uint32	  **sorted;			/* [ncells] each cell's cover, ascending */

	if (jt == NULL || jt->npatterns < 1 || jt->npatterns > TAPAS_REGSET_MAX || batch->ncells == 0)
		return 0;
	c = combined_of(e);
	nt = c->ntargets;
	tmp = palloc0(sizeof(CoverGroup) * batch->ncells);
	tmp_of = palloc(sizeof(int) * batch->ncells);
	/* the statement's cells by cover, each with the logged cells over it */
	sorted = palloc(sizeof(uint32 *) * batch->ncells);
	for (int i = 0; i < batch->ncells; i++)
	{
		size_t		card = batch->offsets[i + 1] - batch->offsets[i];
		int			m = member[i];
		roaring_bitmap_t *r;
		uint64		h;
		int			k;

		tmp_of[i] = -1;
		sorted[i] = NULL;
		if (tapas_regset_empty(&jt->patterns[m]))
			continue;
		/* the cell's dense indices come in key order: sorted, as a row's */
		r = roaring_bitmap_of_ptr(card, batch->ids + batch->offsets[i]);
		card = roaring_bitmap_get_cardinality(r);
		sorted[i] = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(card, 1));
		roaring_bitmap_to_uint32_array(r, sorted[i]);
		h = ids_hash(sorted[i], card);
		for (k = 0; k < ntmp; k++)
			if (tmp[k].hash == h && roaring_bitmap_equals(tmp[k].cover, r))
				break;
		if (k == ntmp)
		{
			int			g = find_group(c, h, r);

			if (g >= 0)
				tmp[k] = c->groups[g];
			else
				tmp[k].done = 0;
			tmp[k].hash = h;
			tmp[k].next = i;	/* the first cell over the cover */
			tmp[k].cover = r;
			ntmp++;
		}
		else
			roaring_bitmap_free(r);
		group_add_mask(&tmp[k], jt, m, batch->answers[i]);
		tmp_of[i] = k;
	}
	for (int t = 0; t < nt; t++)
	{
		TapasAuditBatch *b = &out[t];
		size_t		total = 0;

		memset(b, 0, sizeof(*b));
		/* the statement's new rows of target t: covers not done that it completes */
		b->cell_no = palloc(sizeof(int) * ntmp);
		b->offsets = palloc(sizeof(size_t) * (ntmp + 1));
		b->answers = palloc(sizeof(double) * Max(ntmp, 1));
		for (int k = 0; k < ntmp; k++)
		{
			double		a;
			bool		comb;

			if ((tmp[k].done & (1u << t)) ||
				!group_target(&tmp[k], jt, &c->targets[t], &a, &comb))
				continue;
			if (comb && !c->combines[t])
				c->combines[t] = true;	/* the entry is made below */
			b->cell_no[b->ncells] = batch->cell_no[tmp[k].next];
			b->answers[b->ncells] = a;
			b->offsets[b->ncells] = tmp[k].next;	/* the cell, for now */
			total += roaring_bitmap_get_cardinality(tmp[k].cover);
			b->ncells++;
		}
		if (b->ncells == 0 || !c->combines[t])
		{
			b->ncells = 0;
			continue;
		}
		b->ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(total, 1));
		total = 0;
		for (int r = 0; r < b->ncells; r++)
		{
			int			i = (int) b->offsets[r];
			size_t		card = roaring_bitmap_get_cardinality(tmp[tmp_of[i]].cover);

			memcpy(b->ids + total, sorted[i], sizeof(uint32) * card);
			b->offsets[r] = total;
			total += card;
		}
		b->offsets[b->ncells] = total;
		b->entry = target_entry(c, e, t);
		/* the group's dense index (designs.c looks keys up in it; not owned) */
		b->entry->nkeys = e->nkeys;
		b->n_total = batch->n_total;
		b->keys = batch->keys;
	}
	for (int k = 0; k < ntmp; k++)
		roaring_bitmap_free((roaring_bitmap_t *) tmp[k].cover);
	for (int i = 0; i < batch->ncells; i++)
		if (sorted[i])
			pfree(sorted[i]);
	pfree(sorted);
	pfree(tmp);
	pfree(tmp_of);
	return nt;
}
