/*-------------------------------------------------------------------------
 *
 * targeted_queries.c
 *	  Random targeted queries: subset draws and match counts.
 *
 * A query is a bit mask of `order` columns; its feature is the number of
 * records equal to the target on every column of the mask.  Subsets are
 * drawn as the reference does: min(number, C) distinct ones uniformly
 * without replacement when C = C(m, order) < 1e6 (enumerate and shuffle
 * when the request covers at least half of them, rejection against a hash
 * set otherwise), else `number` independent draws.  Counting: each record
 * gets the mask of columns where it equals the target; the masks are
 * sorted and counted once, and query q sums the counts of the distinct
 * masks containing q (a few hundred distinct masks for census data, so
 * the cost per query is independent of n).
 *
 * IDENTIFICATION
 *	  src/attacks/targeted_queries.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "attacks/set_features.h"
#include "attacks/set_features_int.h"
#include "util/memory.h"
#include "util/compare.h"

uint64_t
tapas_setfeat_binomial(size_t m, size_t k)
{
	uint64_t	c = 1;
	size_t		i;

	if (k > m)
		return 0;
	if (k > m - k)
		k = m - k;
	for (i = 1; i <= k; i++)
	{
		/* c * (m - k + i) / i is exact; 128-bit intermediate */
		unsigned __int128 t = (unsigned __int128) c * (m - k + i) / i;

		if (t > UINT64_MAX)
			return UINT64_MAX;
		c = (uint64_t) t;
	}
	return c;
}

/* a uniformly random subset of `order` of m columns, as a bit mask */
static uint64_t
random_subset(tapas_rng_t *rng, size_t m, int order)
{
	int			idx[64];
	uint64_t	mask = 0;
	size_t		i;

	for (i = 0; i < m; i++)
		idx[i] = (int) i;
	for (i = 0; i < (size_t) order; i++)
	{
		size_t		j = i + tapas_rng_below(rng, m - i);
		int			t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
		mask |= UINT64_C(1) << idx[i];
	}
	return mask;
}

/* all subsets of `order` of m columns in lexicographic order, into out */
static void
all_subsets(size_t m, int order, uint64_t *out)
{
	int			c[64];
	size_t		n = 0;
	int			i;

	for (i = 0; i < order; i++)
		c[i] = i;
	for (;;)
	{
		uint64_t	mask = 0;

		for (i = 0; i < order; i++)
			mask |= UINT64_C(1) << c[i];
		out[n++] = mask;
		/* next combination: bump the last index that can move */
		for (i = order - 1; i >= 0 && c[i] == (int) m - order + i; i--)
			;
		if (i < 0)
			break;
		c[i]++;
		for (i = i + 1; i < order; i++)
			c[i] = c[i - 1] + 1;
	}
}

/* 1 if mask was absent from the open-addressing set (and inserts it) */
static int
set_insert(uint64_t *set, size_t cap, uint64_t mask)
{
	size_t		h = (size_t) ((mask * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);

	while (set[h] != 0)
	{
		if (set[h] == mask)
			return 0;
		h = (h + 1) & (cap - 1);
	}
	set[h] = mask;
	return 1;
}

/*
 * Draws the query masks of one queries item.  As the reference: when
 * C(m, order) < 1e6, min(number, C) distinct subsets uniformly without
 * replacement; otherwise `number` independent draws.
 */
tapas_status
tapas_setfeat_draw_queries(tapas_setfeat_item_t *it, size_t m)
{
	uint64_t	c;
	tapas_rng_t rng;
	size_t		i;

	it->masks = NULL;
	it->dim = 0;
	/* a query is a 64-bit mask and the draws index arrays of 64 columns */
	if (m > 64 || it->order < 1 || (size_t) it->order > m || it->number < 1)
		return TAPAS_EINVAL;
	c = tapas_setfeat_binomial(m, (size_t) it->order);
	tapas_rng_seed(&rng, it->seed);
	it->dim = (c < 1000000 && c < (uint64_t) it->number) ? (size_t) c : (size_t) it->number;
	it->masks = tapas_malloc(it->dim * sizeof(uint64_t));
	if (it->masks == NULL)
		return TAPAS_ENOMEM;
	if (c >= 1000000)
	{
		for (i = 0; i < it->dim; i++)
			it->masks[i] = random_subset(&rng, m, it->order);
	}
	else if (2 * (uint64_t) it->dim >= c)
	{
		/* dense: enumerate all, shuffle, keep a prefix */
		uint64_t   *all = tapas_malloc(c * sizeof(uint64_t));

		if (all == NULL)
			return TAPAS_ENOMEM;
		all_subsets(m, it->order, all);
		tapas_rng_shuffle_i64(&rng, (int64_t *) all, c);
		memcpy(it->masks, all, it->dim * sizeof(uint64_t));
		tapas_free(all);
	}
	else
	{
		/* sparse: rejection sampling against a hash set */
		size_t		cap = 16;
		uint64_t   *set;

		while (cap < 2 * it->dim)
			cap <<= 1;
		set = tapas_calloc(cap, sizeof(uint64_t));
		if (set == NULL)
			return TAPAS_ENOMEM;
		for (i = 0; i < it->dim;)
		{
			uint64_t	q = random_subset(&rng, m, it->order);

			if (set_insert(set, cap, q))
				it->masks[i++] = q;
		}
		tapas_free(set);
	}
	return TAPAS_OK;
}

size_t
tapas_setfeat_match_masks(tapas_setfeat_t *fs, const double *x, size_t n)
{
	double	   *counts = fs->countbuf;
	size_t		m = fs->schema->m,
				r,
				j,
				u = 0;
	uint64_t   *mk = fs->maskbuf;

	for (r = 0; r < n; r++)
	{
		uint64_t	mask = 0;

		for (j = 0; j < m; j++)
			if (x[r * m + j] == fs->target[j])
				mask |= UINT64_C(1) << j;
		mk[r] = mask;
	}
	qsort(mk, n, sizeof(uint64_t), tapas_cmp_uint64);
	for (r = 0; r < n; r++)
	{
		if (u > 0 && mk[u - 1] == mk[r])
			counts[u - 1] += 1.0;
		else
		{
			mk[u] = mk[r];
			counts[u++] = 1.0;
		}
	}
	return u;
}

void
tapas_setfeat_count_queries(const tapas_setfeat_t *fs, const tapas_setfeat_item_t *it,
							size_t n_masks, double *out)
{
	size_t		q,
				u;

	for (q = 0; q < it->dim; q++)
	{
		uint64_t	qm = it->masks[q];
		double		c = 0.0;

		for (u = 0; u < n_masks; u++)
			if ((fs->maskbuf[u] & qm) == qm)
				c += fs->countbuf[u];
		out[q] = c;
	}
}
