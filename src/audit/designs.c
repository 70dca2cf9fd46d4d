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
 * The decoding against the truth is designs_decode.c (log and warn modes:
 * reconstructed.c runs it after the truth and atom gates, so GROUP BY
 * workloads never reach it, and only when the generic decoders found
 * nothing; a record is alerted once, by the first method that finds it).
 * Deny mode asks designs_complete.c instead, which decides from the tags
 * alone whether the statement completes a design (simulatable).  Both are
 * cheap (each row classified once, decoding in microseconds) and run on
 * every answer.  This file recognises the rows.
 *
 * IDENTIFICATION
 *	  src/audit/designs.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "audit/designs_int.h"
#include "recon/hadamard.h"

#define DESIGN_MIN_SIG_BITS		16	/* fewer known signature keys: no recognition */
#define DESIGN_BCH_MAX_S		64	/* BCH blocks t = 0..63 are recognised */
#define DESIGN_BCH_MAX_N		(((int64) 1 << 22) - 1) /* field tables <= 32 MB */

/* the recognition design of the last n (per backend) */
tapas_bch_t *tapas_design_rec_bch = NULL;
static int64 rec_n = 0;
int			tapas_design_rec_s = 0;
static uint64 *rec_sig = NULL;	/* [tapas_design_rec_bch->m] signature of each base row */

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

	if (tapas_design_rec_bch != NULL && rec_n == n)
		return true;
	tapas_bch_free(tapas_design_rec_bch);
	tapas_design_rec_bch = NULL;
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
	tapas_design_rec_bch = tapas_bch_create(n, s, &st);
	if (tapas_design_rec_bch == NULL)
		return false;
	tapas_design_rec_s = s;
	rec_n = n;
	rec_sig = MemoryContextAllocZero(tapas_audit_cxt(), sizeof(uint64) * tapas_design_rec_bch->m);
	for (int r = 0; r < tapas_design_rec_bch->m; r++)
		for (int64 j = 1; j <= Min(n, DESIGN_SIG_KEYS); j++)
			if (tapas_bch_member(tapas_design_rec_bch, r, j))
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
		in = bch ? tapas_bch_member(tapas_design_rec_bch, (int) row, key)
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
	for (int row = 0; row < tapas_design_rec_bch->m; row++)
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


DesignRow *
tapas_design_rows(DesignView *c, TapasAuditBatch *batch, int *m)
{
	ctx_init(c, batch);
	return tag_rows(c, m, &c->brows);
}

void
tapas_design_view_done(DesignView *c)
{
	for (int i = 0; i < c->batch->ncells; i++)
		roaring_bitmap_free(c->brows[i]);
	if (c->universe)
		roaring_bitmap_free(c->universe);
}
