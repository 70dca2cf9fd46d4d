/*-------------------------------------------------------------------------
 *
 * simulated.c
 *	  Simulatable decoder decision (deny mode): would the logged queries
 *	  plus the statement's cells let a decoder recover sparse 0/1 values
 *	  that the attacker cannot tell from the truth?
 *
 * Deny decisions must depend only on the logged answers and the new
 * query, never on the new answer nor on the secret values (Kenthapadi,
 * Mishra and Nissim, "Simulatable auditing", PODS 2005): otherwise the
 * refusal itself tells the attacker that the answer would have given the
 * secret away (issue 11, "refusals as an oracle").  So this test never
 * reads the truth nor the cells' answers.  It asks of the design alone:
 *
 *	N = the records in singleton atoms after the statement (records
 *	  covered by exactly the same rows as another record cannot be told
 *	  from it by any decoder: only singletons can be reconstructed);
 *	s = a lower bound on the positives among them that every 0/1 vector
 *	  consistent with the logged answers has (logged_lower_bound: the
 *	  largest logged answer when every record is a singleton);
 *	trigger: m >= log2 C(N, s) / log2(s + 1), the fewest rows whose
 *	  answers (integers 0..s) can single out s of N records; below it no
 *	  decoder can, and the statement passes;
 *	test: R vectors x (3 for the search, 1 for the greedy decoder: see
 *	  sampled for its false-negative bound), each with s positives drawn
 *	  uniformly among the N singletons (a seed hashed from the logged
 *	  answers: the logged state, not an answer of the statement), answers
 *	  b = A x over the logged rows and the statement's cells, and the
 *	  decoder portfolio (sparse search for s <= 3, else binary
 *	  hard-thresholding pursuit, recon/cs_bhtp.c, a trial of at most 6
 *	  steps that stops once it holds half of x's positives); the
 *	  statement is refused when the portfolio recovers some x (exactly
 *	  for the search, half of its positives for the greedy decoder: see
 *	  decodes), the first recovered x deciding.  Also when the
 *	  logged rows alone would: then a statement passed near the
 *	  threshold (R samples all missed), and every later statement that
 *	  adds to the design is refused rather than let the attacker go on.
 *
 * Why this suffices for the attacks it is for: on a non-adaptive design
 * (Bernoulli rows, BCH and Hadamard rows under any record order), whether
 * a decoder recovers an s-sparse vector is, with high probability, a
 * property of the design, the same for the truth as for a random support
 * of that weight (uniform recovery: the restricted isometry property for
 * random designs, Candes and Tao 2005; the BCH design decodes every
 * support of weight <= its number of blocks).  Recovery is harder with
 * more positives, so the lower bound s is the attacker's best case; a
 * refusal when any of R samples is recovered errs towards refusing.  An
 * adaptive design (rows chosen from earlier answers, e.g. group testing)
 * can be good for the truth and bad for random supports: the row-space
 * test (determined.c) and the one-positive candidates test
 * (candidates.c) are its backstop, and log/warn modes run the decoders
 * on the true answers (reconstructed.c).  s <= 1 is left to the
 * candidates test, which decides that prior exactly.
 *
 * Designs recognised under record = key (designs.c) are decided by their
 * structure: a BCH design with at least s complete blocks, or a complete
 * Hadamard design, decodes every vector of weight <= s, whatever the
 * answers.
 *
 * Fail closed: the deadline before or during the decoders, a decoder
 * error, or more than tapas.audit_max_positives positives (no cap by
 * default) make the check incomplete (*why): TP004.  Up to issue 11 item 6
 * a cap of 256 stood for the trial's cost, and refused GROUP BY crossings
 * (GROUP BY zip then GROUP BYs over quasi-identifiers at n = 100,000: 184
 * to 486 positives implied among 80,000 singletons, 3 TP004 in 40
 * statements).  The test is the same for any s, so the argument above
 * holds; what changed is the cost: the trial's products come from the runs
 * of disjoint rows (recon/binmat_families.h, one family per GROUP BY) when
 * there are few, the same trial bit for bit (test/bench/cross-positives.sh
 * measures the TP004 and the time against the old cap).
 *
 * IDENTIFICATION
 *	  src/audit/simulated.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "recon/binmat_families.h"
#include "recon/cs.h"
#include "recon/sparse_search.h"
#include "util/compare.h"
#include "util/rng.h"

#define SIM_SAMPLES		3	/* for the exhaustive search (s <= 3) */
#define SIM_GREEDY_SAMPLES	1	/* for the greedy decoder (see sampled) */
#define SIM_GREEDY_STEPS	6	/* BHTP steps per greedy trial */
#define SIM_OVERLAP_NUM	1	/* found / s >= 1/2: recovered */
#define SIM_OVERLAP_DEN	2

int			tapas_audit_max_positives = TAPAS_AUDIT_MAX_POSITIVES;
bool		tapas_audit_row_families = true;

/* log2 C(n, w) */
static double
log2_binom(double n, int w)
{
	return (lgamma(n + 1) - lgamma(w + 1) - lgamma(n - w + 1)) / log(2.0);
}

/* the records in singleton atoms (dense indices, ascending); their number */
static int64
singletons(TapasAuditBatch *batch, uint32 **out)
{
	TapasAuditEntry *e = batch->entry;
	int64		lim = Min((int64) e->cap_n, batch->n_total);
	uint32	   *s = MemoryContextAllocHuge(CurrentMemoryContext,
										   sizeof(uint32) * Max(lim, 1));
	int64		k = 0;

	for (int64 j = 0; j < lim; j++)
		if (tapas_rowspace_atom_size(e->rs, (uint32) j) == 1)
			s[k++] = (uint32) j;
	*out = s;
	return k;
}

/*
 * The records of a 0/1 class whose values the logged answers force to 1:
 * those of a row answered its size (a dense class on that cover, e.g.
 * religion = -9 over ethnic = -9 in the census: 526 of 526).  The
 * attacker knows them already: no simulation draws them nor reports them
 * reconstructed.  (Records in rows answered 0 are known too; they stay
 * drawable, which errs towards refusing.)
 */
static roaring_bitmap_t *
forced_ones(const TapasAuditEntry *e)
{
	roaring_bitmap_t *all = roaring_bitmap_create();

	for (int i = 0; i < e->nrows; i++)
		if (e->answers[i] >= 1.0 &&
			e->answers[i] == (double) roaring_bitmap_get_cardinality(e->rows[i]))
			roaring_bitmap_or_inplace(all, e->rows[i]);
	return all;
}

/*
 * The lower bound s on the positives among the singleton records that
 * every 0/1 vector consistent with the logged answers has: a row answered
 * b covering c records outside singleton atoms has at least b - c
 * positives among its singletons.  (For the attack designs every record
 * is a singleton and s is the largest answer; for GROUP BY workloads,
 * whose groups are unions of large atoms, s <= 0.)  sing holds the free
 * singletons only (forced_ones): a row of b covering f forced ones and in
 * free singletons has at least b - f - (card - in - f) = b - (card - in)
 * positives among them.  Capped at tapas.audit_max_positives + 1.
 */
static int
logged_lower_bound(const TapasAuditEntry *e, const roaring_bitmap_t *sing)
{
	double		best = 0;

	for (int i = 0; i < e->nrows; i++)
	{
		double		b = e->answers[i];
		uint64		card,
					in;

		if (b <= best)
			continue;
		card = roaring_bitmap_get_cardinality(e->rows[i]);
		in = roaring_bitmap_and_cardinality(e->rows[i], sing);
		if (b - (double) (card - in) > best)
			best = b - (double) (card - in);
	}
	if (best > (double) tapas_audit_max_positives + 1)
		return tapas_audit_max_positives + 1;
	return (int) floor(best);
}

/*
 * The samples' seed: a hash of the logged answers and their number (the
 * logged state; not the table, so two tables with the same answers to
 * the same queries draw the same samples, and not an answer of the
 * statement).
 */
static uint64
logged_seed(const TapasAuditEntry *e)
{
	return hash_bytes_extended((const unsigned char *) e->answers,
							   sizeof(double) * e->nrows, (uint64) e->nrows);
}

/* one sample: s distinct singletons, chosen by rng; x is 0/1 over A's columns */
static void
draw_sample(tapas_rng_t *rng, const uint32 *sing, int64 ns, int s, double *x,
			size_t n, int64 *supp)
{
	int			k = 0;

	memset(x, 0, sizeof(double) * n);
	while (k < s)
	{
		uint32		j = sing[tapas_rng_below(rng, (uint64) ns)];

		if (x[j] != 0.0)
			continue;
		x[j] = 1.0;
		supp[k++] = j;
	}
}

/*
 * b = A x for the 0/1 vector x of support supp[0..s-1]: m s bit reads
 * (tapas_binmat_mul reads every bit of A, m n / 2 additions).
 */
static void
sparse_product(const tapas_binmat_t *A, const int64 *supp, int s, double *b)
{
	if (!tapas_audit_fast_decoders)
	{
		/* the baseline of test/bench/audit-joint.sh: as before the cache */
		double	   *x = palloc0(sizeof(double) * A->n);

		for (int k = 0; k < s; k++)
			x[supp[k]] = 1.0;
		tapas_binmat_mul(A, x, b);
		pfree(x);
		return;
	}
	for (size_t i = 0; i < A->m; i++)
	{
		int			v = 0;

		for (int k = 0; k < s; k++)
			v += tapas_binmat_get(A, i, (size_t) supp[k]);
		b[i] = v;
	}
}

/*
 * Whether the decoder for s recovers x from b = A x: the exhaustive search
 * returns x as the only solution of weight <= s (monotone in the rows:
 * unique stays unique); the greedy decoder finds at least half of x's
 * positives (SIM_OVERLAP), not only all of them.  Exact recovery by the
 * greedy decoder is not monotone in the rows (a row more can make it miss
 * where it hit) and comes later than the LP's (test/bench/b-cs-many.c),
 * so the test asks for less: the overlap grows smoothly with the rows and
 * reaches one half well before any decoder recovers the whole support.
 * st on error.
 */
static bool
decodes(TapasAuditBatch *batch, tapas_binmat_t *A, const double *b,
		const double *x, int s, const tapas_progress_t *progress,
		double *xo, tapas_status *st)
{
	tapas_binmat_colbytes_t *P;
	int			right = 0;

	if (s <= TAPAS_SPARSE_MAX_WEIGHT)
	{
		int64	   *bi = palloc(sizeof(int64) * Max(A->m, 1));
		tapas_sparse_result res;
		bool		hit = false;

		memset(&res, 0, sizeof(res));
		for (size_t i = 0; i < A->m; i++)
			bi[i] = (int64) llround(b[i]);
		*st = tapas_sparse_search_hashed(A, tapas_audit_hashes(batch, A), bi, s, 2,
										 TAPAS_SPARSE_WORK_LIMIT, &res, progress);
		if (*st == TAPAS_OK && res.found == 1)
		{
			hit = true;
			for (int k = 0; k < 3; k++)
			{
				int64		j = res.supports[k];

				if (j >= 0 && x[j] != 1.0)
					hit = false;
			}
			hit = hit && tapas_sparse_result_weight(&res, 0) == s;
		}
		tapas_sparse_result_clear(&res);
		pfree(bi);
		if (*st != TAPAS_ELIMIT)
			return hit;
		/* too many pairs for the exhaustive search: the greedy decoder */
	}
	/*
	 * half of the positives found: a margin ahead of exact recovery; the
	 * trial stops as soon as its support holds them, or after
	 * SIM_GREEDY_STEPS steps (see sampled)
	 */
	P = tapas_audit_patterns(batch, A); /* cached across statements */
	if (tapas_audit_fast_decoders)
	{
		/*
		 * GROUP BY crossings are runs of disjoint rows: the products from
		 * those families, several times cheaper, the same trial
		 * (recon/binmat_families.h); NULL (other designs): the patterns'
		 */
		tapas_binmat_families_t *FA = tapas_audit_row_families ?
			tapas_binmat_families_create(A, A->m / 16) : NULL;

		*st = tapas_cs_bhtp_trial_families(P, FA, b, s, x,
										   (s * SIM_OVERLAP_NUM + SIM_OVERLAP_DEN - 1) / SIM_OVERLAP_DEN,
										   SIM_GREEDY_STEPS, xo, NULL, &right, progress);
		tapas_binmat_families_free(FA);
	}
	else						/* the bench's baseline: a full run */
		*st = tapas_cs_bhtp_trial(P, b, s, x, s, TAPAS_CS_BHTP_MAX_STEPS, xo, NULL,
								  &right, progress);
	if (*st != TAPAS_OK)
		return false;
	return right * SIM_OVERLAP_DEN >= s * SIM_OVERLAP_NUM;
}

/*
 * A finding: the record named is a true positive in a singleton atom if
 * there is one (the auditor knows the truth; the decision did not read
 * it), else pick (a singleton of the first recovered sample).
 */
static int
sim_finding(TapasAuditBatch *batch, int64 pick, const char *method,
			const char *detail, TapasFinding **found)
{
	TapasAuditEntry *e = batch->entry;
	TapasFinding *f = palloc0(sizeof(TapasFinding));
	int64		lim = Min((int64) e->cap_n, batch->n_total);

	for (int64 j = 0; tapas_audit_ensure_truth(e) && j < lim; j++)
	{
		int64		key = batch->keys[j];

		if (tapas_rowspace_atom_size(e->rs, (uint32) j) == 1 &&
			bsearch(&key, e->nz_keys, e->nnz, sizeof(int64), tapas_cmp_int64) != NULL)
		{
			pick = j;
			break;
		}
	}
	f->index = pick;
	f->key = batch->keys[pick];
	f->kind = TAPAS_ALERT_RECONSTRUCTED;
	f->method = method;
	strlcpy(f->detail, detail, sizeof(f->detail));
	*found = f;
	return 1;
}

/* the samples of a decision for s positives */
static int
samples_of(int s)
{
	if (s <= TAPAS_SPARSE_MAX_WEIGHT || !tapas_audit_fast_decoders)
		return SIM_SAMPLES;
	return SIM_GREEDY_SAMPLES;
}

/*
 * Runs the sampled test; returns the number of samples recovered (0 if
 * none), or -1 with *why set.
 */
static int
sampled(TapasAuditBatch *batch, const uint32 *sing, int64 ns, int s,
		const tapas_progress_t *progress, bool *expired, int64 *supp,
		const char **why)
{
	TapasAuditEntry *e = batch->entry;
	double	   *bdummy;
	tapas_binmat_t *A = tapas_audit_matrix(batch, &bdummy);
	double	   *x = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(double) * A->n);
	double	   *xo = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(double) * A->n);
	double	   *b = palloc(sizeof(double) * A->m);
	int64	   *sx = palloc(sizeof(int64) * s);
	tapas_rng_t rng;
	int			hits = 0;
	tapas_status st = TAPAS_OK;

	tapas_rng_seed(&rng, logged_seed(e));
	/*
	 * The first sample recovered decides: the statement is refused.  The
	 * greedy decoder gets one sample of SIM_GREEDY_STEPS steps, so that a
	 * trial that misses (every statement between the trigger and the
	 * recovery threshold: hundreds of rows at s = 100) costs a few
	 * products A^T r, and hundreds of positives fit the budget.  Why
	 * that loses little: on Bernoulli(1/2) designs at n = 100,000, s = 100
	 * (4 seeds per m, m = 700 .. 1,200), every trial whose support reached
	 * half of the positives did so by its second step, and every trial
	 * that had not reached it after 6 steps ended below half when run to
	 * convergence (13 to 32 steps); half of the positives is reached at
	 * m = 1,000 and exact recovery at m = 1,200.  The false-negative bound
	 * of one sample: if a fraction p of the supports of weight s is
	 * recovered exactly and a fraction q >= p reaches half, then a
	 * statement passes while the attacker's decoder recovers the truth (a
	 * support the attacker's prior draws like the sample) with
	 * probability at most p (1 - q) <= p (1 - p) <= 1/4, and the measured
	 * q is 1 wherever p > 0 (the half comes about a fifth of the rows
	 * earlier), so in practice the refusal precedes the recovery.
	 */
	for (int r = 0; r < samples_of(s) && st == TAPAS_OK &&
		 (hits == 0 || !tapas_audit_fast_decoders); r++)
	{
		bool		ok;

		draw_sample(&rng, sing, ns, s, x, A->n, sx);
		sparse_product(A, sx, s, b);
		CHECK_FOR_INTERRUPTS();
		ok = decodes(batch, A, b, x, s, progress, xo, &st);
		if (ok && st == TAPAS_OK && hits++ == 0)
			memcpy(supp, sx, sizeof(int64) * s);
	}
	tapas_audit_matrix_done(e);
	pfree(x);
	pfree(xo);
	pfree(b);
	pfree(bdummy);
	pfree(sx);
	if (st == TAPAS_ECANCELED && *expired)
	{
		*why = "a reconstruction check did not finish within the audit budget";
		return -1;
	}
	CHECK_FOR_INTERRUPTS();
	if (st != TAPAS_OK)
	{
		*why = "a reconstruction decoder failed";
		return -1;
	}
	return hits;
}

/*
 * Deny mode: the simulatable decoder decision for a 0/1 class.  Returns
 * 1 (one finding in *found) when the statement must be refused, 0 when
 * it passes, 0 with *why set when the check cannot complete.
 */
int
tapas_audit_simulated(TapasAuditBatch *batch, TapasFinding **found,
					  TimestampTz deadline, const char **why)
{
	TapasAuditEntry *e = batch->entry;
	int			s;
	roaring_bitmap_t *singmap;
	/* 0/1 values: by the truth when it was read, else by the form (a count) */
	bool		binary = e->cls->usable ? e->cls->binary
		: strncmp(e->cls->rep, "count(", 6) == 0;
	uint32	   *sing;
	int64		ns;
	double		m = e->nrows + batch->ncells;
	int64	   *supp;
	int			hits;
	const char *design;
	const char *method;
	char		detail[TAPAS_ALERT_DETAIL_LEN];
	TapasAuditDeadline darg;
	tapas_progress_t progress;

	*found = NULL;
	if (e->rs == NULL || e->rs_broken || batch->ncells == 0)
		return 0;
	/* no singleton atom: no decoder can tell any record from another */
	ns = singletons(batch, &sing);
	if (ns == 0)
		return 0;
	singmap = roaring_bitmap_of_ptr((size_t) ns, sing);
	if (binary)
	{
		roaring_bitmap_t *forced = forced_ones(e);

		/* only the free singletons: the forced ones are known already */
		roaring_bitmap_andnot_inplace(singmap, forced);
		ns = (int64) roaring_bitmap_get_cardinality(singmap);
		roaring_bitmap_to_uint32_array(singmap, sing);
		roaring_bitmap_free(forced);
	}
	s = ns > 0 ? logged_lower_bound(e, singmap) : 0;
	roaring_bitmap_free(singmap);
	if (ns == 0)
		return 0;
	/* the design's own decoders: complete designs decode any answers */
	if ((design = tapas_audit_designs_complete(batch, Max(s, 1), binary, detail)) != NULL)
		return sim_finding(batch, sing[0], design, detail, found);
	if (!binary || s < 2)
		return 0;				/* the candidates test decides s <= 1 */
	if (ns < s || m < floor(log2_binom((double) ns, s) / log2(s + 1.0)))
		return 0;
	if (s > tapas_audit_max_positives)
	{
		*why = "more positives than the reconstruction decoders cover";
		return 0;
	}
	deadline += tapas_audit_warm(batch, s > TAPAS_SPARSE_MAX_WEIGHT, s <= TAPAS_SPARSE_MAX_WEIGHT);
	if (GetCurrentTimestamp() > deadline)
	{
		*why = "the audit budget was spent before a reconstruction check";
		return 0;
	}
	darg.deadline = deadline;
	darg.expired = false;
	progress.fn = tapas_audit_deadline_progress;
	progress.arg = &darg;
	supp = palloc(sizeof(int64) * s);
	hits = sampled(batch, sing, ns, s, &progress, &darg.expired, supp, why);
	if (hits <= 0)
		return 0;
	method = s <= TAPAS_SPARSE_MAX_WEIGHT ? "simulated_sparse_search" : "simulated_bhtp";
	snprintf(detail, sizeof(detail),
			 "%s recovers a random vector (of up to %d tried) with %d positives among the %lld singleton records from these %d queries (simulatable: no answer read)",
			 method, samples_of(s), s, (long long) ns, (int) m);
	return sim_finding(batch, supp[0], method, detail, found);
}
