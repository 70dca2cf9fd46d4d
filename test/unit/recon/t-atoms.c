/*
 * t-atoms.c
 *	  Unit tests for src/recon/atoms.c: partition refinement with undo.
 *
 * Oracle: two records share an atom iff their membership signatures (the
 * bit vector "covered by row i" over all rows so far) are equal, computed
 * directly from the rows.
 */
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/atoms.h"
#include "tapas_test.h"

#define MAXN	200
#define MAXROWS	64

/* compares the partition with the signature oracle; returns 1 if equal */
static int
matches_oracle(const tapas_atoms_t *at, uint64_t *sig, uint32_t n)
{
	uint32_t	i,
				j,
				distinct = 0;

	for (i = 0; i < n; i++)
	{
		int			first = 1;

		for (j = 0; j < n; j++)
		{
			int			same_sig = sig[i] == sig[j];
			int			same_atom = at->atom_of[i] == at->atom_of[j];

			if (same_sig != same_atom)
				return 0;
			if (j < i && same_sig)
				first = 0;
		}
		distinct += first;
	}
	return distinct == at->natoms;
}

static void
test_atoms_split_matches_signatures(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(200);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 1 + (uint32_t) tapas_rng_below(&rng, MAXN);
		uint32_t	nrows = 1 + (uint32_t) tapas_rng_below(&rng, MAXROWS);
		uint64_t	sig[MAXN] = {0};
		uint32_t	ids[MAXN],
					inside[MAXN];
		tapas_atoms_t at;
		uint32_t	row;
		const char *reason = NULL;

		TAPAS_CHECK(tapas_atoms_init(&at, n) == TAPAS_OK);
		for (row = 0; row < nrows; row++)
		{
			size_t		len = tapas_test_random_row(&rng, n, 1, n, ids),
						ninside,
						nnew,
						i;
			uint32_t	natoms0 = at.natoms;

			for (i = 0; i < len; i++)
				sig[ids[i]] |= UINT64_C(1) << row;
			tapas_atoms_split(&at, ids, len, inside, &ninside, &nnew);
			TAPAS_CHECK_MSG(tapas_atoms_validate(&at, &reason), "%s", reason);
			TAPAS_CHECK_MSG(matches_oracle(&at, sig, n),
							"n=%u row=%u iter=%ld", n, row, iter);
			TAPAS_CHECK(at.natoms == natoms0 + nnew);
			/* the inside atoms are exactly the atoms of the row's members */
			for (i = 0; i < len; i++)
			{
				size_t		l;
				int			found = 0;

				for (l = 0; l < ninside; l++)
					found |= inside[l] == at.atom_of[ids[i]];
				TAPAS_CHECK(found);
			}
			for (i = 0; i < ninside; i++)
				TAPAS_CHECK((sig[tapas_atoms_rep(&at, inside[i])] >> row) & 1);
		}
		tapas_atoms_clear(&at);
	}
}

/*
 * A row that cuts no atom (an earlier row again, or a union of whole
 * atoms) takes the path without moves: no new atom, inside[] the row's
 * distinct atoms, the partition and its invariants unchanged, and the
 * scratch left clean (a cutting row after it still matches the oracle).
 */
static void
test_atoms_split_whole_atoms(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(200);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 2 + (uint32_t) tapas_rng_below(&rng, MAXN - 1);
		uint32_t	nrows = 1 + (uint32_t) tapas_rng_below(&rng, MAXROWS / 2);
		uint64_t	sig[MAXN] = {0};
		uint32_t	rows[MAXROWS / 2][MAXN];
		size_t		lens[MAXROWS / 2];
		uint32_t	ids[MAXN],
					inside[MAXN];
		tapas_atoms_t at;
		uint32_t	row;
		const char *reason = NULL;

		TAPAS_CHECK(tapas_atoms_init(&at, n) == TAPAS_OK);
		for (row = 0; row < nrows; row++)
		{
			size_t		ninside,
						nnew,
						i;

			lens[row] = tapas_test_random_row(&rng, n, 1, n, rows[row]);
			for (i = 0; i < lens[row]; i++)
				sig[rows[row][i]] |= UINT64_C(1) << row;
			tapas_atoms_split(&at, rows[row], lens[row], inside, &ninside, &nnew);
		}
		for (int rep = 0; rep < 4; rep++)
		{
			uint32_t	pick = (uint32_t) tapas_rng_below(&rng, nrows);
			uint32_t	natoms0 = at.natoms;
			size_t		len = 0,
						ninside,
						nnew,
						i,
						distinct = 0;

			if (rep % 2 == 0)
			{
				len = lens[pick];
				memcpy(ids, rows[pick], sizeof(uint32_t) * len);
			}
			else
			{
				/* the members of the atoms of two records, in id order */
				uint32_t	a = at.atom_of[tapas_rng_below(&rng, n)];
				uint32_t	b = at.atom_of[tapas_rng_below(&rng, n)];

				for (uint32_t j = 0; j < n; j++)
					if (at.atom_of[j] == a || at.atom_of[j] == b)
						ids[len++] = j;
			}
			for (i = 0; i < len; i++)
			{
				int			first = 1;

				for (size_t l = 0; l < i; l++)
					first &= at.atom_of[ids[l]] != at.atom_of[ids[i]];
				distinct += first;
			}
			tapas_atoms_split(&at, ids, len, inside, &ninside, &nnew);
			TAPAS_CHECK_MSG(nnew == 0 && at.natoms == natoms0, "iter=%ld rep=%d", iter, rep);
			TAPAS_CHECK_MSG(ninside == distinct, "iter=%ld: %zu inside, %zu atoms",
							iter, ninside, distinct);
			for (i = 0; i < ninside; i++)
			{
				int			found = 0;

				for (size_t l = 0; l < len; l++)
					found |= at.atom_of[ids[l]] == inside[i];
				TAPAS_CHECK(found);
			}
			TAPAS_CHECK_MSG(tapas_atoms_validate(&at, &reason), "%s", reason);
			TAPAS_CHECK(matches_oracle(&at, sig, n));
			for (uint32_t a = 0; a < at.natoms; a++)
				TAPAS_CHECK(at.mark[a] == 0);
		}
		/* a cutting row after them */
		if (nrows < MAXROWS / 2)
		{
			size_t		len = tapas_test_random_row(&rng, n, 1, n, ids),
						ninside,
						nnew,
						i;

			for (i = 0; i < len; i++)
				sig[ids[i]] |= UINT64_C(1) << nrows;
			tapas_atoms_split(&at, ids, len, inside, &ninside, &nnew);
			TAPAS_CHECK_MSG(tapas_atoms_validate(&at, &reason), "%s", reason);
			TAPAS_CHECK(matches_oracle(&at, sig, n));
		}
		tapas_atoms_clear(&at);
	}
}

static void
test_atoms_rollback_restores(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(200);

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (iter = 0; iter < iters && !tapas_test_current_failed; iter++)
	{
		uint32_t	n = 1 + (uint32_t) tapas_rng_below(&rng, MAXN);
		uint32_t	ids[MAXN],
					inside[MAXN],
					atom_before[MAXN],
					k;
		tapas_atoms_t at;
		size_t		len,
					ninside,
					nnew;
		uint64_t	fp;
		uint32_t	natoms0;
		const char *reason = NULL;

		TAPAS_CHECK(tapas_atoms_init(&at, n) == TAPAS_OK);
		for (k = 0; k < 5; k++)
		{
			len = tapas_test_random_row(&rng, n, 1, n, ids);
			tapas_atoms_split(&at, ids, len, inside, &ninside, &nnew);
		}
		tapas_atoms_savepoint(&at);
		fp = tapas_atoms_fingerprint(&at);
		natoms0 = at.natoms;
		memcpy(atom_before, at.atom_of, n * sizeof(uint32_t));
		for (k = 0; k < 1 + tapas_rng_below(&rng, 8); k++)
		{
			len = tapas_test_random_row(&rng, n, 1, n, ids);
			tapas_atoms_split(&at, ids, len, inside, &ninside, &nnew);
		}
		tapas_atoms_rollback(&at);
		TAPAS_CHECK_MSG(tapas_atoms_validate(&at, &reason), "%s", reason);
		TAPAS_CHECK(at.natoms == natoms0);
		TAPAS_CHECK(tapas_atoms_fingerprint(&at) == fp);
		TAPAS_CHECK(memcmp(atom_before, at.atom_of, n * sizeof(uint32_t)) == 0);
		tapas_atoms_clear(&at);
	}
}

static void
test_atoms_init_errors(void)
{
	tapas_atoms_t at;
	long		base = tapas_memory_live();
	long		k;

	TAPAS_CHECK(tapas_atoms_init(&at, 0) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_atoms_init(&at, UINT32_C(1) << 31) == TAPAS_EINVAL);
	for (k = 0; k < 8; k++)
	{
		tapas_memory_fail_after(k);
		TAPAS_CHECK(tapas_atoms_init(&at, 10) == TAPAS_ENOMEM);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(tapas_memory_live() == base);
	}
	TAPAS_CHECK(tapas_atoms_init(&at, 1) == TAPAS_OK);
	TAPAS_CHECK(at.natoms == 1 && at.size[0] == 1);
	tapas_atoms_clear(&at);
	tapas_atoms_clear(&at);		/* idempotent */
	TAPAS_CHECK(tapas_memory_live() == base);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_atoms_split_matches_signatures);
	TAPAS_TEST_RUN(test_atoms_split_whole_atoms);
	TAPAS_TEST_RUN(test_atoms_rollback_restores);
	TAPAS_TEST_RUN(test_atoms_init_errors);
	TAPAS_TEST_DONE();
}
