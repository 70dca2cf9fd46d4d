/*-------------------------------------------------------------------------
 *
 * set_features.c
 *	  Naive, histogram, correlation and random-targeted-query set features.
 *
 * See set_features.h for the definitions.  Extraction makes one pass over
 * the records that accumulates, in the encoded view X (n x e),
 *	sum[a] = sum_r X[r][a]		and		S[a][b] = sum_r X[r][a] X[r][b] (a <= b)
 * using the sparse rows (one nonzero per column: offset[j] + code with
 * value 1 for categorical columns, offset[j] with the value for numeric
 * ones).  Then mean = sum/n, var = S[a][a]/n - mean^2 and
 * corr(a, b) = (S[a][b]/n - mean_a mean_b) / sqrt(var_a var_b).
 * Medians of one-hot columns follow from their counts; numeric columns use
 * quickselect.  The schema lives in coded_schema.c, the random targeted
 * queries in targeted_queries.c.
 *
 * IDENTIFICATION
 *	  src/attacks/set_features.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/set_features.h"
#include "attacks/set_features_int.h"
#include "util/memory.h"

/* ----------------------------------------------------------------
 *		Creation
 * ----------------------------------------------------------------
 */

/* checks one item and sets its dimension (queries: draws the subsets) */
static tapas_status
item_prepare(tapas_setfeat_item_t *it, const tapas_coded_schema_t *s,
			 const double *target, const char **reason)
{
	size_t		j;

	switch (it->type)
	{
		case TAPAS_SETFEAT_NAIVE:
			it->dim = 3 * s->e;
			return TAPAS_OK;
		case TAPAS_SETFEAT_HIST:
			if (it->n_bins < 1 || !(it->lo < it->hi))
			{
				*reason = "hist needs n_bins >= 1 and bounds lo < hi";
				return TAPAS_EINVAL;
			}
			it->dim = 0;
			for (j = 0; j < s->m; j++)
				it->dim += s->kind[j] == TAPAS_COL_CATEGORICAL ?
					(size_t) s->ncat[j] : (size_t) it->n_bins;
			return TAPAS_OK;
		case TAPAS_SETFEAT_CORR:
			it->dim = s->e * (s->e - 1) / 2;
			return TAPAS_OK;
		case TAPAS_SETFEAT_QUERIES:
			if (target == NULL || s->m > 64)
			{
				*reason = "queries need a target record and at most 64 columns";
				return TAPAS_EINVAL;
			}
			if (it->order < 1 || (size_t) it->order > s->m || it->number < 1)
			{
				*reason = "queries need 1 <= order <= number of columns and number >= 1";
				return TAPAS_EINVAL;
			}
			return tapas_setfeat_draw_queries(it, s->m);
	}
	*reason = "unrecognized feature set";
	return TAPAS_EINVAL;
}

tapas_status
tapas_setfeat_create(tapas_setfeat_t **out, const tapas_coded_schema_t *schema,
					 const tapas_setfeat_item_t *items, size_t n_items,
					 const double *target, size_t n_max, const char **reason)
{
	tapas_setfeat_t *fs;
	const char *dummy;
	tapas_status st = TAPAS_ENOMEM;
	size_t		i,
				e = schema ? schema->e : 0;

	if (reason == NULL)
		reason = &dummy;
	*reason = NULL;
	*out = NULL;
	if (schema == NULL || items == NULL || n_items == 0 || n_max == 0)
	{
		*reason = "a feature extractor needs a schema, at least one feature set and n_max >= 1";
		return TAPAS_EINVAL;
	}
	fs = tapas_calloc(1, sizeof(*fs));
	if (fs == NULL)
		return TAPAS_ENOMEM;
	fs->schema = schema;
	fs->n_max = n_max;
	fs->items = tapas_calloc(n_items, sizeof(tapas_setfeat_item_t));
	if (fs->items == NULL)
		goto fail;
	fs->n_items = n_items;
	for (i = 0; i < n_items; i++)
	{
		fs->items[i] = items[i];
		fs->items[i].masks = NULL;
	}
	for (i = 0; i < n_items; i++)
	{
		st = item_prepare(&fs->items[i], schema, target, reason);
		if (st != TAPAS_OK)
			goto fail;
		fs->dim += fs->items[i].dim;
	}
	st = TAPAS_ENOMEM;
	fs->sum = tapas_malloc(e * sizeof(double));
	fs->comoment = tapas_malloc(e * e * sizeof(double));
	for (i = 0; i < schema->m && schema->m <= 64; i++)
		if (schema->kind[i] == TAPAS_COL_CATEGORICAL)
		{
			fs->bits_words = (n_max + 63) / 64;
			fs->bits = tapas_malloc(e * fs->bits_words * sizeof(uint64_t));
			if (fs->bits == NULL)
				goto fail;
			break;
		}
	fs->colbuf = tapas_malloc(n_max * sizeof(double));
	fs->maskbuf = tapas_malloc(n_max * sizeof(uint64_t));
	fs->countbuf = tapas_malloc(n_max * sizeof(double));
	fs->sd = tapas_malloc((e ? e : 1) * sizeof(double));
	if (target != NULL)
	{
		fs->target = tapas_malloc(schema->m * sizeof(double));
		if (fs->target == NULL)
			goto fail;
		memcpy(fs->target, target, schema->m * sizeof(double));
	}
	if (!fs->sum || !fs->comoment || !fs->colbuf || !fs->maskbuf ||
		!fs->countbuf || !fs->sd)
		goto fail;
	*out = fs;
	return TAPAS_OK;
fail:
	tapas_setfeat_free(fs);
	return st;
}

void
tapas_setfeat_free(tapas_setfeat_t *fs)
{
	size_t		i;

	if (fs == NULL)
		return;
	if (fs->items)
		for (i = 0; i < fs->n_items; i++)
			tapas_free(fs->items[i].masks);
	tapas_free(fs->items);
	tapas_free(fs->target);
	tapas_free(fs->sum);
	tapas_free(fs->comoment);
	tapas_free(fs->bits);
	tapas_free(fs->colbuf);
	tapas_free(fs->maskbuf);
	tapas_free(fs->countbuf);
	tapas_free(fs->sd);
	tapas_free(fs);
}

/* ----------------------------------------------------------------
 *		Extraction
 * ----------------------------------------------------------------
 */

/*
 * The encoded position of raw value v of column j, and its encoded value in
 * *out: a categorical code is a one at offset + code, a numeric value is
 * standardized in place.
 */
static inline size_t
encoded_cell(const tapas_coded_schema_t *s, size_t j, double v, double *out)
{
	if (s->kind[j] == TAPAS_COL_CATEGORICAL)
	{
		*out = 1.0;
		return s->offset[j] + (size_t) v;
	}
	*out = (v - s->shift[j]) * s->scale[j];
	return s->offset[j];
}

/*
 * sum and upper-triangular co-moments of the encoded view, one pass; with
 * fs->bits, the pairs of two categorical columns come from popcounts and
 * the pass does the pairs with a numeric column only (every entry of S
 * belongs to one pair of columns and gets its additions in row order
 * either way).
 */
static void
accumulate_moments(tapas_setfeat_t *fs, const double *x, size_t n)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		e = s->e,
				m = s->m,
				r,
				j,
				k;
	size_t		idx[64];
	double		val[64];
	int			counted[64];	/* categorical column counted by popcounts */
	int			any_numeric = 0;
	double	   *S = fs->comoment;

	memset(fs->sum, 0, e * sizeof(double));
	memset(S, 0, e * e * sizeof(double));
	for (j = 0; j < m && m <= 64; j++)
	{
		counted[j] = fs->bits != NULL && s->kind[j] == TAPAS_COL_CATEGORICAL;
		any_numeric |= !counted[j];
	}
	if (fs->bits != NULL)
	{
		tapas_setfeat_cocount(fs, x, n);
		if (!any_numeric)
			return;
	}
	for (r = 0; r < n; r++)
	{
		const double *row = x + r * m;

		/* sparse row, in chunks of 64 columns: entries for (j, k) pairs */
		for (j = 0; j < m; j++)
		{
			double		v;
			size_t		a = encoded_cell(s, j, row[j], &v);

			if (m <= 64)
			{
				idx[j] = a;
				val[j] = v;
				if (!counted[j])
					fs->sum[a] += v;
			}
			else
			{
				fs->sum[a] += v;
				/* wide numeric matrices: pair with every later column */
				for (k = j; k < m; k++)
				{
					double		w;
					size_t		b = encoded_cell(s, k, row[k], &w);

					S[a * e + b] += v * w;
				}
			}
		}
		if (m <= 64)
			for (j = 0; j < m; j++)
			{
				double	   *Srow = S + idx[j] * e;
				double		v = val[j];

				for (k = j; k < m; k++)
					if (!(counted[j] && counted[k]))
						Srow[idx[k]] += v * val[k];
			}
	}
}

/*
 * k-th smallest of v[0..n-1] (Wirth's selection); v is permuted so that
 * v[0..k-1] <= v[k] <= v[k+1..n-1].
 */
static double
quickselect(double *v, size_t n, size_t k)
{
	long		l = 0,
				h = (long) n - 1,
				kk = (long) k;

	while (l < h)
	{
		double		x = v[kk];
		long		i = l,
					j = h;

		do
		{
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j)
			{
				double		t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			h = j;
	}
	return v[kk];
}

/* numpy median of a 0/1 column with `ones` ones among n */
static double
median_binary(size_t ones, size_t n)
{
	/* sorted: n - ones zeros, then ones; position p holds 1 iff p >= n - ones */
	double		a = (n - 1) / 2 >= n - ones ? 1.0 : 0.0;
	double		b = n / 2 >= n - ones ? 1.0 : 0.0;

	return n % 2 ? a : (a + b) / 2.0;
}

static void
extract_naive(tapas_setfeat_t *fs, const double *x, size_t n, double *out)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		e = s->e,
				j,
				a,
				r;

	for (a = 0; a < e; a++)
	{
		double		mean = fs->sum[a] / (double) n;
		double		var = fs->comoment[a * e + a] / (double) n - mean * mean;

		out[a] = mean;
		out[2 * e + a] = var > 0 ? var : 0.0;
	}
	for (j = 0; j < s->m; j++)
	{
		if (s->kind[j] == TAPAS_COL_CATEGORICAL)
		{
			for (a = s->offset[j]; a < s->offset[j] + (size_t) s->ncat[j]; a++)
				out[e + a] = median_binary((size_t) fs->sum[a], n);
			continue;
		}
		for (r = 0; r < n; r++)
			fs->colbuf[r] = (x[r * s->m + j] - s->shift[j]) * s->scale[j];
		a = s->offset[j];
		if (n % 2)
			out[e + a] = quickselect(fs->colbuf, n, n / 2);
		else
		{
			double		hi = quickselect(fs->colbuf, n, n / 2);
			double		lo = fs->colbuf[0];

			/* after selecting n/2, the lower half holds the smaller values */
			for (r = 1; r < n / 2; r++)
				if (fs->colbuf[r] > lo)
					lo = fs->colbuf[r];
			out[e + a] = (lo + hi) / 2.0;
		}
	}
}

static void
extract_hist(tapas_setfeat_t *fs, const tapas_setfeat_item_t *it,
			 const double *x, size_t n, double *out)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		j,
				r,
				c,
				pos = 0;
	double		width = (it->hi - it->lo) / it->n_bins;

	for (j = 0; j < s->m; j++)
	{
		if (s->kind[j] == TAPAS_COL_CATEGORICAL)
		{
			for (c = 0; c < (size_t) s->ncat[j]; c++)
				out[pos++] = fs->sum[s->offset[j] + c] / (double) n;
			continue;
		}
		memset(out + pos, 0, it->n_bins * sizeof(double));
		for (r = 0; r < n; r++)
		{
			double		enc = (x[r * s->m + j] - s->shift[j]) * s->scale[j];
			double		v = (enc - it->lo) / width;
			long		b = (long) floor(v);

			if (!(b >= 0))		/* also NaN */
				b = 0;
			if (b >= it->n_bins)
				b = it->n_bins - 1;
			out[pos + b] += 1.0;
		}
		for (c = 0; c < (size_t) it->n_bins; c++)
			out[pos + c] /= (double) n;
		pos += it->n_bins;
	}
}

/*
 * One row of the correlations: column a against columns b = a+1..e-1,
 * branch-free so that it vectorises (compiled for AVX2 too, picked at load
 * time).  The same operations as the scalar form, in the same order, and
 * no FMA (AVX2 alone does not enable it, and contraction is off): each
 * value is the same double.  A pair with a constant column is 0.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* -O2 does not vectorise this loop; O3 here does */
#define CORR_CLONES __attribute__((target_clones("avx2", "default"), optimize("O3", "fp-contract=off")))
#elif defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* clang (PGXS's JIT bitcode) has no optimize attribute */
#define CORR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CORR_CLONES
#endif

CORR_CLONES
static void
corr_row(const double *restrict Srow, const double *restrict mean,
		 const double *restrict sd, double ma, double sa, double nd, size_t lo,
		 size_t e, double *restrict out)
{
#ifdef __clang__
#pragma clang fp contract(off)
#endif
	size_t		b;

	for (b = lo; b < e; b++)
	{
		double		sb = sd[b],
					c = (Srow[b] / nd - ma * mean[b]) / (sa * sb);

		c = c > 1.0 ? 1.0 : c;
		c = c < -1.0 ? -1.0 : c;
		out[b - lo] = sa > 0 && sb > 0 ? c : 0.0;
	}
}

static void
extract_corr(tapas_setfeat_t *fs, size_t n, double *out)
{
	size_t		e = fs->schema->e,
				a,
				b,
				pos = 0;
	double	   *mean = fs->colbuf;	/* holds e values when n_max >= e */
	double		small[256];

	if (e > fs->n_max)
		mean = e <= 256 ? small : NULL;
	for (a = 0; a < e; a++)
	{
		double		mu = fs->sum[a] / (double) n;
		double		var = fs->comoment[a * e + a] / (double) n - mu * mu;

		fs->sd[a] = var > 1e-300 ? sqrt(var) : 0.0;
		if (mean)
			mean[a] = mu;
	}
	for (a = 0; a < e; a++)
	{
		double		ma = fs->sum[a] / (double) n;
		double		sa = fs->sd[a];
		const double *Srow = fs->comoment + a * e;

		if (mean != NULL)
		{
			corr_row(Srow, mean, fs->sd, ma, sa, (double) n, a + 1, e, out + pos);
			pos += e - a - 1;
			continue;
		}
		for (b = a + 1; b < e; b++)
		{
			double		mb = fs->sum[b] / (double) n;
			double		sb = fs->sd[b];
			double		c = 0.0;

			if (sa > 0 && sb > 0)
			{
				c = (Srow[b] / (double) n - ma * mb) / (sa * sb);
				if (c > 1.0)
					c = 1.0;
				else if (c < -1.0)
					c = -1.0;
			}
			out[pos++] = c;
		}
	}
}

tapas_status
tapas_setfeat_extract(tapas_setfeat_t *fs, const double *x, size_t n, double *out)
{
	size_t		i,
				pos = 0,
				n_masks = 0;
	int			have_masks = 0,
				need_moments = 0;

	if (n == 0 || n > fs->n_max)
		return TAPAS_EINVAL;
	/* the queries alone (the custom attacks) need no moments */
	for (i = 0; i < fs->n_items; i++)
		need_moments |= fs->items[i].type != TAPAS_SETFEAT_QUERIES;
	if (need_moments)
		accumulate_moments(fs, x, n);
	for (i = 0; i < fs->n_items; i++)
	{
		const tapas_setfeat_item_t *it = &fs->items[i];
		switch (it->type)
		{
			case TAPAS_SETFEAT_NAIVE:
				extract_naive(fs, x, n, out + pos);
				break;
			case TAPAS_SETFEAT_HIST:
				extract_hist(fs, it, x, n, out + pos);
				break;
			case TAPAS_SETFEAT_CORR:
				extract_corr(fs, n, out + pos);
				break;
			case TAPAS_SETFEAT_QUERIES:
				if (!have_masks)
				{
					n_masks = tapas_setfeat_match_masks(fs, x, n);
					have_masks = 1;
				}
				tapas_setfeat_count_queries(fs, it, n_masks, out + pos);
				break;
		}
		pos += it->dim;
	}
	return TAPAS_OK;
}
