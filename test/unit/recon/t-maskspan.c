/*
 * t-maskspan.c
 *	  Unit tests for src/recon/maskspan.c: real spans of 0/1 masks.
 *
 * Oracle: the target lies in the span of the masks iff the rank of the
 * npat x k matrix of masks equals the rank with the target appended, both
 * computed exactly by fraction-free (Bareiss) elimination in int64 on
 * small systems.  A "yes" is also checked by its coefficients: the
 * combination reproduces the target on every coordinate.
 */
#include <math.h>
#include <string.h>

#include "util/rng.h"
#include "recon/maskspan.h"
#include "tapas_test.h"

/* exact rank of the npat x k 0/1 matrix of masks (k <= 8, npat <= 10) */
static int
exact_rank(const uint64_t *masks, int k, int npat)
{
	int64_t		a[10][9];
	int			rank = 0;
	int64_t		prev = 1;

	for (int r = 0; r < npat; r++)
		for (int c = 0; c < k; c++)
			a[r][c] = (masks[c] >> r) & 1;
	for (int c = 0; c < k && rank < npat; c++)
	{
		int			piv = -1;

		for (int r = rank; r < npat && piv < 0; r++)
			if (a[r][c] != 0)
				piv = r;
		if (piv < 0)
			continue;
		for (int x = 0; x < k; x++)
		{
			int64_t		t = a[rank][x];

			a[rank][x] = a[piv][x];
			a[piv][x] = t;
		}
		for (int r = rank + 1; r < npat; r++)
		{
			for (int x = c + 1; x < k; x++)
				a[r][x] = (a[rank][c] * a[r][x] - a[r][c] * a[rank][x]) / prev;
			a[r][c] = 0;
		}
		prev = a[rank][c];
		rank++;
	}
	return rank;
}

static int
in_span_oracle(const uint64_t *masks, int k, uint64_t target, int npat)
{
	uint64_t	m[9];

	memcpy(m, masks, sizeof(uint64_t) * k);
	m[k] = target;
	return exact_rank(masks, k, npat) == exact_rank(m, k + 1, npat);
}

static int
reproduces(const uint64_t *masks, int k, uint64_t target, int npat, const double *lambda)
{
	for (int p = 0; p < npat; p++)
	{
		double		v = 0;

		for (int c = 0; c < k; c++)
			if ((masks[c] >> p) & 1)
				v += lambda[c];
		if (fabs(v - (double) ((target >> p) & 1)) > 1e-6)
			return 0;
	}
	return 1;
}

/* random systems against the rank oracle */
static void
test_random_against_oracle(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(20000);
	int			yes = 0;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (long it = 0; it < iters && !tapas_test_current_failed; it++)
	{
		int			npat = 1 + (int) tapas_rng_below(&rng, 10);
		int			k = 1 + (int) tapas_rng_below(&rng, 8);
		uint64_t	full = (UINT64_C(1) << npat) - 1;
		uint64_t	masks[8];
		uint64_t	target;
		double		lambda[8];
		int			got,
					want;

		for (int c = 0; c < k; c++)
			masks[c] = tapas_rng_u64(&rng) & full;
		/* half of the targets: a random 0/1 combination's support, or all */
		if (it % 3 == 0)
			target = full;
		else if (it % 3 == 1)
			target = tapas_rng_u64(&rng) & full;
		else
		{
			target = 0;
			for (int c = 0; c < k; c++)
				if (tapas_rng_below(&rng, 2))
					target |= masks[c];
		}
		if (target == 0)
			continue;
		got = tapas_mask_span(masks, k, target, npat, lambda);
		want = in_span_oracle(masks, k, target, npat);
		TAPAS_CHECK_MSG(got == want, "iteration %ld: npat %d k %d got %d want %d", it, npat, k,
						got, want);
		if (got)
		{
			TAPAS_CHECK(reproduces(masks, k, target, npat, lambda));
			yes++;
		}
	}
	TAPAS_CHECK(yes > iters / 10);
}

/* the attacker's combinations: halves, three parts, a difference, fractions */
static void
test_shapes(void)
{
	double		l[4];
	uint64_t	halves[2] = {0x3, 0xC};
	uint64_t	three[3] = {0x1, 0x6, 0x8};
	uint64_t	diff[2] = {0xF, 0x3};
	uint64_t	pairs[3] = {0x3, 0x6, 0x5};	/* A+B, B+C, A+C */
	uint64_t	nested[2] = {0x1, 0x3};

	TAPAS_CHECK(tapas_mask_span(halves, 2, 0xF, 4, l) && l[0] == 1.0 && l[1] == 1.0);
	TAPAS_CHECK(tapas_mask_span(three, 3, 0xF, 4, l) && reproduces(three, 3, 0xF, 4, l));
	TAPAS_CHECK(tapas_mask_span(diff, 2, 0xC, 4, l) && fabs(l[0] - 1) < 1e-12 &&
				fabs(l[1] + 1) < 1e-12);
	/* A + B + C = (sum of the pairs) / 2 */
	TAPAS_CHECK(tapas_mask_span(pairs, 3, 0x7, 3, l) && fabs(l[0] - 0.5) < 1e-12);
	/* a mask alone: itself */
	TAPAS_CHECK(tapas_mask_span(halves, 2, 0xC, 4, l) && l[0] == 0.0 && l[1] == 1.0);
	/* not in the span: one part of the halves' first part */
	TAPAS_CHECK(!tapas_mask_span(halves, 2, 0x1, 4, l));
	TAPAS_CHECK(!tapas_mask_span(nested, 2, 0x4, 3, l));
	/* 64 patterns: the two halves of every pattern */
	{
		uint64_t	h[2] = {UINT64_C(0x00000000FFFFFFFF), UINT64_C(0xFFFFFFFF00000000)};

		TAPAS_CHECK(tapas_mask_span(h, 2, ~UINT64_C(0), 64, l) && l[0] == 1.0 && l[1] == 1.0);
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_random_against_oracle);
	TAPAS_TEST_RUN(test_shapes);
	TAPAS_TEST_DONE();
}
