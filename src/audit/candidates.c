/*-------------------------------------------------------------------------
 *
 * candidates.c
 *	  Simulatable narrowing test with an anonymity floor: could the new
 *	  cells leave the attacker fewer than tapas.min_candidates candidates
 *	  for the positive record of a 0/1 statistic?
 *
 * Prior (the attacker of the single-positive and BCH s = 1 attacks): the
 * class's values are 0/1 and a row answered 1 holds exactly one positive,
 * the same one (rows answered 2 or more are outside this prior and
 * ignored).  A class of other values (sum(income) FILTER (WHERE rare))
 * gets the same prior of one nonzero record: every row answered nonzero
 * holds it and answers its value, so rows answered one nonzero value are
 * its "rows answered 1", and two different nonzero answers refute the
 * prior (any sum over incomes does at once; nine random halves holding
 * the one rare patient all answer her income).  Then the positive is in
 *
 *	C = (intersection of the rows answered 1) minus (union of the rows
 *		answered 0),
 *
 * over every record the ledger knows (all of them when no row answered 1;
 * then the attacker does not know that a positive exists, and only a new
 * cell answered 1 can single one out).
 * An empty C refutes the prior (e.g. two disjoint rows answered 1): the
 * test does not apply.  A C with fewer than tapas.min_candidates records
 * isolates the positive (DESIGN.md section 2, "narrowed").
 *
 * Deny mode is simulatable (Kenthapadi, Mishra, Nissim, "Simulatable
 * auditing", PODS 2005): the decision uses only the logged answers and the
 * new cells, never their answers.  Every answer consistent with the prior
 * is tried: the positive p answers 1 in the cells that hold it and 0 in
 * the others, so it leaves the part of C with p's signature over the
 * cells (recon/cellparts.h: a cell answered 1 beside an overlapping cell
 * answered 0 in one statement cuts C as no cell alone does), and every
 * cell answered 0 leaves C minus their union; the statement is refused
 * when one of them leaves 1 .. min_candidates - 1 candidates while C had
 * at least min_candidates (or had fewer, but no row answered 1 yet).  So a refusal tells the attacker nothing it could not
 * compute itself: the refusal-oracle attack ("count(*) WHERE rare AND (id
 * = c OR <known negatives>)" for each candidate c) is refused for every c
 * alike.  Log and warn modes alert what the true answers do (the answer is
 * released), so they raise no alert for an answer that was not given.
 *
 * The alert names the candidates that are truly positive (the auditor knows
 * the truth), else the smallest candidate; the decision never looks at it.
 *
 * tapas.audit (the offline audit) asks the same of the whole ledger:
 * tapas_audit_candidates_logged.  A group of related 0/1 classes
 * (relations.c) gets the same test over its (region, record) unknowns:
 * tapas_audit_joint_candidates (candidates_joint.c).
 *
 * Cost: O(rows logged since the last statement) CRoaring operations
 * (the folded zero union and one intersection are kept in the entry) plus
 * O(cells) per statement, on every statement of a 0/1 class.
 *
 * IDENTIFICATION
 *	  src/audit/candidates.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "audit/audit_int.h"
#include "audit/candidates_int.h"
#include "recon/cellparts.h"

/* forgets the folded rows (their state is rebuilt from the entry's rows) */
void
tapas_audit_candidates_reset(TapasAuditEntry *e)
{
	if (e->cand_zero)
		roaring_bitmap_free(e->cand_zero);
	if (e->cand_one)
		roaring_bitmap_free(e->cand_one);
	if (e->cand_full)
		roaring_bitmap_free(e->cand_full);
	e->cand_zero = NULL;
	e->cand_one = NULL;
	e->cand_full = NULL;
	e->cand_rows = 0;
	e->cand_value = 0;
	e->cand_refuted = false;
	tapas_audit_implied_reset(e);
}

/*
 * A row of a 0/1 class answered with its cover's size (two or more): every
 * record it covers is positive, and the attacker knows it from the logged
 * answer (in the census, religion = -9 over ethnic = -9 is 526 of 526).
 * Such records are no candidates: narrowing one of them down tells
 * nothing the released answer did not, and they are known positives, not
 * the one positive of the prior.
 */
bool
tapas_cand_row_is_full(double answer, const roaring_bitmap_t *row)
{
	return answer >= 2.0 && answer == (double) roaring_bitmap_get_cardinality(row);
}

/*
 * Whether a row answered answer holds the one positive (the prior's "1"):
 * a 0/1 class's rows answered 1; another class's rows answered its one
 * nonzero value, the first one logged (*value, 0 until then).  A second
 * nonzero value sets *refuted.
 */
static bool
answers_one(bool binary, double answer, double *value, bool *refuted)
{
	if (binary || answer == 0.0)
		return answer == 1.0;
	if (*value == 0.0)
		*value = answer;
	if (answer == *value)
		return true;
	*refuted = true;
	return false;
}

/*
 * C over the logged rows; *known: some row answered 1, so the attacker
 * knows that one positive exists.  The union of the zero rows and the
 * intersection of the one rows are kept in the entry and extended by the
 * rows logged since, so a statement costs O(new rows), not O(m).  Empty
 * when the prior is refuted (answers_one).
 */
static roaring_bitmap_t *
logged_candidates(TapasAuditEntry *e, uint64 n_total, bool *known)
{
	bool		binary = e->joint != NULL || tapas_audit_class_is_binary(e->cls);
	roaring_bitmap_t *c;

	if (e->cand_zero == NULL || e->cand_rows > e->nrows)
	{
		tapas_audit_candidates_reset(e);
		e->cand_zero = roaring_bitmap_create();
		e->cand_full = roaring_bitmap_create();
	}
	for (; e->cand_rows < e->nrows && !e->cand_refuted; e->cand_rows++)
	{
		int			i = e->cand_rows;

		if (answers_one(binary, e->answers[i], &e->cand_value, &e->cand_refuted))
		{
			if (e->cand_one == NULL)
				e->cand_one = roaring_bitmap_copy(e->rows[i]);
			else
				roaring_bitmap_and_inplace(e->cand_one, e->rows[i]);
		}
		else if (e->answers[i] == 0.0)
			roaring_bitmap_or_inplace(e->cand_zero, e->rows[i]);
		else if (binary && tapas_cand_row_is_full(e->answers[i], e->rows[i]))
			roaring_bitmap_or_inplace(e->cand_full, e->rows[i]);
	}
	*known = e->cand_one != NULL;
	if (e->cand_refuted)
		return roaring_bitmap_create();
	if (e->cand_one != NULL)
		c = roaring_bitmap_andnot(e->cand_one, e->cand_zero);
	else
	{
		/* no row answered 1: a positive may be any record not excluded */
		c = roaring_bitmap_create();
		if (n_total > 0)
			roaring_bitmap_add_range(c, 0, n_total);
		roaring_bitmap_andnot_inplace(c, e->cand_zero);
	}
	/* the positives the answers already force are no news (tapas_cand_row_is_full) */
	roaring_bitmap_andnot_inplace(c, e->cand_full);
	return c;
}

/* whether key is in the sorted keys[0..n-1] */
static bool
key_in(const int64 *keys, int64 n, int64 key)
{
	int64		lo = 0,
				hi = n - 1;

	while (lo <= hi)
	{
		int64		mid = (lo + hi) / 2;

		if (keys[mid] == key)
			return true;
		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/*
 * Whether the record is positive in the entry's class, or, for a group of
 * related classes, in one of them whose truth was read.
 */
static bool
is_positive(TapasAuditEntry *e, int64 key)
{
	if (e->joint == NULL)
		return key_in(e->nz_keys, e->nnz, key);
	for (int i = 0; i < e->joint->ncls; i++)
	{
		TapasClass *c = e->joint->cls[i];

		if (c->usable && key_in(c->keys, c->nnz, key))
			return true;
	}
	return false;
}

/*
 * A finding for the candidate set cand (palloc'd into *found).  Without
 * simulate (log, warn: the answers were given), only when a true positive
 * is among the candidates: an attacker whose prior is wrong (two positives
 * answering 1 in different rows) narrows nobody down.
 */
int
tapas_cand_narrowed_finding(TapasAuditBatch *batch, const roaring_bitmap_t *cand,
				 bool simulate, TapasFinding **found)
{
	bool		named = false;
	TapasAuditEntry *e = batch->entry;
	TapasFinding *f = palloc0(sizeof(TapasFinding));
	uint64		size = roaring_bitmap_get_cardinality(cand);
	uint32		pick = roaring_bitmap_minimum(cand);

	/* name a true positive among the candidates if there is one */
	if (e->joint != NULL || tapas_audit_ensure_truth(e))
	{
		roaring_uint32_iterator_t *it = roaring_create_iterator(cand);

		for (; it->has_value; roaring_advance_uint32_iterator(it))
			if (is_positive(e, batch->keys[it->current_value]))
			{
				pick = it->current_value;
				named = true;
				break;
			}
		roaring_free_uint32_iterator(it);
	}
	if (!simulate && !named)
	{
		pfree(f);
		return 0;
	}
	f->index = pick;
	f->key = batch->keys[pick];
	f->kind = TAPAS_ALERT_RECONSTRUCTED;
	f->method = "candidates";
	snprintf(f->detail, sizeof(f->detail),
			 "a possible answer leaves %llu candidate(s) for the one positive (tapas.min_candidates = %d)",
			 (unsigned long long) size, tapas_min_candidates);
	*found = f;
	return 1;
}

/* the records of a set of unknowns (their j) */
static roaring_bitmap_t *
records_of(const roaring_bitmap_t *u, uint32 cap_n)
{
	roaring_bitmap_t *rec = roaring_bitmap_create();
	roaring_uint32_iterator_t *it = roaring_create_iterator(u);

	for (; it->has_value; roaring_advance_uint32_iterator(it))
		roaring_bitmap_add(rec, it->current_value % cap_n);
	roaring_free_uint32_iterator(it);
	return rec;
}

uint64
tapas_cand_record_count(const roaring_bitmap_t *u, uint32 cap_n)
{
	roaring_bitmap_t *rec = records_of(u, cap_n);
	uint64		n = roaring_bitmap_get_cardinality(rec);

	roaring_bitmap_free(rec);
	return n;
}

/* the records of c: its ids when cap_n is 0, else the j of its unknowns r cap_n + j */
static uint64
part_size(const roaring_bitmap_t *c, uint32 cap_n)
{
	return cap_n ? tapas_cand_record_count(c, cap_n) : roaring_bitmap_get_cardinality(c);
}

static roaring_bitmap_t *
part_records(const roaring_bitmap_t *c, uint32 cap_n)
{
	return cap_n ? records_of(c, cap_n) : roaring_bitmap_copy(c);
}

/*
 * Deny mode: the records of a part of the candidates c that some answer
 * to the cells qs[0..nq) consistent with the prior leaves with 1 ..
 * tapas.min_candidates - 1 records, or NULL.  The positive p answers 1
 * in the cells holding it and 0 in the others, so the attacker keeps the
 * part of c with p's signature (recon/cellparts.h); each cell alone
 * bounds its parts (c and Q), which decides disjoint cells (the groups of
 * a GROUP BY) without the partition.  The part no cell holds (every cell
 * answered 0) counts only once a row answered 1 (known): before, the
 * attacker does not know that a positive exists.
 */
roaring_bitmap_t *
tapas_cand_simulated_part(const roaring_bitmap_t *c, roaring_bitmap_t **qs, int nq, uint32 cap_n, bool known)
{
	uint64		floor = (uint64) tapas_min_candidates;
	roaring_bitmap_t *all0 = roaring_bitmap_copy(c);
	roaring_bitmap_t *hit = NULL;
	uint64		incidences = 0;
	uint64		held;

	for (int t = 0; t < nq && hit == NULL; t++)
	{
		roaring_bitmap_t *cq = roaring_bitmap_and(c, qs[t]);
		uint64		in = part_size(cq, cap_n);

		if (in >= 1 && in < floor)
			hit = part_records(cq, cap_n);
		incidences += roaring_bitmap_get_cardinality(cq);
		roaring_bitmap_andnot_inplace(all0, qs[t]);
		roaring_bitmap_free(cq);
		CHECK_FOR_INTERRUPTS();
	}
	held = roaring_bitmap_get_cardinality(c) - roaring_bitmap_get_cardinality(all0);
	if (hit == NULL && incidences > held)
	{
		/* cells that overlap within c: one answered 1, another 0 */
		int			err;

		hit = tapas_cellparts_small(c, (const roaring_bitmap_t *const *) qs, nq, cap_n, floor, &err);
		if (err)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in the candidates test")));
	}
	if (hit == NULL && known)
	{
		uint64		left = part_size(all0, cap_n);

		if (left >= 1 && left < floor)
			hit = part_records(all0, cap_n);
	}
	roaring_bitmap_free(all0);
	return hit;
}

/*
 * Log and warn modes: the candidates the true answers leave, c and every
 * cell answered 1, minus every cell answered 0 (cells answered 2 or more
 * are outside the prior), when a row answered 1 says that the positive
 * exists and 1 .. tapas.min_candidates - 1 records are left; else NULL.
 */
roaring_bitmap_t *
tapas_cand_answered_part(const roaring_bitmap_t *c, roaring_bitmap_t **qs, const double *answers, int nq,
			  uint32 cap_n, bool known, bool binary, double value)
{
	roaring_bitmap_t *left = roaring_bitmap_copy(c);
	roaring_bitmap_t *hit = NULL;
	bool		refuted = false;
	uint64		n;

	for (int t = 0; t < nq; t++)
	{
		if (answers_one(binary, answers[t], &value, &refuted))
		{
			roaring_bitmap_and_inplace(left, qs[t]);
			known = true;
		}
		else if (answers[t] == 0.0)
			roaring_bitmap_andnot_inplace(left, qs[t]);
	}
	n = part_size(left, cap_n);
	if (known && !refuted && n >= 1 && n < (uint64) tapas_min_candidates)
		hit = part_records(left, cap_n);
	roaring_bitmap_free(left);
	return hit;
}

/*
 * c minus the records that the zeros of the classes e's class implies
 * exclude (implied.c): not B means not A; and inside the rows answered 1
 * of the related classes (implied.c: they hold A's one positive, if it
 * exists; *known says it does when a row answered 1 is of a class that
 * implies A).  False when they cannot be read completely (the caller
 * fails closed).
 */
static bool
with_related_rows(TapasAuditEntry *e, roaring_bitmap_t *c, bool *known)
{
	bool		complete;
	const roaring_bitmap_t *iz = tapas_audit_implied_zeros(e, &complete);

	if (iz != NULL)
		roaring_bitmap_andnot_inplace(c, iz);
	if (iz != NULL && tapas_audit_implied_ones(e, c))
		*known = true;
	return complete;
}

/*
 * Returns 1 (one finding in *found) when the batch's cells could narrow
 * the positive's candidates below the floor (deny mode: any consistent
 * answer; other modes: the true answers), else 0; -1 when the zeros
 * of the classes it implies cannot be read (the caller fails closed).
 */
int
tapas_audit_candidates(TapasAuditBatch *batch, TapasFinding **found, bool simulate)
{
	TapasAuditEntry *e = batch->entry;
	uint64		floor = (uint64) tapas_min_candidates;
	roaring_bitmap_t *c;
	roaring_bitmap_t **qs;
	uint64		csize;
	bool		known;

	*found = NULL;
	if (batch->ncells == 0)
		return 0;
	c = logged_candidates(e, (uint64) batch->n_total, &known);
	if (roaring_bitmap_is_empty(c))
	{
		/* refuted, or no record left: related rows only narrow */
		roaring_bitmap_free(c);
		return 0;
	}
	if (!with_related_rows(e, c, &known))
	{
		roaring_bitmap_free(c);
		return -1;
	}
	csize = roaring_bitmap_get_cardinality(c);
	if (csize == 0 || (known && csize < floor))
	{
		/*
		 * Refuted (empty) or narrowed before: nothing new to decide.  Not
		 * so when no row answered 1: zero rows that overlap (age < 60,
		 * then 50 <= age < 91) can leave fewer than the floor without any
		 * answer telling that a positive exists, and the next cell over
		 * them, answered 1, would name it.
		 */
		roaring_bitmap_free(c);
		return 0;
	}
	qs = palloc(sizeof(roaring_bitmap_t *) * batch->ncells);
	for (int t = 0; t < batch->ncells; t++)
		qs[t] = roaring_bitmap_of_ptr(batch->offsets[t + 1] - batch->offsets[t],
									  batch->ids + batch->offsets[t]);
	return tapas_cand_decide(batch, c, qs, 0, known, simulate,
							 tapas_audit_class_is_binary(e->cls), e->cand_value, found);
}

/*
 * The decision on the candidates c and the batch's cells qs (over records,
 * or the unknowns r cap_n + j of a group): deny mode tries every answer,
 * other modes read the true ones; 1 with a finding in *found, else 0.
 * Frees c and qs.
 */
int
tapas_cand_decide(TapasAuditBatch *batch, roaring_bitmap_t *c, roaring_bitmap_t **qs,
				  uint32 cap_n, bool known, bool simulate, bool binary, double value,
				  TapasFinding **found)
{
	roaring_bitmap_t *hit;
	int			n;

	hit = simulate ? tapas_cand_simulated_part(c, qs, batch->ncells, cap_n, known)
		: tapas_cand_answered_part(c, qs, batch->answers, batch->ncells, cap_n, known,
								   binary, value);
	for (int t = 0; t < batch->ncells; t++)
		roaring_bitmap_free(qs[t]);
	pfree(qs);
	roaring_bitmap_free(c);
	if (hit == NULL)
		return 0;
	n = tapas_cand_narrowed_finding(batch, hit, simulate, found);
	roaring_bitmap_free(hit);
	return n;
}

/*
 * The offline audit (tapas.audit, audit_sql.c): what the logged answers,
 * all given, leave the attacker of this prior, as log mode decides it
 * statement by statement.  Returns 1 (one finding in *found) when some
 * row answered 1 and the candidates for the one positive number 1 ..
 * tapas.min_candidates - 1 and include a true positive, else 0.
 */
int
tapas_audit_candidates_logged(TapasAuditBatch *batch, TapasFinding **found)
{
	bool		known;
	roaring_bitmap_t *c = logged_candidates(batch->entry, (uint64) batch->n_total, &known);
	uint64		size;
	int			n = 0;

	(void) with_related_rows(batch->entry, c, &known);
	size = roaring_bitmap_get_cardinality(c);

	*found = NULL;
	if (known && size >= 1 && size < (uint64) tapas_min_candidates)
		n = tapas_cand_narrowed_finding(batch, c, false, found);
	roaring_bitmap_free(c);
	return n;
}
