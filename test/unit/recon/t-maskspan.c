/*
 * t-maskspan.c
 *	  Unit tests for src/recon/maskspan.c: real spans of 0/1 region sets,
 *	  over up to TAPAS_REGSET_MAX coordinates.
 *
 * Oracle: the target lies in the span of the masks iff the rank of the
 * npat x k matrix of masks equals the rank with the target appended, both
 * exact over Q (fmpz_mat_rank), from a dense 0/1 matrix built bit by bit
 * (not through the region-set helpers).  A "yes" is also checked by its
 * coefficients: the combination reproduces the target on every
 * coordinate.
 */
#include <math.h>
#include <string.h>

#include <flint/fmpz_mat.h>

#include "util/rng.h"
#include "recon/maskspan.h"
#include "tapas_test.h"

#define MAXK	16

/* dense 0/1 masks: d[c][p] */
typedef struct dense
{
	int			k,
				npat;
	unsigned char d[MAXK + 1][TAPAS_REGSET_MAX];
} dense;

static int
exact_rank(const dense *m, int k)
{
	fmpz_mat_t	M;
	slong		r;

	if (k == 0)
		return 0;
	fmpz_mat_init(M, m->npat, k);
	for (int p = 0; p < m->npat; p++)
		for (int c = 0; c < k; c++)
			fmpz_set_ui(fmpz_mat_entry(M, p, c), m->d[c][p]);
	r = fmpz_mat_rank(M);
	fmpz_mat_clear(M);
	return (int) r;
}

/* the masks are d[0..k), the target d[k] */
static int
in_span_oracle(const dense *m)
{
	return exact_rank(m, m->k) == exact_rank(m, m->k + 1);
}

static void
to_sets(const dense *m, tapas_regset_t *sets)
{
	for (int c = 0; c <= m->k; c++)
	{
		memset(&sets[c], 0, sizeof(sets[c]));
		for (int p = 0; p < m->npat; p++)
			if (m->d[c][p])
				sets[c].w[p / 64] |= UINT64_C(1) << (p % 64);
	}
}

static int
reproduces(const dense *m, const double *lambda)
{
	for (int p = 0; p < m->npat; p++)
	{
		double		v = 0;

		for (int c = 0; c < m->k; c++)
			if (m->d[c][p])
				v += lambda[c];
		if (fabs(v - (double) m->d[m->k][p]) > 1e-6)
			return 0;
	}
	return 1;
}

static int
span(const dense *m, double *lambda)
{
	tapas_regset_t sets[MAXK + 1];
	const tapas_regset_t *ptr[MAXK];

	to_sets(m, sets);
	for (int c = 0; c < m->k; c++)
		ptr[c] = &sets[c];
	return tapas_mask_span(ptr, m->k, &sets[m->k], m->npat, lambda);
}

/*
 * Random systems against the rank oracle: npat up to the capacity, the
 * masks unions of a few random "blocks" of coordinates (so that spans are
 * not trivially empty), targets all, random, or a 0/1 combination's
 * support.
 */
static void
test_random_against_oracle(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(3000);
	int			yes = 0,
				wide = 0;
	static dense m;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (long it = 0; it < iters && !tapas_test_current_failed; it++)
	{
		int			npat = it % 2 ? 1 + (int) tapas_rng_below(&rng, 10)
			: 65 + (int) tapas_rng_below(&rng, TAPAS_REGSET_MAX - 64);
		int			nblk = 2 + (int) tapas_rng_below(&rng, 8);
		int			blk[TAPAS_REGSET_MAX];
		double		lambda[MAXK];
		int			got,
					want,
					any = 0;

		m.npat = npat;
		m.k = 1 + (int) tapas_rng_below(&rng, MAXK);
		for (int p = 0; p < npat; p++)
			blk[p] = (int) tapas_rng_below(&rng, (uint64_t) nblk);
		for (int c = 0; c < m.k; c++)
		{
			uint64_t	pick = tapas_rng_u64(&rng);

			for (int p = 0; p < npat; p++)
				m.d[c][p] = (pick >> blk[p]) & 1;
		}
		for (int p = 0; p < npat; p++)
		{
			if (it % 3 == 0)
				m.d[m.k][p] = 1;
			else if (it % 3 == 1)
				m.d[m.k][p] = (tapas_rng_u64(&rng) >> blk[p]) & 1;
			else
				m.d[m.k][p] = 0;
		}
		if (it % 3 == 2)
			for (int c = 0; c < m.k; c++)
				if (tapas_rng_below(&rng, 2))
					for (int p = 0; p < npat; p++)
						m.d[m.k][p] |= m.d[c][p];
		for (int p = 0; p < npat; p++)
			any |= m.d[m.k][p];
		if (!any)
			continue;
		got = span(&m, lambda);
		want = in_span_oracle(&m);
		TAPAS_CHECK_MSG(got == want, "iteration %ld: npat %d k %d got %d want %d", it, npat, m.k,
						got, want);
		if (got)
		{
			TAPAS_CHECK(reproduces(&m, lambda));
			yes++;
			wide += npat > 64;
		}
	}
	TAPAS_CHECK_MSG(yes > iters / 10 && wide > iters / 20, "%d in the span, %d over 64 patterns",
					yes, wide);
}

/* the attacker's combinations: halves, three parts, a difference, fractions */
static void
test_shapes(void)
{
	double		l[4];
	static dense m;

	/* the two halves of 1000 patterns (one below 500, one from it) */
	memset(&m, 0, sizeof(m));
	m.npat = 1000;
	m.k = 2;
	for (int p = 0; p < 1000; p++)
	{
		m.d[p < 500 ? 0 : 1][p] = 1;
		m.d[2][p] = 1;
	}
	TAPAS_CHECK(span(&m, l) && l[0] == 1.0 && l[1] == 1.0);
	/* a difference: the whole minus its part above 700 */
	for (int p = 0; p < 1000; p++)
	{
		m.d[0][p] = 1;
		m.d[1][p] = p >= 700;
		m.d[2][p] = p < 700;
	}
	TAPAS_CHECK(span(&m, l) && fabs(l[0] - 1) < 1e-12 && fabs(l[1] + 1) < 1e-12);
	/* one part of a part is not in the span */
	for (int p = 0; p < 1000; p++)
		m.d[2][p] = p >= 900;
	TAPAS_CHECK(!span(&m, l));
	/* A + B + C = (sum of the pairs) / 2, the parts spread over 1024 patterns */
	memset(&m, 0, sizeof(m));
	m.npat = TAPAS_REGSET_MAX;
	m.k = 3;
	for (int p = 0; p < m.npat; p++)
	{
		int			part = p % 3;

		m.d[0][p] = part == 0 || part == 1;
		m.d[1][p] = part == 1 || part == 2;
		m.d[2][p] = part == 0 || part == 2;
		m.d[3][p] = 1;
	}
	TAPAS_CHECK(span(&m, l) && fabs(l[0] - 0.5) < 1e-12 && reproduces(&m, l));
	/* a target coordinate in no mask: not in the span */
	memset(&m, 0, sizeof(m));
	m.npat = 200;
	m.k = 1;
	m.d[0][150] = m.d[1][150] = 1;
	m.d[1][199] = 1;
	TAPAS_CHECK(!span(&m, l));
	m.d[1][199] = 0;
	TAPAS_CHECK(span(&m, l) && l[0] == 1.0);
	/* bad sizes */
	{
		tapas_regset_t s;
		const tapas_regset_t *ptr[1] = {&s};

		memset(&s, 0, sizeof(s));
		s.w[0] = 1;
		TAPAS_CHECK(!tapas_mask_span(ptr, 1, &s, TAPAS_REGSET_MAX + 1, l));
		TAPAS_CHECK(!tapas_mask_span(ptr, TAPAS_MASKSPAN_MAX + 1, &s, 10, l));
	}
}

/*
 * 64 masks over 1024 patterns: each mask a different pattern pair
 * (p, p + 512) for p < 64, the target their union; then one pattern
 * removed from the target (not in the span).
 */
static void
test_many_masks(void)
{
	static dense m;
	static tapas_regset_t sets[TAPAS_MASKSPAN_MAX + 1];
	const tapas_regset_t *ptr[TAPAS_MASKSPAN_MAX];
	double		l[TAPAS_MASKSPAN_MAX];

	memset(sets, 0, sizeof(sets));
	for (int c = 0; c < TAPAS_MASKSPAN_MAX; c++)
	{
		tapas_regset_add(&sets[c], c);
		tapas_regset_add(&sets[c], c + 512);
		tapas_regset_add(&sets[TAPAS_MASKSPAN_MAX], c);
		tapas_regset_add(&sets[TAPAS_MASKSPAN_MAX], c + 512);
		ptr[c] = &sets[c];
	}
	TAPAS_CHECK(tapas_mask_span(ptr, TAPAS_MASKSPAN_MAX, &sets[TAPAS_MASKSPAN_MAX],
								TAPAS_REGSET_MAX, l));
	for (int c = 0; c < TAPAS_MASKSPAN_MAX; c++)
		TAPAS_CHECK(fabs(l[c] - 1) < 1e-12);
	tapas_regset_del(&sets[TAPAS_MASKSPAN_MAX], 512 + 63);
	TAPAS_CHECK(!tapas_mask_span(ptr, TAPAS_MASKSPAN_MAX, &sets[TAPAS_MASKSPAN_MAX],
								 TAPAS_REGSET_MAX, l));
	(void) m;
}

int
main(void)
{
	TAPAS_TEST_RUN(test_random_against_oracle);
	TAPAS_TEST_RUN(test_shapes);
	TAPAS_TEST_RUN(test_many_masks);
	TAPAS_TEST_DONE();
}
