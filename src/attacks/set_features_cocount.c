/*-------------------------------------------------------------------------
 *
 * set_features_cocount.c
 *	  Co-moments between categorical columns as popcounts of row bitsets.
 *
 * In the encoded view a categorical column j is a block of one-hot columns
 * (set_features.h), so for encoded columns a, b of two categorical
 * columns the co-moment S[a][b] = sum_r X[r][a] X[r][b] is the number of
 * records having both categories, and sum[a] = S[a][a] the number having
 * category a.  With one bitset of the n records per encoded column,
 *	S[a][b] = popcount(B_a AND B_b)
 * over n/64 words: about m^2 e^2 / (2 m^2) pairs of blocks times n/64 words
 * instead of n m^2 / 2 increments, a few times fewer operations for the
 * census (17 columns, 107 encoded).  The counts are exact integers, so S
 * and sum get the very values the row-by-row sums of 1.0 gave.  Entries
 * between two categories of one column stay 0 (a record has one category
 * per column).  Pairs involving a numeric column are left to the row pass
 * of set_features.c.
 *
 * IDENTIFICATION
 *	  src/attacks/set_features_cocount.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "attacks/set_features_int.h"

/*
 * popcount in hardware where the CPU has it (GNU ifunc picks at load
 * time); AVX-512 only from GCC: clang 14 compiles PGXS's JIT bitcode of
 * this file, and its LTO index writer crashes on the target attribute.
 */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
#define COCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define COCOUNT_CLONES
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define COCOUNT_AVX512 1
#include <immintrin.h>
#else
#define COCOUNT_AVX512 0
#endif

/* records in both bitsets of w words */
COCOUNT_CLONES static uint32_t
and_count_scalar(const uint64_t *a, const uint64_t *b, size_t w)
{
	uint32_t	c = 0;
	size_t		i;

	for (i = 0; i < w; i++)
		c += (uint32_t) __builtin_popcountll(a[i] & b[i]);
	return c;
}

/* out[i] = records in both a and the i-th of nb bitsets from b (stride words apart) */
COCOUNT_CLONES static void
and_count_row_scalar(const uint64_t *a, const uint64_t *b, size_t nb,
					 size_t stride, size_t w, double *out)
{
	size_t		i;

	for (i = 0; i < nb; i++)
		out[i] = (double) and_count_scalar(a, b + i * stride, w);
}

#if COCOUNT_AVX512
/*
 * The same counts eight words at a time (AVX-512 VPOPCNTQ; the tail under a
 * load mask): a 1,000-record dataset's bitsets are 16 words, two vectors.
 * A whole row of a block per call: with 16-word bitsets a call per pair
 * cost about what its count did.
 */
__attribute__((target("avx512f,avx512vpopcntdq"))) static void
and_count_row_avx512(const uint64_t *a, const uint64_t *b, size_t nb,
					 size_t stride, size_t w, double *out)
{
	__mmask8	m = (__mmask8) ((1u << (w % 8)) - 1);
	size_t		i,
				k;

	for (k = 0; k < nb; k++)
	{
		const uint64_t *bk = b + k * stride;
		__m512i		acc = _mm512_setzero_si512();

		for (i = 0; i + 8 <= w; i += 8)
			acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(
				_mm512_and_si512(_mm512_loadu_si512(a + i), _mm512_loadu_si512(bk + i))));
		if (i < w)
			acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(
				_mm512_and_si512(_mm512_maskz_loadu_epi64(m, a + i),
								 _mm512_maskz_loadu_epi64(m, bk + i))));
		out[k] = (double) (uint32_t) _mm512_reduce_add_epi64(acc);
	}
}

/* 1: the CPU runs and_count_row_avx512; 0: it does not; -1: not asked yet */
static int	cocount_avx512 = -1;

/* out[i] = records in both a and the i-th bitset of b, by the widest code */
static inline void
and_count_row(const uint64_t *a, const uint64_t *b, size_t nb, size_t stride,
			  size_t w, double *out)
{
	if (cocount_avx512)
		and_count_row_avx512(a, b, nb, stride, w, out);
	else
		and_count_row_scalar(a, b, nb, stride, w, out);
}
#else
#define and_count_row and_count_row_scalar
#endif

/* the co-moments of categorical columns j < k (upper triangle) */
static void
block_pair(tapas_setfeat_t *fs, size_t j, size_t k, size_t w)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		e = s->e,
				a;

	for (a = s->offset[j]; a < s->offset[j] + (size_t) s->ncat[j]; a++)
		and_count_row(fs->bits + a * fs->bits_words,
					  fs->bits + s->offset[k] * fs->bits_words,
					  (size_t) s->ncat[k], fs->bits_words, w,
					  fs->comoment + a * e + s->offset[k]);
}

#ifdef __SSE2__
/*
 * The bitsets of the categorical columns cat[0..ncat) (each at most 255
 * categories; first[c] the bitset of category 0 of column cat[c]) over
 * the n records of x, 64 records (one word) at a time: a column's 64 codes
 * as bytes (255 past the last record, no category), then each category's
 * word whole from byte compares (SSE2 movemask, 16 records an
 * instruction), where setting one bit per record and column cost a
 * conversion, an address and a read-modify-write of memory each.  Every
 * word a count reads (the first (n + 63) / 64) is written, so nothing is
 * cleared first; the bits are the same.
 */
static void
set_bits_blocks(tapas_setfeat_t *fs, const double *x, size_t n,
				const size_t *cat, uint64_t *const *first, size_t ncat)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		m = s->m,
				stride = fs->bits_words,
				w = (n + 63) / 64,
				word,
				c,
				i;
	uint8_t		codes[64];

	for (word = 0; word < w; word++)
	{
		size_t		r0 = word * 64,
					len = n - r0 < 64 ? n - r0 : 64;

		for (c = 0; c < ncat; c++)
		{
			const double *col = x + r0 * m + cat[c];
			uint64_t   *out = first[c] + word;
			__m128i		v0,
						v1,
						v2,
						v3;
			int			k,
						nk = s->ncat[cat[c]];

			/* codes are small non-negative integers: a signed conversion */
			for (i = 0; i < len; i++)
				codes[i] = (uint8_t) (long) col[i * m];
			for (; i < 64; i++)
				codes[i] = 255;
			v0 = _mm_loadu_si128((const __m128i *) codes);
			v1 = _mm_loadu_si128((const __m128i *) (codes + 16));
			v2 = _mm_loadu_si128((const __m128i *) (codes + 32));
			v3 = _mm_loadu_si128((const __m128i *) (codes + 48));
			for (k = 0; k < nk; k++)
			{
				__m128i		kk = _mm_set1_epi8((char) k);

				out[(size_t) k * stride] =
					(uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v0, kk)) |
					(uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v1, kk)) << 16 |
					(uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v2, kk)) << 32 |
					(uint64_t) (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(v3, kk)) << 48;
			}
		}
	}
}
#endif

void
tapas_setfeat_cocount(tapas_setfeat_t *fs, const double *x, size_t n)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		m = s->m,
				e = s->e,
				w = (n + 63) / 64,
				stride = fs->bits_words,
				r,
				j,
				k,
				cat[64],
				ncat = 0;
	uint64_t   *first[64];
	int			narrow = 1;

#if COCOUNT_AVX512
	if (cocount_avx512 < 0)
	{
		/* the same integer counts either way */
		__builtin_cpu_init();
		cocount_avx512 = __builtin_cpu_supports("avx512f") &&
			__builtin_cpu_supports("avx512vpopcntdq");
	}
#endif
	/* the categorical columns and their first bitsets, read once (m <= 64) */
	for (j = 0; j < m; j++)
		if (s->kind[j] == TAPAS_COL_CATEGORICAL)
		{
			cat[ncat] = j;
			narrow &= s->ncat[j] <= 255;
			first[ncat++] = fs->bits + s->offset[j] * stride;
		}
#ifdef __SSE2__
	if (narrow)
	{
		set_bits_blocks(fs, x, n, cat, first, ncat);
	}
	else
#endif
	{
		for (j = 0; j < m; j++)
			if (s->kind[j] == TAPAS_COL_CATEGORICAL)
				memset(fs->bits + s->offset[j] * stride, 0,
					   (size_t) s->ncat[j] * stride * sizeof(uint64_t));
		for (r = 0; r < n; r++)
		{
			const double *row = x + r * m;
			uint64_t	bit = UINT64_C(1) << (r % 64);
			size_t		word = r / 64,
						c;

			/* codes are small non-negative integers: a signed conversion */
			for (c = 0; c < ncat; c++)
				first[c][(size_t) (long) row[cat[c]] * stride + word] |= bit;
		}
	}
	for (j = 0; j < m; j++)
	{
		size_t		a;

		if (s->kind[j] != TAPAS_COL_CATEGORICAL)
			continue;
		for (a = s->offset[j]; a < s->offset[j] + (size_t) s->ncat[j]; a++)
		{
			const uint64_t *ba = fs->bits + a * stride;

			and_count_row(ba, ba, 1, stride, w, &fs->sum[a]);
			fs->comoment[a * e + a] = fs->sum[a];
		}
		for (k = j + 1; k < m; k++)
			if (s->kind[k] == TAPAS_COL_CATEGORICAL)
				block_pair(fs, j, k, w);
	}
}
