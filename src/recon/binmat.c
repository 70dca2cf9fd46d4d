/*-------------------------------------------------------------------------
 *
 * binmat.c
 *	  Packed binary matrices: storage, products with real vectors,
 *	  transpose and conversion to LAPACK's dense layout.
 *
 * See binmat.h for the layout.  Products walk the set bits of each word
 * with count-trailing-zeros, so y = A x costs O(m * words + nnz(A)).
 * A^T r uses tables of subset sums: for rows 8g .. 8g+7 the table
 * T_g[p] = sum of r_{8g+t} over the bits t set in p (p < 256) is built in
 * 256 additions, and then column j adds T_g[p_j] where p_j collects bit j
 * of the 8 rows.  Only one table lives at a time (2 kB, in L1); z is
 * updated once per group, so the cost is m n / 8 additions plus the
 * gathering of the 8-bit patterns, about 8x fewer additions than walking
 * the set bits of a half-dense matrix.
 *
 * IDENTIFICATION
 *	  src/recon/binmat.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "util/memory.h"
#include "recon/binmat.h"

/* mask of the valid bits of the last word of a row */
static uint64_t
last_word_mask(size_t n)
{
	return (n & 63) ? (UINT64_C(1) << (n & 63)) - 1 : ~UINT64_C(0);
}

tapas_binmat_t *
tapas_binmat_create(size_t m, size_t n)
{
	tapas_binmat_t *A = tapas_calloc(1, sizeof(tapas_binmat_t));
	size_t		total;

	if (A == NULL)
		return NULL;
	A->m = m;
	A->n = n;
	A->words = (n + 63) / 64;
	if (A->words != 0 && m > SIZE_MAX / 8 / A->words)
		goto fail;
	total = m * A->words;
	A->bits = tapas_malloc_aligned(total ? total * 8 : 64);
	if (A->bits == NULL)
		goto fail;
	memset(A->bits, 0, total * 8);
	return A;

fail:
	tapas_binmat_free(A);
	return NULL;
}

void
tapas_binmat_free(tapas_binmat_t *A)
{
	if (A == NULL)
		return;
	tapas_free(A->bits);
	tapas_free(A);
}

tapas_binmat_t *
tapas_binmat_copy(const tapas_binmat_t *A)
{
	tapas_binmat_t *C = tapas_binmat_create(A->m, A->n);

	if (C != NULL)
		memcpy(C->bits, A->bits, A->m * A->words * 8);
	return C;
}

size_t
tapas_binmat_row_weight(const tapas_binmat_t *A, size_t i)
{
	const uint64_t *row = tapas_binmat_row(A, i);
	size_t		w,
				count = 0;

	for (w = 0; w < A->words; w++)
		count += (size_t) __builtin_popcountll(row[w]);
	return count;
}

void
tapas_binmat_col_weights(const tapas_binmat_t *A, size_t *counts)
{
	size_t		i,
				w;

	memset(counts, 0, A->n * sizeof(size_t));
	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);

		for (w = 0; w < A->words; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				counts[w * 64 + (size_t) __builtin_ctzll(bits)]++;
				bits &= bits - 1;
			}
		}
	}
}

double
tapas_binmat_row_dot(const tapas_binmat_t *A, size_t i, const double *x)
{
	const uint64_t *row = tapas_binmat_row(A, i);
	double		sum = 0.0;
	size_t		w;

	for (w = 0; w < A->words; w++)
	{
		uint64_t	bits = row[w];
		const double *xw = x + w * 64;

		while (bits)
		{
			sum += xw[__builtin_ctzll(bits)];
			bits &= bits - 1;
		}
	}
	return sum;
}

void
tapas_binmat_mul(const tapas_binmat_t *A, const double *x, double *y)
{
	size_t		i;

	for (i = 0; i < A->m; i++)
		y[i] = tapas_binmat_row_dot(A, i, x);
}

void
tapas_binmat_mul_i64(const tapas_binmat_t *A, const int64_t *x, int64_t *y)
{
	size_t		i,
				w;

	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);
		int64_t		sum = 0;

		for (w = 0; w < A->words; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				sum += x[w * 64 + (size_t) __builtin_ctzll(bits)];
				bits &= bits - 1;
			}
		}
		y[i] = sum;
	}
}

/* T[p] = sum of r[t] over the bits t of p, for the g rows of this group */
static void
subset_sums(const double *r, size_t g, double *T)
{
	size_t		t,
				p;

	T[0] = 0.0;
	for (t = 0; t < 8; t++)
	{
		size_t		half = (size_t) 1 << t;
		double		rt = t < g ? r[t] : 0.0;

		/* subsets containing bit t are those without it, plus r[t] */
		for (p = 0; p < half; p++)
			T[half + p] = T[p] + rt;
	}
}

/*
 * Transposes the 8 x 8 bit matrix held in x, where bit 8i + j is M[i][j]
 * (byte i is row i): afterwards byte j holds column j, bit i = M[i][j].
 * Three rounds of block swaps (Hacker's Delight, 2nd ed., section 7-3).
 */
static inline uint64_t
transpose8(uint64_t x)
{
	uint64_t	t;

	t = (x ^ (x >> 7)) & UINT64_C(0x00AA00AA00AA00AA);
	x = x ^ t ^ (t << 7);
	t = (x ^ (x >> 14)) & UINT64_C(0x0000CCCC0000CCCC);
	x = x ^ t ^ (t << 14);
	t = (x ^ (x >> 28)) & UINT64_C(0x00000000F0F0F0F0);
	x = x ^ t ^ (t << 28);
	return x;
}

/*
 * The 64 column patterns of one word position of 8 rows: out[c] has bit t
 * = bit c of wd[t].
 */
static inline void
gather_patterns(const uint64_t wd[8], uint8_t out[64])
{
	int			k,
				t;

	for (k = 0; k < 8; k++)
	{
		uint64_t	x = 0;

		for (t = 0; t < 8; t++)
			x |= ((wd[t] >> (8 * k)) & 0xFF) << (8 * t);
		x = transpose8(x);
		for (t = 0; t < 8; t++)
			out[8 * k + t] = (uint8_t) (x >> (8 * t));
	}
}

/* the words of rows i0 .. i0+7 at word position w (zero past row m - 1) */
static inline void
group_words(const tapas_binmat_t *A, size_t i0, size_t w, uint64_t wd[8])
{
	size_t		t;

	for (t = 0; t < 8; t++)
		wd[t] = i0 + t < A->m ? tapas_binmat_row(A, i0 + t)[w] : 0;
}

tapas_status
tapas_binmat_mul_t(const tapas_binmat_t *A, const double *r, double *z)
{
	double	   *T = tapas_malloc(256 * sizeof(double));
	size_t		i0,
				w;

	if (T == NULL)
		return TAPAS_ENOMEM;
	memset(z, 0, A->n * sizeof(double));
	for (i0 = 0; i0 < A->m; i0 += 8)
	{
		size_t		g = A->m - i0 < 8 ? A->m - i0 : 8;

		subset_sums(r + i0, g, T);
		for (w = 0; w < A->words; w++)
		{
			uint64_t	wd[8];
			uint8_t		pat[64];
			size_t		jmax = (w + 1) * 64 <= A->n ? 64 : A->n - w * 64;
			size_t		j;
			double	   *zw = z + w * 64;

			group_words(A, i0, w, wd);
			gather_patterns(wd, pat);
			for (j = 0; j < jmax; j++)
				zw[j] += T[pat[j]];
		}
	}
	tapas_free(T);
	return TAPAS_OK;
}

/*
 * Bits set in a byte.  A table, not __builtin_popcount: the baseline
 * x86-64 build has no POPCNT, so the builtin is a libgcc call per byte
 * (a fifth of an audited attack statement at n = 100,000, m = 1,000).
 */
#define PC2(k)	(k), (k) + 1, (k) + 1, (k) + 2
#define PC4(k)	PC2(k), PC2((k) + 1), PC2((k) + 1), PC2((k) + 2)
#define PC6(k)	PC4(k), PC4((k) + 1), PC4((k) + 1), PC4((k) + 2)
static const uint8_t popcount8[256] = {PC6(0), PC6(1), PC6(1), PC6(2)};
#undef PC2
#undef PC4
#undef PC6

/* the patterns of A's rows 8 g .. 8 g + 7 into group g of P, and their weights */
static void
colbytes_group(tapas_binmat_colbytes_t *P, const tapas_binmat_t *A, size_t g)
{
	const uint8_t *pg = P->p + g * A->n;

	for (size_t w = 0; w < A->words; w++)
	{
		uint64_t	wd[8];
		uint8_t		pat[64];
		size_t		jmax = (w + 1) * 64 <= A->n ? 64 : A->n - w * 64;

		group_words(A, 8 * g, w, wd);
		gather_patterns(wd, pat);
		memcpy(P->p + g * A->n + w * 64, pat, jmax);
	}
	for (size_t j = 0; j < A->n; j++)
		P->weights[j] += popcount8[pg[j]];
}

/* takes group g's patterns out of the weights (before they are rebuilt) */
static void
colbytes_ungroup(tapas_binmat_colbytes_t *P, size_t g)
{
	const uint8_t *pg = P->p + g * P->n;

	for (size_t j = 0; j < P->n; j++)
		P->weights[j] -= popcount8[pg[j]];
}

/* room for cap groups of patterns of n columns (p and tables), or -1 */
static int
colbytes_room(tapas_binmat_colbytes_t *P, size_t cap, size_t words)
{
	uint8_t    *p = tapas_malloc_aligned(cap * words * 64 + 64);
	double	   *tables = tapas_malloc_aligned((cap + 1) * 256 * sizeof(double));

	if (p == NULL || tables == NULL)
	{
		tapas_free(p);
		tapas_free(tables);
		return -1;
	}
	if (P->p != NULL)
		memcpy(p, P->p, P->groups * P->n);
	tapas_free(P->p);
	tapas_free(P->tables);
	P->p = p;
	P->tables = tables;
	P->cap_groups = cap;
	return 0;
}

tapas_binmat_colbytes_t *
tapas_binmat_colbytes_create(const tapas_binmat_t *A)
{
	tapas_binmat_colbytes_t *P = tapas_calloc(1, sizeof(tapas_binmat_colbytes_t));

	if (P == NULL)
		return NULL;
	P->m = A->m;
	P->n = A->n;
	P->weights = tapas_calloc(A->n ? A->n : 1, sizeof(uint32_t));
	if (P->weights == NULL || colbytes_room(P, (A->m + 7) / 8, A->words) != 0)
	{
		tapas_binmat_colbytes_free(P);
		return NULL;
	}
	P->groups = (A->m + 7) / 8;
	for (size_t g = 0; g < P->groups; g++)
		colbytes_group(P, A, g);
	return P;
}

tapas_status
tapas_binmat_colbytes_update(tapas_binmat_colbytes_t **Pp,
							 const tapas_binmat_t *A, size_t from)
{
	tapas_binmat_colbytes_t *P = *Pp;
	size_t		groups = (A->m + 7) / 8;

	if (P == NULL || P->n != A->n)
	{
		tapas_binmat_colbytes_free(P);
		*Pp = tapas_binmat_colbytes_create(A);
		return *Pp == NULL ? TAPAS_ENOMEM : TAPAS_OK;
	}
	/* groups below from / 8 hold rows that did not change */
	from = from / 8 < P->groups ? from / 8 : P->groups;
	for (size_t g = from; g < P->groups; g++)
		colbytes_ungroup(P, g);
	P->groups = from;			/* only these are kept */
	if (groups > P->cap_groups)
	{
		size_t		cap = 2 * P->cap_groups > groups ? 2 * P->cap_groups : groups;

		if (colbytes_room(P, cap, A->words) != 0)
		{
			tapas_binmat_colbytes_free(P);
			*Pp = NULL;
			return TAPAS_ENOMEM;
		}
	}
	P->m = A->m;
	P->groups = groups;
	for (size_t g = from; g < groups; g++)
		colbytes_group(P, A, g);
	return TAPAS_OK;
}

void
tapas_binmat_colbytes_add_column(const tapas_binmat_colbytes_t *P, size_t j,
								 double sign, double *r)
{
	for (size_t g = 0; g < P->groups; g++)
	{
		unsigned	byte = P->p[g * P->n + j];

		while (byte)
		{
			int			t = __builtin_ctz(byte);

			r[8 * g + t] += sign;
			byte &= byte - 1;
		}
	}
}

void
tapas_binmat_colbytes_free(tapas_binmat_colbytes_t *P)
{
	if (P == NULL)
		return;
	tapas_free(P->p);
	tapas_free(P->tables);
	tapas_free(P->weights);
	tapas_free(P);
}


void
tapas_binmat_colbytes_weights(const tapas_binmat_colbytes_t *P, size_t *counts)
{
	for (size_t j = 0; j < P->n; j++)
		counts[j] = P->weights[j];
}

/* columns per block: z's block and all tables stay in cache together */
#define COLBYTES_BLOCK 4096

void
tapas_binmat_colbytes_mul_t(tapas_binmat_colbytes_t *P, const double *r,
							double *z)
{
	size_t		g,
				j0,
				j;

	for (g = 0; g < P->groups; g++)
	{
		size_t		rows = P->m - 8 * g < 8 ? P->m - 8 * g : 8;

		subset_sums(r + 8 * g, rows, P->tables + g * 256);
	}
	for (j0 = 0; j0 < P->n; j0 += COLBYTES_BLOCK)
	{
		size_t		j1 = j0 + COLBYTES_BLOCK < P->n ? j0 + COLBYTES_BLOCK : P->n;

		for (j = j0; j < j1; j++)
			z[j] = 0.0;
		/* four groups per pass over z's block: a quarter of its loads and stores */
		for (g = 0; g + 4 <= P->groups; g += 4)
		{
			const uint8_t *p0 = P->p + g * P->n,
					   *p1 = p0 + P->n,
					   *p2 = p1 + P->n,
					   *p3 = p2 + P->n;
			const double *T0 = P->tables + g * 256,
					   *T1 = T0 + 256,
					   *T2 = T1 + 256,
					   *T3 = T2 + 256;

			for (j = j0; j < j1; j++)
				z[j] += (T0[p0[j]] + T1[p1[j]]) + (T2[p2[j]] + T3[p3[j]]);
		}
		for (; g < P->groups; g++)
		{
			const uint8_t *pg = P->p + g * P->n;
			const double *T = P->tables + g * 256;

			for (j = j0; j < j1; j++)
				z[j] += T[pg[j]];
		}
	}
}

tapas_binmat_t *
tapas_binmat_transpose(const tapas_binmat_t *A)
{
	tapas_binmat_t *T = tapas_binmat_create(A->n, A->m);
	size_t		i,
				w;

	if (T == NULL)
		return NULL;
	for (i = 0; i < A->m; i++)
	{
		const uint64_t *row = tapas_binmat_row(A, i);
		uint64_t	ibit = UINT64_C(1) << (i & 63);

		for (w = 0; w < A->words; w++)
		{
			uint64_t	bits = row[w];

			while (bits)
			{
				size_t		j = w * 64 + (size_t) __builtin_ctzll(bits);

				tapas_binmat_row(T, j)[i >> 6] |= ibit;
				bits &= bits - 1;
			}
		}
	}
	return T;
}

tapas_status
tapas_binmat_to_dense(const tapas_binmat_t *A, double *out, size_t ld)
{
	size_t		i,
				j;

	if (ld < A->m)
		return TAPAS_EINVAL;
	for (j = 0; j < A->n; j++)
		for (i = 0; i < A->m; i++)
			out[i + j * ld] = (double) tapas_binmat_get(A, i, j);
	return TAPAS_OK;
}

void
tapas_binmat_column(const tapas_binmat_t *A, size_t j, double *col)
{
	size_t		i;

	for (i = 0; i < A->m; i++)
		col[i] = (double) tapas_binmat_get(A, i, j);
}

int
tapas_binmat_validate(const tapas_binmat_t *A, const char **reason)
{
	size_t		i;
	uint64_t	mask = last_word_mask(A->n);

	if (A->words != (A->n + 63) / 64)
	{
		if (reason)
			*reason = "words is not ceil(n / 64)";
		return 0;
	}
	if (A->words == 0)
		return 1;
	for (i = 0; i < A->m; i++)
		if (tapas_binmat_row(A, i)[A->words - 1] & ~mask)
		{
			if (reason)
				*reason = "a padding bit past column n - 1 is set";
			return 0;
		}
	return 1;
}
