/*-------------------------------------------------------------------------
 *
 * cover_store.c
 *	  Reference-counted store of immutable covers (see cover_store.h).
 *
 * A chained hash table: items[] holds (bitmap, hash, refs, next) and
 * buckets[] the first item of each chain; freed items go on a free list
 * (next), so indices stay stable.  The table doubles when the covers
 * outnumber the buckets.  Release finds the item by the bitmap's address
 * in the chain of its recomputed hash; when the content changed (a write
 * into a shared cover) the hash differs, so the whole table is searched
 * by address and TAPAS_EINCONSISTENT is returned.
 *
 * IDENTIFICATION
 *	  src/lstore/cover_store.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "lstore/cover_store.h"
#include "util/memory.h"

typedef struct
{
	roaring_bitmap_t *r;		/* NULL on the free list */
	uint64_t	hash;			/* tapas_cover_store_hash(r) when stored */
	uint32_t	refs;			/* references handed out, > 0 when stored */
	int32_t		next;			/* next item of the chain or free list, -1 */
} cover_item;

struct tapas_cover_store
{
	cover_item *items;
	int32_t		nitems;			/* used slots of items (stored or free) */
	int32_t		maxitems;
	int32_t		free_head;		/* first free item, -1 */
	int32_t    *buckets;		/* [nbuckets] first item of a chain, -1 */
	int32_t		nbuckets;		/* a power of two */
	size_t		ncovers;
	size_t		nrefs;
};

#define HASH_BATCH 1024

/* the splitmix64 finaliser */
static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The sum of the mixed ids, mixed with the cardinality: a set's ids come
 * in one order, so a sum (whose terms are independent, and pipeline)
 * hashes it as well as a chain through every id did, at a fraction of the
 * latency (the first statement of a backend takes every logged cover).
 */
uint64_t
tapas_cover_store_hash(const roaring_bitmap_t *r)
{
	roaring_uint32_iterator_t it;
	uint32_t	buf[HASH_BATCH];
	uint64_t	lane[4] = {0, 0, 0, 0};
	uint64_t	n = 0;
	uint32_t	got;

	roaring_init_iterator(r, &it);
	while ((got = roaring_read_uint32_iterator(&it, buf, HASH_BATCH)) > 0)
	{
		uint32_t	i = 0;

		for (; i + 4 <= got; i += 4)
			for (int l = 0; l < 4; l++)
				lane[l] += mix64(buf[i + l] + 0x9e3779b97f4a7c15ULL);
		for (; i < got; i++)
			lane[0] += mix64(buf[i] + 0x9e3779b97f4a7c15ULL);
		n += got;
	}
	return mix64(lane[0] + lane[1] + lane[2] + lane[3] + mix64(n ^ 0x94d049bb133111ebULL));
}

tapas_cover_store_t *
tapas_cover_store_create(void)
{
	tapas_cover_store_t *s = tapas_calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->nbuckets = 64;
	s->buckets = tapas_malloc(sizeof(int32_t) * s->nbuckets);
	if (s->buckets == NULL)
	{
		tapas_free(s);
		return NULL;
	}
	memset(s->buckets, 0xff, sizeof(int32_t) * s->nbuckets);
	s->free_head = -1;
	return s;
}

void
tapas_cover_store_free(tapas_cover_store_t *s)
{
	if (s == NULL)
		return;
	for (int32_t i = 0; i < s->nitems; i++)
		if (s->items[i].r != NULL)
			roaring_bitmap_free(s->items[i].r);
	tapas_free(s->items);
	tapas_free(s->buckets);
	tapas_free(s);
}

/* doubles the buckets and rechains the stored items; false if no memory */
static int
grow_buckets(tapas_cover_store_t *s)
{
	int32_t		nb = s->nbuckets * 2;
	int32_t    *b = tapas_malloc(sizeof(int32_t) * nb);

	if (b == NULL)
		return 0;
	memset(b, 0xff, sizeof(int32_t) * nb);
	for (int32_t i = 0; i < s->nitems; i++)
		if (s->items[i].r != NULL)
		{
			int32_t		k = (int32_t) (s->items[i].hash & (uint64_t) (nb - 1));

			s->items[i].next = b[k];
			b[k] = i;
		}
	tapas_free(s->buckets);
	s->buckets = b;
	s->nbuckets = nb;
	return 1;
}

/* a free item index, or -1 if no memory */
static int32_t
new_item(tapas_cover_store_t *s)
{
	int32_t		i;

	if (s->free_head >= 0)
	{
		i = s->free_head;
		s->free_head = s->items[i].next;
		return i;
	}
	if (s->nitems == s->maxitems)
	{
		int32_t		nm = s->maxitems ? 2 * s->maxitems : 64;
		cover_item *it = tapas_realloc(s->items, sizeof(cover_item) * nm);

		if (it == NULL)
			return -1;
		s->items = it;
		s->maxitems = nm;
	}
	return s->nitems++;
}

roaring_bitmap_t *
tapas_cover_store_take(tapas_cover_store_t *s, const roaring_bitmap_t *r)
{
	uint64_t	h = tapas_cover_store_hash(r);
	int32_t		k = (int32_t) (h & (uint64_t) (s->nbuckets - 1));
	int32_t		i;
	roaring_bitmap_t *copy;

	for (i = s->buckets[k]; i >= 0; i = s->items[i].next)
		if (s->items[i].hash == h && roaring_bitmap_equals(s->items[i].r, r))
		{
			s->items[i].refs++;
			s->nrefs++;
			return s->items[i].r;
		}
	if (s->ncovers >= (size_t) s->nbuckets && !grow_buckets(s))
		return NULL;
	k = (int32_t) (h & (uint64_t) (s->nbuckets - 1));
	copy = roaring_bitmap_copy(r);
	if (copy == NULL)
		return NULL;
	i = new_item(s);
	if (i < 0)
	{
		roaring_bitmap_free(copy);
		return NULL;
	}
	s->items[i].r = copy;
	s->items[i].hash = h;
	s->items[i].refs = 1;
	s->items[i].next = s->buckets[k];
	s->buckets[k] = i;
	s->ncovers++;
	s->nrefs++;
	return copy;
}

/* unlinks item i from chain k (it must be there) and frees it */
static void
drop_item(tapas_cover_store_t *s, int32_t k, int32_t i)
{
	int32_t    *p = &s->buckets[k];

	while (*p != i)
		p = &s->items[*p].next;
	*p = s->items[i].next;
	roaring_bitmap_free(s->items[i].r);
	s->items[i].r = NULL;
	s->items[i].refs = 0;
	s->items[i].next = s->free_head;
	s->free_head = i;
	s->ncovers--;
}

tapas_status
tapas_cover_store_release(tapas_cover_store_t *s, roaring_bitmap_t *r)
{
	uint64_t	h;
	int32_t		k;
	int32_t		i;
	tapas_status st = 0;

	if (s == NULL || r == NULL)
		return TAPAS_EINVAL;
	h = tapas_cover_store_hash(r);
	k = (int32_t) (h & (uint64_t) (s->nbuckets - 1));
	for (i = s->buckets[k]; i >= 0; i = s->items[i].next)
		if (s->items[i].r == r)
			break;
	if (i < 0)
	{
		/* not where its content says: written into, or never stored */
		for (i = 0; i < s->nitems; i++)
			if (s->items[i].r == r)
				break;
		if (i == s->nitems)
			return TAPAS_EINVAL;
		st = TAPAS_EINCONSISTENT;
		k = (int32_t) (s->items[i].hash & (uint64_t) (s->nbuckets - 1));
	}
	s->nrefs--;
	if (--s->items[i].refs == 0)
		drop_item(s, k, i);
	return st;
}

size_t
tapas_cover_store_ncovers(const tapas_cover_store_t *s)
{
	return s ? s->ncovers : 0;
}

size_t
tapas_cover_store_nrefs(const tapas_cover_store_t *s)
{
	return s ? s->nrefs : 0;
}

size_t
tapas_cover_store_bytes(const tapas_cover_store_t *s)
{
	size_t		b = 0;

	if (s == NULL)
		return 0;
	for (int32_t i = 0; i < s->nitems; i++)
		if (s->items[i].r != NULL)
			b += roaring_bitmap_portable_size_in_bytes(s->items[i].r);
	return b;
}

tapas_status
tapas_cover_store_validate(const tapas_cover_store_t *s, const char **reason)
{
	size_t		ncovers = 0;
	size_t		nrefs = 0;

	for (int32_t i = 0; i < s->nitems; i++)
	{
		if (s->items[i].r == NULL)
			continue;
		ncovers++;
		nrefs += s->items[i].refs;
		if (s->items[i].refs == 0)
		{
			*reason = "a stored cover has no reference";
			return TAPAS_EINCONSISTENT;
		}
		if (tapas_cover_store_hash(s->items[i].r) != s->items[i].hash)
		{
			*reason = "a stored cover was modified";
			return TAPAS_EINCONSISTENT;
		}
	}
	if (ncovers != s->ncovers || nrefs != s->nrefs)
	{
		*reason = "cover or reference counts do not add up";
		return TAPAS_EINCONSISTENT;
	}
	return 0;
}
