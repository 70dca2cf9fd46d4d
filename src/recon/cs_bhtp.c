/*-------------------------------------------------------------------------
 *
 * cs_bhtp.c
 *	  Binary hard-thresholding pursuit: recovery of an s-sparse 0/1 vector
 *	  x from exact answers b = A x to the 0/1 queries of A.
 *
 * The decoder for many positives (s in the hundreds among 10^5 records),
 * where OMP's one column per step costs s products A^T r.  It is iterative
 * hard thresholding (Blumensath and Davies, "Iterative hard thresholding
 * for compressed sensing", ACHA 27(3), 2009) with the step normalised per
 * column and the projection onto {0, 1}^n of weight s, as in hard
 * thresholding pursuit (Foucart, SIAM J. Numer. Anal. 49(6), 2011) where
 * the least-squares step on the support is trivial for binary x:
 *
 *	u_j = x_j + a_j~^T r / ||a_j~||^2,		r = b - A x,
 *	S' = the s largest u_j,					x' = 1 on S',
 *
 * with a_j~ the centred column (the constant vector projected out, as OMP
 * does in cs_omp.c: Bernoulli(1/2) columns are correlated at 1/2, their
 * centred versions nearly orthogonal).  For j outside S, u_j estimates the
 * gain of adding j (about 1 for a positive, 0 for a negative); for j in S,
 * 1 minus the gain of removing it.  So a step swaps the records of S whose
 * u_j is lowest for the outsiders whose u_j is highest.
 *
 * Monotone: a step is kept only when it lowers ||r||^2; otherwise the
 * number of swaps is halved (a damped step) until one swap, and the
 * decoder stops when even the best single swap does not help.  It stops
 * with x consistent when r = 0 (exact integer check).
 *
 * Independent of the record order: every step ranks records by u_j alone
 * (ties, which have probability 0 for generic designs, go to the lower
 * index), so a permutation of the columns permutes the result.
 *
 * Cost: one product A^T r per step (column patterns of binmat.c, about
 * m n / 8 table additions; or, given to tapas_cs_bhtp_trial_families, the
 * families of disjoint rows of a GROUP BY crossing, binmat_families.c,
 * F n reads), a selection O(n), and O(m / 8) per swapped column to update
 * r (O(F) from the families).
 * At n = 100,000, s = 256, m = 4,400 a step costs about 40 ms;
 * test/bench/b-cs-many.c measures steps and success, b-bhtp-families.c
 * the families' trial on GROUP BY crossings.  The product is A^T r, exact for
 * integer r, minus mean(r) times the column weights (A^T of the centred
 * r), so both products give the same scores bit for bit.
 *
 * IDENTIFICATION
 *	  src/recon/cs_bhtp.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/memory.h"
#include "recon/binmat_families.h"
#include "recon/cs.h"

#define BHTP_MAX_STEPS		TAPAS_CS_BHTP_MAX_STEPS

typedef struct bhtp_work
{
	tapas_binmat_colbytes_t *P;
	tapas_binmat_families_t *FA;	/* or NULL: the products from P */
	size_t		m;
	size_t		n;
	int			s;
	double	   *r;				/* residual b - A x, m */
	double	   *z;				/* A^T r, n */
	double	   *inv;			/* 1 / ||a_j~||^2, 0 = column excluded */
	double	   *u;				/* step scores, n */
	uint8_t    *in;				/* x_j */
	long	   *out_by;			/* members of S, ascending u */
	long	   *in_by;			/* outsiders, descending u */
} bhtp_work;

static void
bhtp_free(bhtp_work *w)
{
	tapas_free(w->r);
	tapas_free(w->z);
	tapas_free(w->inv);
	tapas_free(w->u);
	tapas_free(w->in);
	tapas_free(w->out_by);
	tapas_free(w->in_by);
}

/* r += sign a_j, from the families or the column patterns */
static inline void
add_column(const bhtp_work *w, size_t j, double sign, double *r)
{
	if (w->FA != NULL)
		tapas_binmat_families_add_column(w->FA, j, sign, r);
	else
		tapas_binmat_colbytes_add_column(w->P, j, sign, r);
}

static double
sumsq(const double *r, size_t m)
{
	double		ss = 0.0;

	for (size_t i = 0; i < m; i++)
		ss += r[i] * r[i];
	return ss;
}

/* u_j for every column (one product A^T r) */
static void
scores(bhtp_work *w)
{
	double		mean = 0.0;

	for (size_t i = 0; i < w->m; i++)
		mean += w->r[i];
	mean /= (double) w->m;
	/* A^T (r - mean) = A^T r - mean weights: exact A^T r for integer r */
	if (w->FA != NULL)
		tapas_binmat_families_mul_t(w->FA, w->r, w->z);
	else
		tapas_binmat_colbytes_mul_t(w->P, w->r, w->z);
	for (size_t j = 0; j < w->n; j++)
	{
		double		zc = w->z[j] - mean * (double) w->P->weights[j];

		w->u[j] = w->inv[j] == 0.0 ? -HUGE_VAL : w->in[j] + zc * w->inv[j];
	}
}

/* ranking: by u, ties to the lower index (deterministic, order-free) */
static const double *sort_u;

static int
cmp_desc(const void *a, const void *b)
{
	long		x = *(const long *) a,
				y = *(const long *) b;

	if (sort_u[x] != sort_u[y])
		return sort_u[x] > sort_u[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* the better of two columns by u, for the outsiders' buffer */
static inline int
better(const double *u, long a, long b)
{
	return u[a] > u[b] || (u[a] == u[b] && a < b);
}

/* sift-down in the heap h[0..cnt-1] whose top is the worst outsider kept */
static void
sift_down(const double *u, long *h, long cnt, long pos)
{
	for (;;)
	{
		long		c = 2 * pos + 1;

		if (c >= cnt)
			return;
		if (c + 1 < cnt && better(u, h[c], h[c + 1]))
			c++;				/* the worse child */
		if (!better(u, h[pos], h[c]))
			return;
		{
			long		t = h[pos];

			h[pos] = h[c];
			h[c] = t;
		}
		pos = c;
	}
}

/*
 * Ranks the swaps: out_by = the members by ascending u, in_by = the (at
 * most s) best outsiders by descending u, selected in one pass with a
 * heap of s (O(n log s) at worst, so hundreds of thousands of positives
 * stay within a pass; "better" is a strict total order, so the selection
 * is the same as a full sort's).  Returns the number of profitable pairs,
 * in_by[k] beating out_by[k]; with an empty support, the number of
 * outsiders ranked.
 */
static int
rank_swaps(bhtp_work *w, int nin)
{
	long		nout = 0;
	long		cnt = 0;
	int			k = 0;

	for (size_t j = 0; j < w->n; j++)
		if (w->in[j])
			w->out_by[nout++] = (long) j;
	sort_u = w->u;
	qsort(w->out_by, nout, sizeof(long), cmp_desc);
	for (long a = 0, b = nout - 1; a < b; a++, b--)
	{
		long		t = w->out_by[a];

		w->out_by[a] = w->out_by[b];
		w->out_by[b] = t;
	}
	for (size_t j = 0; j < w->n; j++)
	{
		if (w->in[j] || w->inv[j] == 0.0)
			continue;
		if (cnt < w->s)
		{
			/* sift up: the worst kept at the top */
			long		pos = cnt++;

			w->in_by[pos] = (long) j;
			while (pos > 0 && better(w->u, w->in_by[(pos - 1) / 2], w->in_by[pos]))
			{
				long		t = w->in_by[pos];

				w->in_by[pos] = w->in_by[(pos - 1) / 2];
				w->in_by[(pos - 1) / 2] = t;
				pos = (pos - 1) / 2;
			}
		}
		else if (better(w->u, (long) j, w->in_by[0]))
		{
			w->in_by[0] = (long) j;
			sift_down(w->u, w->in_by, cnt, 0);
		}
	}
	qsort(w->in_by, cnt, sizeof(long), cmp_desc);
	if (nin == 0)
		return (int) cnt;
	while (k < cnt && k < nout && w->u[w->in_by[k]] > w->u[w->out_by[k]])
		k++;
	return k;
}

/* swaps the first k pairs (in_by[i] joins, out_by[i] leaves), or undoes them */
static void
apply_swaps(bhtp_work *w, int k, int undo)
{
	double		sign = undo ? 1.0 : -1.0;

	for (int i = 0; i < k; i++)
	{
		long		jin = w->in_by[i],
					jout = w->out_by[i];

		add_column(w, (size_t) jin, sign, w->r);
		add_column(w, (size_t) jout, -sign, w->r);
		w->in[jin] = !undo;
		w->in[jout] = (uint8_t) undo;
	}
}

static tapas_status
bhtp_init(bhtp_work *w, tapas_binmat_colbytes_t *P, const double *b, int s)
{
	size_t	   *counts;
	double		mm = (double) P->m;

	memset(w, 0, sizeof(*w));
	w->P = P;
	w->m = P->m;
	w->n = P->n;
	w->s = s;
	w->r = tapas_malloc(w->m * sizeof(double));
	w->z = tapas_malloc(w->n * sizeof(double));
	w->inv = tapas_malloc(w->n * sizeof(double));
	w->u = tapas_malloc(w->n * sizeof(double));
	w->in = tapas_calloc(w->n, 1);
	w->out_by = tapas_malloc(((size_t) s + 1) * sizeof(long));
	w->in_by = tapas_malloc(((size_t) s + 1) * sizeof(long));
	counts = tapas_malloc(w->n * sizeof(size_t));
	if (!w->r || !w->z || !w->inv || !w->u || !w->in ||
		!w->out_by || !w->in_by || !counts)
	{
		tapas_free(counts);
		bhtp_free(w);
		return TAPAS_ENOMEM;
	}
	tapas_binmat_colbytes_weights(P, counts);
	for (size_t j = 0; j < w->n; j++)
	{
		double		c = (double) counts[j];
		double		nn = c - c * c / mm;

		/* a column equal to 0 or 1 carries nothing once centred */
		w->inv[j] = nn > 1e-9 ? 1.0 / nn : 0.0;
	}
	tapas_free(counts);
	memcpy(w->r, b, w->m * sizeof(double));
	return TAPAS_OK;
}

/* positives of target (0/1, n entries) in the support of w */
static int
overlap(const bhtp_work *w, const double *target)
{
	int			k = 0;

	for (size_t j = 0; j < w->n; j++)
		k += w->in[j] && target[j] == 1.0;
	return k;
}

tapas_status
tapas_cs_bhtp_patterns(tapas_binmat_colbytes_t *P, const double *b, int s,
					   double *x_out, int *iterations,
					   const tapas_progress_t *progress)
{
	return tapas_cs_bhtp_trial(P, b, s, NULL, 0, BHTP_MAX_STEPS, x_out,
							   iterations, NULL, progress);
}

tapas_status
tapas_cs_bhtp_trial(tapas_binmat_colbytes_t *P, const double *b, int s,
					const double *target, int need, int max_steps,
					double *x_out, int *iterations, int *found,
					const tapas_progress_t *progress)
{
	return tapas_cs_bhtp_trial_families(P, NULL, b, s, target, need, max_steps,
										x_out, iterations, found, progress);
}

tapas_status
tapas_cs_bhtp_trial_families(tapas_binmat_colbytes_t *P,
							 tapas_binmat_families_t *FA, const double *b,
							 int s, const double *target, int need,
							 int max_steps, double *x_out, int *iterations,
							 int *found, const tapas_progress_t *progress)
{
	bhtp_work	w;
	tapas_status st;
	int			nin;
	int			steps = 0;
	double		ss;

	if (s < 1 || P->m == 0 || P->n == 0 || max_steps < 0 ||
		max_steps > BHTP_MAX_STEPS || (target != NULL && need < 1) ||
		(FA != NULL && (FA->m != P->m || FA->n != P->n)))
		return TAPAS_EINVAL;
	if ((st = bhtp_init(&w, P, b, s)) != TAPAS_OK)
		return st;
	w.FA = FA;
	/* start: the s best columns for x = 0 */
	scores(&w);
	nin = rank_swaps(&w, 0);
	for (int i = 0; i < nin; i++)
	{
		w.in[w.in_by[i]] = 1;
		add_column(&w, (size_t) w.in_by[i], -1.0, w.r);
	}
	ss = sumsq(w.r, w.m);
	while (ss > 0.25 && steps < max_steps &&
		   (target == NULL || overlap(&w, target) < need))
	{
		int			k;

		if (tapas_progress_poll(progress, (double) steps / BHTP_MAX_STEPS))
		{
			bhtp_free(&w);
			return TAPAS_ECANCELED;
		}
		steps++;
		scores(&w);
		k = rank_swaps(&w, nin);
		while (k > 0)
		{
			double		ss2;

			apply_swaps(&w, k, 0);
			ss2 = sumsq(w.r, w.m);
			if (ss2 < ss)
			{
				ss = ss2;
				break;
			}
			apply_swaps(&w, k, 1);
			k /= 2;
		}
		if (k == 0)
			break;				/* no swap lowers the residual */
	}
	for (size_t j = 0; j < w.n; j++)
		x_out[j] = w.in[j] ? 1.0 : 0.0;
	if (iterations)
		*iterations = steps;
	if (found)
		*found = target != NULL ? overlap(&w, target) : 0;
	bhtp_free(&w);
	return TAPAS_OK;
}

tapas_status
tapas_cs_bhtp(const tapas_binmat_t *A, const double *b, int s, double *x_out,
			  int *iterations, const tapas_progress_t *progress)
{
	tapas_binmat_colbytes_t *P;
	tapas_status st;

	if (A->m == 0 || A->n == 0 || s < 1)
		return TAPAS_EINVAL;
	if ((P = tapas_binmat_colbytes_create(A)) == NULL)
		return TAPAS_ENOMEM;
	st = tapas_cs_bhtp_patterns(P, b, s, x_out, iterations, progress);
	tapas_binmat_colbytes_free(P);
	return st;
}
