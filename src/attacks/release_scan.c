/*-------------------------------------------------------------------------
 *
 * release_scan.c
 *	  Distances of the release audit: one pass over the synthetic rows per
 *	  target yields its two smallest whole-row distances (DCR, NNDR), the
 *	  synthetic row nearest on the A-half (linkability) and the votes of
 *	  the rows nearest without the sensitive column (attribute inference);
 *	  then the DCR and NNDR comparisons of training against holdout rows.
 *
 * Three scans give the same results (the same sums, compared in the same
 * row order, so ties draw the same random numbers): row by row
 * (tapas_rr_scan_target), columnar over value codes for Hamming (and L_p on
 * categorical columns only), columnar over encoded cells for L_p.
 *
 * IDENTIFICATION
 *	  src/attacks/release_scan.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "attacks/release_risk.h"
#include "attacks/release_risk_int.h"
#include "util/rng.h"

/* ----------------------------------------------------------------
 *		One pass over the synthetic rows per target
 * ----------------------------------------------------------------
 */

void
tapas_rr_scan_target(scan_ctx *cx, const double *x, const double *xe, tapas_rng_t *rng,
			target_scan *out)
{
	const tapas_dataset_t *syn = cx->syn;
	size_t		c = syn->c,
				i,
				j,
				ties_a = 0;
	double		best_a = INFINITY,
				best_s = INFINITY;

	out->d1 = out->d2 = INFINITY;
	out->link = 0;
	out->guess = 0;
	if (cx->sens >= 0)
		memset(cx->votes, 0, sizeof(size_t) * cx->card);
	for (i = 0; i < syn->n; i++)
	{
		const double *y = syn->values + i * c,
				   *ye = syn->encoded ? syn->encoded + i * syn->encoded_dim : NULL;
		double		a = 0,
					b = 0,
					ns = 0,
					total;

		for (j = 0; j < c; j++)
		{
			double		d = contrib(cx, j, x, xe, y, ye);

			if (cx->in_a[j])
				a += d;
			else
				b += d;
			if ((long) j != cx->sens)
				ns += d;
		}
		total = a + b;
		if (total < out->d1)
		{
			out->d2 = out->d1;
			out->d1 = total;
		}
		else if (total < out->d2)
			out->d2 = total;
		if (a < best_a)
		{
			best_a = a;
			out->link = i;
			ties_a = 1;
		}
		else if (a == best_a && keep_tie(rng, &ties_a))
			out->link = i;
		if (cx->sens >= 0)
			tapas_rr_vote(cx, ns, &best_s, y[cx->sens]);
	}
	/* the most voted sensitive code, ties at random */
	if (cx->sens >= 0)
		out->guess = tapas_rr_vote_guess(cx, rng);
}

/*
 * Code of raw value v in column j for the columnar scan: categorical and
 * ordinal values are their code; a continuous value is the position of its
 * first occurrence in the sorted synthetic column, or UINT32_MAX when no
 * synthetic row has it (so two codes are equal iff the values are).
 */
uint32_t
tapas_rr_value_code(const scan_ctx *cx, size_t j, double v)
{
	const tapas_dataset_t *syn = cx->syn;
	const double *s = cx->sorted + j * syn->n;
	size_t		lo = 0,
				hi = syn->n;

	if (syn->cols[j].kind != TAPAS_COLUMN_CONTINUOUS)
		return (uint32_t) v;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < syn->n && s[lo] == v ? (uint32_t) lo : UINT32_MAX;
}

/*
 * acc[i] += (col[i] != x) for i < n.  GCC does not vectorise this at -O2
 * (the server's flags), so on x86-64 it is written with SSE2: per 4 rows
 * one compare gives -1 where equal, and acc + 1 + mask adds the mismatch.
 */
static void
count_mismatches(uint32_t *acc, const uint32_t *col, uint32_t x, size_t n)
{
	size_t		i = 0;

#ifdef __SSE2__
	__m128i		vx = _mm_set1_epi32((int) x),
				one = _mm_set1_epi32(1);

	for (; i + 4 <= n; i += 4)
	{
		__m128i		eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *) (col + i)), vx),
					a = _mm_loadu_si128((const __m128i *) (acc + i));

		a = _mm_add_epi32(a, _mm_add_epi32(one, eq));
		_mm_storeu_si128((__m128i *) (acc + i), a);
	}
#endif
	for (; i < n; i++)
		acc[i] += (uint32_t) (col[i] != x);
}

/*
 * The per-row sums of a columnar scan: Hamming counts (ua, ub: A- and
 * B-half mismatches, us: the sensitive column's) or L_p sums (da, db: the
 * halves, dn: every column but the sensitive one); exactly one set is
 * non-NULL.
 */
typedef struct row_sums
{
	const uint32_t *ua,
			   *ub,
			   *us;
	const double *da,
			   *db,
			   *dn;
} row_sums;

/*
 * One pass over the rows keeping what tapas_rr_scan_target keeps, with the same
 * comparisons in the same row order (so ties draw the same random numbers).
 */
static void
track_rows(scan_ctx *cx, const row_sums *rs, tapas_rng_t *rng,
		   target_scan *out)
{
	const tapas_dataset_t *syn = cx->syn;
	size_t		n = syn->n,
				c = syn->c,
				i,
				ties_a = 0;
	double		best_a = INFINITY,
				best_s = INFINITY;

	out->d1 = out->d2 = INFINITY;
	out->link = 0;
	out->guess = 0;
	if (cx->sens >= 0)
		memset(cx->votes, 0, sizeof(size_t) * cx->card);
	for (i = 0; i < n; i++)
	{
		double		a,
					total,
					ns;

		if (rs->ua != NULL)
		{
			/* integer counts times 1 or 2: exact, whatever the order */
			a = cx->unit * rs->ua[i];
			total = a + cx->unit * rs->ub[i];
			ns = total - cx->unit * rs->us[i];
		}
		else
		{
			a = rs->da[i];
			total = a + rs->db[i];
			ns = rs->dn[i];
		}
		if (total < out->d2)
		{
			if (total < out->d1)
			{
				out->d2 = out->d1;
				out->d1 = total;
			}
			else
				out->d2 = total;
		}
		if (a < best_a)
		{
			best_a = a;
			out->link = i;
			ties_a = 1;
		}
		else if (a == best_a && keep_tie(rng, &ties_a))
			out->link = i;
		if (cx->sens >= 0)
			tapas_rr_vote(cx, ns, &best_s, syn->values[i * c + cx->sens]);
	}
	if (cx->sens >= 0)
		out->guess = tapas_rr_vote_guess(cx, rng);
}

/*
 * The same results as tapas_rr_scan_target for the Hamming distance, one column at a
 * time: per column a vectorised pass adds (code != x_j) to the row's A- or
 * B-half counter, then track_rows keeps the minima.
 */
void
tapas_rr_scan_target_columnar(scan_ctx *cx, const double *x, tapas_rng_t *rng,
					 target_scan *out)
{
	size_t		n = cx->syn->n,
				i,
				j;
	row_sums	rs = {cx->acc, cx->acc + n, cx->acc + 2 * n, NULL, NULL, NULL};

	memset(cx->acc, 0, sizeof(uint32_t) * 3 * n);
	for (j = 0; j < cx->syn->c; j++)
	{
		const uint32_t *col = cx->codes + j * n;
		uint32_t	xj = tapas_rr_value_code(cx, j, x[j]);

		count_mismatches(cx->in_a[j] ? cx->acc : cx->acc + n, col, xj, n);
		if ((long) j == cx->sens)
			for (i = 0; i < n; i++)
				cx->acc[2 * n + i] = (uint32_t) (col[i] != xj);
	}
	track_rows(cx, &rs, rng, out);
}

/*
 * The same results as tapas_rr_scan_target for L_p, one column at a time: the
 * contributions are added to the row sums in column order, as tapas_rr_scan_target
 * adds them, so every sum is the same double.  cx->colv holds the codes of
 * categorical columns and the encoded cell of the others.
 */
void
tapas_rr_scan_target_columnar_lp(scan_ctx *cx, const double *x, const double *xe,
						tapas_rng_t *rng, target_scan *out)
{
	const tapas_dataset_t *syn = cx->syn;
	size_t		n = syn->n,
				i,
				j;
	double	   *sa = cx->dacc,
			   *sb = cx->dacc + n,
			   *sn = cx->dacc + 2 * n;
	row_sums	rs = {NULL, NULL, NULL, sa, sb, sn};

	memset(cx->dacc, 0, sizeof(double) * 3 * n);
	for (j = 0; j < syn->c; j++)
	{
		const double *col = cx->colv + j * n;
		double	   *acc = cx->in_a[j] ? sa : sb;
		int			in_n = (long) j != cx->sens;

		if (cx->cat[j])
		{
			double		xj = x[j];

			for (i = 0; i < n; i++)
			{
				double		d = col[i] != xj ? 2.0 : 0.0;

				acc[i] += d;
				if (in_n)
					sn[i] += d;
			}
		}
		else
		{
			double		xj = xe[syn->offset[j]];

			for (i = 0; i < n; i++)
			{
				double		dx = fabs(col[i] - xj),
							d = cx->p == 1 ? dx : (cx->p == 2 ? dx * dx : pow(dx, cx->p));

				acc[i] += d;
				if (in_n)
					sn[i] += d;
			}
		}
	}
	track_rows(cx, &rs, rng, out);
}

/* ----------------------------------------------------------------
 *		Every sampled target of one side, and the distance statistics
 * ----------------------------------------------------------------
 */

/* scans every sampled target of one side; TAPAS_ECANCELED if asked */
tapas_status
tapas_rr_scan_side(audit_mem *am, const tapas_dataset_t *ds, const size_t *rows,
		  size_t m, target_scan *out, tapas_rng_t *rng, double done,
		  const tapas_progress_t *progress)
{
	size_t		k;

	for (k = 0; k < m; k++)
	{
		const double *x = ds->values + rows[k] * ds->c,
				   *xe = ds->encoded ? ds->encoded + rows[k] * ds->encoded_dim : NULL;

		if (tapas_progress_poll(progress, done + 0.5 * (double) k / (double) m))
			return TAPAS_ECANCELED;
		if (am->cx.codes != NULL)
			tapas_rr_scan_target_columnar(&am->cx, x, rng, &out[k]);
		else if (am->cx.colv != NULL)
			tapas_rr_scan_target_columnar_lp(&am->cx, x, xe, rng, &out[k]);
		else
			tapas_rr_scan_target(&am->cx, x, xe, rng, &out[k]);
	}
	return TAPAS_OK;
}

tapas_status
tapas_rr_distance_rows(audit_mem *am, size_t m, const tapas_release_params_t *p,
			  tapas_rng_t *rng, tapas_risk_summary_t *out)
{
	int			r;

	for (r = 0; r < 2; r++)
	{
		tapas_risk_summary_t *o = &out[r == 0 ? TAPAS_RISK_DCR : TAPAS_RISK_NNDR];
		const double *s = am->stat + (size_t) r * 2 * m;
		tapas_estimate_t half = {0.5, 0.5, 0.5};
		tapas_status st;

		o->computed = 1;
		o->n_real = o->n_holdout = m;
		o->holdout = o->baseline = half;
		st = tapas_closer_probability(s, m, s + m, m, p->n_bootstrap,
									  p->confidence, rng, &o->real, &o->residual);
		if (st != TAPAS_OK)
			return st;
	}
	return TAPAS_OK;
}
