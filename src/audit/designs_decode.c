/*-------------------------------------------------------------------------
 *
 * designs_decode.c
 *	  Log and warn modes: the design's own decoder (BCH, Hadamard) on the
 *	  answers of the recognised rows (designs.c), checked against the truth
 *	  (the decoding rules are in designs.c's header).
 *
 * IDENTIFICATION
 *	  src/audit/designs_decode.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "audit/designs_int.h"
#include "recon/hadamard.h"
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
	int			q = tapas_design_rec_bch->q;
	int64		nbase = tapas_design_rec_bch->m;
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
	while (s < tapas_design_rec_s)
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
	int			m;
	const char *method = NULL;
	char		detail[TAPAS_ALERT_DETAIL_LEN];
	int			nf = 0;
	int			s_used = 0;

	*found = NULL;
	rows = tapas_design_rows(&c, batch, &m);
	if (e->truth_binary && c.bch_ok && decode_bch(&c, rows, m, supp, w, &s_used))
	{
		method = "bch";
		snprintf(detail, sizeof(detail),
				 "%d of the answers are the BCH design (n = %lld, s = %d, record = key); its decoder returns the true support",
				 s_used * tapas_design_rec_bch->q, (long long) c.n, s_used);
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
	tapas_design_view_done(&c);
	return nf;
}

