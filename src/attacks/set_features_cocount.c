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

#if COCOUNT_AVX512
/*
 * The same count eight words at a time (AVX-512 VPOPCNTQ; the tail under a
 * load mask): a 1,000-record dataset's bitsets are 16 words, two vectors.
 */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint32_t
and_count_avx512(const uint64_t *a, const uint64_t *b, size_t w)
{
	__m512i		acc = _mm512_setzero_si512();
	size_t		i;

	for (i = 0; i + 8 <= w; i += 8)
		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(
			_mm512_and_si512(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i))));
	if (i < w)
	{
		__mmask8	m = (__mmask8) ((1u << (w - i)) - 1);

		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(
			_mm512_and_si512(_mm512_maskz_loadu_epi64(m, a + i),
							 _mm512_maskz_loadu_epi64(m, b + i))));
	}
	return (uint32_t) _mm512_reduce_add_epi64(acc);
}
#endif

#if COCOUNT_AVX512
/* 1: the CPU runs and_count_avx512; 0: it does not; -1: not asked yet */
static int	cocount_avx512 = -1;

/* records in both bitsets of w words, by the widest code the CPU runs */
static inline uint32_t
and_count(const uint64_t *a, const uint64_t *b, size_t w)
{
	return cocount_avx512 ? and_count_avx512(a, b, w) : and_count_scalar(a, b, w);
}
#else
#define and_count and_count_scalar
#endif

/* the co-moments of categorical columns j < k (upper triangle) */
static void
block_pair(tapas_setfeat_t *fs, size_t j, size_t k, size_t w)
{
	const tapas_coded_schema_t *s = fs->schema;
	size_t		e = s->e,
				a,
				b;

	for (a = s->offset[j]; a < s->offset[j] + (size_t) s->ncat[j]; a++)
	{
		const uint64_t *ba = fs->bits + a * fs->bits_words;

		for (b = s->offset[k]; b < s->offset[k] + (size_t) s->ncat[k]; b++)
			fs->comoment[a * e + b] =
				(double) and_count(ba, fs->bits + b * fs->bits_words, w);
	}
}

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
				k;

#if COCOUNT_AVX512
	if (cocount_avx512 < 0)
	{
		/* the same integer counts either way */
		__builtin_cpu_init();
		cocount_avx512 = __builtin_cpu_supports("avx512f") &&
			__builtin_cpu_supports("avx512vpopcntdq");
	}
#endif
	for (j = 0; j < m; j++)
		if (s->kind[j] == TAPAS_COL_CATEGORICAL)
			memset(fs->bits + s->offset[j] * stride, 0,
				   (size_t) s->ncat[j] * stride * sizeof(uint64_t));
	for (r = 0; r < n; r++)
	{
		const double *row = x + r * m;
		uint64_t	bit = UINT64_C(1) << (r % 64);

		for (j = 0; j < m; j++)
			if (s->kind[j] == TAPAS_COL_CATEGORICAL)
				fs->bits[(s->offset[j] + (size_t) row[j]) * stride + r / 64] |= bit;
	}
	for (j = 0; j < m; j++)
	{
		size_t		a;

		if (s->kind[j] != TAPAS_COL_CATEGORICAL)
			continue;
		for (a = s->offset[j]; a < s->offset[j] + (size_t) s->ncat[j]; a++)
		{
			const uint64_t *ba = fs->bits + a * stride;

			fs->sum[a] = fs->comoment[a * e + a] = (double) and_count(ba, ba, w);
		}
		for (k = j + 1; k < m; k++)
			if (s->kind[k] == TAPAS_COL_CATEGORICAL)
				block_pair(fs, j, k, w);
	}
}
