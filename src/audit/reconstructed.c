/*-------------------------------------------------------------------------
 *
 * reconstructed.c
 *	  Data-aware audit: would a decoder, run on the logged answers plus the
 *	  candidate cells, recover the true rare values of some records?
 *
 * The auditor knows the truth v (the per-row value of the statistic) and
 * the ledger's answers b, which are what the analyst received.  So if a
 * decoder maps (A, b) to the true v on some records, the analyst can run
 * the same decoder: those records are reconstructed (DESIGN.md section 2).
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
 *	OMP (4 <= w <= 32; recon/cs.h): orthogonal matching pursuit with
 *	  sparsity w, rounded to 0/1; if it returns exactly the truth and is
 *	  consistent with every answer, its support is reconstructed (method
 *	  "omp").  Trigger: m >= w log2(n / w), below which no decoder can
 *	  single out w of n records (OMP typically needs about twice that on
 *	  Bernoulli designs; it runs on every answer from the trigger on).
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
 * The truth.  The statistic text (capture/normalise.c: "count(*)",
 * "count(x)", "sum(x)", optionally " filter (where S)") is turned back into
 * the per-row value v, and "SELECT key, v FROM ONLY tbl WHERE v <> 0 LIMIT
 * 65" is run through SPI in a subtransaction, with the capture bypassed
 * (tapas_internal_read) so the auditor's own read is neither refused nor
 * logged.  Errors of that read (e.g. a division by zero on some row) are
 * swallowed, never shown to the analyst: the truth is then unusable for
 * this statistic.  Statistics calling functions that are not built in are
 * never evaluated (they would run with the bypass on).  The result is
 * cached in the entry and re-read when the table's change counters move
 * (cumulative statistics plus this backend's pending counts; other
 * backends publish theirs within seconds) or after 10 seconds.
 *
 * IDENTIFICATION
 *	  src/audit/reconstructed.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "pgstat.h"
#include "access/sysattr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "capture/capture.h"
#include "recon/binmat.h"
#include "recon/cs.h"
#include "recon/sparse_search.h"
#include "tapas.h"

#define TRUTH_MAX_NONZERO	64	/* more positives: not rare, no decoder */
#define TRUTH_TTL_US		(10 * USECS_PER_SEC)
#define CS_MAX_WEIGHT		32

/* ----------------------------------------------------------------
 *		Statistic text -> per-row value
 * ----------------------------------------------------------------
 */

/* index of the ')' closing the '(' at s[open], skipping quoted text; -1 */
static int
matching_paren(const char *s, int open)
{
	int			depth = 0;
	char		quote = 0;

	for (int i = open; s[i]; i++)
	{
		if (quote)
		{
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '\'' || s[i] == '"')
			quote = s[i];
		else if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i;
	}
	return -1;
}

/* SQL of v for a statistic text, or NULL if the text is not understood */
static char *
statistic_value_sql(const char *stat)
{
	const char *filter_kw = " filter (where ";
	char	   *base;
	int			close;
	const char *rest;

	if (strncmp(stat, "count(*)", 8) == 0)
	{
		base = pstrdup("1");
		rest = stat + 8;
	}
	else if (strncmp(stat, "count(", 6) == 0 || strncmp(stat, "sum(", 4) == 0)
	{
		int			open = stat[0] == 'c' ? 5 : 3;
		char	   *x;

		close = matching_paren(stat, open);
		if (close < 0)
			return NULL;
		x = pnstrdup(stat + open + 1, close - open - 1);
		base = stat[0] == 'c'
			? psprintf("CASE WHEN (%s) IS NOT NULL THEN 1 ELSE 0 END", x)
			: psprintf("COALESCE(((%s))::float8, 0)", x);
		rest = stat + close + 1;
	}
	else
		return NULL;
	if (*rest == '\0')
		return base;
	if (strncmp(rest, filter_kw, strlen(filter_kw)) != 0)
		return NULL;
	close = matching_paren(rest, 8);
	if (close < 0 || rest[close + 1] != '\0')
		return NULL;
	return psprintf("CASE WHEN (%s) THEN %s ELSE 0 END",
					pnstrdup(rest + 15, close - 15), base);
}

static bool
not_builtin(Oid funcid, void *context)
{
	return funcid >= FirstNormalObjectId;
}

/* "FROM ONLY schema.table" of relid */
static char *
relation_sql(Oid relid)
{
	return psprintf("ONLY %s.%s",
					quote_identifier(get_namespace_name(get_rel_namespace(relid))),
					quote_identifier(get_rel_name(relid)));
}

/*
 * Parse analysis of sql in a subtransaction: NULL on any error (which is
 * not shown; the statement being audited goes on), except a cancel.
 */
static Query *
analyse_quietly(const char *sql)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Query	   *volatile q = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		List	   *raw = raw_parser(sql, RAW_PARSE_DEFAULT);

		if (list_length(raw) == 1)
			q = parse_analyze_fixedparams(linitial_node(RawStmt, raw), sql, NULL, 0, NULL);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(caller);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(err);
		FreeErrorData(err);
		return NULL;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return q;
}

/*
 * Sets e->sensitive (v reads a sensitive column) and e->vexpr (NULL when v
 * cannot be evaluated safely).  An expression that cannot be analysed is
 * treated as sensitive.
 */
void
tapas_audit_prepare_statistic(TapasAuditEntry *e)
{
	const TapasProtection *prot = tapas_protection_lookup(e->key.relid);
	char	   *v = statistic_value_sql(e->key.statistic);
	char	   *sql;
	Query	   *q;
	Node	   *expr;
	Bitmapset  *attnos = NULL;
	int			a = -1;

	e->sensitive = true;
	e->vexpr = NULL;
	if (prot == NULL || v == NULL)
		return;
	sql = psprintf("SELECT (%s)::float8 FROM %s", v, relation_sql(e->key.relid));
	q = analyse_quietly(sql);
	if (q == NULL || q->commandType != CMD_SELECT || list_length(q->targetList) != 1)
		return;
	expr = (Node *) linitial_node(TargetEntry, q->targetList)->expr;
	pull_varattnos(expr, 1, &attnos);
	e->sensitive = false;
	while ((a = bms_next_member(attnos, a)) >= 0)
		if (bms_is_member(a + FirstLowInvalidHeapAttributeNumber, prot->sensitive))
			e->sensitive = true;
	if (!check_functions_in_node(expr, not_builtin, NULL))
		e->vexpr = MemoryContextStrdup(tapas_audit_cxt(), v);
}

/* ----------------------------------------------------------------
 *		The truth
 * ----------------------------------------------------------------
 */

/* changes to relid known to this backend (shared counters + own pending) */
static int64
table_change_stamp(Oid relid)
{
	PgStat_StatTabEntry *t;
	PgStat_TableStatus *own;
	int64		stamp = 0;

	pgstat_clear_snapshot();
	t = pgstat_fetch_stat_tabentry(relid);
	if (t != NULL)
		stamp += t->tuples_inserted + t->tuples_updated + t->tuples_deleted;
	own = find_tabstat_entry(relid);
	if (own != NULL)
	{
		stamp += own->t_counts.t_tuples_inserted + own->t_counts.t_tuples_updated +
			own->t_counts.t_tuples_deleted;
		for (PgStat_TableXactStatus *x = own->trans; x != NULL; x = x->upper)
			stamp += x->tuples_inserted + x->tuples_updated + x->tuples_deleted;
	}
	return stamp;
}

/* runs the truth query; false (and nothing kept) on any error */
static bool
read_truth(TapasAuditEntry *e, const char *sql)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	tapas_internal_read++;
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		if (SPI_execute(sql, true, TRUTH_MAX_NONZERO + 1) != SPI_OK_SELECT)
			elog(ERROR, "truth query failed");
		e->nnz = (int) SPI_processed;
		e->truth_binary = true;
		e->nz_keys = MemoryContextAlloc(tapas_audit_cxt(), sizeof(int64) * Max(e->nnz, 1));
		e->nz_vals = MemoryContextAlloc(tapas_audit_cxt(), sizeof(double) * Max(e->nnz, 1));
		for (int i = 0; i < e->nnz; i++)
		{
			bool		n1,
						n2;
			HeapTuple	tup = SPI_tuptable->vals[i];

			e->nz_keys[i] = DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &n1));
			e->nz_vals[i] = DatumGetFloat8(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &n2));
			if (n1 || n2 || e->nz_vals[i] != 1.0)
				e->truth_binary = false;
		}
		SPI_finish();
		ReleaseCurrentSubTransaction();
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(caller);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		tapas_internal_read--;
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		/* a cancel must still cancel; any other error stays hidden */
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(err);
		FreeErrorData(err);
		return false;
	}
	PG_END_TRY();
	tapas_internal_read--;
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/* makes e's truth cache current; false if the truth is unusable */
static bool
ensure_truth(TapasAuditEntry *e)
{
	const TapasProtection *prot;
	int64		stamp;
	const char *key;
	char	   *sql;

	if (e->vexpr == NULL || !e->sensitive)
		return false;
	stamp = table_change_stamp(e->key.relid);
	if (e->truth == TRUTH_OK && stamp == e->truth_stamp)
		return true;
	if (e->truth == TRUTH_UNUSABLE && stamp == e->truth_stamp)
		return false;
	prot = tapas_protection_lookup(e->key.relid);
	if (prot == NULL)
		return false;
	if (e->nz_keys)
		pfree(e->nz_keys);
	if (e->nz_vals)
		pfree(e->nz_vals);
	e->nz_keys = NULL;
	e->nz_vals = NULL;
	e->nnz = 0;
	key = quote_identifier(get_attname(e->key.relid, prot->key_attno, false));
	sql = psprintf("SELECT (%s)::int8, v FROM (SELECT %s, (%s)::float8 AS v FROM %s) t WHERE v <> 0",
				   key, key, e->vexpr, relation_sql(e->key.relid));
	e->truth_stamp = stamp;
	e->truth = read_truth(e, sql) ? TRUTH_OK : TRUTH_UNUSABLE;
	return e->truth == TRUTH_OK;
}

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
static tapas_binmat_t *
build_matrix(TapasAuditBatch *batch, double **b)
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

/* the cached matrix back to its capacity (batch rows are rewritten next time) */
static void
matrix_done(TapasAuditEntry *e)
{
	if (e->A != NULL)
		e->A->m = e->A_cap;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a,
				y = *(const int64 *) b;

	return x < y ? -1 : x > y;
}

/* the truth's support among the batch's dense indices (sorted); its size */
static int
truth_support(TapasAuditBatch *batch, int64 **supp)
{
	TapasAuditEntry *e = batch->entry;
	int64	   *idx = palloc(sizeof(int64) * Max(e->nnz, 1));
	int			w = 0;

	*supp = idx;
	/* indexed keys through the ledger; the batch's new keys by a scan */
	(void) tapas_ledger_key_indices(e->key.relid, e->nz_keys, e->nnz, idx);
	for (int i = 0; i < e->nnz; i++)
	{
		if (idx[i] >= e->nkeys)
			idx[i] = -1;		/* indexed after our sync: not in this batch */
		for (int64 j = e->nkeys; idx[i] < 0 && j < batch->n_total; j++)
			if (batch->keys[j] == e->nz_keys[i])
				idx[i] = j;
	}
	for (int i = 0; i < e->nnz; i++)
		if (idx[i] >= 0)
			idx[w++] = idx[i];
	qsort(idx, w, sizeof(int64), cmp_int64);
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
typedef struct DeadlineArg
{
	TimestampTz deadline;
	bool		expired;
} DeadlineArg;

static int
deadline_progress(void *arg, double fraction)
{
	DeadlineArg *d = (DeadlineArg *) arg;

	if (InterruptPending)
		return 1;
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
	st = tapas_sparse_search(A, bi, w, 2, TAPAS_SPARSE_WORK_LIMIT, &res, progress);
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

static int
run_omp(TapasAuditBatch *batch, tapas_binmat_t *A, const double *b,
		const int64 *supp, int w, const tapas_progress_t *progress,
		TapasFinding **found)
{
	double	   *x = MemoryContextAllocHuge(CurrentMemoryContext,
										   sizeof(double) * A->n);
	tapas_cs_report rep;
	tapas_status st;
	int			k = 0;
	bool		hit;
	char		detail[TAPAS_ALERT_DETAIL_LEN];

	st = tapas_cs_recover(A, b, w, 0.0, TAPAS_CS_OMP, 1, x, &rep, progress);
	hit = (st == TAPAS_OK && rep.consistent);
	for (size_t j = 0; hit && j < A->n; j++)
	{
		bool		in = (k < w && supp[k] == (int64) j);

		if (in)
			k++;
		if (x[j] != (in ? 1.0 : 0.0))
			hit = false;
	}
	pfree(x);
	if (!hit || k != w)
		return 0;
	snprintf(detail, sizeof(detail),
			 "orthogonal matching pursuit (sparsity %d) on the %zu answers returns exactly the true values",
			 w, A->m);
	return add_findings(batch, supp, w, "omp", detail, found);
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
 * *skipped is set when a triggered check was skipped for the deadline.
 */
int
tapas_audit_reconstructed(TapasAuditBatch *batch, TapasFinding **found,
						  TimestampTz deadline, bool *skipped)
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
	DeadlineArg darg;
	tapas_progress_t progress;

	*found = NULL;
	if (!ensure_truth(e) || e->nnz == 0 || e->nnz > TRUTH_MAX_NONZERO)
		return 0;
	w = truth_support(batch, &supp);
	if (w == 0)
		return 0;
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
	omp_trigger = w > TAPAS_SPARSE_MAX_WEIGHT && w <= CS_MAX_WEIGHT &&
		m >= w * log2(n / w);
	if (!sparse_trigger && !omp_trigger)
		return tapas_audit_designs(batch, supp, w, found);
	if (GetCurrentTimestamp() > deadline)
	{
		*skipped = true;
		return tapas_audit_designs(batch, supp, w, found);
	}
	darg.deadline = deadline;
	darg.expired = false;
	progress.fn = deadline_progress;
	progress.arg = &darg;
	A = build_matrix(batch, &b);
	if (sparse_trigger)
		nf = run_sparse_search(batch, A, b, supp, w, &progress, found);
	else
		nf = run_omp(batch, A, b, supp, w, &progress, found);
	matrix_done(e);
	pfree(b);
	if (darg.expired)
		*skipped = true;
	CHECK_FOR_INTERRUPTS();
	if (nf == 0)
		nf = tapas_audit_designs(batch, supp, w, found);
	return nf;
}
