/*
 * t-hadamard.c
 *	  Unit tests for src/recon/hadamard.c.
 *
 * Oracles: brute-force membership counts for the closed-form coverage;
 * answers computed row by row from a random integer x for the decoders
 * (which must give x back exactly); perturbed answers for the
 * consistency check.
 */
#include <math.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/hadamard.h"
#include "tapas_test.h"

static void
test_hadamard_coverage(void)
{
	int64_t		n,
				r,
				j;
	int			ok = 1;

	for (n = 1; n <= 130 && ok; n++)
	{
		int64_t		N = tapas_hadamard_order(n);

		ok &= N >= n && N < 2 * n + 1 && (N & (N - 1)) == 0;
		for (r = 0; r < N && ok; r++)
		{
			int64_t		c = 0;

			for (j = 1; j <= n; j++)
				c += tapas_hadamard_member(n, r, j);
			ok &= c == tapas_hadamard_row_coverage(n, r);
			if (!ok)
				fprintf(stderr, "    n=%lld r=%lld: %lld vs %lld\n", (long long) n,
						(long long) r, (long long) c,
						(long long) tapas_hadamard_row_coverage(n, r));
		}
	}
	TAPAS_CHECK(ok);
	/* row 0 is the total; full-length rows cover exactly half */
	TAPAS_CHECK(tapas_hadamard_row_coverage(1000, 0) == 1000);
	TAPAS_CHECK(tapas_hadamard_row_coverage(1024, 5) == 512);
	TAPAS_CHECK(!tapas_hadamard_member(10, 0, 0) && !tapas_hadamard_member(10, 0, 11));
	TAPAS_CHECK(tapas_hadamard_order(0) == 0 && tapas_hadamard_order((1 << 24) + 1) == 0);
}

/* answers b'_r = sum of x over query r, for r = 0..N-1 */
static void
answers_of(int64_t n, const int64_t *x, int64_t *a)
{
	int64_t		N = tapas_hadamard_order(n),
				r,
				j;

	for (r = 0; r < N; r++)
	{
		a[r] = 0;
		for (j = 1; j <= n; j++)
			if (tapas_hadamard_member(n, r, j))
				a[r] += x[j - 1];
	}
}

static void
test_hadamard_decode(void)
{
	static const int64_t ns[] = {1, 2, 3, 5, 8, 100, 1000, 1024};
	tapas_rng_t rng;
	int			i;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < 8; i++)
	{
		int64_t		n = ns[i],
					N = tapas_hadamard_order(n),
					j;
		int64_t    *x = tapas_malloc(n * sizeof(int64_t)),
				   *y = tapas_malloc(n * sizeof(int64_t)),
				   *a = tapas_malloc(N * sizeof(int64_t));
		double	   *ad = tapas_malloc(N * sizeof(double)),
				   *yd = tapas_malloc(n * sizeof(double));
		int			same = 1,
					close = 1;

		for (j = 0; j < n; j++)
			x[j] = (int64_t) tapas_rng_below(&rng, 201) - 100;
		answers_of(n, x, a);
		TAPAS_CHECK(tapas_hadamard_decode_int64(n, a, y, NULL) == TAPAS_OK);
		for (j = 0; j < N; j++)
			ad[j] = (double) a[j];
		TAPAS_CHECK(tapas_hadamard_decode_double(n, ad, yd, NULL) == TAPAS_OK);
		for (j = 0; j < n; j++)
		{
			same &= y[j] == x[j];
			close &= fabs(yd[j] - x[j]) < 1e-9;
		}
		TAPAS_CHECK_MSG(same && close, "n = %lld", (long long) n);
		/* one answer off by one: no integer x explains it (N >= 4) */
		if (N >= 4)
		{
			a[N / 2 + 1] += 1;
			TAPAS_CHECK_MSG(tapas_hadamard_decode_int64(n, a, y, NULL) == TAPAS_EINCONSISTENT,
							"n = %lld", (long long) n);
		}
		tapas_free(x);
		tapas_free(y);
		tapas_free(a);
		tapas_free(ad);
		tapas_free(yd);
	}
}

static void
test_hadamard_errors(void)
{
	int64_t		a[4] = {1, 1, 1, 1},
				x[4];
	double		ad[4] = {0},
				xd[4];
	long		live = tapas_memory_live();

	/* n = 3: x = (1, 0, 0) is in every query; phantom record 4 must be 0 */
	TAPAS_CHECK(tapas_hadamard_decode_int64(3, a, x, NULL) == TAPAS_OK);
	TAPAS_CHECK(x[0] == 1 && x[1] == 0 && x[2] == 0);
	a[0] = 1;
	a[1] = 0;
	a[2] = 0;
	a[3] = 1;					/* the answers of x = e_4, a phantom */
	TAPAS_CHECK(tapas_hadamard_decode_int64(3, a, x, NULL) == TAPAS_EINCONSISTENT);
	a[3] = (int64_t) 1 << 61;
	TAPAS_CHECK(tapas_hadamard_decode_int64(3, a, x, NULL) == TAPAS_ELIMIT);
	TAPAS_CHECK(tapas_hadamard_decode_int64(0, a, x, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_hadamard_decode_double(0, ad, xd, NULL) == TAPAS_EINVAL);
	tapas_memory_fail_after(0);
	TAPAS_CHECK(tapas_hadamard_decode_double(4, ad, xd, NULL) == TAPAS_ENOMEM);
	tapas_memory_fail_after(-1);
	TAPAS_CHECK(tapas_memory_live() == live);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_hadamard_coverage);
	TAPAS_TEST_RUN(test_hadamard_decode);
	TAPAS_TEST_RUN(test_hadamard_errors);
	TAPAS_TEST_DONE();
}
