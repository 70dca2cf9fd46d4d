/*-------------------------------------------------------------------------
 *
 * designs.c
 *	  Design-aware audit: recognise logged rows of a BCH or Hadamard attack
 *	  design and run that design's own decoder on the logged answers.
 *
 * An analyst running tapas.design_member(method, n, s, q, id, k) in WHERE
 * numbers the records by their key (record = key).  Under that order, a
 * logged row (its covered set, a CRoaring bitmap over the ledger's dense
 * indices, mapped to keys through the entry's key array) is recognised as
 *	  bch			base row r = t q + b (t < 64), or its complement;
 *	  hadamard		base row r of the Sylvester design, or its complement;
 *	  total			every record with key 1..n (the k rewrite's total query,
 *					and Hadamard row 0),
 * with n the largest key of the table (BCH: n < 2^22, whose field tables
 * take at most 32 MB; a design over a larger n with the
 * same field degree q covers the same existing records; for Hadamard, rows
 * r and r mod N agree on the records 1..n).  Recognition is cheap and
 * sound: a 64-bit signature over the keys 1..64 (and, for Hadamard, the
 * keys 2^i + 1, which spell the row number) selects at most a few candidate
 * rows, and a candidate is accepted only when the full design row, built
 * over every dense index, equals the logged bitmap.  The tag of each
 * logged row is cached in the entry per (log_id, n), so each row is
 * classified once; the statement's own cells are classified each time.
 *
 * Decoding.  A complemented row gives its base answer as total minus the
 * complement's answer, so it needs the total query.  BCH: with s' the
 * largest number of complete blocks t = 0..s'-1 (all q rows of each), the
 * parities give the odd syndromes and the Berlekamp-Massey decoder
 * (recon/bch.h) returns a support of weight <= s'; with fewer rows it
 * cannot decode, and no alert is raised.  Hadamard: all N = 2^ceil(log2 n)
 * base answers, then the exact integer decoder (recon/hadamard.h).  A
 * record is reported (method "bch" / "hadamard") only when the decoded
 * values equal the truth on every record 1..n it speaks of and the
 * decoded x reproduces every logged and candidate answer of the statistic,
 * design row or not.  The rank order of keys is not tried.
 *
 * The caller (reconstructed.c) runs this after the truth and atom gates,
 * so GROUP BY workloads never reach it, and only when the generic decoders
 * found nothing: a record is alerted once, by the first method that finds
 * it.  It is cheap (each row classified once, decoding in microseconds),
 * so, like the single-positive test, it runs on every answer.
 *
 * IDENTIFICATION
 *	  src/audit/designs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "audit/audit_int.h"
#include "recon/bch.h"
#include "recon/hadamard.h"

#define DESIGN_SIG_KEYS			64	/* keys 1..64 form the signature */
#define DESIGN_MIN_SIG_BITS		16	/* fewer known signature keys: no recognition */
#define DESIGN_BCH_MAX_S		64	/* BCH blocks t = 0..63 are recognised */
#define DESIGN_HADAMARD_KEYS	24	/* keys 2^i + 1, i < 24, spell a Hadamard row */
#define DESIGN_BCH_MAX_N		(((int64) 1 << 22) - 1) /* field tables <= 32 MB */

/* the recognition design of the last n (per backend) */
static tapas_bch_t *rec_bch = NULL;
static int64 rec_n = 0;
static int	rec_s = 0;
static uint64 *rec_sig = NULL;	/* [rec_bch->m] signature of each base row */

/* one call's view of the records */
typedef struct DesignView
{
	TapasAuditBatch *batch;
	int64		n;				/* design size: the largest key */
	int64		sig_idx[DESIGN_SIG_KEYS];	/* dense index of key j + 1, or -1 */
	int64		had_idx[DESIGN_HADAMARD_KEYS];	/* dense index of key 2^i + 1, or -1 */
	uint64		mask;			/* signature bits whose key exists */
	roaring_bitmap_t *universe; /* dense indices with key 1..n (lazy) */
	uint64		nuniverse;
	bool		bch_ok;			/* rec_bch is for n */
} DesignView;

/* one row: its bitmap, answer and tags */
typedef struct DesignRow
{
	const roaring_bitmap_t *r;
	double		answer;
	int32		bch;
	int32		had;
} DesignRow;

/* dense indices of keys (-1 if unknown), including the batch's new keys */
static void
key_indices(TapasAuditBatch *batch, const int64 *keys, int nk, int64 *idx)
{
	TapasAuditEntry *e = batch->entry;

	(void) tapas_ledger_key_indices(e->key.relid, keys, nk, idx);
	for (int i = 0; i < nk; i++)
	{
		if (idx[i] >= e->nkeys || idx[i] >= batch->n_total)
			idx[i] = -1;
		for (int64 j = e->nkeys; idx[i] < 0 && j < batch->n_total; j++)
			if (batch->keys[j] == keys[i])
				idx[i] = j;
	}
}

/* builds the per-backend BCH recognition design and signatures for n */
static bool
ensure_rec_bch(int64 n)
{
	int			q;
	int			s;
	tapas_status st;

	if (rec_bch != NULL && rec_n == n)
		return true;
	tapas_bch_free(rec_bch);
	rec_bch = NULL;
	if (rec_sig)
		pfree(rec_sig);
	rec_sig = NULL;
	rec_n = 0;
	if (n < 1 || n > DESIGN_BCH_MAX_N)
		return false;
	q = tapas_bch_degree(n);
	s = (int) Min((int64) DESIGN_BCH_MAX_S, ((((int64) 1) << q) - 1) / 2);
	if (s < 1)
		return false;
	rec_bch = tapas_bch_create(n, s, &st);
	if (rec_bch == NULL)
		return false;
	rec_s = s;
	rec_n = n;
	rec_sig = MemoryContextAllocZero(tapas_audit_cxt(), sizeof(uint64) * rec_bch->m);
	for (int r = 0; r < rec_bch->m; r++)
		for (int64 j = 1; j <= Min(n, DESIGN_SIG_KEYS); j++)
			if (tapas_bch_member(rec_bch, r, j))
				rec_sig[r] |= UINT64CONST(1) << (j - 1);
	return true;
}

static void
ctx_init(DesignView *c, TapasAuditBatch *batch)
{
	int64		keys[DESIGN_SIG_KEYS + DESIGN_HADAMARD_KEYS];

	memset(c, 0, sizeof(*c));
	c->batch = batch;
	for (int64 j = 0; j < batch->n_total; j++)
		c->n = Max(c->n, batch->keys[j]);
	for (int i = 0; i < DESIGN_SIG_KEYS; i++)
		keys[i] = i + 1;
	for (int i = 0; i < DESIGN_HADAMARD_KEYS; i++)
		keys[DESIGN_SIG_KEYS + i] = ((int64) 1 << i) + 1;
	{
		int64		idx[DESIGN_SIG_KEYS + DESIGN_HADAMARD_KEYS];

		key_indices(batch, keys, DESIGN_SIG_KEYS + DESIGN_HADAMARD_KEYS, idx);
		for (int i = 0; i < DESIGN_SIG_KEYS; i++)
		{
			c->sig_idx[i] = keys[i] <= c->n ? idx[i] : -1;
			if (c->sig_idx[i] >= 0)
				c->mask |= UINT64CONST(1) << i;
		}
		for (int i = 0; i < DESIGN_HADAMARD_KEYS; i++)
			c->had_idx[i] = keys[DESIGN_SIG_KEYS + i] <= c->n ? idx[DESIGN_SIG_KEYS + i] : -1;
	}
	for (int64 j = 0; j < batch->n_total; j++)
		if (batch->keys[j] >= 1 && batch->keys[j] <= c->n)
			c->nuniverse++;
	c->bch_ok = c->n >= 3 && ensure_rec_bch(c->n);
}

/* whether r equals design row (method, row, complemented) over all records */
static bool
row_equals_design(DesignView *c, const roaring_bitmap_t *r, bool bch, int64 row, bool comp)
{
	TapasAuditBatch *batch = c->batch;
	roaring_bitmap_t *d = roaring_bitmap_create();
	bool		eq;

	for (int64 j = 0; j < batch->n_total; j++)
	{
		int64		key = batch->keys[j];
		int			in;

		if (key < 1 || key > c->n)
			continue;
		in = bch ? tapas_bch_member(rec_bch, (int) row, key)
			: tapas_hadamard_member(c->n, row, key);
		if (in != (int) comp)
			roaring_bitmap_add(d, (uint32) j);
		if ((j & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	eq = roaring_bitmap_equals(r, d);
	roaring_bitmap_free(d);
	return eq;
}

/* the Hadamard tag of r (2 row + complemented), or TAPAS_DESIGN_TAG_NONE */
static int32
classify_hadamard(DesignView *c, const roaring_bitmap_t *r, uint64 sig)
{
	int64		N = tapas_hadamard_order(c->n);
	int			L = 0;
	int64		row = 0;
	bool		comp;
	uint64		dsig = 0;

	if (N < 2 || N > PG_INT32_MAX / 2 || c->sig_idx[0] < 0)
		return TAPAS_DESIGN_TAG_NONE;
	while (((int64) 1 << L) < N)
		L++;
	/* key 1 is in every base row */
	comp = !roaring_bitmap_contains(r, (uint32) c->sig_idx[0]);
	for (int i = 0; i < L; i++)
	{
		bool		in;

		if (c->had_idx[i] < 0)
			return TAPAS_DESIGN_TAG_NONE;
		in = roaring_bitmap_contains(r, (uint32) c->had_idx[i]);
		/* key 2^i + 1 is in base row r iff bit i of r is 0 */
		if (in == comp)
			row |= (int64) 1 << i;
	}
	if (row == 0)
		return TAPAS_DESIGN_TAG_NONE;	/* the total is tagged apart */
	for (int64 j = 1; j <= Min(c->n, DESIGN_SIG_KEYS); j++)
		if (tapas_hadamard_member(c->n, row, j) != (int) comp)
			dsig |= UINT64CONST(1) << (j - 1);
	if (((dsig ^ sig) & c->mask) != 0 || !row_equals_design(c, r, false, row, comp))
		return TAPAS_DESIGN_TAG_NONE;
	return (int32) (2 * row + (comp ? 1 : 0));
}

/* the BCH tag of r (2 row + complemented), or TAPAS_DESIGN_TAG_NONE */
static int32
classify_bch(DesignView *c, const roaring_bitmap_t *r, uint64 sig)
{
	if (!c->bch_ok)
		return TAPAS_DESIGN_TAG_NONE;
	for (int row = 0; row < rec_bch->m; row++)
	{
		for (int comp = 0; comp <= 1; comp++)
		{
			uint64		dsig = comp ? ~rec_sig[row] : rec_sig[row];

			if (((dsig ^ sig) & c->mask) == 0 &&
				row_equals_design(c, r, true, row, comp))
				return (int32) (2 * row + comp);
		}
	}
	return TAPAS_DESIGN_TAG_NONE;
}

static void
classify(DesignView *c, const roaring_bitmap_t *r, int32 *bch, int32 *had)
{
	uint64		sig = 0;

	*bch = *had = TAPAS_DESIGN_TAG_NONE;
	if (c->nuniverse == 0)
		return;
	if (roaring_bitmap_get_cardinality(r) == c->nuniverse)
	{
		if (c->universe == NULL)
		{
			c->universe = roaring_bitmap_create();
			for (int64 j = 0; j < c->batch->n_total; j++)
				if (c->batch->keys[j] >= 1 && c->batch->keys[j] <= c->n)
					roaring_bitmap_add(c->universe, (uint32) j);
		}
		if (!roaring_bitmap_equals(r, c->universe))
			return;

		*bch = *had = TAPAS_DESIGN_TAG_TOTAL;
		return;
	}
	if (__builtin_popcountll(c->mask) < DESIGN_MIN_SIG_BITS)
		return;
	for (int i = 0; i < DESIGN_SIG_KEYS; i++)
		if (c->sig_idx[i] >= 0 && roaring_bitmap_contains(r, (uint32) c->sig_idx[i]))
			sig |= UINT64CONST(1) << i;
	*had = classify_hadamard(c, r, sig);
	*bch = classify_bch(c, r, sig);
}

/* tags of the logged rows (cached per log_id and n) and of the batch's rows */
static DesignRow *
tag_rows(DesignView *c, int *nrows, roaring_bitmap_t ***brows)
{
	TapasAuditBatch *batch = c->batch;
	TapasAuditEntry *e = batch->entry;
	int			m = e->nrows + batch->ncells;
	DesignRow	   *rows = palloc(sizeof(DesignRow) * Max(m, 1));

	if (e->design_tags_max < e->nrows)
	{
		int			nmax = Max(64, 2 * e->nrows);

		e->design_tags = e->design_tags ? repalloc(e->design_tags, sizeof(TapasDesignTag) * nmax)
			: MemoryContextAlloc(tapas_audit_cxt(), sizeof(TapasDesignTag) * nmax);
		for (int i = e->design_tags_max; i < nmax; i++)
			e->design_tags[i].log_id = -1;
		e->design_tags_max = nmax;
	}
	for (int i = 0; i < e->nrows; i++)
	{
		TapasDesignTag *t = &e->design_tags[i];

		if (t->log_id != e->log_ids[i] || t->n != c->n)
		{
			classify(c, e->rows[i], &t->bch, &t->had);
			t->log_id = e->log_ids[i];
			t->n = c->n;
		}
		rows[i].r = e->rows[i];
		rows[i].answer = e->answers[i];
		rows[i].bch = t->bch;
		rows[i].had = t->had;
	}
	*brows = palloc(sizeof(roaring_bitmap_t *) * Max(batch->ncells, 1));
	for (int i = 0; i < batch->ncells; i++)
	{
		DesignRow	   *row = &rows[e->nrows + i];

		(*brows)[i] = roaring_bitmap_of_ptr(batch->offsets[i + 1] - batch->offsets[i],
											batch->ids + batch->offsets[i]);
		row->r = (*brows)[i];
		row->answer = batch->answers[i];
		classify(c, row->r, &row->bch, &row->had);
	}
	*nrows = m;
	return rows;
}

/*
 * Base answers val[0..nbase-1] of a design from its tagged rows (tag
 * chosen by is_bch); got[r] says which are known.  False when two rows
 * give one base answer differently.
 */
static bool
base_answers(DesignRow *rows, int m, bool is_bch, int64 nbase, double *val, bool *got)
{
	double	   *cval = palloc(sizeof(double) * nbase);
	bool	   *cgot = palloc0(sizeof(bool) * nbase);
	bool		have_total = false;
	double		total = 0;

	memset(got, 0, sizeof(bool) * nbase);
	for (int i = 0; i < m; i++)
	{
		int32		tag = is_bch ? rows[i].bch : rows[i].had;
		int64		r = tag >> 1;

		if (tag == TAPAS_DESIGN_TAG_TOTAL)
		{
			if (have_total && total != rows[i].answer)
				return false;
			have_total = true;
			total = rows[i].answer;
		}
		if (tag < 0 || r >= nbase)
			continue;
		if (tag & 1)
		{
			cval[r] = rows[i].answer;
			cgot[r] = true;
		}
		else
		{
			if (got[r] && val[r] != rows[i].answer)
				return false;
			val[r] = rows[i].answer;
			got[r] = true;
		}
	}
	if (!is_bch && have_total && nbase > 0)
	{
		val[0] = total;			/* Hadamard row 0 is the total */
		got[0] = true;
	}
	for (int64 r = 0; r < nbase; r++)
		if (cgot[r] && have_total)
		{
			if (got[r] && val[r] != total - cval[r])
				return false;
			val[r] = total - cval[r];
			got[r] = true;
		}
	pfree(cval);
	pfree(cgot);
	return true;
}

/* whether x (values xv at dense indices xi) reproduces every row's answer */
static bool
consistent(DesignRow *rows, int m, const int64 *xi, const double *xv, int nx)
{
	for (int i = 0; i < m; i++)
	{
		double		sum = 0;

		for (int k = 0; k < nx; k++)
			if (roaring_bitmap_contains(rows[i].r, (uint32) xi[k]))
				sum += xv[k];
		if (fabs(sum - rows[i].answer) > 1e-6 * Max(1.0, fabs(rows[i].answer)))
			return false;
	}
	return true;
}

/* BCH: the decoded support, if decodable, equals the truth's keys */
static bool
decode_bch(DesignView *c, DesignRow *rows, int m, const int64 *supp, int w, int *s_used)
{
	int			q = rec_bch->q;
	int64		nbase = rec_bch->m;
	double	   *val = palloc(sizeof(double) * nbase);
	bool	   *got = palloc(sizeof(bool) * nbase);
	int			s = 0;
	uint8	   *parity;
	uint32	   *syn;
	int64	   *dec;
	int			weight = 0;
	tapas_bch_t *bch;
	tapas_status st;
	bool		ok;

	if (!base_answers(rows, m, true, nbase, val, got))
		return false;
	while (s < rec_s)
	{
		bool		all = true;

		for (int b = 0; b < q; b++)
			all = all && got[s * q + b];
		if (!all)
			break;
		s++;
	}
	if (s < 1 || s < w)
		return false;			/* weight w needs at least w blocks */
	parity = palloc(s * q);
	for (int r = 0; r < s * q; r++)
	{
		if (val[r] < 0 || val[r] != floor(val[r]))
			return false;
		parity[r] = (uint8) (((int64) val[r]) & 1);
	}
	bch = tapas_bch_create(c->n, s, &st);
	if (bch == NULL)
		return false;
	syn = palloc(sizeof(uint32) * s);
	dec = palloc(sizeof(int64) * s);
	tapas_bch_pack_syndromes(bch, parity, syn);
	st = tapas_bch_decode(bch, syn, dec, &weight);
	tapas_bch_free(bch);
	ok = (st == TAPAS_OK && weight == w);
	/* supp is sorted by dense index: compare as key sets */
	for (int i = 0; ok && i < w; i++)
	{
		bool		found = false;

		for (int k = 0; k < w; k++)
			if (c->batch->keys[supp[k]] == dec[i])
				found = true;
		ok = found;
	}
	*s_used = s;
	return ok;
}

/* Hadamard: the decoded column equals the truth on every record 1..n */
static bool
decode_hadamard(DesignView *c, DesignRow *rows, int m)
{
	TapasAuditEntry *e = c->batch->entry;
	int64		N = tapas_hadamard_order(c->n);
	int			nhad = 0;
	double	   *val;
	bool	   *got;
	int64	   *ans;
	int64	   *x;
	int64	   *truth;
	bool		ok = true;

	for (int i = 0; i < m; i++)
		nhad += rows[i].had != TAPAS_DESIGN_TAG_NONE;
	if (N < 1 || nhad < N)
		return false;			/* cheap: too few rows for the N queries */
	val = palloc(sizeof(double) * N);
	got = palloc(sizeof(bool) * N);
	if (!base_answers(rows, m, false, N, val, got))
		return false;
	ans = palloc(sizeof(int64) * N);
	for (int64 r = 0; r < N; r++)
	{
		if (!got[r] || val[r] != floor(val[r]) || fabs(val[r]) > 1e15)
			return false;
		ans[r] = (int64) val[r];
	}
	x = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * c->n);
	truth = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * c->n);
	memset(truth, 0, sizeof(int64) * c->n);
	for (int i = 0; i < e->nnz; i++)
	{
		if (e->nz_vals[i] != floor(e->nz_vals[i]))
			return false;
		if (e->nz_keys[i] >= 1 && e->nz_keys[i] <= c->n)
			truth[e->nz_keys[i] - 1] = (int64) e->nz_vals[i];
	}
	if (tapas_hadamard_decode_int64(c->n, ans, x, NULL) != TAPAS_OK)
		return false;
	for (int64 j = 0; ok && j < c->n; j++)
		ok = (x[j] == truth[j]);
	pfree(x);
	pfree(truth);
	return ok;
}

/*
 * Records of the truth's support supp[0..w-1] (dense indices) that the
 * BCH or Hadamard decoder recovers from the recognised rows; the findings
 * skip records reported before.  Returns their number.
 */
int
tapas_audit_designs(TapasAuditBatch *batch, const int64 *supp, int w,
					TapasFinding **found)
{
	TapasAuditEntry *e = batch->entry;
	DesignView		c;
	DesignRow	   *rows;
	roaring_bitmap_t **brows;
	int			m;
	const char *method = NULL;
	char		detail[TAPAS_ALERT_DETAIL_LEN];
	int			nf = 0;
	int			s_used = 0;

	*found = NULL;
	ctx_init(&c, batch);
	rows = tag_rows(&c, &m, &brows);
	if (e->truth_binary && c.bch_ok && decode_bch(&c, rows, m, supp, w, &s_used))
	{
		method = "bch";
		snprintf(detail, sizeof(detail),
				 "%d of the answers are the BCH design (n = %lld, s = %d, record = key); its decoder returns the true support",
				 s_used * rec_bch->q, (long long) c.n, s_used);
	}
	else if (decode_hadamard(&c, rows, m))
	{
		method = "hadamard";
		snprintf(detail, sizeof(detail),
				 "the answers include the whole Hadamard design (n = %lld, record = key); its decoder returns the true values",
				 (long long) c.n);
	}
	if (method != NULL)
	{
		double	   *xv = palloc(sizeof(double) * Max(w, 1));
		int64	   *xk = palloc(sizeof(int64) * Max(w, 1));

		for (int i = 0; i < w; i++)
		{
			/* the decoded x: the truth on 1..n (checked above), 0 elsewhere */
			xk[i] = batch->keys[supp[i]];
			xv[i] = 0;
			for (int k = 0; k < e->nnz && xk[i] >= 1 && xk[i] <= c.n; k++)
				if (e->nz_keys[k] == xk[i])
					xv[i] = e->nz_vals[k];
		}
		if (!consistent(rows, m, supp, xv, w))
			method = NULL;
		*found = palloc0(sizeof(TapasFinding) * Max(w, 1));
		for (int i = 0; method != NULL && i < w; i++)
		{
			TapasFinding *f = &(*found)[nf];

			if (xk[i] < 1 || xk[i] > c.n ||
				roaring_bitmap_contains(e->reported, (uint32) supp[i]))
				continue;
			f->index = supp[i];
			f->key = xk[i];
			f->kind = TAPAS_ALERT_RECONSTRUCTED;
			f->method = method;
			strlcpy(f->detail, detail, sizeof(f->detail));
			nf++;
		}
	}
	for (int i = 0; i < batch->ncells; i++)
		roaring_bitmap_free(brows[i]);
	if (c.universe)
		roaring_bitmap_free(c.universe);
	return nf;
}

/*
 * Base rows a design's tagged rows give (got[r]), from the tags alone: a
 * base row, or its complement when the total is tagged too (Hadamard row
 * 0 is the total).  Answers are not read.
 */
static void
base_known(DesignRow *rows, int m, bool is_bch, int64 nbase, bool *got)
{
	bool	   *comp = palloc0(sizeof(bool) * Max(nbase, 1));
	bool		total = false;

	memset(got, 0, sizeof(bool) * nbase);
	for (int i = 0; i < m; i++)
	{
		int32		tag = is_bch ? rows[i].bch : rows[i].had;

		if (tag == TAPAS_DESIGN_TAG_TOTAL)
			total = true;
		else if (tag >= 0 && (tag >> 1) < nbase)
		{
			if (tag & 1)
				comp[tag >> 1] = true;
			else
				got[tag >> 1] = true;
		}
	}
	for (int64 r = 0; r < nbase; r++)
		got[r] = got[r] || (comp[r] && total);
	if (!is_bch && total && nbase > 0)
		got[0] = true;
	pfree(comp);
}

/* complete BCH blocks t = 0, 1, ... among rows[0..m-1] */
static int
bch_blocks(DesignRow *rows, int m)
{
	bool	   *got = palloc(sizeof(bool) * rec_bch->m);
	int			s = 0;

	base_known(rows, m, true, rec_bch->m, got);
	for (; s < rec_s; s++)
	{
		bool		all = true;

		for (int b = 0; b < rec_bch->q; b++)
			all = all && got[s * rec_bch->q + b];
		if (!all)
			break;
	}
	pfree(got);
	return s;
}

/* whether rows[0..m-1] give every base row of the Hadamard design */
static bool
hadamard_complete(DesignView *c, DesignRow *rows, int m)
{
	int64		N = tapas_hadamard_order(c->n);
	bool	   *got;
	bool		all = true;
	int			nhad = 0;

	for (int i = 0; i < m; i++)
		nhad += rows[i].had != TAPAS_DESIGN_TAG_NONE;
	if (N < 1 || nhad < N)
		return false;
	got = palloc(sizeof(bool) * N);
	base_known(rows, m, false, N, got);
	for (int64 r = 0; r < N; r++)
		all = all && got[r];
	pfree(got);
	return all;
}

/*
 * Simulatable (simulated.c): whether the statement's cells complete a
 * design that decodes every vector of weight <= s whatever the answers
 * (BCH with s complete blocks, for 0/1 values; the whole Hadamard design,
 * for any integers), and the logged rows alone did not.  Reads no answer
 * and no truth.  Returns the method ("bch", "hadamard") and writes the
 * detail, or NULL.
 */
const char *
tapas_audit_designs_complete(TapasAuditBatch *batch, int s, bool binary,
							 char *detail)
{
	TapasAuditEntry *e = batch->entry;
	DesignView	c;
	DesignRow  *rows;
	roaring_bitmap_t **brows;
	int			m;
	const char *method = NULL;

	ctx_init(&c, batch);
	rows = tag_rows(&c, &m, &brows);
	if (binary && c.bch_ok && s <= rec_s)
	{
		int			now = bch_blocks(rows, m);

		if (now >= s && bch_blocks(rows, e->nrows) < s)
		{
			method = "bch";
			snprintf(detail, TAPAS_ALERT_DETAIL_LEN,
					 "the queries complete %d blocks of the BCH design (n = %lld, record = key), whose decoder returns every support of weight <= %d (at least %d positives by the logged answers; simulatable: no answer read)",
					 now, (long long) c.n, now, s);
		}
	}
	if (method == NULL && hadamard_complete(&c, rows, m) &&
		!hadamard_complete(&c, rows, e->nrows))
	{
		method = "hadamard";
		snprintf(detail, TAPAS_ALERT_DETAIL_LEN,
				 "the queries complete the Hadamard design (n = %lld, record = key), whose decoder returns every value (simulatable: no answer read)",
				 (long long) c.n);
	}
	for (int i = 0; i < batch->ncells; i++)
		roaring_bitmap_free(brows[i]);
	if (c.universe)
		roaring_bitmap_free(c.universe);
	return method;
}
