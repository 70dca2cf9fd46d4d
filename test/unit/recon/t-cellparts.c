/*
 * t-cellparts.c
 *	  Unit tests for src/recon/cellparts.c: the smallest part an answer to
 *	  a statement's cells leaves of a candidate set.
 *
 * Oracle: every id of c that some cell holds gets its exact signature,
 * the bit mask of the cells holding it (at most 8 cells); the parts are
 * the ids of equal masks, counted by their records; the smallest count in
 * 1 .. floor - 1 is the answer, and the kernel must return the records of
 * one part of that count.
 */
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/cellparts.h"
#include "tapas_test.h"

#define MAXREC	60
#define MAXREG	3
#define MAXCELLS 8

typedef struct instance
{
	uint32_t	cap_n;			/* 0: ids are records */
	uint32_t	nids;
	roaring_bitmap_t *c;
	roaring_bitmap_t *q[MAXCELLS];
	int			nq;
} instance;

static void
instance_random(instance *in, tapas_rng_t *rng)
{
	uint32_t	nrec = 1 + (uint32_t) tapas_rng_below(rng, MAXREC);
	uint32_t	nreg = tapas_rng_below(rng, 2) ? 1 + (uint32_t) tapas_rng_below(rng, MAXREG) : 0;

	in->cap_n = nreg ? nrec : 0;
	in->nids = nreg ? nreg * nrec : nrec;
	in->c = roaring_bitmap_create();
	in->nq = (int) tapas_rng_below(rng, MAXCELLS + 1);
	for (uint32_t i = 0; i < in->nids; i++)
		if (tapas_rng_below(rng, 4) != 0)
			roaring_bitmap_add(in->c, i);
	for (int t = 0; t < in->nq; t++)
	{
		/* cells of records (every region of a record, as a joint row), nested or random */
		uint32_t	lo = (uint32_t) tapas_rng_below(rng, nrec),
					hi = lo + (uint32_t) tapas_rng_below(rng, nrec - lo + 1);
		int			shape = (int) tapas_rng_below(rng, 3);

		in->q[t] = roaring_bitmap_create();
		for (uint32_t j = 0; j < nrec; j++)
		{
			int			inside = shape == 0 ? (j >= lo && j < hi) :
				shape == 1 ? (j != lo) : tapas_rng_below(rng, 2) == 0;

			if (!inside)
				continue;
			for (uint32_t r = 0; r < (nreg ? nreg : 1); r++)
				roaring_bitmap_add(in->q[t], r * nrec + j);
		}
	}
}

static void
instance_free(instance *in)
{
	roaring_bitmap_free(in->c);
	for (int t = 0; t < in->nq; t++)
		roaring_bitmap_free(in->q[t]);
}

/* the oracle's smallest part count in 1 .. floor - 1 (0: none), and whether r is such a part */
static uint64_t
oracle(const instance *in, uint64_t floor, const roaring_bitmap_t *r, int *r_is_part)
{
	uint32_t	mask[MAXREG * MAXREC];
	uint64_t	best = 0;

	*r_is_part = 0;
	for (uint32_t i = 0; i < in->nids; i++)
	{
		mask[i] = 0;
		for (int t = 0; t < in->nq; t++)
			if (roaring_bitmap_contains(in->c, i) && roaring_bitmap_contains(in->q[t], i))
				mask[i] |= 1u << t;
	}
	for (uint32_t m = 1; m < (1u << in->nq); m++)
	{
		roaring_bitmap_t *rec = roaring_bitmap_create();
		uint64_t	n;

		for (uint32_t i = 0; i < in->nids; i++)
			if (mask[i] == m)
				roaring_bitmap_add(rec, in->cap_n ? i % in->cap_n : i);
		n = roaring_bitmap_get_cardinality(rec);
		if (n >= 1 && n < floor && (best == 0 || n < best))
			best = n;
		if (r != NULL && n >= 1 && roaring_bitmap_equals(rec, r))
			*r_is_part = 1;
		roaring_bitmap_free(rec);
	}
	return best;
}

static void
test_cellparts_matches_oracle(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(3000);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (long it = 0; it < iters && !tapas_test_current_failed; it++)
	{
		instance	in;
		uint64_t	floor = 1 + tapas_rng_below(&rng, 12);
		int			err,
					is_part;
		roaring_bitmap_t *r;
		uint64_t	want;

		instance_random(&in, &rng);
		r = tapas_cellparts_small(in.c, (const roaring_bitmap_t *const *) in.q, in.nq,
								  in.cap_n, floor, &err);
		want = oracle(&in, floor, r, &is_part);
		TAPAS_CHECK(err == 0);
		if (want == 0)
			TAPAS_CHECK_MSG(r == NULL, "iteration %ld: a part of %llu records, none below %llu",
							it, r ? (unsigned long long) roaring_bitmap_get_cardinality(r) : 0ULL,
							(unsigned long long) floor);
		else
		{
			TAPAS_CHECK_MSG(r != NULL && roaring_bitmap_get_cardinality(r) == want && is_part,
							"iteration %ld: want a part of %llu records", it, (unsigned long long) want);
		}
		if (r)
			roaring_bitmap_free(r);
		instance_free(&in);
	}
}

/* the case the kernel is for: Q_1 answered 1, Q_2 = Q_1 minus 7 answered 0 */
static void
test_cellparts_one_and_zero(void)
{
	roaring_bitmap_t *c = roaring_bitmap_from_range(0, 400, 1);
	roaring_bitmap_t *q[2];
	roaring_bitmap_t *r;
	int			err;

	q[0] = roaring_bitmap_from_range(0, 400, 1);
	q[1] = roaring_bitmap_from_range(0, 393, 1);
	r = tapas_cellparts_small(c, (const roaring_bitmap_t *const *) q, 2, 0, 10, &err);
	TAPAS_CHECK(r != NULL && roaring_bitmap_get_cardinality(r) == 7 &&
				roaring_bitmap_minimum(r) == 393);
	roaring_bitmap_free(r);
	/* 12 left: no part under the floor */
	roaring_bitmap_free(q[1]);
	q[1] = roaring_bitmap_from_range(0, 388, 1);
	TAPAS_CHECK(tapas_cellparts_small(c, (const roaring_bitmap_t *const *) q, 2, 0, 10, &err) == NULL);
	TAPAS_CHECK(tapas_cellparts_small(c, (const roaring_bitmap_t *const *) q, 0, 0, 10, &err) == NULL);
	roaring_bitmap_free(q[0]);
	roaring_bitmap_free(q[1]);
	roaring_bitmap_free(c);
}

static void
test_cellparts_out_of_memory(void)
{
	roaring_bitmap_t *c = roaring_bitmap_from_range(0, 100, 1);
	roaring_bitmap_t *q[2];
	long		base = tapas_memory_live();
	int			err = 0;
	roaring_bitmap_t *r;

	q[0] = roaring_bitmap_from_range(0, 100, 1);
	q[1] = roaring_bitmap_from_range(0, 95, 1);
	for (int k = 0; k < 2; k++)
	{
		tapas_memory_fail_after(k);
		TAPAS_CHECK(tapas_cellparts_small(c, (const roaring_bitmap_t *const *) q, 2, 0, 10, &err) == NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(err == 1);
		TAPAS_CHECK(tapas_memory_live() == base);
	}
	r = tapas_cellparts_small(c, (const roaring_bitmap_t *const *) q, 2, 0, 10, &err);
	TAPAS_CHECK(err == 0 && r != NULL && roaring_bitmap_get_cardinality(r) == 5);
	roaring_bitmap_free(r);
	TAPAS_CHECK(tapas_memory_live() == base);
	roaring_bitmap_free(q[0]);
	roaring_bitmap_free(q[1]);
	roaring_bitmap_free(c);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_cellparts_matches_oracle);
	TAPAS_TEST_RUN(test_cellparts_one_and_zero);
	TAPAS_TEST_RUN(test_cellparts_out_of_memory);
	TAPAS_TEST_DONE();
}
