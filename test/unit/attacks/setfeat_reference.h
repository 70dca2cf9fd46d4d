/*
 * setfeat_reference.h
 *	  The set-feature extraction as it was before the Groundhog speed work
 *	  (commit f9c6c1b, src/attacks/set_features.c, from "Extraction" on),
 *	  verbatim but for the ref_ prefix: every co-moment summed row by row.
 *	  The oracle of t-set_features_same.c.  It runs on an extractor made by
 *	  tapas_setfeat_create (whose buffers it uses).  Include once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/set_features.h"
#include "attacks/set_features_int.h"

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
ref_encoded_cell(const tapas_coded_schema_t *s, size_t j, double v, double *out)
{
	if (s->kind[j] == TAPAS_COL_CATEGORICAL)
	{
		*out = 1.0;
		return s->offset[j] + (size_t) v;
	}
	*out = (v - s->shift[j]) * s->scale[j];
	return s->offset[j];
}

/* sum and upper-triangular co-moments of the encoded view, one pass */
static void
ref_accumulate_moments(tapas_setfeat_t *fs, const double *x, size_t n)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		e = s->e,
				m = s->m,
				r,
				j,
				k;
	size_t		idx[64];
	double		val[64];
	double	   *S = fs->comoment;

	memset(fs->sum, 0, e * sizeof(double));
	memset(S, 0, e * e * sizeof(double));
	for (r = 0; r < n; r++)
	{
		const double *row = x + r * m;

		/* sparse row, in chunks of 64 columns: entries for (j, k) pairs */
		for (j = 0; j < m; j++)
		{
			double		v;
			size_t		a = ref_encoded_cell(s, j, row[j], &v);

			fs->sum[a] += v;
			if (m <= 64)
			{
				idx[j] = a;
				val[j] = v;
			}
			else
			{
				/* wide numeric matrices: pair with every later column */
				for (k = j; k < m; k++)
				{
					double		w;
					size_t		b = ref_encoded_cell(s, k, row[k], &w);

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
					Srow[idx[k]] += v * val[k];
			}
	}
}

/*
 * k-th smallest of v[0..n-1] (Wirth's selection); v is permuted so that
 * v[0..k-1] <= v[k] <= v[k+1..n-1].
 */
static double
ref_quickselect(double *v, size_t n, size_t k)
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
ref_median_binary(size_t ones, size_t n)
{
	/* sorted: n - ones zeros, then ones; position p holds 1 iff p >= n - ones */
	double		a = (n - 1) / 2 >= n - ones ? 1.0 : 0.0;
	double		b = n / 2 >= n - ones ? 1.0 : 0.0;

	return n % 2 ? a : (a + b) / 2.0;
}

static void
ref_extract_naive(tapas_setfeat_t *fs, const double *x, size_t n, double *out)
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
				out[e + a] = ref_median_binary((size_t) fs->sum[a], n);
			continue;
		}
		for (r = 0; r < n; r++)
			fs->colbuf[r] = (x[r * s->m + j] - s->shift[j]) * s->scale[j];
		a = s->offset[j];
		if (n % 2)
			out[e + a] = ref_quickselect(fs->colbuf, n, n / 2);
		else
		{
			double		hi = ref_quickselect(fs->colbuf, n, n / 2);
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
ref_extract_hist(tapas_setfeat_t *fs, const tapas_setfeat_item_t *it,
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

static void
ref_extract_corr(tapas_setfeat_t *fs, size_t n, double *out)
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

		for (b = a + 1; b < e; b++)
		{
			double		mb = mean ? mean[b] : fs->sum[b] / (double) n;
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

static tapas_status
ref_setfeat_extract(tapas_setfeat_t *fs, const double *x, size_t n, double *out)
{
	size_t		i,
				pos = 0,
				n_masks = 0;
	int			have_masks = 0;

	if (n == 0 || n > fs->n_max)
		return TAPAS_EINVAL;
	ref_accumulate_moments(fs, x, n);
	for (i = 0; i < fs->n_items; i++)
	{
		const tapas_setfeat_item_t *it = &fs->items[i];
		switch (it->type)
		{
			case TAPAS_SETFEAT_NAIVE:
				ref_extract_naive(fs, x, n, out + pos);
				break;
			case TAPAS_SETFEAT_HIST:
				ref_extract_hist(fs, it, x, n, out + pos);
				break;
			case TAPAS_SETFEAT_CORR:
				ref_extract_corr(fs, n, out + pos);
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
