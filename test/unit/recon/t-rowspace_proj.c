/*
 * t-rowspace_proj.c
 *	  Unit tests for the shared projections of src/recon/rowspace.c
 *	  (tapas_rowspace_proj_create, tapas_rowspace_create_from).
 *
 * Oracles: tapas_rowspace_create of the same generator (the first row
 * space made from projections drawn by that generator is the same state,
 * word for word, and leaves the generator where it does); and, for a
 * second row space sharing them, a row space with projections of its own
 * given the same rows (the determined records are a property of the rows,
 * not of the projections, up to the p^-2 error).  The projections outlive
 * their creator's reference while a row space holds them (ASan checks the
 * reads); bad arguments, a cancel and every allocation failure leak
 * nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/rowspace.h"
#include "tapas_test.h"
#include "rowspace_test.h"

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

/* whether a and b have the same rank and the same determined records */
static int
same_determined(const tapas_rowspace_t *a, const tapas_rowspace_t *b)
{
	size_t		na,
				nb;
	const uint32_t *da = tapas_rowspace_determined(a, &na);
	const uint32_t *db = tapas_rowspace_determined(b, &nb);
	uint32_t   *sa,
			   *sb;
	int			same;

	if (na != nb || tapas_rowspace_rank(a) != tapas_rowspace_rank(b))
		return 0;
	sa = malloc(sizeof(uint32_t) * (na + 1));
	sb = malloc(sizeof(uint32_t) * (nb + 1));
	memcpy(sa, da, na * sizeof(uint32_t));
	memcpy(sb, db, nb * sizeof(uint32_t));
	qsort(sa, na, sizeof(uint32_t), cmp_u32);
	qsort(sb, nb, sizeof(uint32_t), cmp_u32);
	same = na == 0 || memcmp(sa, sb, na * sizeof(uint32_t)) == 0;
	free(sa);
	free(sb);
	return same;
}

/*
 * The first row space of fresh projections is tapas_rowspace_create's of
 * the same generator; a second one sharing them, after the creator's
 * reference is gone, determines what an independent row space does.
 */
static void
test_proj_shared(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(30);

	tapas_rng_seed(&rng, tapas_test_seed() + 7);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 1 + (uint32_t) tapas_rng_below(&rng, iter % 3 == 0 ? 2000 : 90);
		uint64_t	seed = tapas_rng_u64(&rng);
		tapas_rng_t r1,
					r2,
					r3;
		uint64_t	prime;
		tapas_status st;
		const char *reason = NULL;
		tapas_rowspace_proj_t *pj;
		tapas_rowspace_t *plain,
				   *first,
				   *second,
				   *own;
		uint32_t   *ids = malloc(sizeof(uint32_t) * n);
		int			m = 1 + (int) tapas_rng_below(&rng, 50);

		tapas_rng_seed(&r1, seed);
		tapas_rng_seed(&r2, seed);
		prime = tapas_rowspace_prime_draw(&r1);
		(void) tapas_rowspace_prime_draw(&r2);
		plain = tapas_rowspace_create(n, prime, 0, &r1, &reason);
		pj = tapas_rowspace_proj_create(n, prime, &r2, NULL, &st, &reason);
		TAPAS_CHECK_MSG(pj != NULL && st == TAPAS_OK, "proj: %s", reason ? reason : "?");
		TAPAS_CHECK(tapas_rowspace_proj_n(pj) == n && tapas_rowspace_proj_prime(pj) == prime);
		first = tapas_rowspace_create_from(pj, 0, &r2, &st, &reason);
		TAPAS_CHECK(plain != NULL && first != NULL && st == TAPAS_OK);
		TAPAS_CHECK(tapas_rowspace_fingerprint(plain) == tapas_rowspace_fingerprint(first));
		TAPAS_CHECK(tapas_rng_u64(&r1) == tapas_rng_u64(&r2));
		second = tapas_rowspace_create_from(pj, 0, &r2, &st, &reason);
		tapas_rowspace_proj_release(pj);	/* the row spaces hold it now */
		tapas_rng_seed(&r3, seed ^ 0x5eed);
		own = tapas_rowspace_create(n, prime, 0, &r3, &reason);
		TAPAS_CHECK(second != NULL && own != NULL);
		for (int i = 0; i < m && !tapas_test_current_failed; i++)
		{
			size_t		len = tapas_test_random_row(&rng, n, 1, n < 8 ? n : 8, ids);

			TAPAS_CHECK(rowspace_test_add_row(plain, ids, len) == rowspace_test_add_row(first, ids, len));
			TAPAS_CHECK(tapas_rowspace_fingerprint(plain) == tapas_rowspace_fingerprint(first));
			TAPAS_CHECK(rowspace_test_add_row(second, ids, len) == rowspace_test_add_row(own, ids, len));
			TAPAS_CHECK_MSG(same_determined(second, own), "iter %ld row %d", iter, i);
		}
		TAPAS_CHECK(tapas_rowspace_validate(second, 48, &reason));
		tapas_rowspace_free(plain);
		tapas_rowspace_free(first);
		tapas_rowspace_free(own);
		tapas_rowspace_free(second);	/* the last reference: frees the projections */
		free(ids);
	}
}


/* bad arguments, a cancel, every allocation failing in turn: NULL, no leak */
static void
test_proj_errors(void)
{
	tapas_rng_t rng;
	rowspace_test_canceller cancel = {0, 2};
	tapas_progress_t pr = {rowspace_test_cancel_at, &cancel};
	tapas_status st;
	const char *reason = NULL;
	long		live = tapas_memory_live();
	uint64_t	prime;
	tapas_rowspace_proj_t *pj;
	long		k;

	tapas_rng_seed(&rng, 11);
	prime = tapas_rowspace_prime_draw(&rng);
	TAPAS_CHECK(tapas_rowspace_proj_create(0, prime, &rng, NULL, &st, &reason) == NULL &&
				st == TAPAS_EINVAL && reason != NULL);
	TAPAS_CHECK(tapas_rowspace_proj_create(10, 91, &rng, NULL, &st, &reason) == NULL &&
				st == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_rowspace_create_progress(10, prime, TAPAS_ROWSPACE_RANK_MAX + 1, &rng, NULL,
											   &st, &reason) == NULL && st == TAPAS_EINVAL);
	cancel.polls = 0;
	TAPAS_CHECK(tapas_rowspace_proj_create(3u << 20, prime, &rng, &pr, &st, &reason) == NULL &&
				st == TAPAS_ECANCELED && cancel.polls == 2);
	TAPAS_CHECK(tapas_memory_live() == live);
	pj = tapas_rowspace_proj_create(500, prime, &rng, NULL, &st, &reason);
	TAPAS_CHECK(pj != NULL);
	for (k = 0; k < 200; k++)
	{
		tapas_rowspace_t *rs;

		tapas_memory_fail_after(k);
		rs = tapas_rowspace_create_from(pj, 0, &rng, &st, &reason);
		tapas_memory_fail_after(-1);
		if (rs != NULL)
		{
			tapas_rowspace_free(rs);
			break;
		}
		TAPAS_CHECK_MSG(st == TAPAS_ENOMEM, "failure after %ld: status %d", k, st);
	}
	TAPAS_CHECK_MSG(k > 5 && k < 200, "allocations: %ld", k);
	tapas_rowspace_proj_release(pj);
	TAPAS_CHECK(tapas_memory_live() == live);
	for (k = 0; k < 10; k++)
	{
		tapas_memory_fail_after(k);
		pj = tapas_rowspace_proj_create(500, prime, &rng, NULL, &st, &reason);
		tapas_memory_fail_after(-1);
		if (pj != NULL)
			break;
		TAPAS_CHECK(st == TAPAS_ENOMEM && tapas_memory_live() == live);
	}
	TAPAS_CHECK(pj != NULL && k > 0);
	tapas_rowspace_proj_release(pj);
	tapas_rowspace_proj_release(NULL);
	TAPAS_CHECK(tapas_memory_live() == live);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_proj_shared);
	TAPAS_TEST_RUN(test_proj_errors);
	TAPAS_TEST_DONE();
}
