/*-------------------------------------------------------------------------
 *
 * release_risk.c
 *	  The dataset-only release audit: singling out, linkability, attribute
 *	  inference, exact copies, DCR and NNDR of training rows against holdout
 *	  rows (the procedure and estimators are in release_risk.h and
 *	  release_stats.h).
 *
 * The distance kernels of distance.c compute one distance per call; here
 * one pass over the synthetic rows must yield several distances per row
 * (whole row, A-half, all but the sensitive column), so the per-column
 * contribution is written out again: Hamming adds 1 per differing raw
 * value; L_p adds |dx|^p per encoded cell, which for a one-hot categorical
 * block is 0 or 2 and is read from the codes.  Distances are compared as
 * sums (the p-th root is monotone) and rooted only when reported.
 *
 * IDENTIFICATION
 *	  src/attacks/release_risk.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "attacks/release_risk.h"
#include "util/memory.h"
#include "util/rng.h"

static const char *const risk_names[TAPAS_RISK_COUNT] = {
	"singling_out", "linkability", "attribute_inference", "exact_copy",
	"dcr", "nndr"
};

const char *
tapas_risk_kind_name(tapas_risk_kind kind)
{
	return (unsigned) kind < TAPAS_RISK_COUNT ? risk_names[kind] : "unknown";
}

/* ----------------------------------------------------------------
 *		Per-column contributions
 * ----------------------------------------------------------------
 */

typedef struct scan_ctx
{
	const tapas_dataset_t *syn;
	int			lp;				/* L_p (else Hamming) */
	double		p;
	unsigned char *cat;			/* c: column is categorical */
	unsigned char *in_a;		/* c: column is in the A-half */
	long		sens;			/* sensitive column or -1 */
	size_t		card;			/* its number of codes */
	size_t	   *votes;			/* card scratch counters */
	double		unit;			/* distance sum of one mismatch in the
								 * columnar code scan: 1 (Hamming) or 2 (L_p
								 * on categorical columns only) */
	/* the columnar Hamming scan (NULL when not used) */
	uint32_t   *codes;			/* c x n, column-major: value codes of syn */
	uint32_t   *acc;			/* 3 x n: A-half, B-half, sensitive counts */
	const double *sorted;		/* c x n: each syn column sorted */
	/* the columnar L_p scan (NULL when not used) */
	double	   *colv;			/* c x n: codes or encoded cells of syn */
	double	   *dacc;			/* 3 x n: A-half, B-half, all-but-sensitive */
} scan_ctx;

/* contribution of column j to the distance sum between x and y */
static inline double
contrib(const scan_ctx *cx, size_t j, const double *x, const double *xe,
		const double *y, const double *ye)
{
	const tapas_dataset_t *ds = cx->syn;
	double		dx;

	if (!cx->lp)
		return x[j] != y[j];
	if (cx->cat[j])
		return x[j] != y[j] ? 2.0 : 0.0;
	dx = fabs(xe[ds->offset[j]] - ye[ds->offset[j]]);
	return cx->p == 1 ? dx : (cx->p == 2 ? dx * dx : pow(dx, cx->p));
}

/* the reported distance of a sum */
static double
root(const scan_ctx *cx, double sum)
{
	return cx->lp && cx->p != 1 ? pow(sum, 1.0 / cx->p) : sum;
}

/*
 * The distance sum between x and y over the columns outside the A-half;
 * stops once it exceeds bound (the result is then only known to be larger).
 */
static double
sum_b(const scan_ctx *cx, const double *x, const double *xe, const double *y,
	  const double *ye, double bound)
{
	double		s = 0;
	size_t		j;

	for (j = 0; j < cx->syn->c && s <= bound; j++)
		if (!cx->in_a[j])
			s += contrib(cx, j, x, xe, y, ye);
	return s;
}

/* ----------------------------------------------------------------
 *		One pass over the synthetic rows per target
 * ----------------------------------------------------------------
 */

typedef struct target_scan
{
	double		d1;				/* smallest whole-row sum */
	double		d2;				/* second smallest (+inf if none) */
	size_t		link;			/* synthetic row nearest on A (ties random) */
	double		guess;			/* attribute inference guess (code) */
} target_scan;

/* index (in 0 .. n-1) kept by a reservoir of one over tied candidates */
static inline int
keep_tie(tapas_rng_t *rng, size_t *ties)
{
	(*ties)++;
	return tapas_rng_below(rng, *ties) == 0;
}

static void
scan_target(scan_ctx *cx, const double *x, const double *xe, tapas_rng_t *rng,
			target_scan *out)
{
	const tapas_dataset_t *syn = cx->syn;
	size_t		c = syn->c,
				i,
				j,
				ties_a = 0,
				ties_v = 0;
	double		best_a = INFINITY,
				best_s = INFINITY,
				top = -1;

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
		{
			if (ns < best_s)
			{
				best_s = ns;
				memset(cx->votes, 0, sizeof(size_t) * cx->card);
			}
			if (ns == best_s)
				cx->votes[(size_t) y[cx->sens]]++;
		}
	}
	/* the most voted sensitive code, ties at random */
	if (cx->sens >= 0)
		for (j = 0; j < cx->card; j++)
		{
			if (cx->votes[j] == 0)
				continue;
			if ((double) cx->votes[j] > top)
			{
				top = (double) cx->votes[j];
				out->guess = (double) j;
				ties_v = 1;
			}
			else if ((double) cx->votes[j] == top && keep_tie(rng, &ties_v))
				out->guess = (double) j;
		}
}

/*
 * Code of raw value v in column j for the columnar scan: categorical and
 * ordinal values are their code; a continuous value is the position of its
 * first occurrence in the sorted synthetic column, or UINT32_MAX when no
 * synthetic row has it (so two codes are equal iff the values are).
 */
static uint32_t
value_code(const scan_ctx *cx, size_t j, double v)
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
 * One pass over the rows keeping what scan_target keeps, with the same
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
				j,
				ties_a = 0,
				ties_v = 0;
	double		best_a = INFINITY,
				best_s = INFINITY,
				top = -1;

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
		if (cx->sens >= 0 && ns <= best_s)
		{
			if (ns < best_s)
			{
				best_s = ns;
				memset(cx->votes, 0, sizeof(size_t) * cx->card);
			}
			cx->votes[(size_t) syn->values[i * c + cx->sens]]++;
		}
	}
	if (cx->sens >= 0)
		for (j = 0; j < cx->card; j++)
		{
			if (cx->votes[j] == 0)
				continue;
			if ((double) cx->votes[j] > top)
			{
				top = (double) cx->votes[j];
				out->guess = (double) j;
				ties_v = 1;
			}
			else if ((double) cx->votes[j] == top && keep_tie(rng, &ties_v))
				out->guess = (double) j;
		}
}

/*
 * The same results as scan_target for the Hamming distance, one column at a
 * time: per column a vectorised pass adds (code != x_j) to the row's A- or
 * B-half counter, then track_rows keeps the minima.
 */
static void
scan_target_columnar(scan_ctx *cx, const double *x, tapas_rng_t *rng,
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
		uint32_t	xj = value_code(cx, j, x[j]);

		count_mismatches(cx->in_a[j] ? cx->acc : cx->acc + n, col, xj, n);
		if ((long) j == cx->sens)
			for (i = 0; i < n; i++)
				cx->acc[2 * n + i] = (uint32_t) (col[i] != xj);
	}
	track_rows(cx, &rs, rng, out);
}

/*
 * The same results as scan_target for L_p, one column at a time: the
 * contributions are added to the row sums in column order, as scan_target
 * adds them, so every sum is the same double.  cx->colv holds the codes of
 * categorical columns and the encoded cell of the others.
 */
static void
scan_target_columnar_lp(scan_ctx *cx, const double *x, const double *xe,
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

/*
 * The linking step: the target list ds[rows[0..m-1]] whose B-half is
 * nearest to synthetic row s (ties at random); returns the list position.
 */
static size_t
link_to(scan_ctx *cx, const tapas_dataset_t *ds, const size_t *rows, size_t m,
		size_t s, tapas_rng_t *rng)
{
	const tapas_dataset_t *syn = cx->syn;
	const double *y = syn->values + s * syn->c,
			   *ye = syn->encoded ? syn->encoded + s * syn->encoded_dim : NULL;
	double		best = INFINITY;
	size_t		k,
				pick = 0,
				ties = 0;

	for (k = 0; k < m; k++)
	{
		const double *x = ds->values + rows[k] * ds->c,
				   *xe = ds->encoded ? ds->encoded + rows[k] * ds->encoded_dim : NULL;
		double		d = sum_b(cx, x, xe, y, ye, best);

		if (d < best)
		{
			best = d;
			pick = k;
			ties = 1;
		}
		else if (d == best && keep_tie(rng, &ties))
			pick = k;
	}
	return pick;
}

/* ----------------------------------------------------------------
 *		Singling out
 * ----------------------------------------------------------------
 */

typedef struct predicate
{
	size_t	   *cols;			/* ncols column indices */
	size_t		ncols;
	double	   *value;			/* c: the value of each column (raw) */
} predicate;

/* does raw row x satisfy the predicate? */
static int
satisfies(const tapas_dataset_t *ds, const predicate *pr, const double *x,
		  double tolerance)
{
	size_t		k;

	for (k = 0; k < pr->ncols; k++)
	{
		size_t		j = pr->cols[k];
		const tapas_column_spec_t *col = &ds->cols[j];

		if (col->kind == TAPAS_COLUMN_CONTINUOUS)
		{
			if (fabs(x[j] - pr->value[j]) > tolerance * (col->upper - col->lower))
				return 0;
		}
		else if (x[j] != pr->value[j])
			return 0;
	}
	return 1;
}

/*
 * The row of ds[rows[0..n-1]] the predicate isolates (position in rows),
 * or -1 when it matches none or several.
 */
static long
isolated(const tapas_dataset_t *ds, const size_t *rows, size_t n,
		 const predicate *pr, double tolerance)
{
	long		found = -1;
	size_t		k;

	for (k = 0; k < n; k++)
		if (satisfies(ds, pr, ds->values + rows[k] * ds->c, tolerance))
		{
			if (found >= 0)
				return -1;
			found = (long) k;
		}
	return found;
}

/* draws predicate columns: all, or k random distinct ones */
static void
draw_columns(predicate *pr, size_t c, size_t k, size_t *perm, tapas_rng_t *rng)
{
	size_t		j;

	if (k == 0 || k >= c)
	{
		for (j = 0; j < c; j++)
			pr->cols[j] = j;
		pr->ncols = c;
		return;
	}
	for (j = 0; j < c; j++)
		perm[j] = j;
	for (j = 0; j < k; j++)
	{
		size_t		r = j + tapas_rng_below(rng, c - j),
					t = perm[j];

		perm[j] = perm[r];
		perm[r] = t;
		pr->cols[j] = perm[j];
	}
	pr->ncols = k;
}

/* ----------------------------------------------------------------
 *		The audit
 * ----------------------------------------------------------------
 */

/* m distinct rows of 0 .. n-1, uniformly at random (m <= n) */
static void
sample_rows(tapas_rng_t *rng, size_t n, size_t m, size_t *out, size_t *perm)
{
	size_t		i;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = 0; i < m; i++)
	{
		size_t		r = i + tapas_rng_below(rng, n - i),
					t = perm[i];

		perm[i] = perm[r];
		perm[r] = t;
		out[i] = perm[i];
	}
}

static tapas_status
check_params(const tapas_dataset_t *real, const tapas_dataset_t *syn,
			 const tapas_dataset_t *hold, const tapas_release_params_t *p)
{
	size_t		k;

	if (!tapas_dataset_same_schema(real, syn) ||
		!tapas_dataset_same_schema(hold, syn) ||
		real->n == 0 || syn->n == 0 || hold->n == 0 ||
		p->n_targets == 0 || p->n_predicates == 0 ||
		!(p->tolerance >= 0) || !(p->confidence > 0 && p->confidence < 1) ||
		p->distance.kind == TAPAS_DISTANCE_SUM ||
		p->distance.columns != NULL || p->distance.weights != NULL ||
		(p->distance.scale != 0 && p->distance.scale != 1) ||
		tapas_distance_check(&p->distance, syn) != TAPAS_OK)
		return TAPAS_EINVAL;
	if (p->distance.kind == TAPAS_DISTANCE_LP &&
		(real->encoded == NULL || hold->encoded == NULL))
		return TAPAS_EINVAL;
	if (p->sensitive >= 0 &&
		((size_t) p->sensitive >= syn->c ||
		 syn->cols[p->sensitive].kind == TAPAS_COLUMN_CONTINUOUS))
		return TAPAS_EINVAL;
	if (p->n_link_a >= syn->c && p->n_link_a > 0)
		return TAPAS_EINVAL;
	for (k = 0; k < p->n_link_a; k++)
		if (p->link_a[k] >= syn->c)
			return TAPAS_EINVAL;
	return TAPAS_OK;
}

/* everything one audit allocates, freed together */
typedef struct audit_mem
{
	size_t	   *perm;
	size_t	   *colperm;		/* c: scratch of draw_columns */
	size_t	   *rows_r;			/* sampled targets */
	size_t	   *rows_h;
	size_t	   *so_r;			/* singling-out subsamples */
	size_t	   *so_h;
	double	   *iso_r;			/* predicates isolating each real row */
	double	   *iso_h;
	target_scan *scan_r;
	target_scan *scan_h;
	double	   *stat;			/* 4m: dcr r, dcr h, nndr r, nndr h */
	double	   *sorted;			/* syn column values, column-major sorted */
	predicate	pred;
	scan_ctx	cx;
} audit_mem;

static void
audit_mem_free(audit_mem *am)
{
	tapas_free(am->perm);
	tapas_free(am->colperm);
	tapas_free(am->rows_r);
	tapas_free(am->rows_h);
	tapas_free(am->so_r);
	tapas_free(am->so_h);
	tapas_free(am->iso_r);
	tapas_free(am->iso_h);
	tapas_free(am->scan_r);
	tapas_free(am->scan_h);
	tapas_free(am->stat);
	tapas_free(am->sorted);
	tapas_free(am->pred.cols);
	tapas_free(am->pred.value);
	tapas_free(am->cx.cat);
	tapas_free(am->cx.in_a);
	tapas_free(am->cx.votes);
	tapas_free(am->cx.codes);
	tapas_free(am->cx.acc);
	tapas_free(am->cx.colv);
	tapas_free(am->cx.dacc);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* number of values equal to v in the sorted array s of length n */
static size_t
count_equal(const double *s, size_t n, double v)
{
	size_t		lo = 0,
				hi = n,
				first;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = n;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (s[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

/*
 * P(a release of n rows drawn from the synthetic marginals holds x) =
 * 1 - (1 - prod_j f_j(x_j))^n.
 */
static double
marginal_copy_probability(const audit_mem *am, const tapas_dataset_t *syn,
						  const double *x)
{
	double		prod = 1;
	size_t		j;

	for (j = 0; j < syn->c && prod > 0; j++)
		prod *= (double) count_equal(am->sorted + j * syn->n, syn->n, x[j]) /
			(double) syn->n;
	return prod >= 1 ? 1.0 : -expm1((double) syn->n * log1p(-prod));
}

static tapas_status
audit_mem_alloc(audit_mem *am, const tapas_dataset_t *real,
				const tapas_dataset_t *syn, const tapas_dataset_t *hold,
				size_t m, size_t nso, const tapas_release_params_t *p)
{
	size_t		c = syn->c,
				big = real->n > hold->n ? real->n : hold->n,
				i,
				j;
	int			all_cat;

	if (syn->n > big)
		big = syn->n;
	if (c > big)
		big = c;
	am->perm = tapas_malloc(sizeof(size_t) * big);
	am->colperm = tapas_malloc(sizeof(size_t) * c);
	am->rows_r = tapas_malloc(sizeof(size_t) * m);
	am->rows_h = tapas_malloc(sizeof(size_t) * m);
	am->so_r = tapas_malloc(sizeof(size_t) * nso);
	am->so_h = tapas_malloc(sizeof(size_t) * nso);
	am->iso_r = tapas_calloc(real->n, sizeof(double));
	am->iso_h = tapas_calloc(hold->n, sizeof(double));
	am->scan_r = tapas_malloc(sizeof(target_scan) * m);
	am->scan_h = tapas_malloc(sizeof(target_scan) * m);
	am->stat = tapas_malloc(sizeof(double) * 4 * m);
	am->sorted = tapas_malloc(sizeof(double) * c * syn->n);
	am->pred.cols = tapas_malloc(sizeof(size_t) * c);
	am->pred.value = tapas_malloc(sizeof(double) * c);
	am->cx.cat = tapas_malloc(c);
	am->cx.in_a = tapas_calloc(c, 1);
	am->cx.card = p->sensitive >= 0 ? syn->cols[p->sensitive].cardinality : 1;
	am->cx.votes = tapas_malloc(sizeof(size_t) * am->cx.card);
	if (!am->perm || !am->colperm || !am->rows_r || !am->rows_h || !am->so_r || !am->so_h ||
		!am->iso_r || !am->iso_h || !am->scan_r || !am->scan_h || !am->stat ||
		!am->sorted || !am->pred.cols || !am->pred.value || !am->cx.cat ||
		!am->cx.in_a || !am->cx.votes)
		return TAPAS_ENOMEM;
	am->cx.syn = syn;
	am->cx.lp = p->distance.kind == TAPAS_DISTANCE_LP;
	am->cx.p = p->distance.p;
	am->cx.sens = p->sensitive;
	for (j = 0; j < c; j++)
		am->cx.cat[j] = syn->cols[j].kind == TAPAS_COLUMN_CATEGORICAL;
	for (j = 0; j < p->n_link_a; j++)
		am->cx.in_a[p->link_a[j]] = 1;
	for (j = 0; j < c; j++)
	{
		for (i = 0; i < syn->n; i++)
			am->sorted[j * syn->n + i] = syn->values[i * c + j];
		qsort(am->sorted + j * syn->n, syn->n, sizeof(double), cmp_double);
	}
	am->cx.sorted = am->sorted;
	am->cx.unit = 1.0;
	for (j = 0, all_cat = 1; j < c; j++)
		all_cat &= am->cx.cat[j];
	if (!p->rowwise && syn->n < UINT32_MAX &&
		(p->distance.kind == TAPAS_DISTANCE_HAMMING || all_cat))
	{
		/*
		 * L_p over one-hot blocks only: each mismatch adds exactly 2 to the
		 * sum, so the code scan counts and track_rows doubles.
		 */
		if (p->distance.kind == TAPAS_DISTANCE_LP)
			am->cx.unit = 2.0;
		am->cx.codes = tapas_malloc(sizeof(uint32_t) * c * syn->n);
		am->cx.acc = tapas_malloc(sizeof(uint32_t) * 3 * syn->n);
		if (am->cx.codes == NULL || am->cx.acc == NULL)
			return TAPAS_ENOMEM;
		for (j = 0; j < c; j++)
			for (i = 0; i < syn->n; i++)
				am->cx.codes[j * syn->n + i] =
					value_code(&am->cx, j, syn->values[i * c + j]);
	}
	else if (p->distance.kind == TAPAS_DISTANCE_LP && !p->rowwise)
	{
		am->cx.colv = tapas_malloc(sizeof(double) * c * syn->n);
		am->cx.dacc = tapas_malloc(sizeof(double) * 3 * syn->n);
		if (am->cx.colv == NULL || am->cx.dacc == NULL)
			return TAPAS_ENOMEM;
		for (j = 0; j < c; j++)
			for (i = 0; i < syn->n; i++)
				am->cx.colv[j * syn->n + i] = am->cx.cat[j] ?
					syn->values[i * c + j] :
					syn->encoded[i * syn->encoded_dim + syn->offset[j]];
	}
	return TAPAS_OK;
}

/*
 * Orders the predicate's columns by the synthetic frequency of their value,
 * rarest first, so that satisfies() rejects most rows at the first column.
 * Only the speed depends on the order.
 */
static void
order_by_rarity(const audit_mem *am, const tapas_dataset_t *syn, predicate *pr)
{
	double		freq[64];
	size_t		k,
				i;

	if (pr->ncols > 64)
		return;
	for (k = 0; k < pr->ncols; k++)
		freq[k] = (double) count_equal(am->sorted + pr->cols[k] * syn->n, syn->n,
									   pr->value[pr->cols[k]]);
	for (k = 1; k < pr->ncols; k++)
	{
		double		f = freq[k];
		size_t		col = pr->cols[k];

		for (i = k; i > 0 && freq[i - 1] > f; i--)
		{
			freq[i] = freq[i - 1];
			pr->cols[i] = pr->cols[i - 1];
		}
		freq[i] = f;
		pr->cols[i] = col;
	}
}

/* singling out: successes of the release's and the baseline's predicates */
static void
run_singling_out(audit_mem *am, const tapas_dataset_t *real,
				 const tapas_dataset_t *syn, const tapas_dataset_t *hold,
				 size_t nso, const tapas_release_params_t *p,
				 tapas_rng_t *rng, double *kr, double *kh, double *kb)
{
	predicate  *pr = &am->pred;
	size_t		i,
				j;

	*kr = *kh = *kb = 0;
	/* distinct synthetic rows while they last, so predicates repeat less */
	for (i = 0; i < syn->n; i++)
		am->perm[i] = i;
	for (i = 0; i < p->n_predicates; i++)
	{
		size_t		at = i % syn->n,
					pick = at + tapas_rng_below(rng, syn->n - at),
					s = am->perm[pick];
		long		r,
					h;

		am->perm[pick] = am->perm[at];
		am->perm[at] = s;

		draw_columns(pr, syn->c, p->predicate_columns, am->colperm, rng);
		memcpy(pr->value, syn->values + s * syn->c, sizeof(double) * syn->c);
		order_by_rarity(am, syn, pr);
		r = isolated(real, am->so_r, nso, pr, p->tolerance);
		h = isolated(hold, am->so_h, nso, pr, p->tolerance);
		if (r >= 0)
		{
			(*kr)++;
			am->iso_r[am->so_r[r]]++;
		}
		if (h >= 0)
		{
			(*kh)++;
			am->iso_h[am->so_h[h]]++;
		}
		/* the baseline: each value from its own random synthetic row */
		for (j = 0; j < pr->ncols; j++)
		{
			size_t		col = pr->cols[j];

			pr->value[col] = syn->values[tapas_rng_below(rng, syn->n) * syn->c + col];
		}
		order_by_rarity(am, syn, pr);
		if (isolated(real, am->so_r, nso, pr, p->tolerance) >= 0)
			(*kb)++;
	}
}

static void
set_rates(tapas_risk_summary_t *o, double kr, double kh, double kb, size_t n,
		  double confidence)
{
	o->computed = 1;
	o->n_real = o->n_holdout = n;
	o->real = tapas_wilson(kr, (double) n, confidence);
	o->holdout = tapas_wilson(kh, (double) n, confidence);
	o->baseline = tapas_wilson(kb, (double) n, confidence);
	o->residual = tapas_residual_risk(kr, (double) n, kh, (double) n, confidence);
}

/* scans every sampled target of one side; TAPAS_ECANCELED if asked */
static tapas_status
scan_side(audit_mem *am, const tapas_dataset_t *ds, const size_t *rows,
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
			scan_target_columnar(&am->cx, x, rng, &out[k]);
		else if (am->cx.colv != NULL)
			scan_target_columnar_lp(&am->cx, x, xe, rng, &out[k]);
		else
			scan_target(&am->cx, x, xe, rng, &out[k]);
	}
	return TAPAS_OK;
}

static void
add_record(tapas_risk_record_t *rec, size_t *n, int holdout, size_t row,
		   tapas_risk_kind kind, double value)
{
	rec[*n].holdout = (unsigned char) holdout;
	rec[*n].row = row;
	rec[*n].kind = kind;
	rec[*n].value = value;
	(*n)++;
}

/*
 * The per-target risks of one side: linkability, attribute inference,
 * exact copies, and the dcr/nndr statistics into stat[0..m-1] and
 * stat[2m..3m-1] (offset by m for the holdout).  Adds the successes to k[].
 */
static void
score_side(audit_mem *am, const tapas_dataset_t *ds, const size_t *rows,
		   size_t m, const target_scan *sc, int holdout, int do_link,
		   tapas_rng_t *rng, double *k, tapas_risk_record_t *rec, size_t *nrec)
{
	size_t		t;

	for (t = 0; t < m; t++)
	{
		const double *x = ds->values + rows[t] * ds->c;
		double		dcr = root(&am->cx, sc[t].d1),
					nndr = sc[t].d1 == 0 ? 0.0 : dcr / root(&am->cx, sc[t].d2);

		if (do_link)
		{
			int			ok = link_to(&am->cx, ds, rows, m, sc[t].link, rng) == t;

			k[TAPAS_RISK_LINKABILITY] += ok;
			add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_LINKABILITY, ok);
		}
		if (am->cx.sens >= 0)
		{
			int			ok = sc[t].guess == x[am->cx.sens];

			k[TAPAS_RISK_ATTRIBUTE_INFERENCE] += ok;
			add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_ATTRIBUTE_INFERENCE, ok);
		}
		k[TAPAS_RISK_EXACT_COPY] += sc[t].d1 == 0;
		add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_EXACT_COPY, sc[t].d1 == 0);
		add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_DCR, dcr);
		add_record(rec, nrec, holdout, rows[t], TAPAS_RISK_NNDR, nndr);
		am->stat[(holdout ? m : 0) + t] = dcr;
		am->stat[2 * m + (holdout ? m : 0) + t] = nndr;
	}
}

/* the baselines of linkability, attribute inference and exact copies */
static void
baselines(audit_mem *am, const tapas_dataset_t *real,
		  const tapas_dataset_t *syn, size_t m, int do_link,
		  tapas_rng_t *rng, double *kb)
{
	size_t		t,
				mode = 0;

	if (am->cx.sens >= 0)
	{
		/* the synthetic mode of the sensitive column */
		memset(am->cx.votes, 0, sizeof(size_t) * am->cx.card);
		for (t = 0; t < syn->n; t++)
			am->cx.votes[(size_t) syn->values[t * syn->c + am->cx.sens]]++;
		for (t = 1; t < am->cx.card; t++)
			if (am->cx.votes[t] > am->cx.votes[mode])
				mode = t;
	}
	for (t = 0; t < m; t++)
	{
		const double *x = real->values + am->rows_r[t] * real->c;

		if (do_link)
			kb[TAPAS_RISK_LINKABILITY] +=
				link_to(&am->cx, real, am->rows_r, m,
						tapas_rng_below(rng, syn->n), rng) == t;
		if (am->cx.sens >= 0)
			kb[TAPAS_RISK_ATTRIBUTE_INFERENCE] += x[am->cx.sens] == (double) mode;
		kb[TAPAS_RISK_EXACT_COPY] += marginal_copy_probability(am, syn, x);
	}
}

static tapas_status
distance_rows(audit_mem *am, size_t m, const tapas_release_params_t *p,
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

tapas_status
tapas_release_risk(const tapas_dataset_t *real, const tapas_dataset_t *syn,
				   const tapas_dataset_t *holdout,
				   const tapas_release_params_t *p,
				   tapas_risk_summary_t out[TAPAS_RISK_COUNT],
				   tapas_risk_record_t **records, size_t *nrecords,
				   const tapas_progress_t *progress)
{
	audit_mem	am;
	tapas_rng_t rng;
	tapas_risk_record_t *rec = NULL;
	size_t		m,
				nso,
				nrec = 0,
				i;
	double		kr[TAPAS_RISK_COUNT] = {0},
				kh[TAPAS_RISK_COUNT] = {0},
				kb[TAPAS_RISK_COUNT] = {0};
	int			do_link = p->n_link_a > 0;
	tapas_status st;

	*records = NULL;
	*nrecords = 0;
	memset(out, 0, sizeof(tapas_risk_summary_t) * TAPAS_RISK_COUNT);
	if ((st = check_params(real, syn, holdout, p)) != TAPAS_OK)
		return st;
	memset(&am, 0, sizeof(am));
	m = p->n_targets;
	if (m > real->n)
		m = real->n;
	if (m > holdout->n)
		m = holdout->n;
	nso = real->n < holdout->n ? real->n : holdout->n;
	if ((st = audit_mem_alloc(&am, real, syn, holdout, m, nso, p)) != TAPAS_OK)
		goto done;
	rec = tapas_malloc(sizeof(tapas_risk_record_t) *
					   (5 * 2 * m + real->n + holdout->n));
	if (rec == NULL)
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	tapas_rng_seed(&rng, p->seed);
	sample_rows(&rng, real->n, m, am.rows_r, am.perm);
	sample_rows(&rng, holdout->n, m, am.rows_h, am.perm);
	sample_rows(&rng, real->n, nso, am.so_r, am.perm);
	sample_rows(&rng, holdout->n, nso, am.so_h, am.perm);

	run_singling_out(&am, real, syn, holdout, nso, p, &rng,
					 &kr[TAPAS_RISK_SINGLING_OUT], &kh[TAPAS_RISK_SINGLING_OUT],
					 &kb[TAPAS_RISK_SINGLING_OUT]);
	set_rates(&out[TAPAS_RISK_SINGLING_OUT], kr[TAPAS_RISK_SINGLING_OUT],
			  kh[TAPAS_RISK_SINGLING_OUT], kb[TAPAS_RISK_SINGLING_OUT],
			  p->n_predicates, p->confidence);

	if ((st = scan_side(&am, real, am.rows_r, m, am.scan_r, &rng, 0.0,
						progress)) != TAPAS_OK ||
		(st = scan_side(&am, holdout, am.rows_h, m, am.scan_h, &rng, 0.5,
						progress)) != TAPAS_OK)
		goto done;
	score_side(&am, real, am.rows_r, m, am.scan_r, 0, do_link, &rng, kr, rec, &nrec);
	score_side(&am, holdout, am.rows_h, m, am.scan_h, 1, do_link, &rng, kh, rec, &nrec);
	baselines(&am, real, syn, m, do_link, &rng, kb);
	if (do_link)
		set_rates(&out[TAPAS_RISK_LINKABILITY], kr[TAPAS_RISK_LINKABILITY],
				  kh[TAPAS_RISK_LINKABILITY], kb[TAPAS_RISK_LINKABILITY], m,
				  p->confidence);
	if (p->sensitive >= 0)
		set_rates(&out[TAPAS_RISK_ATTRIBUTE_INFERENCE],
				  kr[TAPAS_RISK_ATTRIBUTE_INFERENCE],
				  kh[TAPAS_RISK_ATTRIBUTE_INFERENCE],
				  kb[TAPAS_RISK_ATTRIBUTE_INFERENCE], m, p->confidence);
	set_rates(&out[TAPAS_RISK_EXACT_COPY], kr[TAPAS_RISK_EXACT_COPY],
			  kh[TAPAS_RISK_EXACT_COPY], kb[TAPAS_RISK_EXACT_COPY], m,
			  p->confidence);
	if ((st = distance_rows(&am, m, p, &rng, out)) != TAPAS_OK)
		goto done;

	for (i = 0; i < real->n; i++)
		if (am.iso_r[i] > 0)
			add_record(rec, &nrec, 0, i, TAPAS_RISK_SINGLING_OUT, am.iso_r[i]);
	for (i = 0; i < holdout->n; i++)
		if (am.iso_h[i] > 0)
			add_record(rec, &nrec, 1, i, TAPAS_RISK_SINGLING_OUT, am.iso_h[i]);
	*records = rec;
	*nrecords = nrec;
	rec = NULL;
done:
	tapas_free(rec);
	audit_mem_free(&am);
	return st;
}
