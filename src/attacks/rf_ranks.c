/*-------------------------------------------------------------------------
 *
 * rf_ranks.c
 *	  The dense ranks of the random forest's features, computed once per
 *	  fit (rf_int.h), and the threshold of a split found on them.
 *
 * Rank r of feature f is the r-th smallest distinct value of the feature
 * over the n samples (-0 and +0 alike): the float's order-preserving key
 * sorted with its position, then numbered.  A feature with at most 256
 * distinct values keeps its ranks in bytes, the others in uint16 (n <=
 * RF_RANK_MAX_N): a quarter or half of the memory the split search's
 * gathers touch, and a feature with one value is known constant without
 * a look.
 *
 * The keys are read straight from the caller's row-major matrix, a block of
 * RF_RANK_BLOCK adjacent features at a time (one cache line of each row
 * serves the whole block), so the fit makes no feature-major float copy of
 * the matrix when it has ranks (the copy and its fresh pages cost about as
 * much as the ranking itself), and a feature's ranks are written once, into
 * the byte or uint16 array its distinct count calls for.  Nor is the value
 * of every rank kept: the split search records the best split's two ranks
 * and rf_rank_threshold() reads their values back from the matrix, at one
 * of the node's samples holding each, once per split.
 *
 * The ranking polls the caller's progress once per block (rf_poll): 6,099
 * features of 20,000 samples take seconds, longer than a cancel may wait.
 *
 * IDENTIFICATION
 *	  src/attacks/rf_ranks.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/rf_int.h"
#include "util/memory.h"

size_t		tapas_rf_rank_max_n = RF_RANK_MAX_N;

/* features ranked together: 8 doubles, one cache line of a row */
#define RF_RANK_BLOCK 8
/* the same for float matrices: 16 floats */
#define RF_RANK_BLOCK_FLOAT 16

/* rows fetched ahead while ranking (rf_int.h) */
int			tapas_rf_rank_ahead = 16;

/* the float the fit sees for X[i][f], -0 taken as +0 */
static inline float
feature_value(const rf_builder *b, size_t i, size_t f)
{
	float		v = rf_x(b, i, f);

	return v == 0.0f ? 0.0f : v;
}

/*
 * The ranks of feature f from its sorted keys (value above position) into
 * the byte or the uint16 array; advances *narrow or *wide.
 */
static void
store_ranks(rf_builder *b, size_t f, const uint64_t *key, size_t *narrow,
			size_t *wide)
{
	size_t		n = b->n,
				i;
	uint32_t	count = 1;

	for (i = 1; i < n; i++)
		count += (uint32_t) (key[i] >> 32) != (uint32_t) (key[i - 1] >> 32);
	b->rank_count[f] = count;
	if (count <= 256)
	{
		uint8_t    *col = b->rank8 + *narrow * n;
		uint32_t	r = 0;

		b->rank_col[f] = *narrow * n;
		(*narrow)++;
		col[(uint32_t) key[0]] = 0;
		for (i = 1; i < n; i++)
		{
			r += (uint32_t) (key[i] >> 32) != (uint32_t) (key[i - 1] >> 32);
			col[(uint32_t) key[i]] = (uint8_t) r;
		}
	}
	else
	{
		uint16_t   *col = b->rank + *wide * n;
		uint32_t	r = 0;

		b->rank_col[f] = *wide * n;
		(*wide)++;
		col[(uint32_t) key[0]] = 0;
		for (i = 1; i < n; i++)
		{
			r += (uint32_t) (key[i] >> 32) != (uint32_t) (key[i - 1] >> 32);
			col[(uint32_t) key[i]] = (uint16_t) r;
		}
	}
}

/* frees what tapas_rf_build_ranks allocated and leaves b without ranks */
static void
drop_ranks(rf_builder *b)
{
	tapas_free(b->rank);
	tapas_free(b->rank8);
	tapas_free(b->rank_col);
	tapas_free(b->rank_count);
	tapas_free(b->count);
	tapas_free(b->wp);
	tapas_free(b->tmp_wp);
	tapas_free(b->bucket);
	tapas_free(b->bucket_mark);
	tapas_free(b->cand_rank);
	tapas_free(b->cand_left);
	tapas_free(b->cand_proxy);
	tapas_free(b->block_keys);
	b->rank = NULL;
	b->rank8 = NULL;
	b->rank_col = NULL;
	b->rank_count = NULL;
	b->count = NULL;
	b->wp = NULL;
	b->tmp_wp = NULL;
	b->bucket = NULL;
	b->bucket_mark = NULL;
	b->cand_rank = NULL;
	b->cand_left = NULL;
	b->cand_proxy = NULL;
	b->block_keys = NULL;
}

tapas_status
tapas_rf_build_ranks(rf_builder *b)
{
	size_t		n = b->n,
				d = b->d,
				f0,
				i,
				j,
				block,
				narrow = 0,
				wide = 0;
	uint64_t   *keys;
	int			nan = 0;

	/* rank8 and rank are sized for the worst case; only what is used is touched */
	b->rank = tapas_malloc(n * d * sizeof(uint16_t));
	b->rank8 = tapas_malloc(n * d);
	b->rank_col = tapas_malloc(d * sizeof(size_t));
	b->rank_count = tapas_malloc(d * sizeof(uint32_t));
	b->count = tapas_malloc((n + 1) * sizeof(uint32_t));
	b->wp = tapas_malloc(n * sizeof(uint64_t));
	b->tmp_wp = tapas_malloc(n * sizeof(uint64_t));
	b->bucket = tapas_calloc(n + 1, sizeof(uint64_t));
	b->bucket_mark = tapas_calloc(n / 64 + 1, 64);
	b->cand_rank = tapas_malloc((n + 1) * sizeof(uint32_t));
	b->cand_left = tapas_malloc((n + 1) * sizeof(uint64_t));
	b->cand_proxy = tapas_malloc((n + 1) * sizeof(double));
	b->block_keys = tapas_malloc(RF_RANK_BLOCK_FLOAT * n * sizeof(uint64_t));
	if (!b->rank || !b->rank8 || !b->rank_col || !b->rank_count || !b->count ||
		!b->wp || !b->tmp_wp || !b->bucket || !b->bucket_mark || !b->block_keys ||
		!b->cand_rank || !b->cand_left || !b->cand_proxy)
	{
		drop_ranks(b);
		return TAPAS_ENOMEM;
	}
	keys = b->block_keys;
	block = b->Xf != NULL ? RF_RANK_BLOCK_FLOAT : RF_RANK_BLOCK;
	for (f0 = 0; f0 < d && !nan; f0 += block)
	{
		size_t		w = d - f0 < block ? d - f0 : block;

		for (i = 0; i < n; i++)
		{
			/*
			 * the rows are d values apart (48 kB for Groundhog's 6,099
			 * features as doubles), each read a cache miss: the block's
			 * line of a row further on is fetched meanwhile
			 * (test/bench/b-rf-fit.c)
			 */
			if (tapas_rf_rank_ahead > 0 && i + tapas_rf_rank_ahead < n)
			{
				size_t		o = (i + (size_t) tapas_rf_rank_ahead) * d + f0;

				if (b->Xf != NULL)
				{
					__builtin_prefetch(b->Xf + o);
					__builtin_prefetch(b->Xf + o + w - 1);
				}
				else
				{
					__builtin_prefetch(b->X + o);
					__builtin_prefetch(b->X + o + w - 1);
				}
			}
			for (j = 0; j < w; j++)
			{
				float		v = rf_x(b, i, f0 + j);

				nan |= v != v;
				keys[j * n + i] = ((uint64_t) float_key(v) << 32) | (uint32_t) i;
			}
		}
		for (j = 0; j < w && !nan; j++)
		{
			tapas_rf_keys_sort(keys + j * n, (long) n, b->keys_tmp);
			store_ranks(b, f0 + j, keys + j * n, &narrow, &wide);
		}
		/* a sort is a few passes over its n keys */
		if (rf_poll(b, 4 * n * w))
		{
			drop_ranks(b);
			return TAPAS_ECANCELED;
		}
	}
	tapas_free(b->block_keys);
	b->block_keys = NULL;
	if (nan)
	{
		/* NaN has no rank: the fit takes the float sort */
		drop_ranks(b);
		b->has_nan = 1;
	}
	return TAPAS_OK;
}

/*
 * The position in [lo, hi) of a sample whose rank of feature f is r (one
 * is there: the split search found r in the node).
 */
static long
find_rank(const rf_builder *b, int f, long lo, long hi, uint32_t r)
{
	long		k;

	if (b->rank_count[f] <= 256)
	{
		const uint8_t *col = b->rank8 + b->rank_col[f];

		for (k = lo; k < hi - 1 && col[b->idx[k]] != r; k++)
			;
	}
	else
	{
		const uint16_t *col = b->rank + b->rank_col[f];

		for (k = lo; k < hi - 1 && col[b->idx[k]] != r; k++)
			;
	}
	return k;
}

double
tapas_rf_rank_threshold(const rf_builder *b, const rf_split *best, long lo,
						long hi)
{
	int			f = best->feature;
	long		kl = find_rank(b, f, lo, hi, best->lo_rank),
				kh = find_rank(b, f, lo, hi, best->hi_rank);

	return split_threshold(feature_value(b, (size_t) b->idx[kl], (size_t) f),
						   feature_value(b, (size_t) b->idx[kh], (size_t) f));
}
