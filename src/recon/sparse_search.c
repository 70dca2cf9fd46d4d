/*-------------------------------------------------------------------------
 *
 * sparse_search.c
 *	  Exhaustive search for the binary solutions of weight <= 3 of
 *	  A x = b, by linear column hashing and meet in the middle.
 *
 * Hashing.  Draw one random 64-bit word R_i per row (fixed seed) and hash
 * column j as h_j = sum_i A[i][j] R_i, the answers as H = sum_i b_i R_i
 * (all mod 2^64).  The hash is linear, so a support S solves A x = b only
 * if sum_{j in S} h_j = H; every hash match is then verified row by row,
 * so the result is exact whatever the collisions (which have probability
 * about 2^-64 per candidate).
 *
 *	weight 1: columns with h_j = H, O(nnz(A)) for the hashes + O(n).
 *	weight 2: a hash table of the columns; for each u look up H - h_u.
 *	weight 3: one column u is enumerated and the pair {v, w} looked up as
 *			  in weight 2, O(|U| |V|) lookups.
 *
 * Pruning (exact, not heuristic).  For a weight-w solution every column of
 * the support has A[i][j] = 0 where b_i = 0 and A[i][j] = 1 where b_i = w,
 * and no answer can lie outside 0..w; the candidate set F is cut with
 * whole-word operations on the rows.  For weight 3 a pivot row i with
 * b_i = 1 (exactly one support column covers it: enumerate u in F and row
 * i, the pair lies in F outside row i) or b_i = 2 (exactly one support
 * column misses it: u in F outside row i, the pair in F and row i) splits
 * the search so that each solution is met exactly once; the row that
 * minimises |U| |V| is chosen.  With no such row (every answer 0 or 3),
 * all support columns are equal on every row, and u < v < w over F is
 * used.  For a random half-dense design every zero answer halves F, so
 * the search is near O(m n) in practice; the worst case is O(|F|^2), and
 * work_limit bounds it.
 *
 * IDENTIFICATION
 *	  src/recon/sparse_search.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/sparse_search.h"
#include "util/compare.h"

typedef struct search_ctx
{
	const tapas_binmat_t *A;
	const int64_t *b;
	uint64_t   *h;				/* column hashes, n */
	uint64_t	H;				/* hash of b */
	size_t		cap;
	tapas_sparse_result *res;
	const tapas_progress_t *progress;
} search_ctx;

/* hash table of column indices keyed by their hashes (open addressing) */
typedef struct col_table
{
	int64_t    *slot;			/* column or -1 */
	size_t		mask;
} col_table;

/* Is A x = b for the support cols[0..w-1]?  Row by row, exact. */
static int
verify(const search_ctx *c, const int64_t *cols, int w)
{
	size_t		i;

	for (i = 0; i < c->A->m; i++)
	{
		int64_t		s = 0;
		int			t;

		for (t = 0; t < w; t++)
			s += tapas_binmat_get(c->A, i, (size_t) cols[t]);
		if (s != c->b[i])
			return 0;
	}
	return 1;
}

/* Records a verified solution; TAPAS_ENOMEM if the store cannot grow. */
static tapas_status
record(search_ctx *c, int64_t *cols, int w)
{
	tapas_sparse_result *r = c->res;
	int			t;

	if (!verify(c, cols, w))
		return TAPAS_OK;
	r->found++;
	if (r->stored >= c->cap)
		return TAPAS_OK;
	if ((r->stored & (r->stored - 1)) == 0)
	{
		size_t		room = r->stored ? 2 * r->stored : 1;
		int64_t    *p = tapas_realloc(r->supports, room * 3 * sizeof(int64_t));

		if (p == NULL)
			return TAPAS_ENOMEM;
		r->supports = p;
	}
	qsort(cols, (size_t) w, sizeof(int64_t), tapas_cmp_int64);
	for (t = 0; t < 3; t++)
		r->supports[r->stored * 3 + t] = t < w ? cols[t] : -1;
	r->stored++;
	return TAPAS_OK;
}

/* Candidate columns for weight w as an n-bit mask (caller frees). */
static uint64_t *
candidates(const search_ctx *c, int w)
{
	const tapas_binmat_t *A = c->A;
	uint64_t   *F = tapas_malloc((A->words ? A->words : 1) * 8);
	size_t		i,
				k;

	if (F == NULL)
		return NULL;
	for (k = 0; k < A->words; k++)
		F[k] = ~UINT64_C(0);
	if (A->n & 63)
		F[A->words - 1] = (UINT64_C(1) << (A->n & 63)) - 1;
	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);

		if (c->b[i] == 0)
			for (k = 0; k < A->words; k++)
				F[k] &= ~row[k];
		else if (c->b[i] == w)
			for (k = 0; k < A->words; k++)
				F[k] &= row[k];
	}
	return F;
}

/* The columns of mask F (optionally & row, or & ~row), as a list. */
static size_t
list_columns(const tapas_binmat_t *A, const uint64_t *F, const uint64_t *row,
			 int inside, int64_t *out)
{
	size_t		k,
				cnt = 0;

	for (k = 0; k < A->words; k++)
	{
		uint64_t	bits = F[k];

		if (row)
			bits &= inside ? row[k] : ~row[k];
		while (bits)
		{
			out[cnt++] = (int64_t) (k * 64 + (size_t) __builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
	return cnt;
}

static tapas_status
table_build(col_table *t, const search_ctx *c, const int64_t *cols, size_t k)
{
	size_t		size = 16,
				i;

	while (size < 2 * k)
		size *= 2;
	t->mask = size - 1;
	t->slot = tapas_malloc(size * sizeof(int64_t));
	if (t->slot == NULL)
		return TAPAS_ENOMEM;
	memset(t->slot, 0xff, size * sizeof(int64_t));
	for (i = 0; i < k; i++)
	{
		size_t		p = (size_t) (c->h[cols[i]] * UINT64_C(0x9e3779b97f4a7c15) >> 20) & t->mask;

		while (t->slot[p] >= 0)
			p = (p + 1) & t->mask;
		t->slot[p] = cols[i];
	}
	return TAPAS_OK;
}

/*
 * For fixed columns pre[0..np-1], every v in the table with h_v = target
 * and v > after completes a solution.
 */
static tapas_status
table_probe(search_ctx *c, const col_table *t, uint64_t target,
			int64_t *pre, int np, int64_t after)
{
	size_t		p = (size_t) (target * UINT64_C(0x9e3779b97f4a7c15) >> 20) & t->mask;
	tapas_status st;

	for (; t->slot[p] >= 0; p = (p + 1) & t->mask)
	{
		int64_t		v = t->slot[p],
					cols[3];
		int			k;

		if (c->h[v] != target || v <= after)
			continue;
		for (k = 0; k < np; k++)
			if (pre[k] == v)
				break;
		if (k < np)
			continue;
		memcpy(cols, pre, (size_t) np * sizeof(int64_t));
		cols[np] = v;
		if ((st = record(c, cols, np + 1)) != TAPAS_OK)
			return st;
	}
	return TAPAS_OK;
}

/* Weight-2 solutions of H2 among list V (pairs u < v), plus prefix pre. */
static tapas_status
pairs(search_ctx *c, const col_table *t, const int64_t *V, size_t nv,
	  uint64_t H2, int64_t *pre, int np)
{
	size_t		a;
	tapas_status st;

	for (a = 0; a < nv; a++)
	{
		int64_t		buf[3];

		if (np)
			buf[0] = pre[0];
		buf[np] = V[a];
		if ((st = table_probe(c, t, H2 - c->h[V[a]], buf, np + 1, V[a])) != TAPAS_OK)
			return st;
	}
	return TAPAS_OK;
}

/* Does b allow a weight-w solution at all (0 <= b_i <= w)? */
static int
answers_in_range(const search_ctx *c, int w)
{
	size_t		i;

	for (i = 0; i < c->A->m; i++)
		if (c->b[i] < 0 || c->b[i] > w)
			return 0;
	return 1;
}

/* Weights 1 and 2 over the candidate set F. */
static tapas_status
search_small(search_ctx *c, int w, int64_t *list)
{
	uint64_t   *F = candidates(c, w);
	size_t		k,
				nf;
	col_table	t = {NULL, 0};
	tapas_status st = TAPAS_OK;

	if (F == NULL)
		return TAPAS_ENOMEM;
	nf = list_columns(c->A, F, NULL, 0, list);
	tapas_free(F);
	if (w == 1)
	{
		for (k = 0; k < nf && st == TAPAS_OK; k++)
			if (c->h[list[k]] == c->H)
				st = record(c, &list[k], 1);
		return st;
	}
	if ((st = table_build(&t, c, list, nf)) == TAPAS_OK)
		st = pairs(c, &t, list, nf, c->H, NULL, 0);
	tapas_free(t.slot);
	return st;
}

/*
 * The pivot row for weight 3 (see the banner), or -1; *inside says
 * whether u is enumerated inside the row.
 */
static long
pivot_row(const search_ctx *c, const uint64_t *F, size_t nf, int *inside)
{
	size_t		i,
				k;
	long		best = -1;
	double		bestcost = 0.0;

	for (i = 0; i < c->A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(c->A, i);
		size_t		in = 0;
		double		nu,
					cost;

		if (c->b[i] != 1 && c->b[i] != 2)
			continue;
		for (k = 0; k < c->A->words; k++)
			in += (size_t) __builtin_popcountll(F[k] & row[k]);
		nu = c->b[i] == 1 ? (double) in : (double) (nf - in);
		cost = nu * (double) (nf - (size_t) nu);
		if (best < 0 || cost < bestcost)
		{
			best = (long) i;
			bestcost = cost;
			*inside = c->b[i] == 1;
		}
	}
	return best;
}

static tapas_status
search_three(search_ctx *c, int64_t *U, int64_t *V, double work_limit)
{
	uint64_t   *F = candidates(c, 3);
	const uint64_t *row = NULL;
	size_t		nu,
				nv,
				a;
	int			inside = 0;
	long		piv;
	col_table	t = {NULL, 0};
	tapas_status st;

	if (F == NULL)
		return TAPAS_ENOMEM;
	nv = list_columns(c->A, F, NULL, 0, V);
	piv = pivot_row(c, F, nv, &inside);
	if (piv >= 0)
	{
		row = tapas_binmat_row(c->A, (size_t) piv);
		nu = list_columns(c->A, F, row, inside, U);
		nv = list_columns(c->A, F, row, !inside, V);
		c->res->work = (double) nu * (double) nv;
	}
	else
	{
		nu = list_columns(c->A, F, NULL, 0, U);
		c->res->work = (double) nu * (double) nv / 2.0;
	}
	tapas_free(F);
	if (c->res->work > work_limit)
		return TAPAS_ELIMIT;
	if ((st = table_build(&t, c, V, nv)) != TAPAS_OK)
		return st;
	for (a = 0; a < nu && st == TAPAS_OK; a++)
	{
		int64_t		u = U[a];
		size_t		from = piv >= 0 ? 0 : a + 1;	/* u < v < w without pivot */

		if ((a & 255) == 0 && tapas_progress_poll(c->progress, (double) a / (double) nu))
			st = TAPAS_ECANCELED;
		else
			st = pairs(c, &t, V + from, nv - from, c->H - c->h[u], &u, 1);
	}
	tapas_free(t.slot);
	return st;
}

/* the rows' random words R_i (fixed seed): R[i] for i < m */
static uint64_t *
row_words(size_t m)
{
	uint64_t   *R = tapas_malloc((m ? m : 1) * sizeof(uint64_t));
	tapas_rng_t rng;

	if (R == NULL)
		return NULL;
	tapas_rng_seed(&rng, UINT64_C(0x5a17c0de));
	for (size_t i = 0; i < m; i++)
		R[i] = tapas_rng_u64(&rng);
	return R;
}

/* h += the hashes of rows from .. to - 1 of A */
static void
hash_rows(const tapas_binmat_t *A, const uint64_t *R, size_t from, size_t to,
		  uint64_t *h)
{
	for (size_t i = from; i < to; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);

		for (size_t k = 0; k < A->words; k++)
		{
			uint64_t	bits = row[k];

			while (bits)
			{
				h[k * 64 + (size_t) __builtin_ctzll(bits)] += R[i];
				bits &= bits - 1;
			}
		}
	}
}

/* column and answer hashes, from H's rows on when H matches A */
static tapas_status
hash_columns(search_ctx *c, const tapas_sparse_hashes *H)
{
	const tapas_binmat_t *A = c->A;
	uint64_t   *R = row_words(A->m);
	size_t		from = 0;

	c->h = tapas_calloc(A->n ? A->n : 1, sizeof(uint64_t));
	if (c->h == NULL || R == NULL)
	{
		tapas_free(R);
		return TAPAS_ENOMEM;
	}
	if (H != NULL && H->n == A->n && H->rows <= A->m)
	{
		memcpy(c->h, H->h, A->n * sizeof(uint64_t));
		from = H->rows;
	}
	c->H = 0;
	for (size_t i = 0; i < A->m; i++)
		c->H += (uint64_t) c->b[i] * R[i];
	hash_rows(A, R, from, A->m, c->h);
	tapas_free(R);
	return TAPAS_OK;
}

tapas_status
tapas_sparse_hashes_extend(tapas_sparse_hashes **Hp, const tapas_binmat_t *A,
						   size_t upto)
{
	tapas_sparse_hashes *H = *Hp;
	uint64_t   *R;

	if (upto > A->m)
		upto = A->m;
	if (H == NULL || H->n != A->n || H->rows > upto)
	{
		tapas_sparse_hashes_free(H);
		*Hp = H = tapas_calloc(1, sizeof(tapas_sparse_hashes));
		if (H == NULL)
			return TAPAS_ENOMEM;
		H->n = A->n;
		H->h = tapas_calloc(A->n ? A->n : 1, sizeof(uint64_t));
		if (H->h == NULL)
		{
			tapas_sparse_hashes_free(H);
			*Hp = NULL;
			return TAPAS_ENOMEM;
		}
	}
	if (H->rows == upto)
		return TAPAS_OK;
	if ((R = row_words(upto)) == NULL)
	{
		tapas_sparse_hashes_free(H);
		*Hp = NULL;
		return TAPAS_ENOMEM;
	}
	hash_rows(A, R, H->rows, upto, H->h);
	H->rows = upto;
	tapas_free(R);
	return TAPAS_OK;
}

void
tapas_sparse_hashes_free(tapas_sparse_hashes *H)
{
	if (H == NULL)
		return;
	tapas_free(H->h);
	tapas_free(H);
}

static int
cmp_support(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;
	int			wx = (x[0] >= 0) + (x[1] >= 0) + (x[2] >= 0),
				wy = (y[0] >= 0) + (y[1] >= 0) + (y[2] >= 0),
				t;

	if (wx != wy)
		return wx - wy;
	for (t = 0; t < 3; t++)
		if (x[t] != y[t])
			return x[t] < y[t] ? -1 : 1;
	return 0;
}

tapas_status
tapas_sparse_search(const tapas_binmat_t *A, const int64_t *b,
					int max_weight, size_t cap, double work_limit,
					tapas_sparse_result *res, const tapas_progress_t *progress)
{
	return tapas_sparse_search_hashed(A, NULL, b, max_weight, cap, work_limit,
									  res, progress);
}

tapas_status
tapas_sparse_search_hashed(const tapas_binmat_t *A, const tapas_sparse_hashes *H,
						   const int64_t *b, int max_weight, size_t cap,
						   double work_limit, tapas_sparse_result *res,
						   const tapas_progress_t *progress)
{
	search_ctx	c;
	int64_t    *U = NULL,
			   *V = NULL;
	tapas_status st = TAPAS_OK;
	int			w;

	memset(res, 0, sizeof(*res));
	if (max_weight < 0 || max_weight > TAPAS_SPARSE_MAX_WEIGHT)
		return TAPAS_EINVAL;
	memset(&c, 0, sizeof(c));
	c.A = A;
	c.b = b;
	c.cap = cap;
	c.res = res;
	c.progress = progress;
	U = tapas_malloc((A->n ? A->n : 1) * sizeof(int64_t));
	V = tapas_malloc((A->n ? A->n : 1) * sizeof(int64_t));
	if (U == NULL || V == NULL || (st = hash_columns(&c, H)) != TAPAS_OK)
		st = TAPAS_ENOMEM;
	for (w = 0; w <= max_weight && st == TAPAS_OK; w++)
	{
		if (!answers_in_range(&c, w) || (size_t) w > A->n)
			continue;
		if (tapas_progress_poll(progress, -1.0))
			st = TAPAS_ECANCELED;
		else if (w == 0)
			st = record(&c, U, 0);
		else if (w < 3)
			st = search_small(&c, w, U);
		else
			st = search_three(&c, U, V, work_limit);
	}
	tapas_free(U);
	tapas_free(V);
	tapas_free(c.h);
	if (st != TAPAS_OK && st != TAPAS_ELIMIT)
	{
		double		work = res->work;

		tapas_sparse_result_clear(res);
		res->work = work;
		return st;
	}
	if (res->stored > 1)
		qsort(res->supports, res->stored, 3 * sizeof(int64_t), cmp_support);
	return st;
}

void
tapas_sparse_result_clear(tapas_sparse_result *res)
{
	tapas_free(res->supports);
	memset(res, 0, sizeof(*res));
}

int
tapas_sparse_result_weight(const tapas_sparse_result *res, size_t k)
{
	const int64_t *s = res->supports + 3 * k;

	return (s[0] >= 0) + (s[1] >= 0) + (s[2] >= 0);
}
