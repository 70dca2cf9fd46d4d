/*-------------------------------------------------------------------------
 *
 * implied.c
 *	  What the rows of related classes tell the candidates test of a class
 *	  (candidates.c): the zeros it inherits from the classes it implies,
 *	  and the one positive their rows answered 1 hold.
 *
 * When class A implies class B (count(*) FILTER (WHERE rare AND income >
 * 3000) implies count(*) FILTER (WHERE rare): on the domain grid, A's
 * support lies inside B's; truth.c), a record that B's logged answers
 * exclude (a row of B answered 0) is excluded for A too: not B means not
 * A.  Without this, B answered 0 over everyone but the target, then A over
 * everyone, names the target, and an audit that merged A with B only when
 * their truths coincided refused A exactly when the target's income was
 * above 3000: the refusal told it (issue 11, "refusals as an oracle").
 * The candidates test (candidates.c) removes these records from A's
 * candidates.  The implication is structural and the zeros are logged
 * answers, so the decision stays simulatable.
 *
 * The converse: a row of a related 0/1 class answered 1 holds A's one
 * positive (the candidates test's prior), so its cover narrows A's
 * candidates as A's own rows answered 1 do:
 *	- C that implies A: C's positive is a positive of A, A's one;
 *	- B that A implies, and C that implies such a B (a sibling of A): A's
 *	  positive is one of B's, and under B's prior B has one, the one B's
 *	  and C's rows answered 1 hold (as two rows of B answered 1 hold the
 *	  same positive, without any total telling that there is one);
 *	- B whose support meets A's on the grid, neither inside the other, and
 *	  C that implies such a B: the same under the prior that A and B
 *	  together have one positive, the attacker's "one rare patient" when
 *	  no query names rare itself (rare AND income > t_k AND age < u_k,
 *	  both bounds rising, over random halves: no class implies another,
 *	  yet all hold the patient).
 * Each such B is one prior, refuted by a row answered 2 or more of B, of
 * A, or of a class implying either (with two positives, B's row answered
 * 1 need not hold A's).  The priors are taken greedily, the one that
 * alone narrows most first, and one whose rows leave none of the
 * candidates left is refuted by them and skipped
 * (tapas_audit_implied_ones): a row that contradicts one prior does not
 * undo the narrowing of the others.
 * Without this, rare's total answered 1, then rare AND income > t_k over
 * random halves, each with its own threshold t_k (a class each), named
 * the rare patient with nothing refused: each class alone had one row.
 *
 * Classes not 0/1 take part by their supports (sum(income) FILTER (WHERE
 * rare AND income > t) implies count(*) FILTER (WHERE rare)), under the
 * candidates test's prior of one nonzero record: a row of such a class
 * "answered 1" when it answered the class's first nonzero answer in the
 * rows read, "2 or more" when it answered another nonzero value.

 * The rows are read from the ledger (every role under tapas.audit_scope =
 * all, else the entry's role), like the entry's own sync, and kept in the
 * entry: a statement reads only the rows logged since the last, and
 * everything again when A's implications grew or the table's dense index
 * was renumbered (tapas.reset).
 *
 * IDENTIFICATION
 *	  src/audit/implied.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "audit/audit_int.h"

void
tapas_audit_implied_reset(TapasAuditEntry *e)
{
	if (e->implied_zero != NULL)
		roaring_bitmap_free(e->implied_zero);
	if (e->implied_one != NULL)
		roaring_bitmap_free(e->implied_one);
	for (int i = 0; i < e->implied_n && e->via_one != NULL; i++)
		if (e->via_one[i] != NULL)
			roaring_bitmap_free(e->via_one[i]);
	if (e->via_one != NULL)
		pfree(e->via_one);
	if (e->via_refuted != NULL)
		pfree(e->via_refuted);
	if (e->implied_value != NULL)
		pfree(e->implied_value);
	e->implied_value = NULL;
	e->implied_nvalues = 0;
	e->implied_zero = NULL;
	e->implied_one = NULL;
	e->via_one = NULL;
	e->via_refuted = NULL;
	e->implied_synced = 0;
	e->implied_n = 0;
}

/* whether cls is one of the classes that e's class implies */
static bool
implied_by(const TapasClass *a, const TapasClass *cls)
{
	if (cls == NULL)
		return false;
	for (int i = 0; i < a->nimplies; i++)
		if (a->implies[i] == cls->id)
			return true;
	return false;
}

/* whether class b is class id or implies it */
static bool
is_or_implies(const TapasClass *b, int id)
{
	if (b->id == id)
		return true;
	for (int i = 0; i < b->nimplies; i++)
		if (b->implies[i] == id)
			return true;
	return false;
}

/* the classes whose priors narrow a's positive: those it implies, then those it meets */
static int
prior_count(const TapasClass *a)
{
	return a->nimplies + a->nmeets;
}

static int
prior_id(const TapasClass *a, int k)
{
	return k < a->nimplies ? a->implies[k] : a->meets[k - a->nimplies];
}

/* c &= r, where *c NULL is every record (then a copy of r) */
static void
intersect_into(roaring_bitmap_t **c, const roaring_bitmap_t *r)
{
	if (*c == NULL)
		*c = roaring_bitmap_copy(r);
	else
		roaring_bitmap_and_inplace(*c, r);
}

/* a prior of e and the candidates it alone would leave (tapas_audit_implied_ones) */
typedef struct PriorLeft
{
	int			k;
	uint64		left;
} PriorLeft;

static int
prior_left_cmp(const void *a, const void *b)
{
	const PriorLeft *x = a,
			   *y = b;

	if (x->left != y->left)
		return x->left < y->left ? -1 : 1;
	return x->k - y->k;
}

/*
 * Narrows c to the records that the logged rows answered 1 of the
 * classes related to e's class leave for its one positive; returns
 * whether a row answered 1 of a class that implies e's class was logged
 * (its positive is one of e's: a positive then exists).  The rows of the
 * priors (the classes e's class implies or meets) narrow where e's
 * positive is, if there is one, but do not say that there is: B answered
 * 1 over everyone tells nothing of A inside B, and had it counted as A's
 * positive known, A's zeros inherited from B's rows (rare answered 0
 * over everyone but the target) would read as a narrowing already told,
 * and the target's cell of A would be answered.  The priors are taken
 * greedily, the one that alone leaves the fewest candidates first (2 P
 * bitmap operations for P priors); one that would leave none, alone or
 * after those taken, is refuted and skipped.  Call after
 * tapas_audit_implied_zeros returned complete (it reads the rows).
 */
bool
tapas_audit_implied_ones(TapasAuditEntry *e, roaring_bitmap_t *c)
{
	bool		exists = false;
	PriorLeft  *order;
	int			n = 0;

	if (e->implied_one != NULL)
	{
		roaring_bitmap_and_inplace(c, e->implied_one);
		exists = true;
	}
	if (e->implied_n == 0 || e->via_one == NULL)
		return exists;
	order = palloc(sizeof(PriorLeft) * e->implied_n);
	for (int i = 0; i < e->implied_n; i++)
	{
		if (e->via_one[i] == NULL || e->via_refuted[i])
			continue;
		order[n].k = i;
		order[n].left = roaring_bitmap_and_cardinality(c, e->via_one[i]);
		if (order[n].left > 0)
			n++;
	}
	qsort(order, n, sizeof(PriorLeft), prior_left_cmp);
	for (int i = 0; i < n; i++)
	{
		const roaring_bitmap_t *via = e->via_one[order[i].k];

		if (roaring_bitmap_and_cardinality(c, via) > 0)
			roaring_bitmap_and_inplace(c, via);
	}
	pfree(order);
	return exists;
}

/*
 * The records that the logged zeros of the classes e's class implies
 * exclude, over e's dense index, or NULL when it implies none (or when
 * *complete is false: the implications kept growing while the rows were
 * read, and the caller fails closed).  Call after the entry's sync (the
 * same index).
 */
static void read_zeros(TapasAuditEntry *e);

const roaring_bitmap_t *
tapas_audit_implied_zeros(TapasAuditEntry *e, bool *complete)
{
	TapasClass *a = e->cls;

	*complete = true;
	if (a == NULL || (prior_count(a) == 0 && a->nimplied_by == 0))
		return NULL;			/* related to no class: no rows to read */
	/* classes met in the rows may add relations: then read again, once */
	for (int pass = 0; pass < 2 && (e->implied_n != prior_count(a) || e->implied_zero == NULL); pass++)
		read_zeros(e);
	*complete = e->implied_n == prior_count(a);
	if (!*complete)
		return NULL;			/* still growing: the caller fails closed */
	read_zeros(e);
	return e->implied_zero;
}

/* whether a row of class b can tell e's class a anything (take_row) */
static bool
related(const TapasAuditEntry *e, const TapasClass *b)
{
	const TapasClass *a = e->cls;

	if (b != a && (implied_by(a, b) || is_or_implies(b, a->id)))
		return true;
	for (int k = 0; k < e->implied_n; k++)
		if (is_or_implies(b, prior_id(a, k)))
			return true;
	return false;
}

/*
 * Whether a row of class b answered answer holds b's one positive (a 0/1
 * class: 1; another: its first nonzero answer in the rows read); *many
 * when it holds more (a 0/1 class: 2 or more; another: a different
 * nonzero value).  Zeros are neither.
 */
static bool
holds_one(TapasAuditEntry *e, const TapasClass *b, double answer, bool *many)
{
	double	   *first;

	*many = false;
	if (answer == 0.0)
		return false;
	if (tapas_audit_class_is_binary(b) || b->id < 1)
	{
		/* a class outside the registry (combined.c: id -1) is a count */
		*many = answer != 1.0;
		return !*many;
	}
	if (b->id > e->implied_nvalues)
	{
		int			n = Max(b->id, 2 * e->implied_nvalues);

		e->implied_value = e->implied_value
			? repalloc(e->implied_value, sizeof(double) * n)
			: MemoryContextAlloc(tapas_audit_cxt(), sizeof(double) * n);
		for (int i = e->implied_nvalues; i < n; i++)
			e->implied_value[i] = 0.0;
		e->implied_nvalues = n;
	}
	first = &e->implied_value[b->id - 1];
	if (*first == 0.0)
		*first = answer;
	*many = answer != *first;
	return !*many;
}

/*
 * One logged row of class b, answered answer over cover, for e's class a:
 * a zero of a class a implies excludes its cover; a one of a class that
 * implies a narrows a's positive; for each related class B (a prior), a
 * one of B or of a class implying B narrows through B, and a two or more
 * of those or of a or a class implying a refutes B's prior.
 */
static void
take_row(TapasAuditEntry *e, const TapasClass *b, double answer, const roaring_bitmap_t *cover)
{
	const TapasClass *a = e->cls;
	bool		many;
	bool		one = holds_one(e, b, answer, &many);

	if (b != a && answer == 0.0 && implied_by(a, b))
		roaring_bitmap_or_inplace(e->implied_zero, cover);
	if (b != a && one && is_or_implies(b, a->id))
		intersect_into(&e->implied_one, cover);
	for (int k = 0; k < e->implied_n; k++)	/* the priors when the state was sized */
	{
		bool		inside = is_or_implies(b, prior_id(a, k));

		if (one && b != a && inside)
			intersect_into(&e->via_one[k], cover);
		else if (many && (inside || is_or_implies(b, a->id)))
			e->via_refuted[k] = true;
	}
}

/* takes the ledger rows logged since the last call (all of them after a reset) */
static void
read_zeros(TapasAuditEntry *e)
{
	TapasClass *a = e->cls;
	TapasLedgerFilter f;
	TapasLedgerSnapshot *snap;

	if (e->implied_n != prior_count(a) || e->implied_zero == NULL)
		tapas_audit_implied_reset(e);
	memset(&f, 0, sizeof(f));
	f.relid = e->key.relid;
	f.statistic = NULL;
	f.roleid = e->key.roleid;
	f.after_log_id = e->implied_synced;
	snap = tapas_ledger_snapshot(&f);
	if (snap->generation != e->keys_generation && e->implied_synced > 0)
	{
		/* renumbered since: read every row again */
		tapas_ledger_snapshot_free(snap);
		tapas_audit_implied_reset(e);
		f.after_log_id = 0;
		snap = tapas_ledger_snapshot(&f);
	}
	if (e->implied_zero == NULL)
	{
		e->implied_zero = roaring_bitmap_create();
		e->via_one = MemoryContextAllocZero(tapas_audit_cxt(),
											 sizeof(roaring_bitmap_t *) * Max(prior_count(a), 1));
		e->via_refuted = MemoryContextAllocZero(tapas_audit_cxt(), sizeof(bool) * Max(prior_count(a), 1));
	}
	e->implied_n = prior_count(a);
	for (int i = 0; i < snap->nrows; i++)
	{
		TapasClass *b;
		double		answer;

		if ((i & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		e->implied_synced = Max(e->implied_synced, snap->log_ids[i]);
		b = tapas_audit_class_logged(e->key.relid, snap->statistics[i], snap->roles[i]);
		if (b == NULL || !related(e, b))
			continue;			/* before its answer is read: most rows are of other classes */
		answer = tapas_audit_class_answer(e->key.relid, snap->statistics[i], snap->answers[i],
										  (int64) roaring_bitmap_get_cardinality(snap->covers[i]));
		take_row(e, b, answer, snap->covers[i]);
	}
	tapas_ledger_snapshot_free(snap);
}
