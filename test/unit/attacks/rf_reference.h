/*
 * rf_reference.h
 *	  The random forest as it was before the Groundhog speed work (commit
 *	  f9c6c1b, src/attacks/random_forest.c), kept verbatim but for the
 *	  ref_ prefix: the oracle of t-random_forest_same.c, which checks that
 *	  the optimised split search grows the very same trees.  Include once.
 */
#include <math.h>
#include <string.h>

#include "attacks/random_forest.h"
#include "util/memory.h"

/* a value and its position in the node segment, for sorting */
typedef struct ref_rf_pair
{
	float		v;
	int32_t		pos;
} ref_rf_pair;

/* everything one tree build needs, allocated once per fit */
typedef struct ref_rf_builder
{
	const float *Xc;			/* feature-major, d x n */
	const int  *y;
	size_t		n,
				d;
	const tapas_rf_params_t *p;
	int			max_features;
	tapas_rng_t *rng;
	int32_t    *idx;			/* distinct samples of the tree */
	double	   *w;				/* their weights */
	int32_t    *feat;			/* feature permutation for drawing */
	ref_rf_pair    *pairs;			/* sort buffer */
	int32_t    *tmp_idx;		/* partition buffers */
	double	   *tmp_w;
	tapas_rf_tree_t *tree;
} ref_rf_builder;

typedef struct ref_rf_split
{
	int			feature;
	double		threshold;
	double		proxy;
} ref_rf_split;

/* ----------------------------------------------------------------
 *		Sorting (3-way quicksort, insertion sort for short runs)
 * ----------------------------------------------------------------
 */
static void
ref_pairs_sort(ref_rf_pair *a, long n)
{
	while (n > 16)
	{
		float		x = a[n / 2].v,
					x0 = a[0].v,
					x1 = a[n - 1].v;
		float		pivot;
		long		lt = 0,
					i = 0,
					gt = n;

		/* median of three */
		pivot = (x0 < x) ? ((x < x1) ? x : (x0 < x1 ? x1 : x0))
			: ((x0 < x1) ? x0 : (x < x1 ? x1 : x));
		while (i < gt)
		{
			ref_rf_pair		t;

			if (a[i].v < pivot)
			{
				t = a[lt];
				a[lt++] = a[i];
				a[i++] = t;
			}
			else if (a[i].v > pivot)
			{
				t = a[--gt];
				a[gt] = a[i];
				a[i] = t;
			}
			else
				i++;
		}
		/* recurse into the smaller side, loop on the larger */
		if (lt < n - gt)
		{
			ref_pairs_sort(a, lt);
			a += gt;
			n -= gt;
		}
		else
		{
			ref_pairs_sort(a + gt, n - gt);
			n = lt;
		}
	}
	{
		long		i,
					j;

		for (i = 1; i < n; i++)
		{
			ref_rf_pair		t = a[i];

			for (j = i; j > 0 && a[j - 1].v > t.v; j--)
				a[j] = a[j - 1];
			a[j] = t;
		}
	}
}

/* ----------------------------------------------------------------
 *		Tree growth
 * ----------------------------------------------------------------
 */

/* appends a node and returns its number, or -1 on ENOMEM */
static int32_t
ref_tree_add_node(tapas_rf_tree_t *t)
{
	if (t->n_nodes == t->cap)
	{
		size_t		cap = t->cap ? 2 * t->cap : 64;
		tapas_rf_node_t *nodes = tapas_realloc(t->nodes, cap * sizeof(tapas_rf_node_t));

		if (nodes == NULL)
			return -1;
		t->nodes = nodes;
		t->cap = cap;
	}
	memset(&t->nodes[t->n_nodes], 0, sizeof(tapas_rf_node_t));
	t->nodes[t->n_nodes].feature = -1;
	t->nodes[t->n_nodes].left = t->nodes[t->n_nodes].right = -1;
	return (int32_t) t->n_nodes++;
}

/*
 * Best split of the segment [lo, hi) on feature f, improving *best.
 * Returns 1 if f is constant in the segment.
 */
static int
ref_split_feature(ref_rf_builder *b, int f, long lo, long hi, double W0, double W1,
			  ref_rf_split *best)
{
	const float *xf = b->Xc + (size_t) f * b->n;
	ref_rf_pair    *pr = b->pairs;
	long		n = hi - lo,
				k,
				msl = b->p->min_samples_leaf;
	double		wl0 = 0,
				wl1 = 0;

	for (k = 0; k < n; k++)
	{
		pr[k].v = xf[b->idx[lo + k]];
		pr[k].pos = (int32_t) (lo + k);
	}
	ref_pairs_sort(pr, n);
	if (!(pr[0].v < pr[n - 1].v))
		return 1;
	for (k = 0; k < n - 1; k++)
	{
		int32_t		s = pr[k].pos;
		double		wl,
					wr,
					wr0,
					wr1,
					proxy;

		if (b->y[b->idx[s]])
			wl1 += b->w[s];
		else
			wl0 += b->w[s];
		if (!(pr[k].v < pr[k + 1].v) || k + 1 < msl || n - k - 1 < msl)
			continue;
		wl = wl0 + wl1;
		wr0 = W0 - wl0;
		wr1 = W1 - wl1;
		wr = wr0 + wr1;
		if (wl <= 0 || wr <= 0)
			continue;
		proxy = (wl0 * wl0 + wl1 * wl1) / wl + (wr0 * wr0 + wr1 * wr1) / wr;
		if (proxy > best->proxy + 1e-12)
		{
			double		t = ((double) pr[k].v + (double) pr[k + 1].v) / 2.0;

			/* the midpoint must separate the two floats */
			if (!((float) t < pr[k + 1].v) || (float) t < pr[k].v)
				t = pr[k].v;
			best->proxy = proxy;
			best->feature = f;
			best->threshold = t;
		}
	}
	return 0;
}

/* searches up to max_features non-constant features in random order */
static void
ref_find_split(ref_rf_builder *b, long lo, long hi, double W0, double W1, ref_rf_split *best)
{
	size_t		d = b->d,
				drawn = 0;
	int			visited = 0;

	best->feature = -1;
	best->proxy = (W0 * W0 + W1 * W1) / (W0 + W1);	/* no split */
	while (visited < b->max_features && drawn < d)
	{
		size_t		j = drawn + tapas_rng_below(b->rng, d - drawn);
		int32_t		f = b->feat[j];

		b->feat[j] = b->feat[drawn];
		b->feat[drawn++] = f;
		if (!ref_split_feature(b, f, lo, hi, W0, W1, best))
			visited++;
	}
}

/* moves the samples of [lo, hi) with x[f] <= thr first; returns the cut */
static long
ref_partition(ref_rf_builder *b, long lo, long hi, int f, double thr)
{
	const float *xf = b->Xc + (size_t) f * b->n;
	long		k,
				l = lo,
				r = 0;

	for (k = lo; k < hi; k++)
	{
		if ((double) xf[b->idx[k]] <= thr)
		{
			b->idx[l] = b->idx[k];
			b->w[l++] = b->w[k];
		}
		else
		{
			b->tmp_idx[r] = b->idx[k];
			b->tmp_w[r++] = b->w[k];
		}
	}
	memcpy(b->idx + l, b->tmp_idx, r * sizeof(int32_t));
	memcpy(b->w + l, b->tmp_w, r * sizeof(double));
	return l;
}

/* grows the subtree of node `node` over segment [lo, hi) */
static tapas_status
ref_grow(ref_rf_builder *b, int32_t node, long lo, long hi, int depth)
{
	double		W0 = 0,
				W1 = 0;
	long		k,
				cut;
	ref_rf_split	best;
	int32_t		left,
				right;

	for (k = lo; k < hi; k++)
	{
		if (b->y[b->idx[k]])
			W1 += b->w[k];
		else
			W0 += b->w[k];
	}
	b->tree->nodes[node].p1 = W1 / (W0 + W1);
	if (W0 == 0 || W1 == 0 || hi - lo < b->p->min_samples_split ||
		hi - lo < 2 * (long) b->p->min_samples_leaf ||
		(b->p->max_depth > 0 && depth >= b->p->max_depth))
		return TAPAS_OK;
	ref_find_split(b, lo, hi, W0, W1, &best);
	if (best.feature < 0)
		return TAPAS_OK;
	cut = ref_partition(b, lo, hi, best.feature, best.threshold);
	if (cut == lo || cut == hi)
		return TAPAS_OK;		/* cannot happen with a separating threshold */
	left = ref_tree_add_node(b->tree);
	right = ref_tree_add_node(b->tree);
	if (left < 0 || right < 0)
		return TAPAS_ENOMEM;
	b->tree->nodes[node].feature = best.feature;
	b->tree->nodes[node].threshold = best.threshold;
	b->tree->nodes[node].left = left;
	b->tree->nodes[node].right = right;
	if (ref_grow(b, left, lo, cut, depth + 1) != TAPAS_OK)
		return TAPAS_ENOMEM;
	return ref_grow(b, right, cut, hi, depth + 1);
}

/* draws the (bootstrap) sample of one tree into b->idx/w; returns its size */
static long
ref_draw_sample(ref_rf_builder *b, int32_t *count)
{
	size_t		i;
	long		m = 0;

	if (!b->p->bootstrap)
	{
		for (i = 0; i < b->n; i++)
		{
			b->idx[i] = (int32_t) i;
			b->w[i] = 1.0;
		}
		return (long) b->n;
	}
	memset(count, 0, b->n * sizeof(int32_t));
	for (i = 0; i < b->n; i++)
		count[tapas_rng_below(b->rng, b->n)]++;
	for (i = 0; i < b->n; i++)
		if (count[i] > 0)
		{
			b->idx[m] = (int32_t) i;
			b->w[m++] = count[i];
		}
	return m;
}

static tapas_status
ref_check_params(const tapas_rf_params_t *p, const int *y, size_t n, size_t d)
{
	size_t		i;

	if (n < 1 || d < 1 || n > INT32_MAX || d > INT32_MAX || p->n_trees < 1 ||
		p->max_depth < 0 || p->min_samples_split < 2 || p->min_samples_leaf < 1 ||
		p->max_features < 0)
		return TAPAS_EINVAL;
	for (i = 0; i < n; i++)
		if (y[i] != 0 && y[i] != 1)
			return TAPAS_EINVAL;
	return TAPAS_OK;
}

static void
ref_builder_free(ref_rf_builder *b, float *Xc, int32_t *count)
{
	tapas_free(Xc);
	tapas_free(count);
	tapas_free(b->idx);
	tapas_free(b->w);
	tapas_free(b->feat);
	tapas_free(b->pairs);
	tapas_free(b->tmp_idx);
	tapas_free(b->tmp_w);
}

static tapas_status
ref_rf_fit(tapas_rf_t **out, const double *X, const int *y, size_t n, size_t d,
			 const tapas_rf_params_t *params, tapas_rng_t *rng,
			 const tapas_progress_t *progress)
{
	ref_rf_builder	b;
	tapas_rf_t *rf = NULL;
	float	   *Xc = NULL;
	int32_t    *count = NULL;
	tapas_status st;
	size_t		i,
				j,
				t;

	*out = NULL;
	st = ref_check_params(params, y, n, d);
	if (st != TAPAS_OK)
		return st;
	memset(&b, 0, sizeof(b));
	st = TAPAS_ENOMEM;
	Xc = tapas_malloc(n * d * sizeof(float));
	count = tapas_malloc(n * sizeof(int32_t));
	b.idx = tapas_malloc(n * sizeof(int32_t));
	b.w = tapas_malloc(n * sizeof(double));
	b.feat = tapas_malloc(d * sizeof(int32_t));
	b.pairs = tapas_malloc(n * sizeof(ref_rf_pair));
	b.tmp_idx = tapas_malloc(n * sizeof(int32_t));
	b.tmp_w = tapas_malloc(n * sizeof(double));
	rf = tapas_calloc(1, sizeof(tapas_rf_t));
	if (!Xc || !count || !b.idx || !b.w || !b.feat || !b.pairs || !b.tmp_idx ||
		!b.tmp_w || !rf)
		goto fail;
	rf->d = d;
	rf->trees = tapas_calloc(params->n_trees, sizeof(tapas_rf_tree_t));
	if (rf->trees == NULL)
		goto fail;
	rf->n_trees = params->n_trees;
	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			Xc[j * n + i] = (float) X[i * d + j];
	for (j = 0; j < d; j++)
		b.feat[j] = (int32_t) j;
	b.Xc = Xc;
	b.y = y;
	b.n = n;
	b.d = d;
	b.p = params;
	b.rng = rng;
	b.max_features = params->max_features > 0 ? params->max_features :
		(int) floor(sqrt((double) d));
	if (b.max_features < 1)
		b.max_features = 1;
	for (t = 0; t < rf->n_trees; t++)
	{
		long		m;

		if (tapas_progress_poll(progress, (double) t / rf->n_trees))
		{
			st = TAPAS_ECANCELED;
			goto fail;
		}
		m = ref_draw_sample(&b, count);
		b.tree = &rf->trees[t];
		if (ref_tree_add_node(b.tree) < 0 || ref_grow(&b, 0, 0, m, 0) != TAPAS_OK)
			goto fail;
	}
	ref_builder_free(&b, Xc, count);
	*out = rf;
	return TAPAS_OK;
fail:
	ref_builder_free(&b, Xc, count);
	tapas_rf_free(rf);
	return st;
}

