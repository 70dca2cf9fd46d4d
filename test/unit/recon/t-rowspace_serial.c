/*
 * t-rowspace_serial.c
 *	  Unit tests for src/recon/rowspace_serial.c (and the cancellable
 *	  creation of rowspace.c).
 *
 * Oracle: the state the copy was taken from, and a second state built
 * from the same seed by replaying every row (the full replay a new backend
 * would do).  A copy taken mid-way and continued with the same rows must
 * equal the replay in its fingerprint (partition, basis, inverse,
 * projections, determined set), its validation, and every later trial's
 * newly determined records, committed or rolled back.  Corrupted bytes
 * (every header byte, sampled payload bytes, truncation, another prime)
 * are refused; allocation failures and a cancel leak nothing.
 */
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"
#include "rowspace_test.h"

static tapas_rowspace_t *
make_rs(uint32_t n, uint64_t seed, uint64_t *prime)
{
	tapas_rng_t rng;
	const char *reason = NULL;
	tapas_rowspace_t *rs;

	tapas_rng_seed(&rng, seed);
	*prime = tapas_rowspace_prime_draw(&rng);
	rs = tapas_rowspace_create(n, *prime, 0, &rng, &reason);
	TAPAS_CHECK_MSG(rs != NULL, "create: %s", reason ? reason : "?");
	return rs;
}

/* a random row: a GROUP BY cell (records of one value of a key mod g), a
 * random half, or a small random set */
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

/* a copy of rs through a buffer (malloc'd; NULL on failure) */
static tapas_rowspace_t *
round_trip(const tapas_rowspace_t *rs, uint64_t prime)
{
	size_t		len = tapas_rowspace_serial_size(rs);
	void	   *buf = malloc(len);
	tapas_status st;
	const char *reason = NULL;
	tapas_rowspace_t *copy;

	TAPAS_CHECK(buf != NULL);
	TAPAS_CHECK(tapas_rowspace_serialise(rs, buf, len) == TAPAS_OK);
	copy = tapas_rowspace_deserialise(buf, len, prime, &st, &reason);
	TAPAS_CHECK_MSG(copy != NULL && st == TAPAS_OK, "deserialise: %s", reason ? reason : "?");
	free(buf);
	return copy;
}

static void
same_state(const tapas_rowspace_t *a, const tapas_rowspace_t *b, long iter)
{
	const char *reason = NULL;
	size_t		na,
				nb;
	const uint32_t *da = tapas_rowspace_determined(a, &na);
	const uint32_t *db = tapas_rowspace_determined(b, &nb);

	TAPAS_CHECK_MSG(tapas_rowspace_fingerprint(a) == tapas_rowspace_fingerprint(b),
					"iter %ld: fingerprints differ", iter);
	TAPAS_CHECK(tapas_rowspace_rank(a) == tapas_rowspace_rank(b));
	TAPAS_CHECK(tapas_rowspace_natoms(a) == tapas_rowspace_natoms(b));
	TAPAS_CHECK(na == nb && (na == 0 || memcmp(da, db, na * sizeof(uint32_t)) == 0));
	TAPAS_CHECK_MSG(tapas_rowspace_validate(b, 48, &reason), "iter %ld: %s", iter,
					reason ? reason : "?");
}

/*
 * A copy taken after k of m rows, continued with the rest (added, or
 * tried and rolled back or committed), equals the full replay of the same
 * seed at every step.
 */
static void
test_serial_copy_equals_replay(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(40);

	tapas_rng_seed(&rng, tapas_test_seed() + 101);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 1 + (uint32_t) tapas_rng_below(&rng, iter % 4 == 0 ? 3000 : 120);
		uint64_t	seed = tapas_rng_u64(&rng),
					prime;
		tapas_rowspace_t *replay = make_rs(n, seed, &prime);
		tapas_rowspace_t *orig = make_rs(n, seed, &prime);
		tapas_rowspace_t *copy;
		uint32_t   *ids = malloc(sizeof(uint32_t) * 2 * n);
		int			m = 1 + (int) tapas_rng_below(&rng, 60),
					k = (int) tapas_rng_below(&rng, m + 1),
					i;

		for (i = 0; i < k; i++)
		{
			size_t		len = random_row(&rng, n, ids);

			TAPAS_CHECK(rowspace_test_add_row(replay, ids, len) == rowspace_test_add_row(orig, ids, len));
		}
		copy = round_trip(orig, prime);
		if (copy == NULL)
			break;
		same_state(orig, copy, iter);
		tapas_rowspace_free(orig);
		for (; i < m && !tapas_test_current_failed; i++)
		{
			size_t		off[3],
						ca,
						cb;
			const uint32_t *na,
					   *nb;
			int			act = (int) tapas_rng_below(&rng, 3);
			tapas_status sa,
						sb;

			off[0] = 0;
			off[1] = random_row(&rng, n, ids);
			off[2] = off[1] + random_row(&rng, n, ids + off[1]);
			/* rows of a batch must not repeat an id within a row only */
			sa = tapas_rowspace_trial(replay, ids, off, 2, NULL, &na, &ca);
			sb = tapas_rowspace_trial(copy, ids, off, 2, NULL, &nb, &cb);
			TAPAS_CHECK(sa == sb);
			if (sa != TAPAS_OK)
				continue;
			TAPAS_CHECK(ca == cb && (ca == 0 || memcmp(na, nb, ca * sizeof(uint32_t)) == 0));
			if (act == 0)
			{
				TAPAS_CHECK(tapas_rowspace_rollback(replay) == TAPAS_OK);
				TAPAS_CHECK(tapas_rowspace_rollback(copy) == TAPAS_OK);
			}
			else
			{
				TAPAS_CHECK(tapas_rowspace_commit(replay) == TAPAS_OK);
				TAPAS_CHECK(tapas_rowspace_commit(copy) == TAPAS_OK);
			}
			same_state(replay, copy, iter);
		}
		/* and a copy of the copy */
		orig = round_trip(copy, prime);
		if (orig != NULL)
			same_state(copy, orig, iter);
		tapas_rowspace_free(orig);
		tapas_rowspace_free(copy);
		tapas_rowspace_free(replay);
		free(ids);
	}
}

/* a serialised state of n = 500 after a few rows, in a malloc'd buffer */
static void *
sample_buffer(size_t *len, uint64_t *prime)
{
	tapas_rng_t rng;
	tapas_rowspace_t *rs = make_rs(500, 77, prime);
	uint32_t	ids[1000];
	void	   *buf;

	tapas_rng_seed(&rng, 78);
	for (int i = 0; i < 30; i++)
	{
		size_t		l = random_row(&rng, 500, ids);

		(void) rowspace_test_add_row(rs, ids, l);
	}
	*len = tapas_rowspace_serial_size(rs);
	buf = malloc(*len);
	TAPAS_CHECK(tapas_rowspace_serialise(rs, buf, *len) == TAPAS_OK);
	tapas_rowspace_free(rs);
	return buf;
}

/* every header byte and sampled payload bytes flipped, truncation, another prime */
static void
test_serial_corruption_refused(void)
{
	size_t		len;
	uint64_t	prime;
	unsigned char *buf = sample_buffer(&len, &prime);
	tapas_rng_t rng;
	tapas_status st;
	const char *reason;
	tapas_rowspace_t *rs;
	long		live = tapas_memory_live();

	tapas_rng_seed(&rng, tapas_test_seed() + 5);
	for (size_t trial = 0; trial < 400 + 96; trial++)
	{
		size_t		at = trial < 96 ? trial : (size_t) tapas_rng_below(&rng, len);
		unsigned char bit = (unsigned char) (1u << tapas_rng_below(&rng, 8));

		buf[at] ^= bit;
		reason = NULL;
		rs = tapas_rowspace_deserialise(buf, len, prime, &st, &reason);
		TAPAS_CHECK_MSG(rs == NULL && st == TAPAS_EINVAL && reason != NULL,
						"byte %zu flipped was accepted", at);
		tapas_rowspace_free(rs);
		buf[at] ^= bit;
	}
	rs = tapas_rowspace_deserialise(buf, len - 1, prime, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	rs = tapas_rowspace_deserialise(buf, 10, prime, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	rs = tapas_rowspace_deserialise(NULL, len, prime, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	rs = tapas_rowspace_deserialise(buf, len, prime + 2, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_memory_live() == live);
	/* the intact buffer still reads */
	rs = tapas_rowspace_deserialise(buf, len, prime, &st, &reason);
	TAPAS_CHECK(rs != NULL && st == TAPAS_OK);
	tapas_rowspace_free(rs);
	free(buf);
}

/* an open trial is not serialised; a short buffer is refused */
static void
test_serial_errors(void)
{
	uint64_t	prime;
	tapas_rowspace_t *rs = make_rs(64, 9, &prime);
	uint32_t	ids[3] = {1, 2, 3};
	size_t		off[2] = {0, 3},
				count;
	const uint32_t *newly;
	size_t		len = tapas_rowspace_serial_size(rs);
	void	   *buf = malloc(len);

	TAPAS_CHECK(tapas_rowspace_serialise(rs, buf, len - 1) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_rowspace_trial(rs, ids, off, 1, NULL, &newly, &count) == TAPAS_OK);
	free(buf);
	len = tapas_rowspace_serial_size(rs);
	buf = malloc(len);
	TAPAS_CHECK(tapas_rowspace_serialise(rs, buf, len) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_rowspace_commit(rs) == TAPAS_OK);
	TAPAS_CHECK(tapas_rowspace_serialise(rs, buf, len) == TAPAS_OK);
	free(buf);
	tapas_rowspace_free(rs);
}

/* every allocation of the reader failing in turn: NULL, ENOMEM, no leak */
static void
test_serial_alloc_failures(void)
{
	size_t		len;
	uint64_t	prime;
	void	   *buf = sample_buffer(&len, &prime);
	long		live = tapas_memory_live();
	long		k;
	tapas_status st;
	tapas_rowspace_t *rs;

	for (k = 0; k < 200; k++)
	{
		tapas_memory_fail_after(k);
		rs = tapas_rowspace_deserialise(buf, len, prime, &st, NULL);
		tapas_memory_fail_after(-1);
		if (rs != NULL)
		{
			TAPAS_CHECK(st == TAPAS_OK);
			tapas_rowspace_free(rs);
			break;
		}
		TAPAS_CHECK_MSG(st == TAPAS_ENOMEM, "failure after %ld: status %d", k, st);
		TAPAS_CHECK(tapas_memory_live() == live);
	}
	TAPAS_CHECK_MSG(k > 5 && k < 200, "allocations: %ld", k);
	free(buf);
}

/* creation polls its progress: a cancel at the second poll frees everything */

static void
test_create_cancel(void)
{
	tapas_rng_t rng;
	rowspace_test_canceller cancel = {0, 2};
	tapas_progress_t pr = {rowspace_test_cancel_at, &cancel};
	tapas_status st;
	const char *reason;
	long		live = tapas_memory_live();
	uint64_t	prime;
	tapas_rowspace_t *rs;

	tapas_rng_seed(&rng, 3);
	prime = tapas_rowspace_prime_draw(&rng);
	cancel.polls = 0;
	rs = tapas_rowspace_create_progress(3u << 20, prime, 0, &rng, &pr, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_ECANCELED);
	TAPAS_CHECK(cancel.polls == 2);
	TAPAS_CHECK(tapas_memory_live() == live);
	/* not cancelled: the same as tapas_rowspace_create of the same generator */
	cancel.polls = -100;
	{
		tapas_rng_t r1,
					r2;
		tapas_rowspace_t *a,
				   *b;

		tapas_rng_seed(&r1, 4);
		tapas_rng_seed(&r2, 4);
		a = tapas_rowspace_create_progress(5000, prime, 0, &r1, &pr, &st, &reason);
		b = tapas_rowspace_create(5000, prime, 0, &r2, &reason);
		TAPAS_CHECK(a != NULL && b != NULL && st == TAPAS_OK);
		if (a && b)
			TAPAS_CHECK(tapas_rowspace_fingerprint(a) == tapas_rowspace_fingerprint(b) &&
						tapas_rng_u64(&r1) == tapas_rng_u64(&r2));
		tapas_rowspace_free(a);
		tapas_rowspace_free(b);
	}
	rs = tapas_rowspace_create_progress(0, prime, 0, &rng, NULL, &st, &reason);
	TAPAS_CHECK(rs == NULL && st == TAPAS_EINVAL);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_serial_copy_equals_replay);
	TAPAS_TEST_RUN(test_serial_corruption_refused);
	TAPAS_TEST_RUN(test_serial_errors);
	TAPAS_TEST_RUN(test_serial_alloc_failures);
	TAPAS_TEST_RUN(test_create_cancel);
	TAPAS_TEST_DONE();
}
