/*-------------------------------------------------------------------------
 *
 * rf_ranks.c
 *	  The dense ranks of the random forest's features, computed once per
 *	  fit (rf_int.h).
 *
 * Rank r of feature f is the r-th smallest distinct value of the feature
 * over the n samples (-0 and +0 alike): the float's order-preserving key
 * sorted with its position, then numbered.  A feature with at most 256
 * distinct values keeps its ranks in bytes, the others in uint16 (n <=
 * RF_RANK_MAX_N): a quarter or half of the memory the split search's
 * gathers touch, and a feature with one value is known constant without
 * a look.  rank_value maps a rank back to its float, for thresholds.
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

/* the ranks of feature f into b->rank + f * n; returns the distinct count */
static uint32_t
feature_ranks(rf_builder *b, size_t f, size_t *total)
{
	size_t		n = b->n;
	const float *xf = b->Xc + f * n;
	uint16_t   *rf = b->rank + f * n;
	uint64_t   *key = b->keys;
	uint32_t	prev = 0;
	long		i,
				r = -1;

	for (i = 0; i < (long) n; i++)
		key[i] = ((uint64_t) float_key(xf[i]) << 32) | (uint32_t) i;
	tapas_rf_keys_sort(key, (long) n, b->keys_tmp);
	b->rank_off[f] = *total;
	for (i = 0; i < (long) n; i++)
	{
		uint32_t	v = (uint32_t) (key[i] >> 32);

		if (r < 0 || v != prev)
		{
			b->rank_value[*total + ++r] = key_float(v);
			prev = v;
		}
		rf[(uint32_t) key[i]] = (uint16_t) r;
	}
	*total += r + 1;
	return (uint32_t) (r + 1);
}

tapas_status
tapas_rf_build_ranks(rf_builder *b)
{
	size_t		n = b->n,
				d = b->d,
				f,
				i,
				total = 0,
				narrow = 0,
				wide = 0;

	b->rank = tapas_malloc(n * d * sizeof(uint16_t));
	b->rank_value = tapas_malloc(n * d * sizeof(float));
	b->rank_off = tapas_malloc(d * sizeof(size_t));
	b->rank_col = tapas_malloc(d * sizeof(size_t));
	b->rank_count = tapas_malloc(d * sizeof(uint32_t));
	b->count = tapas_malloc((n + 1) * sizeof(uint32_t));
	b->wp = tapas_malloc(n * sizeof(uint64_t));
	b->tmp_wp = tapas_malloc(n * sizeof(uint64_t));
	b->bucket = tapas_calloc(n + 1, sizeof(uint64_t));
	b->bucket_mark = tapas_calloc(n / 64 + 1, 64);
	if (!b->rank || !b->rank_value || !b->rank_off || !b->rank_col ||
		!b->rank_count || !b->count || !b->wp || !b->tmp_wp || !b->bucket ||
		!b->bucket_mark)
		return TAPAS_ENOMEM;
	for (f = 0; f < d; f++)
	{
		b->rank_count[f] = feature_ranks(b, f, &total);
		narrow += b->rank_count[f] <= 256;
	}
	/* narrow features to bytes; wide ones compacted to the front of rank */
	b->rank8 = tapas_malloc((narrow ? narrow : 1) * n);
	if (b->rank8 == NULL)
		return TAPAS_ENOMEM;
	narrow = 0;
	for (f = 0; f < d; f++)
	{
		const uint16_t *src = b->rank + f * n;

		if (b->rank_count[f] <= 256)
		{
			b->rank_col[f] = narrow * n;
			for (i = 0; i < n; i++)
				b->rank8[narrow * n + i] = (uint8_t) src[i];
			narrow++;
		}
		else
		{
			b->rank_col[f] = wide * n;
			memmove(b->rank + wide * n, src, n * sizeof(uint16_t));
			wide++;
		}
	}
	return TAPAS_OK;
}
