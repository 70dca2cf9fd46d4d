/*-------------------------------------------------------------------------
 *
 * first_seen.c
 *	  Numbering keys in order of first appearance (see first_seen.h).
 *
 * Keys that span a range of at most DENSE_FACTOR times their number (the
 * usual case: integer keys of a table, dense or nearly) are numbered
 * through a direct-address table over the range, 4 bytes a slot, one pass
 * (a hash costs a probe and a radix sort three passes over 16-byte pairs).
 * Other keys are mapped to uint64 with the sign bit flipped (order
 * preserving, though only equality matters here) and sorted with their
 * positions by an LSD radix sort over the bytes that differ between keys.
 *
 * IDENTIFICATION
 *	  src/util/first_seen.c
 *
 *-------------------------------------------------------------------------
 */
#include "util/first_seen.h"

#include <string.h>

#include "util/memory.h"

#define DENSE_FACTOR	8		/* range slots per key for the direct table */
#define DENSE_SLACK		4096	/* and always this many */
#define NO_SLOT			UINT32_MAX

/*
 * The direct-address range of keys[0..n): true and *lo, *range if
 * max - min + 1 <= DENSE_FACTOR n + DENSE_SLACK.
 */
static int
dense_range(const int64_t *keys, size_t n, int64_t *lo, size_t *range)
{
	int64_t		min = keys[0],
				max = keys[0];
	size_t		i;
	uint64_t	span;

	for (i = 1; i < n; i++)
	{
		if (keys[i] < min)
			min = keys[i];
		if (keys[i] > max)
			max = keys[i];
	}
	span = (uint64_t) max - (uint64_t) min;	/* no overflow in unsigned */
	if (span >= (uint64_t) DENSE_FACTOR * n + DENSE_SLACK)
		return 0;
	*lo = min;
	*range = (size_t) span + 1;
	return 1;
}

/* tapas_first_seen through a direct table of range slots from lo */
static tapas_status
first_seen_dense(const int64_t *keys, size_t n, int64_t lo, size_t range,
				 uint32_t *rank, int64_t *uniq, size_t *nuniq)
{
	uint32_t   *slot = tapas_malloc(range * sizeof(uint32_t));
	size_t		i,
				count = 0;

	if (slot == NULL)
		return TAPAS_ENOMEM;
	memset(slot, 0xFF, range * sizeof(uint32_t));
	for (i = 0; i < n; i++)
	{
		uint32_t   *s = &slot[(uint64_t) keys[i] - (uint64_t) lo];

		if (*s == NO_SLOT)
		{
			uniq[count] = keys[i];
			*s = (uint32_t) count++;
		}
		rank[i] = *s;
	}
	*nuniq = count;
	tapas_free(slot);
	return TAPAS_OK;
}

typedef struct key_pos
{
	uint64_t	key;
	uint32_t	pos;
} key_pos_t;

/* one stable counting pass on byte b of the keys, from src into dst */
static void
radix_pass(const key_pos_t *src, key_pos_t *dst, size_t n, int b)
{
	size_t		count[256] = {0};
	size_t		sum = 0;
	int			shift = 8 * b;
	size_t		i;

	for (i = 0; i < n; i++)
		count[(src[i].key >> shift) & 0xFF]++;
	for (i = 0; i < 256; i++)
	{
		size_t		c = count[i];

		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		dst[count[(src[i].key >> shift) & 0xFF]++] = src[i];
}

/* sorts a[0..n) by key, stably; the result is in a or in scratch (returned) */
static key_pos_t *
sort_pairs(key_pos_t *a, key_pos_t *scratch, size_t n)
{
	uint64_t	diff = 0;
	size_t		i;
	int			b;

	/* the bits in which some key differs from the first */
	for (i = 1; i < n; i++)
		diff |= a[i].key ^ a[0].key;
	for (b = 0; b < 8; b++)
	{
		key_pos_t  *t;

		if (((diff >> (8 * b)) & 0xFF) == 0)
			continue;			/* the same byte in every key */
		radix_pass(a, scratch, n, b);
		t = a;
		a = scratch;
		scratch = t;
	}
	return a;
}

tapas_status
tapas_first_seen(const int64_t *keys, size_t n, uint32_t *rank, int64_t *uniq,
				 size_t *nuniq)
{
	key_pos_t  *pairs,
			   *scratch,
			   *sorted;
	uint32_t   *first;
	size_t		i,
				count = 0;

	*nuniq = 0;
	if (n == 0)
		return TAPAS_OK;
	if (keys == NULL || rank == NULL || uniq == NULL || n >= ((size_t) 1 << 32))
		return TAPAS_EINVAL;
	{
		int64_t		lo;
		size_t		range;

		if (dense_range(keys, n, &lo, &range))
			return first_seen_dense(keys, n, lo, range, rank, uniq, nuniq);
	}
	pairs = tapas_malloc(n * sizeof(key_pos_t));
	scratch = tapas_malloc(n * sizeof(key_pos_t));
	first = tapas_malloc(n * sizeof(uint32_t));
	if (pairs == NULL || scratch == NULL || first == NULL)
	{
		tapas_free(pairs);
		tapas_free(scratch);
		tapas_free(first);
		return TAPAS_ENOMEM;
	}
	for (i = 0; i < n; i++)
	{
		pairs[i].key = (uint64_t) keys[i] ^ (UINT64_C(1) << 63);
		pairs[i].pos = (uint32_t) i;
	}
	sorted = sort_pairs(pairs, scratch, n);
	/* each position points at the first position of its key (stable sort) */
	for (i = 0; i < n; i++)
		first[sorted[i].pos] = (i > 0 && sorted[i].key == sorted[i - 1].key)
			? first[sorted[i - 1].pos] : sorted[i].pos;
	/* a first position gets the next rank; a later one its first's rank */
	for (i = 0; i < n; i++)
	{
		if (first[i] == i)
		{
			uniq[count] = keys[i];
			rank[i] = (uint32_t) count++;
		}
		else
			rank[i] = rank[first[i]];
	}
	*nuniq = count;
	tapas_free(pairs);
	tapas_free(scratch);
	tapas_free(first);
	return TAPAS_OK;
}

/* a's keys with their positions, sorted by key (in a or scratch: returned) */
static key_pos_t *
sorted_pairs(const int64_t *keys, size_t n, key_pos_t *a, key_pos_t *scratch)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		a[i].key = (uint64_t) keys[i] ^ (UINT64_C(1) << 63);
		a[i].pos = (uint32_t) i;
	}
	return n > 0 ? sort_pairs(a, scratch, n) : a;
}

/* tapas_keys_match through a direct table of set's range from lo */
static tapas_status
keys_match_dense(const int64_t *set, size_t nset, const int64_t *q, size_t nq,
				 int64_t *pos, int64_t lo, size_t range)
{
	uint32_t   *slot = tapas_malloc(range * sizeof(uint32_t));
	size_t		i;

	if (slot == NULL)
		return TAPAS_ENOMEM;
	memset(slot, 0xFF, range * sizeof(uint32_t));
	for (i = 0; i < nset; i++)
		slot[(uint64_t) set[i] - (uint64_t) lo] = (uint32_t) i;
	for (i = 0; i < nq; i++)
	{
		uint64_t	off = (uint64_t) q[i] - (uint64_t) lo;	/* wraps below lo */

		pos[i] = (off < range && slot[off] != NO_SLOT) ? (int64_t) slot[off] : -1;
	}
	tapas_free(slot);
	return TAPAS_OK;
}

tapas_status
tapas_keys_match(const int64_t *set, size_t nset, const int64_t *q, size_t nq,
				 int64_t *pos)
{
	key_pos_t  *buf,
			   *s,
			   *t;
	size_t		i,
				j = 0;

	if (nq == 0)
		return TAPAS_OK;
	if (q == NULL || pos == NULL || (set == NULL && nset > 0) ||
		nset >= ((size_t) 1 << 32) || nq >= ((size_t) 1 << 32))
		return TAPAS_EINVAL;
	if (nset > 0)
	{
		int64_t		lo;
		size_t		range;

		if (dense_range(set, nset, &lo, &range))
			return keys_match_dense(set, nset, q, nq, pos, lo, range);
	}
	buf = tapas_malloc(2 * (nset + nq) * sizeof(key_pos_t));
	if (buf == NULL)
		return TAPAS_ENOMEM;
	s = sorted_pairs(set, nset, buf, buf + nset);
	t = sorted_pairs(q, nq, buf + 2 * nset, buf + 2 * nset + nq);
	for (i = 0; i < nq; i++)
	{
		while (j < nset && s[j].key < t[i].key)
			j++;
		pos[t[i].pos] = (j < nset && s[j].key == t[i].key) ? (int64_t) s[j].pos : -1;
	}
	tapas_free(buf);
	return TAPAS_OK;
}
