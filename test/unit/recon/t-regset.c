/*
 * t-regset.c
 *	  Unit tests for src/recon/regset.h (fixed-capacity region sets).
 *
 * Oracle: a plain array of flags, one per region, updated alongside the
 * set by random operations; every helper is compared with the answer
 * computed from the flags.
 */
#include <string.h>

#include "util/rng.h"
#include "recon/regset.h"
#include "tapas_test.h"

#define N	TAPAS_REGSET_MAX

static int
same(const tapas_regset_t *s, const unsigned char *f)
{
	for (int r = 0; r < N; r++)
		if (tapas_regset_has(s, r) != (f[r] != 0))
			return 0;
	return 1;
}

static void
test_against_flags(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(3000);

	tapas_rng_seed(&rng, tapas_test_seed() ^ 0x7E6);
	for (long it = 0; it < iters && !tapas_test_current_failed; it++)
	{
		tapas_regset_t a,
					b,
					d;
		unsigned char fa[N],
					fb[N],
					fd[N];
		int			dens = 1 + (int) tapas_rng_below(&rng, 64);
		int			n,
					cnt = 0,
					sub = 1,
					r0;

		tapas_regset_clear(&a);
		tapas_regset_clear(&b);
		memset(fa, 0, N);
		memset(fb, 0, N);
		TAPAS_CHECK(tapas_regset_empty(&a) && tapas_regset_next(&a, 0) == -1);
		for (int r = 0; r < N; r++)
		{
			if ((int) tapas_rng_below(&rng, 64) < dens)
			{
				tapas_regset_add(&a, r);
				fa[r] = 1;
			}
			if ((int) tapas_rng_below(&rng, 64) < dens)
			{
				tapas_regset_add(&b, r);
				fb[r] = 1;
			}
		}
		/* a few deletions */
		for (int i = 0; i < 20; i++)
		{
			int			r = (int) tapas_rng_below(&rng, N);

			tapas_regset_del(&a, r);
			fa[r] = 0;
		}
		TAPAS_CHECK(same(&a, fa) && same(&b, fb));
		for (int r = 0; r < N; r++)
		{
			cnt += fa[r];
			sub &= !fa[r] || fb[r];
		}
		TAPAS_CHECK(tapas_regset_count(&a) == cnt);
		TAPAS_CHECK(tapas_regset_empty(&a) == (cnt == 0));
		TAPAS_CHECK(tapas_regset_subset(&a, &b) == sub);
		TAPAS_CHECK(tapas_regset_equal(&a, &a) && tapas_regset_equal(&a, &b) == (memcmp(fa, fb, N) == 0));
		/* next and the iteration */
		for (int from = 0; from < N; from += 1 + (int) tapas_rng_below(&rng, 97))
		{
			int			want = -1;

			for (int r = from; r < N && want < 0; r++)
				if (fa[r])
					want = r;
			TAPAS_CHECK_MSG(tapas_regset_next(&a, from) == want, "next from %d", from);
		}
		n = 0;
		TAPAS_REGSET_FOREACH(r, &a)
		{
			TAPAS_CHECK(fa[r]);
			n++;
		}
		TAPAS_CHECK(n == cnt);
		/* or, minus */
		d = a;
		tapas_regset_or(&d, &b);
		for (int r = 0; r < N; r++)
			fd[r] = fa[r] | fb[r];
		TAPAS_CHECK(same(&d, fd));
		tapas_regset_minus(&d, &a, &b);
		for (int r = 0; r < N; r++)
			fd[r] = fa[r] && !fb[r];
		TAPAS_CHECK(same(&d, fd));
		/* drop: bit r0 removed, the members above it one down */
		r0 = (int) tapas_rng_below(&rng, N);
		d = a;
		tapas_regset_drop(&d, r0);
		for (int r = 0; r < N; r++)
			fd[r] = r < r0 ? fa[r] : r + 1 < N ? fa[r + 1] : 0;
		TAPAS_CHECK_MSG(same(&d, fd), "drop %d", r0);
		/* first */
		n = (int) tapas_rng_below(&rng, N + 1);
		tapas_regset_first(&d, n);
		for (int r = 0; r < N; r++)
			fd[r] = r < n;
		TAPAS_CHECK_MSG(same(&d, fd) && tapas_regset_count(&d) == n, "first %d", n);
	}
	/* edges: word boundaries */
	{
		tapas_regset_t s;

		tapas_regset_clear(&s);
		tapas_regset_add(&s, 63);
		tapas_regset_add(&s, 64);
		tapas_regset_add(&s, N - 1);
		TAPAS_CHECK(tapas_regset_next(&s, 0) == 63 && tapas_regset_next(&s, 64) == 64 &&
					tapas_regset_next(&s, 65) == N - 1 && tapas_regset_next(&s, N) == -1 &&
					tapas_regset_next(&s, -1) == -1);
		tapas_regset_drop(&s, 0);
		TAPAS_CHECK(tapas_regset_has(&s, 62) && tapas_regset_has(&s, 63) &&
					tapas_regset_has(&s, N - 2) && tapas_regset_count(&s) == 3);
		tapas_regset_drop(&s, 63);
		TAPAS_CHECK(tapas_regset_has(&s, 62) && tapas_regset_has(&s, N - 3) &&
					tapas_regset_count(&s) == 2);
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_against_flags);
	TAPAS_TEST_DONE();
}
