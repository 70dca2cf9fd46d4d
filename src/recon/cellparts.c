/*-------------------------------------------------------------------------
 *
 * cellparts.c
 *	  The parts of a candidate set under a statement's cells, and the
 *	  smallest one an answer can leave (cellparts.h).
 *
 * Each incidence "c's id j lies in cell t" adds h(t) to j's signature
 * (a 64-bit mix of t, summed with XOR); ids of one part have equal
 * signatures.  Two sorts: by id to sum the signatures, then by
 * (signature, id) to cut the parts.  O(M log M) for M incidences
 * (sum over t of |c and q_t|), O(M) memory; ids no cell holds are no
 * part here (the caller decides "every cell answered 0" itself).
 *
 * IDENTIFICATION
 *	  src/recon/cellparts.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "util/memory.h"
#include "recon/cellparts.h"

typedef struct idsig
{
	uint32_t	id;
	uint64_t	sig;
} idsig;

/* splitmix64's finaliser (Steele, Lea, Flood, OOPSLA 2014) */
static uint64_t
mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static int
cmp_id(const void *a, const void *b)
{
	uint32_t	x = ((const idsig *) a)->id,
				y = ((const idsig *) b)->id;

	return x < y ? -1 : x > y;
}

static int
cmp_sig(const void *a, const void *b)
{
	const idsig *x = a,
			   *y = b;

	if (x->sig != y->sig)
		return x->sig < y->sig ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* the incidences of c's ids in the cells, each with its cell's hash */
static idsig *
incidences(const roaring_bitmap_t *c, const roaring_bitmap_t *const *q, int nq, size_t *m)
{
	size_t		total = 0,
				off = 0;
	idsig	   *inc;
	uint32_t   *ids;

	for (int t = 0; t < nq; t++)
		total += roaring_bitmap_and_cardinality(c, q[t]);
	*m = total;
	if (total == 0)
		return NULL;
	inc = tapas_malloc(total * sizeof(idsig));
	ids = tapas_malloc(total * sizeof(uint32_t));
	if (inc == NULL || ids == NULL)
	{
		tapas_free(inc);
		tapas_free(ids);
		*m = SIZE_MAX;
		return NULL;
	}
	for (int t = 0; t < nq; t++)
	{
		roaring_bitmap_t *x = roaring_bitmap_and(c, q[t]);
		size_t		n = roaring_bitmap_get_cardinality(x);
		uint64_t	h = mix((uint64_t) t + 1);

		roaring_bitmap_to_uint32_array(x, ids);
		for (size_t i = 0; i < n; i++)
		{
			inc[off + i].id = ids[i];
			inc[off + i].sig = h;
		}
		off += n;
		roaring_bitmap_free(x);
	}
	tapas_free(ids);
	return inc;
}

/* sums the signatures of equal ids in place; returns the distinct ids */
static size_t
fold_ids(idsig *inc, size_t m)
{
	size_t		u = 0;

	qsort(inc, m, sizeof(idsig), cmp_id);
	for (size_t i = 0; i < m; i++)
	{
		if (u > 0 && inc[u - 1].id == inc[i].id)
			inc[u - 1].sig ^= inc[i].sig;
		else
			inc[u++] = inc[i];
	}
	return u;
}

/* the records of part[0..len) */
static roaring_bitmap_t *
part_records(const idsig *part, size_t len, uint32_t cap_n)
{
	roaring_bitmap_t *r = roaring_bitmap_create();

	for (size_t i = 0; i < len; i++)
		roaring_bitmap_add(r, cap_n ? part[i].id % cap_n : part[i].id);
	return r;
}

roaring_bitmap_t *
tapas_cellparts_small(const roaring_bitmap_t *c, const roaring_bitmap_t *const *q, int nq,
					  uint32_t cap_n, uint64_t floor, int *err)
{
	roaring_bitmap_t *best = NULL;
	uint64_t	best_n = floor;
	size_t		m,
				u;
	idsig	   *inc;

	*err = 0;
	if (nq <= 0 || floor <= 1)
		return NULL;
	inc = incidences(c, q, nq, &m);
	if (inc == NULL)
	{
		*err = m == SIZE_MAX;
		return NULL;
	}
	u = fold_ids(inc, m);
	qsort(inc, u, sizeof(idsig), cmp_sig);
	for (size_t lo = 0, hi; lo < u; lo = hi)
	{
		for (hi = lo + 1; hi < u && inc[hi].sig == inc[lo].sig; hi++)
			;

		/* a part of L unknowns holds at least L / 64 records (64 regions) */
		if ((uint64_t) (hi - lo) < best_n || (cap_n && (uint64_t) (hi - lo) < best_n * 64))
		{
			roaring_bitmap_t *r = part_records(inc + lo, hi - lo, cap_n);
			uint64_t	n = roaring_bitmap_get_cardinality(r);

			if (n >= 1 && n < best_n)
			{
				if (best)
					roaring_bitmap_free(best);
				best = r;
				best_n = n;
			}
			else
				roaring_bitmap_free(r);
		}
	}
	tapas_free(inc);
	return best;
}
