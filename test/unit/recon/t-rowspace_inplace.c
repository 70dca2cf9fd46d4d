/*
 * t-rowspace_inplace.c
 *	  Unit tests for the basis rows read in place from a copy
 *	  (tapas_rowspace_deserialise_ext with TAPAS_ROWSPACE_SERIAL_INPLACE,
 *	  src/recon/rowspace_serial.c).
 *
 * Oracle: a private copy of the same bytes and the replay of every row
 * from the same seed.  The three must give the same status, newly
 * determined records and fingerprint at every trial (committed or rolled
 * back), and the in-place state must serialise to the same bytes as the
 * private one.  The copy lives in pages that are read-only while the state
 * lives (a write to them crashes the test) and unreadable once release is
 * called (a read after an early release, the "dropped pin", crashes it
 * too); release must come exactly once, at tapas_rowspace_free, and never
 * when the reader fails.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"
#include "rowspace_test.h"

/* a copy in its own pages */
typedef struct pages
{
	void	   *base;
	size_t		maplen;
	int			released;
} pages;

static void
release_pages(void *arg)
{
	pages	   *pg = arg;

	pg->released++;
	/* any later read of the rows faults */
	TAPAS_CHECK(mprotect(pg->base, pg->maplen, PROT_NONE) == 0);
}

/* serialises rs into fresh read-only pages */
static void *
to_pages(const tapas_rowspace_t *rs, pages *pg, size_t *len)
{
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);

	*len = tapas_rowspace_serial_size(rs);
	pg->maplen = (*len + page - 1) / page * page;
	pg->released = 0;
	pg->base = mmap(NULL, pg->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TAPAS_CHECK(pg->base != MAP_FAILED);
	TAPAS_CHECK(tapas_rowspace_serialise(rs, pg->base, *len) == TAPAS_OK);
	TAPAS_CHECK(mprotect(pg->base, pg->maplen, PROT_READ) == 0);
	return pg->base;
}

static tapas_rowspace_t *
make_rs(uint32_t n, uint64_t seed, uint64_t *prime)
{
	tapas_rng_t rng;
	const char *reason = NULL;

	tapas_rng_seed(&rng, seed);
	*prime = tapas_rowspace_prime_draw(&rng);
	return tapas_rowspace_create(n, *prime, 0, &rng, &reason);
}

/* a GROUP BY cell, a random half, or a small set */
static size_t
random_row(tapas_rng_t *rng, uint32_t n, uint32_t *ids)
{
	uint32_t	kind = (uint32_t) tapas_rng_below(rng, 3);
	size_t		len = 0;
	uint32_t	j;

	if (kind == 0)
	{
		uint32_t	g = 2 + (uint32_t) tapas_rng_below(rng, 8);
		uint32_t	v = (uint32_t) tapas_rng_below(rng, g);

		for (j = 0; j < n; j++)
			if ((j * 2654435761u >> 7) % g == v)
				ids[len++] = j;
		return len;
	}
	if (kind == 1)
	{
		for (j = 0; j < n; j++)
			if (tapas_rng_below(rng, 2))
				ids[len++] = j;
		return len;
	}
	return tapas_test_random_row(rng, n, 1, n < 6 ? n : 6, ids);
}

/* the same bytes from both serialisations */
static void
same_bytes(const tapas_rowspace_t *a, const tapas_rowspace_t *b, long iter)
{
	size_t		la = tapas_rowspace_serial_size(a),
				lb = tapas_rowspace_serial_size(b);
	void	   *ba = malloc(la),
			   *bb = malloc(lb);

	TAPAS_CHECK(la == lb);
	TAPAS_CHECK(tapas_rowspace_serialise(a, ba, la) == TAPAS_OK);
	TAPAS_CHECK(la != lb || tapas_rowspace_serialise(b, bb, lb) == TAPAS_OK);
	TAPAS_CHECK_MSG(la == lb && memcmp(ba, bb, la) == 0, "iter %ld: serialisations differ", iter);
	free(ba);
	free(bb);
}

/*
 * A copy taken after k of m rows and read in place, continued with the
 * rest (trials committed or rolled back), equals the private copy and the
 * replay at every step; release comes once, at the end.
 */
static void
test_inplace_equals_private_and_replay(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(40);

	tapas_rng_seed(&rng, tapas_test_seed() + 303);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 1 + (uint32_t) tapas_rng_below(&rng, iter % 4 == 0 ? 3000 : iter % 5 == 0 ? 1000 : 150);
		uint64_t	seed = tapas_rng_u64(&rng),
					prime;
		tapas_rowspace_t *replay = make_rs(n, seed, &prime);
		tapas_rowspace_t *orig = make_rs(n, seed, &prime);
		tapas_rowspace_t *priv,
				   *inpl;
		uint32_t   *ids = malloc(sizeof(uint32_t) * 2 * n);
		int			m = 1 + (int) tapas_rng_below(&rng, iter % 5 == 0 ? 200 : 60),
					k = (int) tapas_rng_below(&rng, m + 1),
					i;
		pages		pg;
		size_t		len;
		void	   *buf;
		tapas_status st;
		const char *reason = NULL;

		for (i = 0; i < k; i++)
		{
			size_t		l = random_row(&rng, n, ids);

			TAPAS_CHECK(rowspace_test_add_row(replay, ids, l) == rowspace_test_add_row(orig, ids, l));
		}
		buf = to_pages(orig, &pg, &len);
		tapas_rowspace_free(orig);
		priv = tapas_rowspace_deserialise(buf, len, prime, &st, &reason);
		inpl = tapas_rowspace_deserialise_ext(buf, len, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
											  release_pages, &pg, &st, &reason);
		TAPAS_CHECK_MSG(priv != NULL && inpl != NULL, "deserialise: %s", reason ? reason : "?");
		if (priv == NULL || inpl == NULL)
			break;
		TAPAS_CHECK(tapas_rowspace_fingerprint(inpl) == tapas_rowspace_fingerprint(replay));
		/* the same memory figure (tapas.audit_memory bounds it either way) */
		TAPAS_CHECK(tapas_rowspace_memory(inpl) == tapas_rowspace_memory(priv));
		for (; i < m && !tapas_test_current_failed; i++)
		{
			size_t		off[3],
						c[3];
			const uint32_t *nw[3];
			tapas_rowspace_t *rs3[3] = {replay, priv, inpl};
			tapas_status s[3];
			int			act = (int) tapas_rng_below(&rng, 3),
						x;
			const char *why = NULL;

			off[0] = 0;
			off[1] = random_row(&rng, n, ids);
			off[2] = off[1] + random_row(&rng, n, ids + off[1]);
			for (x = 0; x < 3; x++)
				s[x] = tapas_rowspace_trial(rs3[x], ids, off, 2, NULL, &nw[x], &c[x]);
			TAPAS_CHECK(s[0] == s[1] && s[0] == s[2]);
			if (s[0] != TAPAS_OK)
				continue;
			for (x = 1; x < 3; x++)
				TAPAS_CHECK_MSG(c[x] == c[0] && (c[0] == 0 || memcmp(nw[x], nw[0], c[0] * 4) == 0),
								"iter %ld: newly determined differ (%d)", iter, x);
			TAPAS_CHECK(tapas_rowspace_rank(inpl) == tapas_rowspace_rank(replay));
			for (x = 0; x < 3; x++)
				TAPAS_CHECK((act == 0 ? tapas_rowspace_rollback(rs3[x]) :
							 tapas_rowspace_commit(rs3[x])) == TAPAS_OK);
			TAPAS_CHECK_MSG(tapas_rowspace_fingerprint(inpl) == tapas_rowspace_fingerprint(replay),
							"iter %ld: fingerprints differ", iter);
			TAPAS_CHECK_MSG(tapas_rowspace_validate(inpl, 48, &why), "iter %ld: %s", iter,
							why ? why : "?");
		}
		same_bytes(inpl, priv, iter);
		TAPAS_CHECK(pg.released == 0);
		tapas_rowspace_free(priv);
		tapas_rowspace_free(inpl);
		TAPAS_CHECK(pg.released == 1);
		munmap(pg.base, pg.maplen);
		tapas_rowspace_free(replay);
		free(ids);
	}
}

/* a state of n = 700 after 40 rows, in read-only pages */
static void *
sample(pages *pg, size_t *len, uint64_t *prime)
{
	tapas_rng_t rng;
	tapas_rowspace_t *rs = make_rs(700, 91, prime);
	uint32_t	ids[1400];
	void	   *buf;

	tapas_rng_seed(&rng, 92);
	for (int i = 0; i < 40; i++)
		(void) rowspace_test_add_row(rs, ids, random_row(&rng, 700, ids));
	TAPAS_CHECK(tapas_rowspace_kernel_rank(rs) > 0);
	buf = to_pages(rs, pg, len);
	tapas_rowspace_free(rs);
	return buf;
}

/* refusals (misaligned, no release, corrupted, failed allocations) never release */
static void
test_inplace_refusals(void)
{
	pages		pg;
	size_t		len;
	uint64_t	prime;
	unsigned char *buf = sample(&pg, &len, &prime);
	unsigned char *copy = malloc(len + 8);
	tapas_status st;
	const char *reason = NULL;
	tapas_rowspace_t *rs;
	long		live = tapas_memory_live();
	long		k;

	/* misaligned: refused, the private reader accepts the same bytes */
	memcpy(copy + 4, buf, len);
	rs = tapas_rowspace_deserialise_ext(copy + 4, len, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
										release_pages, &pg, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	rs = tapas_rowspace_deserialise(copy + 4, len, prime, &st, &reason);
	TAPAS_CHECK(rs != NULL);
	tapas_rowspace_free(rs);
	rs = tapas_rowspace_deserialise_ext(buf, len, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
										NULL, NULL, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	/* a flipped byte: refused by the CRC, and unless verified by the structure */
	memcpy(copy, buf, len);
	copy[len / 3] ^= 1;
	rs = tapas_rowspace_deserialise_ext(copy, len, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
										release_pages, &pg, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(!tapas_rowspace_serial_verify(copy, len));
	TAPAS_CHECK(tapas_rowspace_serial_verify(buf, len));
	for (k = 0; k < 200; k++)
	{
		tapas_memory_fail_after(k);
		rs = tapas_rowspace_deserialise_ext(buf, len, prime,
											TAPAS_ROWSPACE_SERIAL_INPLACE |
											TAPAS_ROWSPACE_SERIAL_VERIFIED,
											release_pages, &pg, &st, NULL);
		tapas_memory_fail_after(-1);
		if (rs != NULL)
			break;
		TAPAS_CHECK_MSG(st == TAPAS_ENOMEM, "failure after %ld: status %d", k, st);
		TAPAS_CHECK(tapas_memory_live() == live);
	}
	TAPAS_CHECK_MSG(k > 5 && k < 200, "allocations: %ld", k);
	TAPAS_CHECK(pg.released == 0);
	tapas_rowspace_free(rs);
	TAPAS_CHECK(pg.released == 1);
	TAPAS_CHECK(tapas_memory_live() == live);
	munmap(pg.base, pg.maplen);
	free(copy);
}

/* a copy of an in-place state read in place again (a chain of publishers) */
static void
test_inplace_chain(void)
{
	pages		p1,
				p2;
	size_t		l1,
				l2;
	uint64_t	prime;
	void	   *b1 = sample(&p1, &l1, &prime);
	tapas_status st;
	tapas_rowspace_t *a = tapas_rowspace_deserialise_ext(b1, l1, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
														 release_pages, &p1, &st, NULL);
	tapas_rowspace_t *b,
			   *c;
	tapas_rng_t rng;
	uint32_t	ids[1400];
	void	   *b2;

	TAPAS_CHECK(a != NULL);
	if (a == NULL)
		return;
	tapas_rng_seed(&rng, 93);
	for (int i = 0; i < 20; i++)
		(void) rowspace_test_add_row(a, ids, random_row(&rng, 700, ids));
	b2 = to_pages(a, &p2, &l2);
	b = tapas_rowspace_deserialise_ext(b2, l2, prime, TAPAS_ROWSPACE_SERIAL_INPLACE,
									   release_pages, &p2, &st, NULL);
	c = tapas_rowspace_deserialise(b2, l2, prime, &st, NULL);
	TAPAS_CHECK(b != NULL && c != NULL);
	tapas_rowspace_free(a);
	TAPAS_CHECK(p1.released == 1 && p2.released == 0);
	if (b && c)
	{
		for (int i = 0; i < 10; i++)
		{
			size_t		l = random_row(&rng, 700, ids);

			TAPAS_CHECK(rowspace_test_add_row(b, ids, l) == rowspace_test_add_row(c, ids, l));
		}
		TAPAS_CHECK(tapas_rowspace_fingerprint(b) == tapas_rowspace_fingerprint(c));
	}
	tapas_rowspace_free(b);
	tapas_rowspace_free(c);
	TAPAS_CHECK(p2.released == 1);
	munmap(p1.base, p1.maplen);
	munmap(p2.base, p2.maplen);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_inplace_equals_private_and_replay);
	TAPAS_TEST_RUN(test_inplace_refusals);
	TAPAS_TEST_RUN(test_inplace_chain);
	TAPAS_TEST_DONE();
}
