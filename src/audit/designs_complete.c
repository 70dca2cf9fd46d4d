/*-------------------------------------------------------------------------
 *
 * designs_complete.c
 *	  Deny mode (simulatable, simulated.c): whether the statement completes
 *	  a recognised design (designs.c) that decodes every vector of the
 *	  weight the logged answers allow, from the row tags alone: no answer
 *	  and no truth is read.
 *
 * IDENTIFICATION
 *	  src/audit/designs_complete.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "audit/designs_int.h"
#include "recon/hadamard.h"
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
	bool	   *got = palloc(sizeof(bool) * tapas_design_rec_bch->m);
	int			s = 0;

	base_known(rows, m, true, tapas_design_rec_bch->m, got);
	for (; s < tapas_design_rec_s; s++)
	{
		bool		all = true;

		for (int b = 0; b < tapas_design_rec_bch->q; b++)
			all = all && got[s * tapas_design_rec_bch->q + b];
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
	int			m;
	const char *method = NULL;

	rows = tapas_design_rows(&c, batch, &m);
	if (binary && c.bch_ok && s <= tapas_design_rec_s)
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
	tapas_design_view_done(&c);
	return method;
}

