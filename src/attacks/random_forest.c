/*-------------------------------------------------------------------------
 *
 * random_forest.c
 *	  CART trees with the Gini criterion, bagged into a random forest.
 *
 * Growing one tree (depth first): the node's samples are a segment of the
 * arrays idx[] (distinct sample numbers) and w0[], w1[] (bootstrap counts
 * by class, rf_int.h).  The best split of the node is searched by
 * rf_split.c; the segment is then partitioned in place by
 * x[f] <= threshold (on ranks: rank <= the split's lower rank) and both
 * halves grown.
 *
 * IDENTIFICATION
 *	  src/attacks/random_forest.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include "attacks/random_forest.h"
#include "attacks/rf_int.h"
#include "util/memory.h"

void
tapas_rf_params_default(tapas_rf_params_t *p)
{
	p->n_trees = 100;
	p->max_depth = 0;
	p->min_samples_split = 2;
	p->min_samples_leaf = 1;
	p->max_features = 0;
	p->bootstrap = 1;
}

/* ----------------------------------------------------------------
 *		Tree growth
 * ----------------------------------------------------------------
 */

/* appends a node and returns its number, or -1 on ENOMEM */
static int32_t
tree_add_node(tapas_rf_tree_t *t)
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
 * Whether sample i goes left at split s: x[f] <= threshold; on ranks,
 * rank <= lo_rank, the same test (the threshold lies in [value(lo_rank),
 * value(hi_rank)), and no sample of the node has a rank between the two).
 */
static inline int
goes_left(const rf_builder *b, const rf_split *s, int32_t i)
{
	size_t		f = (size_t) s->feature;

	if (b->rank == NULL)
		return (double) b->Xc[f * b->n + (size_t) i] <= s->threshold;
	if (b->rank_count[f] <= 256)
		return b->rank8[b->rank_col[f] + (size_t) i] <= s->lo_rank;
	return b->rank[b->rank_col[f] + (size_t) i] <= s->lo_rank;
}

/* moves the samples of [lo, hi) that go left at split s first; returns the cut */
static long
partition(rf_builder *b, long lo, long hi, const rf_split *s)
{
	long		k,
				l = lo,
				r = 0;

	for (k = lo; k < hi; k++)
	{
		if (goes_left(b, s, b->idx[k]))
		{
			b->idx[l] = b->idx[k];
			b->w0[l] = b->w0[k];
			b->w1[l] = b->w1[k];
			if (b->wp)
				b->wp[l] = b->wp[k];
			l++;
		}
		else
		{
			b->tmp_idx[r] = b->idx[k];
			b->tmp_w0[r] = b->w0[k];
			b->tmp_w1[r] = b->w1[k];
			if (b->wp)
				b->tmp_wp[r] = b->wp[k];
			r++;
		}
	}
	memcpy(b->idx + l, b->tmp_idx, r * sizeof(int32_t));
	memcpy(b->w0 + l, b->tmp_w0, r * sizeof(double));
	memcpy(b->w1 + l, b->tmp_w1, r * sizeof(double));
	if (b->wp)
		memcpy(b->wp + l, b->tmp_wp, r * sizeof(uint64_t));
	return l;
}

/* grows the subtree of node `node` over segment [lo, hi) */
static tapas_status
grow(rf_builder *b, int32_t node, long lo, long hi, int depth)
{
	double		W0 = 0,
				W1 = 0;
	long		k,
				cut;
	rf_split	best;
	int32_t		left,
				right;
	tapas_status st;

	/* the split search looks at max_features features of each sample */
	if (rf_poll(b, (size_t) (hi - lo) * (size_t) b->max_features))
		return TAPAS_ECANCELED;
	for (k = lo; k < hi; k++)
	{
		W0 += b->w0[k];
		W1 += b->w1[k];
	}
	b->tree->nodes[node].p1 = W1 / (W0 + W1);
	if (W0 == 0 || W1 == 0 || hi - lo < b->p->min_samples_split ||
		hi - lo < 2 * (long) b->p->min_samples_leaf ||
		(b->p->max_depth > 0 && depth >= b->p->max_depth))
		return TAPAS_OK;
	tapas_rf_find_split(b, lo, hi, W0, W1, &best);
	if (best.feature < 0)
		return TAPAS_OK;
	cut = partition(b, lo, hi, &best);
	if (cut == lo || cut == hi)
		return TAPAS_OK;		/* cannot happen with a separating threshold */
	left = tree_add_node(b->tree);
	right = tree_add_node(b->tree);
	if (left < 0 || right < 0)
		return TAPAS_ENOMEM;
	b->tree->nodes[node].feature = best.feature;
	b->tree->nodes[node].threshold = best.threshold;
	b->tree->nodes[node].left = left;
	b->tree->nodes[node].right = right;
	st = grow(b, left, lo, cut, depth + 1);
	if (st != TAPAS_OK)
		return st;
	return grow(b, right, cut, hi, depth + 1);
}

/* position k of the tree holds sample i with weight w */
static inline void
set_sample(rf_builder *b, long k, size_t i, double w)
{
	b->idx[k] = (int32_t) i;
	b->w0[k] = b->y[i] ? 0.0 : w;
	b->w1[k] = b->y[i] ? w : 0.0;
	if (b->wp)
		b->wp[k] = b->y[i] ? RF_PACK(0, w) : RF_PACK(w, 0);
}

/* draws the (bootstrap) sample of one tree into b->idx/w; returns its size */
static long
draw_sample(rf_builder *b, int32_t *count)
{
	size_t		i;
	long		m = 0;

	if (!b->p->bootstrap)
	{
		for (i = 0; i < b->n; i++)
			set_sample(b, (long) i, i, 1.0);
		return (long) b->n;
	}
	memset(count, 0, b->n * sizeof(int32_t));
	for (i = 0; i < b->n; i++)
		count[tapas_rng_below(b->rng, b->n)]++;
	for (i = 0; i < b->n; i++)
		if (count[i] > 0)
			set_sample(b, m++, i, count[i]);
	return m;
}

/*
 * Xc (d x n, float) from X (n x d), in blocks of 16 samples so that both
 * the reads (16 rows, advancing together) and the writes (16 consecutive
 * floats of a column) stay in cache; notes a NaN in b->has_nan.
 */
static void
transpose_features(rf_builder *b, size_t n, size_t d, float *Xc)
{
	size_t		i0,
				i,
				j;

	for (i0 = 0; i0 < n; i0 += 16)
	{
		size_t		i1 = i0 + 16 < n ? i0 + 16 : n;

		for (j = 0; j < d; j++)
			for (i = i0; i < i1; i++)
			{
				float		v = rf_x(b, i, j);

				Xc[j * n + i] = v;
				b->has_nan |= v != v;
			}
	}
}

static tapas_status
check_params(const tapas_rf_params_t *p, const int *y, size_t n, size_t d)
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
builder_free(rf_builder *b, float *Xc, int32_t *count)
{
	tapas_free(Xc);
	tapas_free(count);
	tapas_free(b->idx);
	tapas_free(b->w0);
	tapas_free(b->w1);
	tapas_free(b->feat);
	tapas_free(b->pairs);
	tapas_free(b->keys);
	tapas_free(b->keys_tmp);
	tapas_free(b->rank);
	tapas_free(b->rank8);
	tapas_free(b->rank_col);
	tapas_free(b->rank_count);
	tapas_free(b->block_keys);
	tapas_free(b->count);
	tapas_free(b->bucket);
	tapas_free(b->bucket_mark);
	tapas_free(b->cand_rank);
	tapas_free(b->cand_left);
	tapas_free(b->cand_proxy);
	tapas_free(b->tmp_idx);
	tapas_free(b->tmp_w0);
	tapas_free(b->tmp_w1);
	tapas_free(b->wp);
	tapas_free(b->tmp_wp);
}

/* tapas_rf_fit on X or, when X is NULL, Xf */
static tapas_status
fit(tapas_rf_t **out, const double *X, const float *Xf, const int *y, size_t n,
	size_t d, const tapas_rf_params_t *params, tapas_rng_t *rng,
	const tapas_progress_t *progress)
{
	rf_builder	b;
	tapas_rf_t *rf = NULL;
	float	   *Xc = NULL;
	int32_t    *count = NULL;
	tapas_status st;
	size_t		j,
				t;

	*out = NULL;
	st = check_params(params, y, n, d);
	if (st != TAPAS_OK)
		return st;
	memset(&b, 0, sizeof(b));
	st = TAPAS_ENOMEM;
	count = tapas_malloc(n * sizeof(int32_t));
	b.idx = tapas_malloc(n * sizeof(int32_t));
	b.w0 = tapas_malloc(n * sizeof(double));
	b.w1 = tapas_malloc(n * sizeof(double));
	b.feat = tapas_malloc(d * sizeof(rf_feat));
	b.pairs = tapas_malloc(n * sizeof(rf_pair));
	b.keys = tapas_malloc(n * sizeof(uint64_t));
	b.keys_tmp = tapas_malloc(n * sizeof(uint64_t));
	b.tmp_idx = tapas_malloc(n * sizeof(int32_t));
	b.tmp_w0 = tapas_malloc(n * sizeof(double));
	b.tmp_w1 = tapas_malloc(n * sizeof(double));
	rf = tapas_calloc(1, sizeof(tapas_rf_t));
	if (!count || !b.idx || !b.w0 || !b.w1 || !b.feat || !b.pairs ||
		!b.keys || !b.keys_tmp || !b.tmp_idx || !b.tmp_w0 || !b.tmp_w1 || !rf)
		goto fail;
	rf->d = d;
	rf->trees = tapas_calloc(params->n_trees, sizeof(tapas_rf_tree_t));
	if (rf->trees == NULL)
		goto fail;
	rf->n_trees = params->n_trees;
	b.X = X;
	b.Xf = X == NULL ? Xf : NULL;
	b.y = y;
	b.n = n;
	b.d = d;
	b.progress = progress;
	b.fraction = -1;			/* ranking: no fraction of the trees yet */
	if (n <= tapas_rf_rank_max_n && n <= RF_RANK_MAX_N &&
		(st = tapas_rf_build_ranks(&b)) != TAPAS_OK)
		goto fail;
	st = TAPAS_ENOMEM;
	for (j = 0; j < d; j++)
	{
		b.feat[j].f = (int32_t) j;
		b.feat[j].count = b.rank != NULL ? b.rank_count[j] : 0;
		b.feat[j].col = b.rank != NULL ? b.rank_col[j] : 0;
	}
	if (b.rank == NULL)
	{
		/* no ranks (too many samples, or a NaN): the float copy */
		Xc = tapas_malloc(n * d * sizeof(float));
		if (Xc == NULL)
			goto fail;
		transpose_features(&b, n, d, Xc);
		b.Xc = Xc;
	}

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
		m = draw_sample(&b, count);
		b.tree = &rf->trees[t];
		b.fraction = (double) t / rf->n_trees;
		if (tree_add_node(b.tree) < 0)
			goto fail;
		st = grow(&b, 0, 0, m, 0);
		if (st != TAPAS_OK)
			goto fail;
		st = TAPAS_ENOMEM;
	}
	builder_free(&b, Xc, count);
	*out = rf;
	return TAPAS_OK;
fail:
	builder_free(&b, Xc, count);
	tapas_rf_free(rf);
	return st;
}

tapas_status
tapas_rf_fit(tapas_rf_t **out, const double *X, const int *y, size_t n, size_t d,
			 const tapas_rf_params_t *params, tapas_rng_t *rng,
			 const tapas_progress_t *progress)
{
	*out = NULL;
	if (X == NULL)
		return TAPAS_EINVAL;
	return fit(out, X, NULL, y, n, d, params, rng, progress);
}

tapas_status
tapas_rf_fit_float(tapas_rf_t **out, const float *X, const int *y, size_t n,
				   size_t d, const tapas_rf_params_t *params, tapas_rng_t *rng,
				   const tapas_progress_t *progress)
{
	*out = NULL;
	if (X == NULL)
		return TAPAS_EINVAL;
	return fit(out, NULL, X, y, n, d, params, rng, progress);
}

double
tapas_rf_predict_proba_float(const tapas_rf_t *rf, const float *x)
{
	double		s = 0;
	size_t		t;

	for (t = 0; t < rf->n_trees; t++)
	{
		const tapas_rf_node_t *nodes = rf->trees[t].nodes;
		int32_t		k = 0;

		while (nodes[k].feature >= 0)
			k = (double) x[nodes[k].feature] <= nodes[k].threshold ?
				nodes[k].left : nodes[k].right;
		s += nodes[k].p1;
	}
	return s / (double) rf->n_trees;
}

double
tapas_rf_predict_proba(const tapas_rf_t *rf, const double *x)
{
	double		s = 0;
	size_t		t;

	for (t = 0; t < rf->n_trees; t++)
	{
		const tapas_rf_node_t *nodes = rf->trees[t].nodes;
		int32_t		k = 0;

		while (nodes[k].feature >= 0)
			k = (double) (float) x[nodes[k].feature] <= nodes[k].threshold ?
				nodes[k].left : nodes[k].right;
		s += nodes[k].p1;
	}
	return s / (double) rf->n_trees;
}

int
tapas_rf_validate(const tapas_rf_t *rf, const char **reason)
{
	size_t		t,
				k;

	for (t = 0; t < rf->n_trees; t++)
	{
		const tapas_rf_tree_t *tr = &rf->trees[t];

		if (tr->n_nodes < 1)
		{
			*reason = "empty tree";
			return 0;
		}
		for (k = 0; k < tr->n_nodes; k++)
		{
			const tapas_rf_node_t *nd = &tr->nodes[k];

			if (!(nd->p1 >= 0.0 && nd->p1 <= 1.0))
			{
				*reason = "node probability outside [0, 1]";
				return 0;
			}
			if (nd->feature < 0)
				continue;
			if ((size_t) nd->feature >= rf->d ||
				nd->left <= (int32_t) k || nd->right <= (int32_t) k ||
				(size_t) nd->left >= tr->n_nodes || (size_t) nd->right >= tr->n_nodes)
			{
				*reason = "internal node with a bad feature or child";
				return 0;
			}
		}
	}
	return 1;
}

void
tapas_rf_free(tapas_rf_t *rf)
{
	size_t		t;

	if (rf == NULL)
		return;
	if (rf->trees)
		for (t = 0; t < rf->n_trees; t++)
			tapas_free(rf->trees[t].nodes);
	tapas_free(rf->trees);
	tapas_free(rf);
}
