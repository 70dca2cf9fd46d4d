/*-------------------------------------------------------------------------
 *
 * reconstructed.c
 *	  Data-aware audit: would a decoder, run on the logged answers plus the
 *	  candidate cells, recover the true rare values of some records?
 *
 * The auditor knows the truth v (the per-row value of the statistic) and
 * the ledger's answers b, which are what the analyst received.  So if a
 * decoder maps (A, b) to the true v on some records, the analyst can run
 * the same decoder: those records are reconstructed (src/README.md).
 * Rare values are what decoders recover and what matters (the one patient
 * with the disease among 100,000), so the checks apply when v is binary
 * and sparse: w = the number of logged-covered records with v_j = 1.
 *
 *	single positive (w = 1): the records whose column of A equals b are
 *	  the intersection of the rows answered 1 minus the rows answered 0,
 *	  a few CRoaring operations per logged row, so it runs on every
 *	  answer, with no trigger (method "sparse_search").
 *	sparse search (w = 2, 3; recon/sparse_search.h): every binary x of
 *	  weight <= w with A x = b.  If the only one is the truth, every
 *	  record of its support is reconstructed (method "sparse_search").
 *	  Trigger: m >= log2 C(n, w) / log2(w + 1), the fewest rows whose
 *	  answers (integers 0..w) can single out one support of C(n, w).
 *	  This catches the BCH attack at its last parity query (the attacker
 *	  may map records to code positions in any order, so the test does
 *	  not rely on the design's structure), and difference attacks.
 *	greedy (4 <= w <= 256): binary hard-thresholding pursuit
 *	  (recon/cs_bhtp.c), then OMP (recon/cs.h) with sparsity w up to 32
 *	  when it misses, rounded to 0/1; if it returns exactly the truth and is
 *	  consistent with every answer, its support is reconstructed (method
 *	  "omp" or "bhtp").  Trigger: m >= log2 C(n, w) / log2(w + 1), as for
 *	  the sparse search: below it no answers (integers 0..w) can single
 *	  out w of n records.  (It was m >= w log2(n / w), which is no lower
 *	  bound: on the split Bernoulli attack of
 *	  sql/49_audit_related_decoders, n = 2,000 and w = 40, the attacker's
 *	  BHTP decodes from 220 rows and that trigger fired at 226.)  The
 *	  decoders run on every answer from the trigger on, within the
 *	  budget.
 *
 * Deny mode does not come here: a deny decision must not read the new
 * answer (the refusal would be an oracle), so tapas_audit_reconstructed
 * hands it to the simulatable test of simulated.c, which asks the same
 * decoders about random supports instead of the truth.  What follows is
 * for log and warn modes, which alert what the released answers do.
 *
 * Both run only when their trigger fires, when every positive is alone in
 * its atom (records covered by exactly the same rows cannot be told apart
 * by any decoder, so GROUP BY workloads never reach them), and within the
 * statement's time budget (tapas.audit_budget_ms, decide.c): they start
 * only before the deadline and a kernel running past it is cancelled.
 * When they find nothing (or are not triggered, or skipped), the cheap
 * design-aware decoders run (designs.c: logged rows recognised as BCH or
 * Hadamard rows under record = key, decoded by the design's decoder;
 * methods "bch" and "hadamard"); for an integer, non-binary truth only
 * the Hadamard decoder applies.
 *
 * The truth v (the records with v_j != 0) comes from the class (truth.c,
 * tapas_audit_ensure_truth).  Fail closed: when a decoder's trigger fires
 * but the decoder cannot run (no decoder for that many positives, the
 * deadline), or the truth cannot be read, the check is incomplete and the
 * caller alerts 'incomplete'.
 *
 * IDENTIFICATION
 *	  src/audit/reconstructed.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "util/sort_u32.h"
#include "recon/binmat.h"
#include "recon/cs.h"
#include "recon/sparse_search.h"
#include "policy/policy.h"
#include "policy/progress_pg.h"
#include "util/compare.h"

#define CS_OMP_MAX_WEIGHT	32	/* OMP's s steps beyond: too slow */

/* ----------------------------------------------------------------
 *		Decoders
 * ----------------------------------------------------------------
 */

/*
 * A (logged rows, then the batch's rows) as a bit matrix, cached in the
 * entry: logged rows are copied once, the batch's rows are rewritten each
 * time.  Columns are the row space's capacity cap_n >= n_total (the extra
 * columns are zero and change no decoder's answer).  The returned matrix
 * has m = logged + batch rows until tapas_audit_matrix_done.
 */
tapas_binmat_t *
tapas_audit_matrix(TapasAuditBatch *batch, double **b)
{
	TapasAuditEntry *e = batch->entry;
	size_t		m = e->nrows + batch->ncells;
	tapas_binmat_t *A = e->A;
	uint32	   *buf = NULL;
	size_t		bufn = 0;

	if (A == NULL || A->n != e->cap_n || e->A_cap < m)
	{
		tapas_binmat_free(A);
		e->A_cap = Max(64, 2 * m);
		A = e->A = tapas_binmat_create(e->A_cap, e->cap_n);
		e->A_rows = 0;
		e->P_rows = 0;			/* every row of A is new to the patterns */
		tapas_sparse_hashes_free(e->H);
		e->H = NULL;
		if (A == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
							errmsg("out of memory in the reconstruction audit")));
	}
	A->m = e->A_cap;
	for (int i = e->A_rows; i < e->nrows; i++)
	{
		size_t		c = roaring_bitmap_get_cardinality(e->rows[i]);

		if (c > bufn)
		{
			bufn = Max(c, 2 * bufn);
			buf = buf ? repalloc_huge(buf, sizeof(uint32) * bufn)
				: MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * bufn);
		}
		roaring_bitmap_to_uint32_array(e->rows[i], buf);
		for (size_t k = 0; k < c; k++)
			tapas_binmat_set(A, i, buf[k], 1);
	}
	e->A_rows = e->nrows;
	*b = palloc(sizeof(double) * m);
	for (int i = 0; i < e->nrows; i++)
		(*b)[i] = e->answers[i];
	for (int i = 0; i < batch->ncells; i++)
	{
		memset(tapas_binmat_row(A, e->nrows + i), 0, A->words * sizeof(uint64));
		for (size_t k = batch->offsets[i]; k < batch->offsets[i + 1]; k++)
			tapas_binmat_set(A, e->nrows + i, batch->ids[k], 1);
		(*b)[e->nrows + i] = batch->answers[i];
	}
	if (buf)
		pfree(buf);
	A->m = m;
	return A;
}

/*
 * Whether the decoders' patterns and hashes are kept from one statement
 * to the next and the simulated trials are short (on), or everything is
 * as before (tapas.audit_fast_decoders = off: patterns and hashes rebuilt
 * by every statement, dense products, three full pursuit runs per
 * simulated decision), the baseline of test/bench/audit-joint.sh.
 */
bool		tapas_audit_fast_decoders = true;

/*
 * The column patterns of A (recon/binmat.h) for the decoders' products
 * A^T r, cached in the entry: A's logged rows never change, so only the
 * groups of 8 rows from the first row added since the last statement (its
 * logged rows, then the batch's, which are rewritten) are rebuilt, about
 * (new rows / 8 + 1) n bytes instead of m n / 8.  A must be what
 * tapas_audit_matrix just returned.
 */
tapas_binmat_colbytes_t *
tapas_audit_patterns(TapasAuditBatch *batch, tapas_binmat_t *A)
{
	TapasAuditEntry *e = batch->entry;
	size_t		from = tapas_audit_fast_decoders ? (size_t) e->P_rows : 0;

	if (tapas_binmat_colbytes_update(&e->P, A, from) != TAPAS_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory in the reconstruction audit")));
	e->P_rows = e->nrows;
	return e->P;
}

/*
 * The sparse search's column hashes of A's logged rows (recon/
 * sparse_search.h), cached in the entry and extended by the rows logged
 * since the last statement; the search hashes the batch's rows on top.
 * NULL (the search hashes every row) when the cache is off.
 */
tapas_sparse_hashes *
tapas_audit_hashes(TapasAuditBatch *batch, tapas_binmat_t *A)
{
	TapasAuditEntry *e = batch->entry;

	if (!tapas_audit_fast_decoders)
		return NULL;
	if (tapas_sparse_hashes_extend(&e->H, A, (size_t) e->nrows) != TAPAS_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory in the reconstruction audit")));
	return e->H;
}

/*
 * Brings the entry's matrix and the decoders' caches (column patterns when
 * patterns, sparse-search hashes when hashes) up to date before a decoder
 * runs; returns the time it took, which the caller adds to the decoders'
 * deadline.  After a few rows that is well under a millisecond; the first
 * statement of a backend builds them from every logged row (hundreds of
 * ms at 1,000 rows over 100,000 records), a one-off like the sync's
 * rebuild, which spent the share and failed the statement closed.  With
 * tapas.audit_fast_decoders = off (the bench's baseline) nothing is
 * warmed and 0 is returned, as before.
 */
int64
tapas_audit_warm(TapasAuditBatch *batch, bool patterns, bool hashes)
{
	TimestampTz t0 = GetCurrentTimestamp();
	tapas_binmat_t *A;
	double	   *b;

	if (!tapas_audit_fast_decoders)
		return 0;
	A = tapas_audit_matrix(batch, &b);
	if (patterns)
		(void) tapas_audit_patterns(batch, A);
	if (hashes)
		(void) tapas_audit_hashes(batch, A);
	tapas_audit_matrix_done(batch->entry);
	pfree(b);
	return GetCurrentTimestamp() - t0;
}

/* the cached matrix back to its capacity (batch rows are rewritten next time) */
void
tapas_audit_matrix_done(TapasAuditEntry *e)
{
	if (e->A != NULL)
		e->A->m = e->A_cap;
}

/*
 * The truth's support among the batch's dense indices (sorted); its size.
 * tapas_audit_batch_indices maps the keys (the ledger's index, or the
 * batch's new keys by one sort-merge) and a radix sort orders them, so the
 * cost is O(nnz + new keys) for a dense truth too.
 */
static int
truth_support(TapasAuditBatch *batch, int64 **supp)
{
	TapasAuditEntry *e = batch->entry;
	int64	   *idx = MemoryContextAllocHuge(CurrentMemoryContext,
											 sizeof(int64) * Max(e->nnz, 1));
	uint32	   *sorted;
	int			w = 0;

	*supp = idx;
	tapas_audit_batch_indices(batch, e->nz_keys, e->nnz, idx);
	sorted = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * 2 * Max(e->nnz, 1));
	for (int64 i = 0; i < e->nnz; i++)
		if (idx[i] >= 0)
			sorted[w++] = (uint32) idx[i];	/* dense indices are below 2^31 */
	tapas_sort_u32(sorted, sorted + Max(e->nnz, 1), w);
	for (int i = 0; i < w; i++)
		idx[i] = sorted[i];
	pfree(sorted);
	return w;
}

/* log2 C(n, w) */
static double
log2_binom(double n, int w)
{
	return (lgamma(n + 1) - lgamma(w + 1) - lgamma(n - w + 1)) / log(2.0);
}

static int
add_findings(TapasAuditBatch *batch, const int64 *supp, int w, const char *method,
			 const char *detail, TapasFinding **found)
{
	TapasAuditEntry *e = batch->entry;
	int			nf = 0;

	*found = palloc0(sizeof(TapasFinding) * Max(w, 1));
	for (int i = 0; i < w; i++)
	{
		TapasFinding *f = &(*found)[nf];

		if (roaring_bitmap_contains(e->reported, (uint32) supp[i]))
			continue;
		f->index = supp[i];
		f->key = batch->keys[supp[i]];
		f->kind = TAPAS_ALERT_RECONSTRUCTED;
		f->method = method;
		strlcpy(f->detail, detail, sizeof(f->detail));
		nf++;
	}
	return nf;
}

/* kernel progress callback: stop at the deadline or on an interrupt */
int
tapas_audit_deadline_progress(void *arg, double fraction)
{
	TapasAuditDeadline *d = (TapasAuditDeadline *) arg;

	if (tapas_cancel_requested())
		return 1;
	tapas_progress_active_notice(fraction);	/* in tapas.audit */
	if (GetCurrentTimestamp() > d->deadline)
	{
		d->expired = true;
		return 1;
	}
	return 0;
}

static int
run_sparse_search(TapasAuditBatch *batch, tapas_binmat_t *A, const double *b,
				  const int64 *supp, int w, const tapas_progress_t *progress,
				  TapasFinding **found)
{
	int64	   *bi = palloc(sizeof(int64) * A->m);
	tapas_sparse_result res;
	tapas_status st;
	bool		hit = false;
	char		detail[TAPAS_ALERT_DETAIL_LEN];

	memset(&res, 0, sizeof(res));
	for (size_t i = 0; i < A->m; i++)
		bi[i] = (int64) llround(b[i]);
	st = tapas_sparse_search_hashed(A, tapas_audit_hashes(batch, A), bi, w, 2,
									TAPAS_SPARSE_WORK_LIMIT, &res, progress);
	if (st == TAPAS_OK && res.found == 1 && tapas_sparse_result_weight(&res, 0) == w)
	{
		hit = true;
		for (int i = 0; i < w; i++)
			if (res.supports[i] != supp[i])
				hit = false;
	}
	tapas_sparse_result_clear(&res);
	pfree(bi);
	if (!hit)
		return 0;
	snprintf(detail, sizeof(detail),
			 "the true support (weight %d) is the only binary solution of weight <= %d of the %zu answers",
			 w, w, A->m);
	return add_findings(batch, supp, w, "sparse_search", detail, found);
}

/* whether x (n entries) is exactly the truth's support supp[0..w-1] */
static bool
is_truth(const double *x, size_t n, const int64 *supp, int w)
{
	int			k = 0;

	for (size_t j = 0; j < n; j++)
	{
		bool		in = (k < w && supp[k] == (int64) j);

		if (in)
			k++;
		if (x[j] != (in ? 1.0 : 0.0))
			return false;
	}
	return k == w;
}

/* tapas_cs_check of a binary x for exact answers */
static tapas_status
check(const tapas_binmat_t *A, const tapas_binmat_colbytes_t *P,
	  const double *b, double *x, tapas_cs_report *rep)
{
	if (!tapas_audit_fast_decoders)
		return tapas_cs_check(A, b, 0.0, 1, x, rep);	/* the bench's baseline */
	return tapas_cs_check_patterns(P, b, 0.0, 1, x, rep);
}

/*
 * The greedy decoders on the true answers: binary hard-thresholding
 * pursuit (recon/cs_bhtp.c), then OMP up to CS_OMP_MAX_WEIGHT positives
 * when it misses.  A record is reconstructed when the result is
 * consistent with every answer and exactly the truth.
 */
static int
run_greedy(TapasAuditBatch *batch, tapas_binmat_t *A, const double *b,
		   const int64 *supp, int w, const tapas_progress_t *progress,
		   TapasFinding **found)
{
	double	   *x = MemoryContextAllocHuge(CurrentMemoryContext,
										   sizeof(double) * A->n);
	tapas_binmat_colbytes_t *P = tapas_audit_patterns(batch, A);
	tapas_cs_report rep;
	tapas_status st = TAPAS_EINVAL;
	bool		hit = false;
	const char *method;
	char		detail[TAPAS_ALERT_DETAIL_LEN];

	/*
	 * tapas_cs_recover's BHTP, then OMP when it misses, on the cached
	 * patterns (the consistency check too: A x over x's support only).
	 * BHTP first: where both recover, it needs a few products A^T r and
	 * OMP w of them (10 positives at n = 100,000, m = 1,000: OMP alone
	 * overran the 300 ms budget on the shared machine).
	 */
	method = "bhtp";
	st = tapas_cs_bhtp_patterns(P, b, w, x, NULL, progress);
	if (st == TAPAS_OK)
		st = check(A, P, b, x, &rep);
	hit = st == TAPAS_OK && rep.consistent && is_truth(x, A->n, supp, w);
	if (!hit && st != TAPAS_ECANCELED && w <= CS_OMP_MAX_WEIGHT)
	{
		method = "omp";
		st = tapas_cs_omp_patterns(A, P, b, w, 0.0, x, NULL, progress);
		if (st == TAPAS_OK)
			st = check(A, P, b, x, &rep);
		hit = st == TAPAS_OK && rep.consistent && is_truth(x, A->n, supp, w);
	}
	pfree(x);
	if (!hit)
		return 0;
	snprintf(detail, sizeof(detail),
			 "%s (sparsity %d) on the %zu answers returns exactly the true values",
			 strcmp(method, "omp") == 0 ? "orthogonal matching pursuit"
			 : "binary hard-thresholding pursuit", w, A->m);
	return add_findings(batch, supp, w, method, detail, found);
}

/*
 * Weight 1, exactly and cheaply on the CRoaring rows: the records whose
 * column equals b are those in every row answered 1 and in no row answered
 * 0.  If that is the true positive alone, an attacker assuming one
 * positive finds it.  O(m) bitmap operations; runs on every answer.
 */
static int
run_single_positive(TapasAuditBatch *batch, const int64 *supp, TapasFinding **found)
{
	TapasAuditEntry *e = batch->entry;
	int			m = e->nrows + batch->ncells;
	roaring_bitmap_t *cand = NULL;
	roaring_bitmap_t **brows = palloc(sizeof(roaring_bitmap_t *) * Max(batch->ncells, 1));
	bool		hit;
	char		detail[TAPAS_ALERT_DETAIL_LEN];

	for (int i = 0; i < batch->ncells; i++)
		brows[i] = roaring_bitmap_of_ptr(batch->offsets[i + 1] - batch->offsets[i],
										 batch->ids + batch->offsets[i]);
	/* intersection of the rows answered 1 */
	for (int i = 0; i < m; i++)
	{
		const roaring_bitmap_t *r = i < e->nrows ? e->rows[i] : brows[i - e->nrows];
		double		b = i < e->nrows ? e->answers[i] : batch->answers[i - e->nrows];

		if (b != 1.0)
			continue;
		if (cand == NULL)
			cand = roaring_bitmap_copy(r);
		else
			roaring_bitmap_and_inplace(cand, r);
	}
	/* minus the rows answered 0 */
	for (int i = 0; cand != NULL && i < m; i++)
	{
		const roaring_bitmap_t *r = i < e->nrows ? e->rows[i] : brows[i - e->nrows];
		double		b = i < e->nrows ? e->answers[i] : batch->answers[i - e->nrows];

		if (b == 0.0)
			roaring_bitmap_andnot_inplace(cand, r);
	}
	hit = cand != NULL && roaring_bitmap_get_cardinality(cand) == 1 &&
		roaring_bitmap_contains(cand, (uint32) supp[0]);
	if (cand)
		roaring_bitmap_free(cand);
	for (int i = 0; i < batch->ncells; i++)
		roaring_bitmap_free(brows[i]);
	pfree(brows);
	if (!hit)
		return 0;
	snprintf(detail, sizeof(detail),
			 "the record is the only one consistent with the %d answers when one record is positive",
			 m);
	return add_findings(batch, supp, 1, "sparse_search", detail, found);
}

/*
 * Records the batch would let a decoder reconstruct (not reported before).
 * *why is set (static text) when a check the batch needs cannot complete:
 * the truth cannot be read, more positives than the decoders cover, or
 * the deadline passed before (or during) a triggered decoder.  The caller
 * fails closed on it.
 */
int
tapas_audit_reconstructed(TapasAuditBatch *batch, TapasFinding **found,
						  TimestampTz deadline, const char **why)
{
	TapasAuditEntry *e = batch->entry;
	int64	   *supp;
	int			w;
	double		m = e->nrows + batch->ncells;
	double		n = (double) batch->n_total;
	bool		sparse_trigger,
				omp_trigger;
	tapas_binmat_t *A;
	double	   *b;
	int			nf = 0;
	TapasAuditDeadline darg;
	tapas_progress_t progress;

	*found = NULL;
	/* deny: a decision that reads no answer (simulated.c) */
	if (tapas_mode == TAPAS_MODE_DENY)
		return tapas_audit_simulated(batch, found, deadline, why);
	if (!tapas_audit_ensure_truth(e))
	{
		*why = "the truth of the statistic cannot be evaluated";
		return 0;
	}
	if (e->nnz == 0)
		return 0;
	w = truth_support(batch, &supp);
	if (w == 0)
		return 0;
	/*
	 * Every positive alerted already: a decoder could only find records
	 * that add_findings skips (the alerts of the released answers are
	 * raised once per record), so the decoders are not run again.
	 */
	{
		bool		all_reported = true;

		for (int i = 0; i < w && all_reported; i++)
			all_reported = supp[i] < (int64) PG_UINT32_MAX &&
				roaring_bitmap_contains(e->reported, (uint32) supp[i]);
		if (all_reported)
			return 0;
	}
	/*
	 * A positive whose atom (records covered by exactly the same rows) is
	 * not a singleton cannot be told from its atom-mates by any decoder:
	 * nothing to reconstruct.  This keeps GROUP BY workloads, whose atoms
	 * are cells of the quasi-identifier lattice, away from the decoders.
	 */
	for (int i = 0; i < w; i++)
		if (e->rs == NULL || e->rs_broken || supp[i] >= (int64) e->cap_n ||
			tapas_rowspace_atom_size(e->rs, (uint32) supp[i]) > 1)
			return 0;
	/* integer, not binary: only the Hadamard decoder applies (designs.c) */
	if (!e->truth_binary)
		return tapas_audit_designs(batch, supp, w, found);
	if (w == 1)
	{
		nf = run_single_positive(batch, supp, found);
		return nf > 0 ? nf : tapas_audit_designs(batch, supp, w, found);
	}
	sparse_trigger = w <= TAPAS_SPARSE_MAX_WEIGHT &&
		m >= floor(log2_binom(n, w) / log2(w + 1.0));
	omp_trigger = w > TAPAS_SPARSE_MAX_WEIGHT &&
		m >= floor(log2_binom(n, w) / log2(w + 1.0));
	if (!sparse_trigger && !omp_trigger)
		return tapas_audit_designs(batch, supp, w, found);
	if (w > tapas_audit_max_positives)
	{
		/* enough rows to decode w positives, and no decoder for that many */
		nf = tapas_audit_designs(batch, supp, w, found);
		if (nf == 0)
			*why = "more positives than the reconstruction decoders cover";
		return nf;
	}
	deadline += tapas_audit_warm(batch, !sparse_trigger, sparse_trigger);
	if (GetCurrentTimestamp() > deadline)
	{
		nf = tapas_audit_designs(batch, supp, w, found);
		if (nf == 0)
			*why = "the audit budget was spent before a reconstruction check";
		return nf;
	}
	darg.deadline = deadline;
	darg.expired = false;
	progress.fn = tapas_audit_deadline_progress;
	progress.arg = &darg;
	A = tapas_audit_matrix(batch, &b);
	if (sparse_trigger)
		nf = run_sparse_search(batch, A, b, supp, w, &progress, found);
	else
		nf = run_greedy(batch, A, b, supp, w, &progress, found);
	tapas_audit_matrix_done(e);
	pfree(b);
	CHECK_FOR_INTERRUPTS();
	if (nf == 0)
		nf = tapas_audit_designs(batch, supp, w, found);
	if (darg.expired && nf == 0)
		*why = "a reconstruction check did not finish within the audit budget";
	return nf;
}
