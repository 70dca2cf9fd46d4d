/*
 * t-design.c
 *	  Unit tests for src/recon/design.c and src/recon/design_decode.c.
 *
 * Oracles: brute-force counts of tapas_design_member for the coverage,
 * min and mean (and the k guarantee); answers computed query by query from
 * a known x for the decoders, which must return x; an independent copy of
 * the documented splitmix64 formula for the Bernoulli bits.  Failure
 * cases: overweight supports (TAPAS_EDECODE), inconsistent and malformed
 * answers, impossible k, bad arguments.  The endless Bernoulli design:
 * rows beyond the recommendation against the same hash formula (hash row
 * q, or q - 1 after a total query), k kept by complements, and decoding
 * any number of answers, exact and with Laplace noise.
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/design.h"
#include "tapas_test.h"

/* the documented hash, written out again from design.h */
static uint64_t
ref_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* answers[i] = sum of x over query i (x indexed by record - 1) */
static void
answers_of(const tapas_design_t *d, const double *x, double *a)
{
	int			i;
	int64_t		j;

	for (i = 0; i < d->m; i++)
	{
		a[i] = 0;
		for (j = 1; j <= d->n; j++)
			if (tapas_design_member(d, i, j))
				a[i] += x[j - 1];
	}
}

static void
test_design_coverage_and_k(void)
{
	static const struct
	{
		int			method;
		int64_t		n;
		int			s;
		int64_t		k;
	}			cases[] = {
		{TAPAS_DESIGN_HADAMARD, 100, 1, 0}, {TAPAS_DESIGN_HADAMARD, 100, 1, 50},
		{TAPAS_DESIGN_HADAMARD, 1024, 1, 512}, {TAPAS_DESIGN_BCH, 1000, 3, 0},
		{TAPAS_DESIGN_BCH, 1000, 3, 500}, {TAPAS_DESIGN_BCH, 100000, 1, 50000},
		{TAPAS_DESIGN_BERNOULLI, 2000, 3, 0}, {TAPAS_DESIGN_BERNOULLI, 2000, 3, 1000}
	};
	int			c;

	for (c = 0; c < (int) (sizeof(cases) / sizeof(cases[0])); c++)
	{
		tapas_status st;
		const char *why;
		tapas_design_t *d = tapas_design_create(cases[c].method, cases[c].n,
												cases[c].s, cases[c].k, 7, 1,
												NULL, &st, &why);
		int64_t		minc = INT64_MAX;
		double		sum = 0;
		int			i,
					ok = 1;

		TAPAS_CHECK_MSG(d != NULL, "case %d: %s", c, why ? why : "");
		if (d == NULL)
			continue;
		for (i = 0; i < d->m; i++)
		{
			int64_t		cnt = 0,
						j;

			for (j = 1; j <= d->n; j++)
				cnt += tapas_design_member(d, i, j);
			ok &= cnt == d->coverage[i] && cnt >= cases[c].k;
			minc = cnt < minc ? cnt : minc;
			sum += cnt;
		}
		ok &= minc == d->min_coverage && fabs(sum / d->m - d->mean_coverage) < 1e-9;
		/* a total query appears exactly when some row was complemented */
		if (cases[c].method != TAPAS_DESIGN_HADAMARD)
			ok &= (d->total_query >= 0) == (d->complemented != NULL) &&
				d->m == d->base_rows + (d->total_query >= 0);
		ok &= !tapas_design_member(d, 0, 0) && !tapas_design_member(d, 0, d->n + 1) &&
			!tapas_design_member(d, -1, 1) && !tapas_design_member(d, d->m, 1);
		TAPAS_CHECK_MSG(ok, "case %d", c);
		if (c == 5)				/* the article: 17 queries plus the total */
			TAPAS_CHECK(d->m == 18 && d->total_query == 17);
		tapas_design_free(d);
	}
}

static void
test_design_bernoulli_hash(void)
{
	tapas_status st;
	tapas_design_t *d = tapas_design_create(TAPAS_DESIGN_BERNOULLI, 500, 2, 0,
											12345, 0, NULL, &st, NULL);
	int			i,
				ok = 1;
	int64_t		j;

	TAPAS_CHECK(d != NULL && d->m == (int) ceil(2 * 2 * log2(500 / 2.0)));
	if (d == NULL)
		return;
	for (i = 0; i < d->m; i++)
		for (j = 1; j <= d->n; j++)
			ok &= tapas_design_member(d, i, j) ==
				(int) (ref_mix(ref_mix(12345 ^ ref_mix((uint64_t) i + 1)) ^ (uint64_t) j) & 1);
	TAPAS_CHECK(ok);
	TAPAS_CHECK(tapas_design_bernoulli_bits(12345, 1, 1) ==
				ref_mix(ref_mix(12345 ^ ref_mix(1)) ^ 1));
	tapas_design_free(d);
}

/*
 * Queries beyond design_size: the documented hash of row q (1-based), or of
 * q - 1 once a total query took number base_rows + 1; k kept by complements.
 */
static void
test_design_endless(void)
{
	tapas_status st;
	const char *why = NULL;
	tapas_design_t *d = tapas_design_create(TAPAS_DESIGN_BERNOULLI, 500, 2, 0,
											99, 0, NULL, &st, NULL);
	tapas_design_t *dk;
	int			i,
				ok = 1,
				sawcomp = 0;
	int64_t		j;

	TAPAS_CHECK(d != NULL);
	if (d == NULL)
		return;
	TAPAS_CHECK(tapas_design_extend(d, d->m + 300, NULL, &why) == TAPAS_OK &&
				tapas_design_queries(d) == d->m + 300 && d->total_query < 0);
	for (i = 0; i < d->m + 300; i++)
		for (j = 1; j <= d->n; j++)
			ok &= tapas_design_member(d, i, j) ==
				(int) (ref_mix(ref_mix(99 ^ ref_mix((uint64_t) i + 1)) ^ (uint64_t) j) & 1);
	TAPAS_CHECK(ok);
	TAPAS_CHECK(!tapas_design_member(d, d->m + 300, 1));
	tapas_design_free(d);

	/* k = 240: a fifth of the rows complemented, the total is query base_rows */
	dk = tapas_design_create(TAPAS_DESIGN_BERNOULLI, 500, 2, 240, 99, 0, NULL, &st, NULL);
	TAPAS_CHECK(dk != NULL && dk->total_query == dk->base_rows);
	if (dk == NULL)
		return;
	TAPAS_CHECK(tapas_design_extend(dk, dk->m + 200, NULL, &why) == TAPAS_OK);
	ok = 1;
	for (i = dk->m; i < dk->m + 200; i++)
	{
		int64_t		cnt = 0;

		for (j = 1; j <= dk->n; j++)
		{
			int			base = (int) (ref_mix(ref_mix(99 ^ ref_mix((uint64_t) i)) ^ (uint64_t) j) & 1);

			ok &= tapas_design_query_base_member(dk, i, j) == base;
			cnt += tapas_design_member(dk, i, j);
		}
		ok &= cnt >= 240;
		sawcomp |= tapas_design_query_complemented(dk, i);
	}
	TAPAS_CHECK(ok && sawcomp);
	/* only bernoulli is endless; the cap holds */
	TAPAS_CHECK(tapas_design_extend(dk, dk->m + TAPAS_DESIGN_MAX_EXTRA + 1, NULL, &why) ==
				TAPAS_EINVAL);
	tapas_design_free(dk);
	d = tapas_design_create(TAPAS_DESIGN_HADAMARD, 64, 1, 0, 0, 0, NULL, &st, NULL);
	TAPAS_CHECK(d != NULL && tapas_design_extend(d, d->m + 1, NULL, &why) == TAPAS_EINVAL);
	TAPAS_CHECK(d != NULL && tapas_design_extend(d, d->m, NULL, &why) == TAPAS_OK);
	tapas_design_free(d);
}

/*
 * Decoding m answers of the endless design, m chosen by the attacker:
 * m = 150 exact at n = 10,000, s = 5 (above the recommended 110), m = 400
 * with Laplace(1) noise on every answer, and m = 60, fewer than the
 * recommendation, at n = 2,000, s = 2; x must come back exactly.
 */
static void
test_design_endless_decode(void)
{
	static const struct
	{
		int64_t		n;
		int			s,
					m;
		double		noise;
	}			cases[] = {{10000, 5, 150, 0}, {10000, 5, 400, 1.0}, {2000, 2, 60, 0}};
	int			c;

	for (c = 0; c < 3; c++)
	{
		tapas_status st;
		const char *why = NULL;
		tapas_design_t *d = tapas_design_create(TAPAS_DESIGN_BERNOULLI, cases[c].n,
												cases[c].s, 0, 5 + c, 0, NULL, &st, NULL);
		double	   *x = tapas_calloc(cases[c].n, sizeof(double));
		double	   *a = tapas_malloc(cases[c].m * sizeof(double));
		double	   *val = tapas_malloc(cases[c].n * sizeof(double));
		int64_t    *rec = tapas_malloc(cases[c].n * sizeof(int64_t));
		int64_t		cnt = 0,
					j;
		tapas_rng_t rng;
		int			i,
					ok;

		tapas_rng_seed(&rng, tapas_test_seed() + c);
		for (i = 0; i < cases[c].s; i++)
			x[(int64_t) (tapas_rng_u64(&rng) % cases[c].n)] = 1;
		TAPAS_CHECK(d != NULL && tapas_design_extend(d, cases[c].m, NULL, &why) == TAPAS_OK);
		if (d == NULL)
			continue;
		for (i = 0; i < cases[c].m; i++)
		{
			a[i] = cases[c].noise > 0 ? tapas_rng_laplace(&rng, cases[c].noise) : 0;
			for (j = 1; j <= d->n; j++)
				if (tapas_design_member(d, i, j))
					a[i] += x[j - 1];
		}
		st = tapas_design_decode_n(d, a, cases[c].m, cases[c].noise, rec, val, &cnt,
								   NULL, &why);
		ok = st == TAPAS_OK;
		for (j = 0; ok && j < cnt; j++)
			ok = x[rec[j] - 1] == 1 && val[j] == 1;
		for (j = 0, i = 0; j < d->n; j++)
			i += x[j] == 1;
		TAPAS_CHECK_MSG(ok && cnt == i, "case %d: status %d, %lld records, %s", c, (int) st,
						(long long) cnt, why ? why : "");
		/* no answers, or more than the design was extended to */
		TAPAS_CHECK(tapas_design_decode_n(d, a, 0, 0, rec, val, &cnt, NULL, &why) == TAPAS_EINVAL);
		TAPAS_CHECK(tapas_design_decode_n(d, a, tapas_design_queries(d) + 1, 0, rec, val, &cnt,
										  NULL, &why) == TAPAS_EINVAL);
		tapas_design_free(d);
		tapas_free(x);
		tapas_free(a);
		tapas_free(val);
		tapas_free(rec);
	}
}

/*
 * With k: the extension's complemented rows decode through the total query
 * (answered at number base_rows + 1), and answers that stop before the
 * total while including a complemented row are refused, not misread.
 */
static void
test_design_endless_k(void)
{
	tapas_status st;
	const char *why = NULL;
	tapas_design_t *d = tapas_design_create(TAPAS_DESIGN_BERNOULLI, 2000, 2, 1000, 3, 0,
											NULL, &st, NULL);
	double		x[2000] = {0};
	double		a[200];
	double		val[2000];
	int64_t		rec[2000],
				cnt = 0,
				j;
	int			i,
				m,
				first_comp = -1;

	TAPAS_CHECK(d != NULL && d->total_query == d->base_rows);
	if (d == NULL)
		return;
	m = d->m + 60;
	TAPAS_CHECK(m <= 200 && tapas_design_extend(d, m, NULL, &why) == TAPAS_OK);
	x[41] = x[1500] = 1;
	for (i = 0; i < m; i++)
	{
		a[i] = 0;
		for (j = 1; j <= d->n; j++)
			a[i] += tapas_design_member(d, i, j) ? x[j - 1] : 0;
		if (first_comp < 0 && i != d->total_query && tapas_design_query_complemented(d, i))
			first_comp = i;
	}
	st = tapas_design_decode_n(d, a, m, 0, rec, val, &cnt, NULL, &why);
	TAPAS_CHECK_MSG(st == TAPAS_OK && cnt == 2 && rec[0] == 42 && rec[1] == 1501,
					"status %d, %lld records, %s", (int) st, (long long) cnt, why ? why : "");
	/* stopping before the total with a complemented row answered */
	TAPAS_CHECK(first_comp >= 0 && first_comp < d->total_query);
	TAPAS_CHECK(tapas_design_decode_n(d, a, d->total_query, 0, rec, val, &cnt, NULL, &why) ==
				TAPAS_EINVAL);
	tapas_design_free(d);
}

/* decode x back through a design; returns the status */
static tapas_status
roundtrip(tapas_design_t *d, const double *x, int64_t *rec, double *val,
		  int64_t *cnt, const char **why)
{
	double	   *a = tapas_malloc(d->m * sizeof(double));
	tapas_status st;

	answers_of(d, x, a);
	st = tapas_design_decode(d, a, 0, rec, val, cnt, NULL, why);
	tapas_free(a);
	return st;
}

static void
test_design_decode(void)
{
	static const int methods[] = {TAPAS_DESIGN_HADAMARD, TAPAS_DESIGN_BCH,
	TAPAS_DESIGN_BERNOULLI};
	tapas_rng_t rng;
	int			mi,
				k,
				it;
	int64_t		n = 1000;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (mi = 0; mi < 3; mi++)
		for (k = 0; k <= 1; k++)
		{
			tapas_status st;
			const char *why = NULL;
			tapas_design_t *d = tapas_design_create(methods[mi], n, 3, k * n / 2,
													99, 0, NULL, &st, &why);
			double	   *x = tapas_calloc(n, sizeof(double)),
					   *val = tapas_malloc(n * sizeof(double));
			int64_t    *rec = tapas_malloc(n * sizeof(int64_t)),
						cnt,
						j;

			TAPAS_CHECK_MSG(d != NULL, "method %d k %d: %s", mi, k, why ? why : "");
			if (d == NULL)
				continue;
			for (it = 0; it < 5; it++)
			{
				int			ok = 1,
							w = 0;

				memset(x, 0, n * sizeof(double));
				if (methods[mi] == TAPAS_DESIGN_HADAMARD)
					for (j = 0; j < n; j++)
						x[j] = (double) tapas_rng_below(&rng, 50);
				else
					while (w < 1 + it % 3)
					{
						j = (int64_t) tapas_rng_below(&rng, n);
						w += x[j] == 0;
						x[j] = 1;
					}
				st = roundtrip(d, x, rec, val, &cnt, &why);
				for (j = 0; ok && st == TAPAS_OK && j < cnt; j++)
					ok &= val[j] == x[rec[j] - 1];
				if (methods[mi] != TAPAS_DESIGN_HADAMARD)
					ok &= cnt == w;
				TAPAS_CHECK_MSG(st == TAPAS_OK && ok, "method %d k %d it %d: %d %s",
								mi, k, it, st, why ? why : "");
			}
			/* overweight BCH: 4..6 positives are detected, never decoded */
			if (methods[mi] == TAPAS_DESIGN_BCH)
				for (it = 0; it < 20; it++)
				{
					int			w = 0;

					memset(x, 0, n * sizeof(double));
					while (w < 4 + it % 3)
					{
						j = (int64_t) tapas_rng_below(&rng, n);
						w += x[j] == 0;
						x[j] = 1;
					}
					st = roundtrip(d, x, rec, val, &cnt, &why);
					TAPAS_CHECK_MSG(st == TAPAS_EDECODE, "overweight %d: status %d", w, st);
				}
			tapas_free(x);
			tapas_free(val);
			tapas_free(rec);
			tapas_design_free(d);
		}
}

static void
test_design_errors(void)
{
	tapas_status st;
	const char *why;
	tapas_design_t *d;
	double		a[40];
	int64_t		rec[1000],
				cnt;
	double		val[1000];
	int			i;
	long		live = tapas_memory_live();

	TAPAS_CHECK(tapas_design_method_from_name("bch") == TAPAS_DESIGN_BCH &&
				tapas_design_method_from_name("BCH") == -1 &&
				tapas_design_method_from_name(NULL) == -1);
	TAPAS_CHECK(tapas_design_create(7, 100, 1, 0, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_design_create(0, 0, 1, 0, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_design_create(0, (1 << 24) + 1, 1, 0, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_design_create(1, 1 << 24, 1, 0, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_design_create(1, 100, 0, 0, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_design_create(1, 100, 1, 101, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_design_create(1, 100, 1, -1, 0, 0, NULL, &st, &why) == NULL && st == TAPAS_EINVAL);
	/* every BCH row covers about half: k = 90 of 100 cannot be met */
	TAPAS_CHECK(tapas_design_create(1, 100, 1, 90, 0, 0, NULL, &st, &why) == NULL &&
				st == TAPAS_EINVAL && why != NULL);

	d = tapas_design_create(1, 1000, 2, 500, 0, 0, NULL, &st, &why);
	TAPAS_CHECK(d != NULL && d->m <= 40);
	if (d != NULL)
	{
		for (i = 0; i < d->m; i++)
			a[i] = 0;
		/* x = 0 decodes to nothing */
		TAPAS_CHECK(tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, &why) == TAPAS_OK && cnt == 0);
		a[0] = 0.5;
		TAPAS_CHECK(tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, &why) == TAPAS_EINVAL);
		a[0] = -1;
		TAPAS_CHECK(tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, &why) == TAPAS_EINVAL);
		a[0] = NAN;
		TAPAS_CHECK(tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, &why) == TAPAS_EINVAL);
		a[0] = 0;
		TAPAS_CHECK(tapas_design_decode(d, a, 1.0, rec, val, &cnt, NULL, &why) == TAPAS_EINVAL);
		TAPAS_CHECK(tapas_design_decode(d, a, -1.0, rec, val, &cnt, NULL, &why) == TAPAS_EINVAL);
		/* a single count of 1 with a total of 0 is inconsistent */
		a[0] = 1;
		st = tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, &why);
		TAPAS_CHECK_MSG(st == TAPAS_EDECODE || st == TAPAS_EINCONSISTENT, "status %d", st);
		tapas_design_free(d);
	}
	/* hadamard: answers of no integer x */
	d = tapas_design_create(0, 16, 1, 0, 0, 0, NULL, &st, &why);
	TAPAS_CHECK(d != NULL && d->m == 16 && d->total_query == 0);
	if (d != NULL)
	{
		for (i = 0; i < 16; i++)
			a[i] = 0;
		a[3] = 1;
		TAPAS_CHECK(tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, &why) == TAPAS_EINCONSISTENT);
		/* with noise the least-squares estimate is returned */
		TAPAS_CHECK(tapas_design_decode(d, a, 1.0, rec, val, &cnt, NULL, &why) == TAPAS_OK && cnt == 16);
		tapas_design_free(d);
	}
	TAPAS_CHECK(tapas_memory_live() == live);
}

/* every allocation failure and a cancel leave nothing behind */
static void
test_design_alloc_failures(void)
{
	static const int methods[] = {TAPAS_DESIGN_HADAMARD, TAPAS_DESIGN_BCH,
	TAPAS_DESIGN_BERNOULLI};
	tapas_progress_t stop = {tapas_test_cancel, NULL};
	long		live = tapas_memory_live();
	int			mi,
				i;

	for (mi = 0; mi < 3; mi++)
	{
		for (i = 0; i < 40; i++)
		{
			tapas_status st;
			tapas_design_t *d;

			tapas_memory_fail_after(i);
			d = tapas_design_create(methods[mi], 300, 2, 150, 1, 1, NULL, &st, NULL);
			tapas_memory_fail_after(-1);
			TAPAS_CHECK_MSG((d == NULL && st == TAPAS_ENOMEM) || (d != NULL && st == TAPAS_OK),
							"method %d, failure after %d: status %d", mi, i, st);
			if (d != NULL)
			{
				double		a[512] = {0},
							val[300];
				int64_t		rec[300],
							cnt;

				/* decoding x = 0 with failures injected too */
				tapas_memory_fail_after(i % 4);
				st = tapas_design_decode(d, a, 0, rec, val, &cnt, NULL, NULL);
				tapas_memory_fail_after(-1);
				TAPAS_CHECK_MSG(st == TAPAS_OK || st == TAPAS_ENOMEM, "decode method %d fail %d: %d", mi, i % 4, st);
			}
			tapas_design_free(d);
		}
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "method %d leaks", mi);
	}
	/* a cancel while counting coverage */
	{
		tapas_status st;

		TAPAS_CHECK(tapas_design_create(TAPAS_DESIGN_BCH, 200000, 1, 1000, 0, 1, &stop,
										&st, NULL) == NULL && st == TAPAS_ECANCELED);
		TAPAS_CHECK(tapas_design_create(TAPAS_DESIGN_BERNOULLI, 2000, 2, 0, 0, 1, &stop,
										&st, NULL) == NULL && st == TAPAS_ECANCELED);
		TAPAS_CHECK(tapas_memory_live() == live);
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_design_coverage_and_k);
	TAPAS_TEST_RUN(test_design_bernoulli_hash);
	TAPAS_TEST_RUN(test_design_endless);
	TAPAS_TEST_RUN(test_design_endless_decode);
	TAPAS_TEST_RUN(test_design_endless_k);
	TAPAS_TEST_RUN(test_design_decode);
	TAPAS_TEST_RUN(test_design_errors);
	TAPAS_TEST_RUN(test_design_alloc_failures);
	TAPAS_TEST_DONE();
}
