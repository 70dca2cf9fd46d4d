/*
 * t-cover_store.c
 *	  Unit tests for src/lstore/cover_store.c.
 *
 * Oracle: a plain array of NCONTENT random id sets (some drawn equal on
 * purpose) with the references the test took on each; the store must hand
 * out one bitmap per distinct content (the same address for equal content,
 * built separately), with exactly the content asked for, keep counts that
 * match the array, free a cover with its last reference, and report a
 * write into a stored cover at release.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roaring/roaring.h>

#include "lstore/cover_store.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

#define NCONTENT 40
#define NIDS 3000

/* content c of the oracle: ids (equal for c and c ^ 1 when c % 8 < 2) */
static roaring_bitmap_t *
make_content(uint64_t seed, int c)
{
	tapas_rng_t rng;
	uint32_t   *ids = malloc(sizeof(uint32_t) * NIDS);
	size_t		len;
	roaring_bitmap_t *r;

	if (c % 8 == 1)
		c--;					/* pairs (0,1), (8,9), ...: same content */
	tapas_rng_seed(&rng, seed + (uint64_t) c);
	len = tapas_test_random_row(&rng, NIDS, 1, NIDS / 2, ids);
	r = roaring_bitmap_of_ptr(len, ids);
	if (c % 16 == 4)
		roaring_bitmap_run_optimize(r);
	free(ids);
	return r;
}

/* distinct contents among those with refs > 0 */
static size_t
oracle_ncovers(const int *refs)
{
	size_t		n = 0;

	for (int c = 0; c < NCONTENT; c++)
	{
		int			total = refs[c];

		if (c % 8 == 1)
			continue;
		if (c % 8 == 0)
			total += refs[c + 1];
		n += total > 0;
	}
	return n;
}

static void
test_cover_store_sharing(void)
{
	uint64_t	seed = tapas_test_seed();
	tapas_cover_store_t *s = tapas_cover_store_create();
	roaring_bitmap_t *in[NCONTENT];
	roaring_bitmap_t *held[NCONTENT][8];
	int			refs[NCONTENT] = {0};
	size_t		nrefs = 0;
	tapas_rng_t rng;
	const char *reason = "";

	TAPAS_CHECK(s != NULL);
	for (int c = 0; c < NCONTENT; c++)
		in[c] = make_content(seed, c);
	tapas_rng_seed(&rng, seed);
	for (long it = 0; it < tapas_test_iters(4000); it++)
	{
		int			c = (int) tapas_rng_below(&rng, NCONTENT);

		if (refs[c] < 8 && (refs[c] == 0 || tapas_rng_below(&rng, 2)))
		{
			roaring_bitmap_t *r = tapas_cover_store_take(s, in[c]);

			TAPAS_CHECK(r != NULL && r != in[c] && roaring_bitmap_equals(r, in[c]));
			/* every reference to equal content is the same bitmap */
			for (int d = 0; d < NCONTENT; d++)
				if (refs[d] > 0)
					TAPAS_CHECK((held[d][0] == r) == roaring_bitmap_equals(in[d], in[c]));
			held[c][refs[c]++] = r;
			nrefs++;
		}
		else
		{
			TAPAS_CHECK(tapas_cover_store_release(s, held[c][--refs[c]]) == 0);
			nrefs--;
		}
		TAPAS_CHECK(tapas_cover_store_nrefs(s) == nrefs);
		TAPAS_CHECK_MSG(tapas_cover_store_ncovers(s) == oracle_ncovers(refs),
						"iteration %ld: %zu covers, oracle %zu", it,
						tapas_cover_store_ncovers(s), oracle_ncovers(refs));
		if (it % 200 == 0)
			TAPAS_CHECK(tapas_cover_store_validate(s, &reason) == 0);
	}
	/* release everything: the store is empty (ASan reports a leak otherwise) */
	for (int c = 0; c < NCONTENT; c++)
		while (refs[c] > 0)
			TAPAS_CHECK(tapas_cover_store_release(s, held[c][--refs[c]]) == 0);
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 0 && tapas_cover_store_nrefs(s) == 0);
	TAPAS_CHECK(tapas_cover_store_bytes(s) == 0);
	for (int c = 0; c < NCONTENT; c++)
		roaring_bitmap_free(in[c]);
	tapas_cover_store_free(s);
}

/* one copy's bytes for many references, and stored bytes match CRoaring's */
static void
test_cover_store_bytes(void)
{
	tapas_cover_store_t *s = tapas_cover_store_create();
	roaring_bitmap_t *a = make_content(tapas_test_seed(), 2);
	roaring_bitmap_t *b = make_content(tapas_test_seed(), 3);
	roaring_bitmap_t *r[10];
	size_t		one = roaring_bitmap_portable_size_in_bytes(a);

	for (int i = 0; i < 10; i++)
		r[i] = tapas_cover_store_take(s, a);
	TAPAS_CHECK(tapas_cover_store_bytes(s) == one);
	r[0] = tapas_cover_store_take(s, b);	/* r[0]'s reference to a kept below */
	TAPAS_CHECK(tapas_cover_store_bytes(s) == one + roaring_bitmap_portable_size_in_bytes(b));
	TAPAS_CHECK(tapas_cover_store_release(s, r[0]) == 0);
	TAPAS_CHECK(tapas_cover_store_bytes(s) == one);
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 1 && tapas_cover_store_nrefs(s) == 10);
	tapas_cover_store_free(s);	/* frees the cover still referenced */
	roaring_bitmap_free(a);
	roaring_bitmap_free(b);
}

/* a write into a stored cover is caught by validate and by release */
static void
test_cover_store_frozen(void)
{
	tapas_cover_store_t *s = tapas_cover_store_create();
	roaring_bitmap_t *a = make_content(tapas_test_seed(), 5);
	roaring_bitmap_t *r = tapas_cover_store_take(s, a);
	roaring_bitmap_t *r2 = tapas_cover_store_take(s, a);
	const char *reason = "";

	TAPAS_CHECK(r == r2 && tapas_cover_store_validate(s, &reason) == 0);
	roaring_bitmap_add(r, NIDS + 7);	/* the forbidden write */
	TAPAS_CHECK(tapas_cover_store_validate(s, &reason) == TAPAS_EINCONSISTENT);
	TAPAS_CHECK(strstr(reason, "modified") != NULL);
	TAPAS_CHECK(tapas_cover_store_release(s, r) == TAPAS_EINCONSISTENT);
	TAPAS_CHECK(tapas_cover_store_nrefs(s) == 1);
	TAPAS_CHECK(tapas_cover_store_release(s, r2) == TAPAS_EINCONSISTENT);
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 0);
	/* a bitmap the store never handed out */
	TAPAS_CHECK(tapas_cover_store_release(s, a) == TAPAS_EINVAL);
	tapas_cover_store_free(s);
	roaring_bitmap_free(a);
}

/* allocation failures (first items array, bucket growth) leave the store unchanged */
static void
test_cover_store_nomem(void)
{
	tapas_cover_store_t *s;
	roaring_bitmap_t *in[100];
	roaring_bitmap_t *got[100];

	tapas_memory_fail_after(0);
	TAPAS_CHECK(tapas_cover_store_create() == NULL);
	tapas_memory_fail_after(-1);
	s = tapas_cover_store_create();
	for (int c = 0; c < 100; c++)
		in[c] = roaring_bitmap_from_range(c, 2 * c + 10, 1);
	tapas_memory_fail_after(0);	/* the items array */
	TAPAS_CHECK(tapas_cover_store_take(s, in[0]) == NULL);
	tapas_memory_fail_after(-1);
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 0 && tapas_cover_store_nrefs(s) == 0);
	for (int c = 0; c < 64; c++)
		got[c] = tapas_cover_store_take(s, in[c]);
	tapas_memory_fail_after(0);	/* the 65th cover doubles the 64 buckets */
	TAPAS_CHECK(tapas_cover_store_take(s, in[64]) == NULL);
	tapas_memory_fail_after(-1);
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 64 && tapas_cover_store_nrefs(s) == 64);
	for (int c = 64; c < 100; c++)
		got[c] = tapas_cover_store_take(s, in[c]);
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 100);
	for (int c = 0; c < 100; c++)
	{
		TAPAS_CHECK(got[c] != NULL && roaring_bitmap_equals(got[c], in[c]));
		TAPAS_CHECK(tapas_cover_store_release(s, got[c]) == 0);
	}
	TAPAS_CHECK(tapas_cover_store_ncovers(s) == 0);
	for (int c = 0; c < 100; c++)
		roaring_bitmap_free(in[c]);
	tapas_cover_store_free(s);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_cover_store_sharing);
	TAPAS_TEST_RUN(test_cover_store_bytes);
	TAPAS_TEST_RUN(test_cover_store_frozen);
	TAPAS_TEST_RUN(test_cover_store_nomem);
	TAPAS_TEST_DONE();
}
