/*-------------------------------------------------------------------------
 *
 * exact.c
 *	  Which coordinates of x do the answers b = A x determine: reduced row
 *	  echelon form of [A | b] modulo two random primes near 2^62.
 *
 * Let E = rref([A | b]).  b is consistent iff no pivot of E lies in the
 * last column.  x_j is determined iff j is a pivot column whose row of E
 * has no other nonzero among the first n columns: that row says
 * x_j = E[row][n], and conversely if e_j is in the row space of A the
 * rref exposes it this way (research note section 2.1).
 *
 * Exact rational elimination (fmpq/fmpz_mat_rref) is far too slow at
 * audit sizes (350 s at 1024 x 2048, research note section 0), so the
 * rref is computed with FLINT's nmod_mat over a random prime p ~ 2^62,
 * and each determined value, known mod p, is lifted to a rational by
 * rational reconstruction (fmpq_reconstruct_fmpz: |num|, den <
 * sqrt(p / 2)).  Mod-p elimination errs only when p divides a minor of
 * [A | b], which for a random 62-bit prime has probability about
 * n / 2^62 per instance; the computation is repeated with a second
 * independent prime and the two must agree (same rank, same determined
 * set, same values), otherwise TAPAS_EDECODE.  The integrality of every
 * determined value is reported (for COUNT answers a non-integer value
 * means the answers are not counts of 0/1 data).
 *
 * IDENTIFICATION
 *	  src/recon/exact.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include <flint/flint.h>
#include <flint/fmpq.h>
#include <flint/fmpz.h>
#include <flint/nmod_mat.h>
#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/exact.h"

/* One modular pass: determined set and values mod p. */
static void
exact_pass(const tapas_binmat_t *A, const int64_t *b, mp_limb_t p,
		   double *x, unsigned char *det, tapas_exact_result *res,
		   int *bad_lift)
{
	nmod_mat_t	M;
	slong		m = (slong) A->m,
				n = (slong) A->n,
				i,
				j,
				rank;
	fmpz_t		a,
				mod;
	fmpq_t		q;

	nmod_mat_init(M, m, n + 1, p);
	for (i = 0; i < m; i++)
	{
		for (j = 0; j < n; j++)
			nmod_mat_entry(M, i, j) = (mp_limb_t) tapas_binmat_get(A, (size_t) i, (size_t) j);
		nmod_mat_entry(M, i, n) = b[i] >= 0 ? (mp_limb_t) b[i] % p :
			p - (mp_limb_t) (-(b[i] + 1)) % p - 1;
	}
	rank = nmod_mat_rref(M);
	fmpz_init(a);
	fmpz_init_set_ui(mod, p);
	fmpq_init(q);
	res->rank = 0;
	res->consistent = 1;
	res->determined = 0;
	res->integral = 1;
	for (j = 0; j < n; j++)
	{
		det[j] = 0;
		x[j] = NAN;
	}
	for (i = 0; i < rank; i++)
	{
		slong		piv = 0,
					others = 0;

		while (piv <= n && nmod_mat_entry(M, i, piv) == 0)
			piv++;
		if (piv == n)
		{
			res->consistent = 0;
			continue;
		}
		res->rank++;
		for (j = piv + 1; j < n; j++)
			others += nmod_mat_entry(M, i, j) != 0;
		if (others)
			continue;
		fmpz_set_ui(a, nmod_mat_entry(M, i, n));
		if (!fmpq_reconstruct_fmpz(q, a, mod))
		{
			*bad_lift = 1;
			continue;
		}
		det[piv] = 1;
		x[piv] = fmpz_get_d(fmpq_numref(q)) / fmpz_get_d(fmpq_denref(q));
		res->integral &= fmpz_is_one(fmpq_denref(q));
		res->determined++;
	}
	if (!res->consistent)
	{
		for (j = 0; j < n; j++)
		{
			det[j] = 0;
			x[j] = NAN;
		}
		res->determined = 0;
	}
	fmpq_clear(q);
	fmpz_clear(a);
	fmpz_clear(mod);
	nmod_mat_clear(M);
}

/* a random prime in [2^62, 2^62 + 2^61) */
static mp_limb_t
random_prime(tapas_rng_t *rng)
{
	return n_nextprime((UINT64_C(1) << 62) + (tapas_rng_u64(rng) >> 3), 0);
}

tapas_status
tapas_exact_solve(const tapas_binmat_t *A, const int64_t *b, tapas_rng_t *rng,
				  double *x_out, unsigned char *determined,
				  tapas_exact_result *res, const tapas_progress_t *progress)
{
	double	   *x2;
	unsigned char *d2;
	tapas_exact_result r2;
	int			bad = 0;
	size_t		j;
	tapas_status st = TAPAS_OK;

	memset(res, 0, sizeof(*res));
	if (A->m == 0 || A->n == 0)
		return TAPAS_EINVAL;
	if ((double) A->m * ((double) A->n + 1.0) > TAPAS_EXACT_MAX_ENTRIES ||
		(double) A->m * ((double) A->n + 1.0) *
		fmin((double) A->m, (double) A->n + 1.0) > TAPAS_EXACT_MAX_WORK)
		return TAPAS_ELIMIT;
	x2 = tapas_malloc(A->n * sizeof(double));
	d2 = tapas_malloc(A->n);
	if (x2 == NULL || d2 == NULL)
	{
		tapas_free(x2);
		tapas_free(d2);
		return TAPAS_ENOMEM;
	}
	exact_pass(A, b, random_prime(rng), x_out, determined, res, &bad);
	if (tapas_progress_poll(progress, 0.5))
		st = TAPAS_ECANCELED;
	else
	{
		exact_pass(A, b, random_prime(rng), x2, d2, &r2, &bad);
		if (bad || r2.rank != res->rank || r2.consistent != res->consistent ||
			r2.determined != res->determined)
			st = TAPAS_EDECODE;
		for (j = 0; j < A->n && st == TAPAS_OK; j++)
			if (d2[j] != determined[j] || (d2[j] && x2[j] != x_out[j]))
				st = TAPAS_EDECODE;
	}
	tapas_free(x2);
	tapas_free(d2);
	return st;
}
