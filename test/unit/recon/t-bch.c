/*
 * t-bch.c
 *	  Unit tests for src/recon/bch_design.c and src/recon/bch_decode.c.
 *
 * Oracles: exhaustive enumeration of every support of weight <= s for
 * small codes (q = 4..6, full length and shortened), with syndromes built
 * from the binary design rows (tapas_bch_member) as an attacker would get
 * them; random supports for q = 17 and 20 with syndromes summed directly
 * in the field; coverage against counting members.  Failure cases: weight
 * s+1 .. 2s must be reported as TAPAS_EDECODE or decode to a support that
 * is consistent with the syndromes and at distance >= 2s+1 (a genuine
 * codeword neighbour), never anything else.
 */
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/bch.h"
#include "tapas_test.h"

/* odd syndromes from the parities of the design rows over the support */
static void
syndromes_from_rows(const tapas_bch_t *bch, const int64_t *supp, int w,
					uint32_t *syn)
{
	uint8_t		parity[TAPAS_GF2M_MAX_Q * 16];
	int			r,
				i;

	for (r = 0; r < bch->m; r++)
	{
		parity[r] = 0;
		for (i = 0; i < w; i++)
			parity[r] ^= tapas_bch_member(bch, r, supp[i]);
	}
	tapas_bch_pack_syndromes(bch, parity, syn);
}

/* the same, summing alpha^((2t+1) j) directly */
static void
syndromes_direct(const tapas_bch_t *bch, const int64_t *supp, int w,
				 uint32_t *syn)
{
	int			t,
				i;

	for (t = 0; t < bch->s; t++)
	{
		syn[t] = 0;
		for (i = 0; i < w; i++)
			syn[t] ^= tapas_gf2m_pow_alpha(bch->gf, (uint64_t) (2 * t + 1) * supp[i]);
	}
}

static int
same_support(const int64_t *a, int wa, const int64_t *b, int wb)
{
	int			i;

	if (wa != wb)
		return 0;
	for (i = 0; i < wa; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* next ascending w-subset of 1..n in place; 0 when done */
static int
next_subset(int64_t *c, int w, int64_t n)
{
	int			i = w - 1;

	while (i >= 0 && c[i] == n - (w - 1 - i))
		i--;
	if (i < 0)
		return 0;
	c[i]++;
	for (i++; i < w; i++)
		c[i] = c[i - 1] + 1;
	return 1;
}

/*
 * Every support of weight 0..maxw for (n, s): weights <= s must decode
 * exactly; larger ones must fail or decode to a consistent far support.
 * Returns the number of detected failures among the overweight supports.
 */
static long
exhaust(int64_t n, int s, int maxw, long *overweight)
{
	tapas_status st;
	tapas_bch_t *bch = tapas_bch_create(n, s, &st);
	int64_t		c[16],
				got[16];
	uint32_t	syn[16],
				syn2[16];
	long		detected = 0;
	int			w,
				i,
				gw;

	TAPAS_CHECK_MSG(bch != NULL, "create n=%lld s=%d", (long long) n, s);
	if (bch == NULL)
		return 0;
	for (w = 0; w <= maxw; w++)
	{
		for (i = 0; i < w; i++)
			c[i] = i + 1;
		do
		{
			syndromes_from_rows(bch, c, w, syn);
			st = tapas_bch_decode(bch, syn, got, &gw);
			if (w <= s)
				TAPAS_CHECK_MSG(st == TAPAS_OK && same_support(c, w, got, gw),
								"n=%lld s=%d w=%d first=%lld: status %d weight %d",
								(long long) n, s, w, (long long) c[0], st, gw);
			else
			{
				(*overweight)++;
				if (st == TAPAS_EDECODE)
					detected++;
				else
				{
					/* a miscorrection must be a true codeword neighbour */
					syndromes_direct(bch, got, gw, syn2);
					TAPAS_CHECK_MSG(st == TAPAS_OK && gw <= s &&
									memcmp(syn, syn2, s * sizeof(uint32_t)) == 0 &&
									gw + w >= 2 * s + 1,
									"overweight n=%lld s=%d w=%d: status %d weight %d",
									(long long) n, s, w, st, gw);
				}
			}
		} while (w > 0 && next_subset(c, w, n));
	}
	tapas_bch_free(bch);
	return detected;
}

static void
test_bch_exhaustive_small(void)
{
	static const struct
	{
		int64_t		n;
		int			s;
	}			cases[] = {
		{15, 1}, {15, 2}, {15, 3}, {10, 2}, {31, 1}, {31, 2}, {31, 3},
		{20, 3}, {63, 1}, {63, 2}, {63, 3}, {40, 3}, {3, 1}
	};
	int			i;

	for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		long		over = 0,
					det;
		int			maxw = cases[i].s + (cases[i].n > 31 ? 1 : 2);

		if (maxw > cases[i].n)
			maxw = (int) cases[i].n;
		det = exhaust(cases[i].n, cases[i].s, maxw, &over);
		/*
		 * Full-length codes with s = 1 (Hamming) are perfect: every
		 * syndrome is that of a weight-<= 1 word, so nothing is detectable.
		 * Otherwise some overweight supports must be detected.
		 */
		if (getenv("TAPAS_TEST_VERBOSE"))
			fprintf(stderr, "n=%lld s=%d: %ld of %ld overweight detected\n",
					(long long) cases[i].n, cases[i].s, det, over);
		if (!(cases[i].s == 1 && cases[i].n == (1 << tapas_bch_degree(cases[i].n)) - 1))
			TAPAS_CHECK_MSG(det > 0, "n=%lld s=%d: %ld of %ld overweight detected",
							(long long) cases[i].n, cases[i].s, det, over);
	}
}

static void
random_support(tapas_rng_t *rng, int64_t n, int w, int64_t *c)
{
	int			i,
				k;

	for (i = 0; i < w; i++)
	{
		int			dup;

		do
		{
			c[i] = 1 + (int64_t) tapas_rng_below(rng, (uint64_t) n);
			dup = 0;
			for (k = 0; k < i; k++)
				dup |= c[k] == c[i];
		} while (dup);
	}
	/* ascending, as the decoder returns it */
	for (i = 1; i < w; i++)
		for (k = i; k > 0 && c[k - 1] > c[k]; k--)
		{
			int64_t		t = c[k];

			c[k] = c[k - 1];
			c[k - 1] = t;
		}
}

static void
test_bch_random_large(void)
{
	static const struct
	{
		int64_t		n;
		int			s;
	}			cases[] = {
		{100000, 1}, {100000, 5}, {(1 << 20) - 1, 8}, {(1 << 20) - 1, 64},
		{1000000, 20}, {(1 << 17) - 1, 100}
	};
	tapas_rng_t rng;
	int64_t    *c = tapas_malloc(256 * sizeof(int64_t)),
			   *got = tapas_malloc(256 * sizeof(int64_t));
	uint32_t   *syn = tapas_malloc(256 * sizeof(uint32_t));
	int			i,
				it;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
	{
		tapas_status st;
		tapas_bch_t *bch = tapas_bch_create(cases[i].n, cases[i].s, &st);

		TAPAS_CHECK(bch != NULL);
		if (bch == NULL)
			continue;
		for (it = 0; it < tapas_test_iters(20); it++)
		{
			int			w = (int) tapas_rng_below(&rng, cases[i].s + 1),
						gw;

			if (it == 0)
				w = cases[i].s;
			random_support(&rng, cases[i].n, w, c);
			syndromes_direct(bch, c, w, syn);
			st = tapas_bch_decode(bch, syn, got, &gw);
			TAPAS_CHECK_MSG(st == TAPAS_OK && same_support(c, w, got, gw),
							"n=%lld s=%d w=%d: status %d, weight %d",
							(long long) cases[i].n, cases[i].s, w, st, gw);
			/* weight s+1 .. 2s: failure, or a consistent far support */
			w = cases[i].s + 1 + (int) tapas_rng_below(&rng, cases[i].s);
			random_support(&rng, cases[i].n, w, c);
			syndromes_direct(bch, c, w, syn);
			st = tapas_bch_decode(bch, syn, got, &gw);
			TAPAS_CHECK_MSG(st == TAPAS_EDECODE ||
							(st == TAPAS_OK && gw + w >= 2 * cases[i].s + 1),
							"overweight n=%lld s=%d w=%d: status %d",
							(long long) cases[i].n, cases[i].s, w, st);
		}
		tapas_bch_free(bch);
	}
	tapas_free(c);
	tapas_free(got);
	tapas_free(syn);
}

/* s above TAPAS_BCH_SQTAB_MAX_S: the decoder squares by plain reduction */
static void
test_bch_no_square_table(void)
{
	int			s = TAPAS_BCH_SQTAB_MAX_S + 6,
				w,
				gw;
	tapas_status st;
	tapas_bch_t *bch = tapas_bch_create(8191, s, &st);
	tapas_rng_t rng;
	int64_t    *c = tapas_malloc(s * sizeof(int64_t)),
			   *got = tapas_malloc(s * sizeof(int64_t));
	uint32_t   *syn = tapas_malloc(s * sizeof(uint32_t));

	TAPAS_CHECK(bch != NULL && bch->sqtab == NULL);
	tapas_rng_seed(&rng, tapas_test_seed() + 3);
	for (w = s / 3; bch != NULL && w <= s; w += s / 3)
	{
		random_support(&rng, 8191, w, c);
		syndromes_direct(bch, c, w, syn);
		st = tapas_bch_decode(bch, syn, got, &gw);
		TAPAS_CHECK_MSG(st == TAPAS_OK && same_support(c, w, got, gw),
						"w=%d: status %d weight %d", w, st, gw);
	}
	tapas_bch_free(bch);
	tapas_free(c);
	tapas_free(got);
	tapas_free(syn);
}

static void
test_bch_coverage(void)
{
	static const int64_t ns[] = {15, 63, 100, 1023, 5000};
	int			i,
				s,
				r;

	for (i = 0; i < 5; i++)
		for (s = 1; s <= 3; s++)
		{
			tapas_status st;
			tapas_bch_t *bch = tapas_bch_create(ns[i], s, &st);
			int64_t		cover[64],
						j;
			int			ok = 1;

			TAPAS_CHECK(bch != NULL && bch->m == s * tapas_bch_degree(ns[i]));
			if (bch == NULL)
				continue;
			TAPAS_CHECK(tapas_bch_coverage(bch, cover, NULL) == TAPAS_OK);
			for (r = 0; r < bch->m; r++)
			{
				int64_t		cnt = 0;

				for (j = 1; j <= bch->n; j++)
					cnt += tapas_bch_member(bch, r, j);
				ok &= cnt == cover[r];
				/* full length, row 0 (alpha primitive): exactly 2^(q-1) */
				if (r < bch->q && bch->n == (int64_t) bch->gf->N)
					ok &= cover[r] == ((int64_t) 1 << (bch->q - 1));
			}
			TAPAS_CHECK_MSG(ok, "n=%lld s=%d", (long long) ns[i], s);
			/* out-of-range arguments cover nothing */
			TAPAS_CHECK(!tapas_bch_member(bch, 0, 0) && !tapas_bch_member(bch, 0, ns[i] + 1) &&
						!tapas_bch_member(bch, -1, 1) && !tapas_bch_member(bch, bch->m, 1));
			tapas_bch_free(bch);
		}
	/* n = 100,000, s = 1: the article's 17 queries */
	{
		tapas_status st;
		tapas_bch_t *bch = tapas_bch_create(100000, 1, &st);

		TAPAS_CHECK(bch != NULL && bch->q == 17 && bch->m == 17);
		tapas_bch_free(bch);
	}
}

static void
test_bch_errors(void)
{
	tapas_status st;
	tapas_bch_t *bch;
	int64_t		got[4],
				c[1] = {13};
	uint32_t	syn[4];
	int			gw;
	long		live = tapas_memory_live();

	TAPAS_CHECK(tapas_bch_create(0, 1, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_bch_create(1 << 24, 1, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_bch_create(100, 0, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_bch_create(100, TAPAS_BCH_MAX_S + 1, &st) == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_bch_create(3, 2, &st) == NULL && st == TAPAS_EINVAL);
	tapas_memory_fail_after(3);
	TAPAS_CHECK(tapas_bch_create(100, 2, &st) == NULL && st == TAPAS_ENOMEM);
	tapas_memory_fail_after(-1);

	/* n = 10 shortens GF(16): a root at position 13 is out of range */
	bch = tapas_bch_create(10, 2, &st);
	TAPAS_CHECK(bch != NULL);
	syndromes_direct(bch, c, 1, syn);
	TAPAS_CHECK(tapas_bch_decode(bch, syn, got, &gw) == TAPAS_EDECODE);
	/* syndromes that are not field elements */
	syn[0] = 1 << 4;
	TAPAS_CHECK(tapas_bch_decode(bch, syn, got, &gw) == TAPAS_EINVAL);
	/* one flipped answer parity breaks a weight-1 word: detected */
	c[0] = 7;
	syndromes_direct(bch, c, 1, syn);
	syn[1] ^= 1;
	st = tapas_bch_decode(bch, syn, got, &gw);
	TAPAS_CHECK_MSG(st == TAPAS_EDECODE || (st == TAPAS_OK && gw >= 2 && got[0] != 7),
					"status %d", st);
	tapas_bch_free(bch);
	tapas_bch_free(NULL);
	TAPAS_CHECK(tapas_memory_live() == live);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_bch_exhaustive_small);
	TAPAS_TEST_RUN(test_bch_random_large);
	TAPAS_TEST_RUN(test_bch_no_square_table);
	TAPAS_TEST_RUN(test_bch_coverage);
	TAPAS_TEST_RUN(test_bch_errors);
	TAPAS_TEST_DONE();
}
