/*-------------------------------------------------------------------------
 *
 * fwht_impl.h
 *	  Element-type template of the blocked FWHT; included by fwht.c only.
 *
 * Before inclusion define FWHT_T (the element type) and FWHT_NAME(x) (a
 * macro pasting the type suffix onto x).  See fwht.c for the algorithm.
 *
 * IDENTIFICATION
 *	  src/recon/fwht_impl.h
 *
 *-------------------------------------------------------------------------
 */

/* eight elements: one 64-byte cache line, four SSE2 or two AVX registers */
typedef FWHT_T FWHT_NAME(vec8) __attribute__((vector_size(8 * sizeof(FWHT_T))));

/*
 * Unaligned vector load and store.  Macros rather than functions: passing a
 * 64-byte vector by value would depend on the AVX-512 calling convention.
 */
#ifndef FWHT_LOAD8
#define FWHT_LOAD8(v, p)	memcpy(&(v), (p), sizeof(v))
#define FWHT_STORE8(p, v)	memcpy((p), &(v), sizeof(v))
#endif

/* levels h = 1, 2, 4 on each group of eight consecutive elements */
FWHT_INLINE void
FWHT_NAME(levels123) (FWHT_T *x, size_t len)
{
	size_t		i;

	for (i = 0; i < len; i += 8)
	{
		FWHT_T	   *p = x + i;
		FWHT_T		a0 = p[0] + p[1],
					a1 = p[0] - p[1],
					a2 = p[2] + p[3],
					a3 = p[2] - p[3],
					a4 = p[4] + p[5],
					a5 = p[4] - p[5],
					a6 = p[6] + p[7],
					a7 = p[6] - p[7];
		FWHT_T		b0 = a0 + a2,
					b1 = a1 + a3,
					b2 = a0 - a2,
					b3 = a1 - a3,
					b4 = a4 + a6,
					b5 = a5 + a7,
					b6 = a4 - a6,
					b7 = a5 - a7;

		p[0] = b0 + b4;
		p[1] = b1 + b5;
		p[2] = b2 + b6;
		p[3] = b3 + b7;
		p[4] = b0 - b4;
		p[5] = b1 - b5;
		p[6] = b2 - b6;
		p[7] = b3 - b7;
	}
}

/*
 * Levels h and 2h at once (radix 4), h a multiple of 8 elements: with
 * a, b, c, d at j, j+h, j+2h, j+3h the two butterfly levels give
 * (a+b)+(c+d), (a-b)+(c-d), (a+b)-(c+d), (a-b)-(c-d).
 */
FWHT_INLINE void
FWHT_NAME(radix4) (FWHT_T *x, size_t len, size_t h)
{
	size_t		i,
				j;

	for (i = 0; i < len; i += 4 * h)
		for (j = i; j < i + h; j += 8)
		{
			FWHT_NAME(vec8) a,
						b,
						c,
						d,
						s0,
						d0,
						s1,
						d1;

			FWHT_LOAD8(a, x + j);
			FWHT_LOAD8(b, x + j + h);
			FWHT_LOAD8(c, x + j + 2 * h);
			FWHT_LOAD8(d, x + j + 3 * h);
			s0 = a + b;
			d0 = a - b;
			s1 = c + d;
			d1 = c - d;
			a = s0 + s1;
			b = d0 + d1;
			c = s0 - s1;
			d = d0 - d1;
			FWHT_STORE8(x + j, a);
			FWHT_STORE8(x + j + h, b);
			FWHT_STORE8(x + j + 2 * h, c);
			FWHT_STORE8(x + j + 3 * h, d);
		}
}

/* one level h (radix 2), h a multiple of 8 elements */
FWHT_INLINE void
FWHT_NAME(radix2) (FWHT_T *x, size_t len, size_t h)
{
	size_t		i,
				j;

	for (i = 0; i < len; i += 2 * h)
		for (j = i; j < i + h; j += 8)
		{
			FWHT_NAME(vec8) a,
						b,
						c;

			FWHT_LOAD8(a, x + j);
			FWHT_LOAD8(b, x + j + h);
			c = a + b;
			b = a - b;
			FWHT_STORE8(x + j, c);
			FWHT_STORE8(x + j + h, b);
		}
}

/* levels h = h0 .. len/2 of a block of len elements, h0 a multiple of 8 */
FWHT_INLINE void
FWHT_NAME(upper_levels) (FWHT_T *x, size_t len, size_t h0)
{
	size_t		h = h0;

	for (; 4 * h <= len; h *= 4)
		FWHT_NAME(radix4) (x, len, h);
	if (2 * h <= len)
		FWHT_NAME(radix2) (x, len, h);
}

/* the whole transform of a contiguous block, len a power of two */
FWHT_CLONES static void
FWHT_NAME(block) (FWHT_T *x, size_t len)
{
	size_t		h,
				i,
				j;

	if (len < 8)
	{
		for (h = 1; h < len; h *= 2)
			for (i = 0; i < len; i += 2 * h)
				for (j = i; j < i + h; j++)
				{
					FWHT_T		a = x[j],
								b = x[j + h];

					x[j] = a + b;
					x[j + h] = a - b;
				}
		return;
	}
	FWHT_NAME(levels123) (x, len);
	FWHT_NAME(upper_levels) (x, len, 8);
}

/*
 * The outer levels of an R x C row-major array: a length-R transform down
 * each column.  Columns are taken W at a time (W a multiple of eight, so a
 * strip row is whole cache lines): the R x W strip is copied to tmp,
 * transformed there in cache with the same radix-4 code (an "element"
 * being a strip row of W) and copied back, so the whole step reads and
 * writes x once.
 */
FWHT_CLONES static tapas_status
FWHT_NAME(columns) (FWHT_T *x, size_t R, size_t C, size_t W, FWHT_T *tmp,
					const tapas_progress_t *progress)
{
	size_t		c,
				r;

	for (c = 0; c < C; c += W)
	{
		if ((c & 1023) == 0 &&
			tapas_progress_poll(progress, 0.5 + 0.5 * (double) c / C))
			return TAPAS_ECANCELED;
		for (r = 0; r < R; r++)
			memcpy(tmp + W * r, x + r * C + c, W * sizeof(FWHT_T));
		/* element h of the column is the strip row at tmp + W h */
		FWHT_NAME(upper_levels) (tmp, W * R, W);
		for (r = 0; r < R; r++)
			memcpy(x + r * C + c, tmp + W * r, W * sizeof(FWHT_T));
	}
	return TAPAS_OK;
}

/* driver: blocks of C along the rows, then the columns */
static tapas_status
FWHT_NAME(transform) (FWHT_T *x, size_t n, const tapas_progress_t *progress)
{
	size_t		C,
				R,
				W,
				r;
	FWHT_T	   *tmp;
	tapas_status status;

	if (x == NULL || !tapas_fwht_size_ok(n))
		return TAPAS_EINVAL;
	fwht_split(n, &R, &C, &W);
	for (r = 0; r < R; r++)
	{
		if ((r & 63) == 0 && tapas_progress_poll(progress, 0.5 * r / R))
			return TAPAS_ECANCELED;
		FWHT_NAME(block) (x + r * C, C);
	}
	if (R == 1)
		return TAPAS_OK;
	tmp = tapas_malloc_aligned(R * W * sizeof(FWHT_T));
	if (tmp == NULL)
		return TAPAS_ENOMEM;
	status = FWHT_NAME(columns) (x, R, C, W, tmp, progress);
	tapas_free(tmp);
	return status;
}
