/*-------------------------------------------------------------------------
 *
 * bch_decode.c
 *	  Syndrome decoding of binary BCH designs: syndromes -> Berlekamp-Massey
 *	  -> Berlekamp trace algorithm (root finding) -> support -> check.
 *
 * Notation: s the designed correction capability, S_i = sum over the
 * support of X^i with X = alpha^j the locator of record j, Lambda(z) =
 * prod (1 - X z) the error locator of degree L, f(z) = z^L Lambda(1/z) its
 * reciprocal, monic, whose roots are the locators themselves.
 *
 *	(a) syndromes: the s odd ones come from the answers; S_2i = S_i^2.
 *	(b) Berlekamp-Massey (Massey, IEEE Trans. IT 1969) over the 2s
 *		syndromes gives Lambda; L > s means weight > s.
 *	(c) roots, by the Berlekamp trace algorithm (Berlekamp, Bell Syst.
 *		Tech. J. 1970; as in Linux lib/bch.c, which uses the BTZ variant,
 *		instead of an O(n s) Chien search): with R_i = z^(2^i) mod f,
 *		f splits into distinct linear factors over GF(2^q) iff R_q = z.
 *		Then for beta in GF(2^q) the trace polynomial Tr(beta z) =
 *		sum_i beta^(2^i) R_i takes only the values 0 and 1 on the roots, so
 *		gcd(f, Tr(beta z) mod f) collects the roots r with Tr(beta r) = 0.
 *		Trying beta = alpha^k for k = 0, 1, ... splits f, and recursively
 *		its factors, down to degree 1; any two distinct roots differ in
 *		some Tr(alpha^k r), k < q, because the trace form is
 *		non-degenerate.  The traces mod f are computed once (lazily, per k)
 *		and reduced mod each factor: O(q s^2) field operations overall.
 *	(d) checks: L distinct roots, each alpha^j with 1 <= j <= n, and the
 *		syndromes recomputed from the support equal the given ones.
 *		Any failure returns TAPAS_EDECODE, never a wrong support of a
 *		weight-<= s vector.
 *
 * Polynomials are arrays of coefficients, p[i] the coefficient of z^i,
 * with an explicit degree (-1 for the zero polynomial).
 *
 * IDENTIFICATION
 *	  src/recon/bch_decode.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "recon/bch.h"
#include "util/compare.h"

/* words per polynomial slot: degree <= 2s + 1 */
#define BCH_W(bch)	(2 * (size_t) (bch)->s + 2)

/* ----------------------------------------------------------------
 *		polynomial helpers over GF(2^q)
 * ----------------------------------------------------------------
 */

/* degree of p with at most d + 1 coefficients, -1 when zero */
static int
poly_degree(const uint32_t *p, int d)
{
	while (d >= 0 && p[d] == 0)
		d--;
	return d;
}

/*
 * a <- a mod b for b of degree db >= 0; returns the degree of the rest.
 * The logs of b's coefficients are taken once into logb (db words of
 * scratch; N marks a zero), so each step of the inner loop costs one
 * antilog lookup: a_(i-db+j) += alpha^(log b_j + l).
 */
static int
poly_rem(const tapas_gf2m_t *gf, uint32_t *a, int da, const uint32_t *b, int db,
		 uint32_t *logb)
{
	uint32_t	N = gf->N,
				lead_log = gf->log[b[db]];
	int			i,
				j;

	for (j = 0; j < db; j++)
		logb[j] = gf->log[b[j]];	/* log[0] = N */
	for (i = da; i >= db; i--)
	{
		uint32_t	c = a[i],
					l;
		uint32_t   *row = a + i - db;

		if (c == 0)
			continue;
		/* a -= (c / b_db) z^(i-db) b, which clears a[i] */
		l = gf->log[c] + N - lead_log;
		if (l >= N)
			l -= N;
		for (j = 0; j < db; j++)
		{
			uint32_t	e = logb[j] + l;

			if (logb[j] == N)
				continue;
			row[j] ^= gf->exp[e >= N ? e - N : e];
		}
		a[i] = 0;
	}
	return poly_degree(a, db - 1 < da ? db - 1 : da);
}

/* p <- p / lead(p), so that p is monic */
static void
poly_make_monic(const tapas_gf2m_t *gf, uint32_t *p, int d)
{
	uint32_t	inv_log = gf->N - gf->log[p[d]];
	int			i;

	if (inv_log == gf->N)
		inv_log = 0;
	for (i = 0; i < d; i++)
		p[i] = tapas_gf2m_mul_log(gf, p[i], inv_log);
	p[d] = 1;
}

/*
 * Monic gcd of a (degree da >= 0) and b (degree db < da, may be -1), by
 * Euclid; both are overwritten; logb is scratch for poly_rem.  Returns the degree and sets *g to the
 * array that holds the result (a or b).
 */
static int
poly_gcd(const tapas_gf2m_t *gf, uint32_t *a, int da, uint32_t *b, int db,
		 uint32_t **g, uint32_t *logb)
{
	while (db >= 0)
	{
		uint32_t   *t = a;
		int			dt;

		dt = poly_rem(gf, a, da, b, db, logb);
		a = b;
		da = db;
		b = t;
		db = dt;
	}
	poly_make_monic(gf, a, da);
	*g = a;
	return da;
}

/* u <- g / h, an exact division by monic h; r is scratch (d + 1 words) */
static void
poly_divexact(const tapas_gf2m_t *gf, uint32_t *u, const uint32_t *g, int d,
			  const uint32_t *h, int e, uint32_t *r)
{
	int			i,
				j;

	memcpy(r, g, (d + 1) * sizeof(uint32_t));
	for (i = d; i >= e; i--)
	{
		uint32_t	c = r[i];

		u[i - e] = c;
		if (c == 0)
			continue;
		for (j = 0; j < e; j++)
			r[i - e + j] ^= tapas_gf2m_mul(gf, c, h[j]);
		r[i] = 0;
	}
}

/* ----------------------------------------------------------------
 *		(a) syndromes and (b) Berlekamp-Massey
 * ----------------------------------------------------------------
 */

/* syn[i-1] = S_i for i = 1..2s, with S_2i = S_i^2 */
static void
bch_all_syndromes(tapas_bch_t *bch, const uint32_t *syn_odd)
{
	int			i;

	for (i = 1; i <= 2 * bch->s; i++)
		bch->syn[i - 1] = (i & 1) ? syn_odd[i / 2] :
			tapas_gf2m_sqr(bch->gf, bch->syn[i / 2 - 1]);
}

/*
 * Massey's algorithm: the shortest LFSR C(z) = 1 + C_1 z + ... + C_L z^L
 * generating S_1..S_2s, i.e. S_k + sum_{i=1..L} C_i S_(k-i) = 0.  Writes C to
 * lambda (BCH_W words) and returns L.
 */
static int
bch_berlekamp_massey(tapas_bch_t *bch, uint32_t *lambda)
{
	const tapas_gf2m_t *gf = bch->gf;
	size_t		w = BCH_W(bch);
	uint32_t   *B = bch->elp + w,
			   *T = bch->elp + 2 * w,
				b = 1;
	int			L = 0,
				m = 1,
				k,
				i;

	memset(lambda, 0, w * sizeof(uint32_t));
	memset(B, 0, w * sizeof(uint32_t));
	lambda[0] = B[0] = 1;
	for (k = 0; k < 2 * bch->s; k++)
	{
		/* discrepancy d = S_(k+1) + sum C_i S_(k+1-i) */
		uint32_t	d = bch->syn[k],
					coef;

		for (i = 1; i <= L; i++)
			d ^= tapas_gf2m_mul(gf, lambda[i], bch->syn[k - i]);
		if (d == 0)
		{
			m++;
			continue;
		}
		/* C <- C - (d / b) z^m B, and maybe B <- old C */
		coef = tapas_gf2m_div(gf, d, b);
		if (2 * L <= k)
			memcpy(T, lambda, w * sizeof(uint32_t));
		for (i = 0; i + m < (int) w; i++)
			lambda[i + m] ^= tapas_gf2m_mul(gf, coef, B[i]);
		if (2 * L <= k)
		{
			L = k + 1 - L;
			memcpy(B, T, w * sizeof(uint32_t));
			b = d;
			m = 1;
		}
		else
			m++;
	}
	return L;
}

/* ----------------------------------------------------------------
 *		(c) roots by the Berlekamp trace algorithm
 * ----------------------------------------------------------------
 */

/* out <- p^2 mod f (f monic of degree L, p of degree < L); out has 2L words */
static void
bch_sqr_mod(const tapas_gf2m_t *gf, uint32_t *out, const uint32_t *p,
			const uint32_t *f, int L, uint32_t *logf)
{
	int			i;

	/* (sum p_i z^i)^2 = sum p_i^2 z^(2i) in characteristic 2 */
	memset(out, 0, 2 * L * sizeof(uint32_t));
	for (i = 0; i < L; i++)
		out[2 * i] = tapas_gf2m_sqr(gf, p[i]);
	poly_rem(gf, out, 2 * L - 2, f, L, logf);
}

/*
 * The squaring table of f: row i - h (h = ceil(L/2), i = h..L-1) holds the
 * logs of the coefficients of z^(2i) mod f (N for zero).  Built from
 * z^L = f_0 + ... + f_(L-1) z^(L-1) by multiplying by z: O(L^2) once.
 */
static void
bch_square_table(tapas_bch_t *bch, const uint32_t *f, int L)
{
	const tapas_gf2m_t *gf = bch->gf;
	uint32_t   *cur = bch->work + 4 * BCH_W(bch),
			   *logf = bch->work + 6 * BCH_W(bch);
	int			h = (L + 1) / 2,
				e,
				j;

	for (j = 0; j < L; j++)
		logf[j] = gf->log[f[j]];
	memcpy(cur, f, L * sizeof(uint32_t));	/* z^L mod f */
	for (e = L; e <= 2 * L - 2; e++)
	{
		uint32_t	top;

		if (e % 2 == 0 && e / 2 >= h)
			for (j = 0; j < L; j++)
				bch->sqtab[(size_t) (e / 2 - h) * L + j] = gf->log[cur[j]];
		/* z^(e+1) = z * z^e, with z^L replaced by f_low */
		top = cur[L - 1];
		memmove(cur + 1, cur, (L - 1) * sizeof(uint32_t));
		cur[0] = 0;
		if (top != 0)
			for (j = 0; j < L; j++)
				cur[j] ^= tapas_gf2m_mul_log(gf, f[j], gf->log[top]);
	}
}

/*
 * out <- p^2 mod f through the squaring table: the squares of the low half
 * of p land below z^L, each p_i^2 with 2i >= L adds p_i^2 (z^(2i) mod f).
 * About L^2 / 2 antilog lookups, half of what a reduction takes.
 */
static void
bch_sqr_mod_table(const tapas_bch_t *bch, uint32_t *out, const uint32_t *p,
				  int L)
{
	const tapas_gf2m_t *gf = bch->gf;
	uint32_t	N = gf->N;
	int			h = (L + 1) / 2,
				i,
				j;

	memset(out, 0, L * sizeof(uint32_t));
	for (i = 0; i < h; i++)
		out[2 * i] = tapas_gf2m_sqr(gf, p[i]);
	for (i = h; i < L; i++)
	{
		const uint32_t *row = bch->sqtab + (size_t) (i - h) * L;
		uint32_t	lc;

		if (p[i] == 0)
			continue;
		lc = 2 * gf->log[p[i]] % N;
		for (j = 0; j < L; j++)
		{
			uint32_t	e = row[j] + lc;

			if (row[j] == N)
				continue;
			out[j] ^= gf->exp[e >= N ? e - N : e];
		}
	}
}

/*
 * R_i = z^(2^i) mod f in frob row i (i = 0..q); returns 0 unless R_q = z,
 * i.e. unless f divides z^(2^q) - z (f splits into distinct roots).  On
 * success rows 0..q-1 are left as logs (N for a zero coefficient).
 */
static int
bch_frobenius(tapas_bch_t *bch, const uint32_t *f, int L)
{
	size_t		w = BCH_W(bch);
	uint32_t   *sq = bch->work + 4 * w;
	int			i;

	if (bch->sqtab != NULL)
		bch_square_table(bch, f, L);
	memset(bch->frob, 0, w * sizeof(uint32_t));
	bch->frob[1] = 1;			/* z, reduced since L >= 2 */
	for (i = 1; i <= bch->q; i++)
	{
		if (bch->sqtab != NULL)
			bch_sqr_mod_table(bch, bch->frob + i * w, bch->frob + (i - 1) * w, L);
		else
		{
			bch_sqr_mod(bch->gf, sq, bch->frob + (i - 1) * w, f, L, bch->work + 6 * w);
			memcpy(bch->frob + i * w, sq, L * sizeof(uint32_t));
		}
	}
	for (i = 0; i < L; i++)
		if (bch->frob[bch->q * w + i] != (uint32_t) (i == 1))
			return 0;
	/* rows 0..q-1 are only read by bch_trace, which wants their logs */
	for (i = 0; i < bch->q; i++)
	{
		uint32_t   *row = bch->frob + i * w;
		int			j;

		for (j = 0; j < L; j++)
			row[j] = bch->gf->log[row[j]];
	}
	return 1;
}

/* trace row k: Tr(alpha^k z) mod f = sum_i alpha^(k 2^i) R_i (R_i as logs) */
static const uint32_t *
bch_trace(tapas_bch_t *bch, int k, int L)
{
	const tapas_gf2m_t *gf = bch->gf;
	size_t		w = BCH_W(bch);
	uint32_t   *t = bch->trace + k * w;
	uint64_t	e = (uint64_t) k;
	int			i,
				j;

	if (bch->trace_done[k])
		return t;
	memset(t, 0, L * sizeof(uint32_t));
	for (i = 0; i < bch->q; i++, e = (2 * e) % gf->N)
		for (j = 0; j < L; j++)
		{
			/* frob holds log R_i[j]; add alpha^(k 2^i) R_i[j] */
			uint32_t	l = bch->frob[i * w + j] + (uint32_t) e;

			if (bch->frob[i * w + j] == gf->N)
				continue;
			t[j] ^= gf->exp[l >= gf->N ? l - gf->N : l];
		}
	bch->trace_done[k] = 1;
	return t;
}

/*
 * Tries trace rows k, k+1, ... on the factor g (monic, degree d >= 2) until
 * one splits it; writes the monic gcd to h and returns its degree, with *k
 * advanced to the row used, or -1 when no row splits g.
 */
static int
bch_split(tapas_bch_t *bch, const uint32_t *g, int d, int L, int *k,
		  uint32_t *h)
{
	size_t		w = BCH_W(bch);
	uint32_t   *a = bch->work,
			   *b = bch->work + w,
			   *res;
	int			db,
				e;

	for (; *k < bch->q; (*k)++)
	{
		memcpy(b, bch_trace(bch, *k, L), L * sizeof(uint32_t));
		db = poly_rem(bch->gf, b, L - 1, g, d, bch->work + 6 * w);
		if (db <= 0)
			continue;			/* constant trace: all roots on one side */
		memcpy(a, g, (d + 1) * sizeof(uint32_t));
		e = poly_gcd(bch->gf, a, d, b, db, &res, bch->work + 6 * w);
		if (e > 0 && e < d)
		{
			memcpy(h, res, (e + 1) * sizeof(uint32_t));
			return e;
		}
	}
	return -1;
}

/*
 * All roots of f (monic, degree L >= 1) into roots[0..L-1].  Returns 0
 * when f does not split into L distinct roots of GF(2^q).
 */
static int
bch_find_roots(tapas_bch_t *bch, const uint32_t *f, int L, uint32_t *roots)
{
	size_t		w = BCH_W(bch);
	uint32_t   *h = bch->work + 2 * w,
			   *u = bch->work + 3 * w,
			   *r = bch->work + 4 * w;
	int		   *stk = bch->stack;
	int			top = 0,
				used = L + 1,
				nroots = 0;

	if (L == 1)
	{
		roots[0] = f[0];		/* z + f_0 */
		return f[0] != 0;
	}
	if (!bch_frobenius(bch, f, L))
		return 0;
	memset(bch->trace_done, 0, bch->q);
	/* the stack holds disjoint factors, contiguous in the arena */
	memcpy(bch->arena, f, (L + 1) * sizeof(uint32_t));
	stk[0] = 0;
	stk[1] = L;
	stk[2] = 0;
	top = 1;
	while (top > 0)
	{
		int			off = stk[3 * (top - 1)],
					d = stk[3 * (top - 1) + 1],
					k = stk[3 * (top - 1) + 2],
					e;
		uint32_t   *g = bch->arena + off;

		top--;
		used = off;
		if (d == 1)
		{
			roots[nroots++] = g[0];
			continue;
		}
		e = bch_split(bch, g, d, L, &k, h);
		if (e < 0)
			return 0;
		poly_divexact(bch->gf, u, g, d, h, e, r);
		/* push h and u = g / h in place of g, both to be split from k+1 */
		memcpy(bch->arena + used, h, (e + 1) * sizeof(uint32_t));
		stk[3 * top] = used;
		stk[3 * top + 1] = e;
		stk[3 * top + 2] = k + 1;
		top++;
		used += e + 1;
		memcpy(bch->arena + used, u, (d - e + 1) * sizeof(uint32_t));
		stk[3 * top] = used;
		stk[3 * top + 1] = d - e;
		stk[3 * top + 2] = k + 1;
		top++;
		used += d - e + 1;
	}
	return nroots == L;
}

/* ----------------------------------------------------------------
 *		(d) support and checks; the public decoder
 * ----------------------------------------------------------------
 */

/* S_(2t+1) of the support, for every t, equal to syn_odd? */
static int
bch_syndromes_match(const tapas_bch_t *bch, const int64_t *support, int w,
					const uint32_t *syn_odd)
{
	int			t,
				i;

	for (t = 0; t < bch->s; t++)
	{
		uint32_t	v = 0;

		for (i = 0; i < w; i++)
			v ^= tapas_gf2m_pow_alpha(bch->gf, (uint64_t) (2 * t + 1) * (uint64_t) support[i]);
		if (v != syn_odd[t])
			return 0;
	}
	return 1;
}

tapas_status
tapas_bch_decode(tapas_bch_t *bch, const uint32_t *syn_odd, int64_t *support,
				 int *weight)
{
	const tapas_gf2m_t *gf = bch->gf;
	size_t		w = BCH_W(bch);
	uint32_t   *lambda = bch->elp,
			   *f = bch->work + 5 * w,
			   *roots = bch->syn;	/* syndromes are no longer needed */
	int			L,
				i;

	*weight = 0;
	for (i = 0; i < bch->s; i++)
		if (syn_odd[i] > gf->N)
			return TAPAS_EINVAL;
	bch_all_syndromes(bch, syn_odd);
	L = bch_berlekamp_massey(bch, lambda);
	if (L == 0)
		return TAPAS_OK;		/* all syndromes are zero: x = 0 */
	if (L > bch->s || poly_degree(lambda, (int) w - 1) != L)
		return TAPAS_EDECODE;
	/* f = reciprocal of Lambda: monic, roots alpha^j for j in the support */
	for (i = 0; i <= L; i++)
		f[i] = lambda[L - i];
	if (!bch_find_roots(bch, f, L, roots))
		return TAPAS_EDECODE;
	for (i = 0; i < L; i++)
	{
		int64_t		j = roots[i] == 0 ? 0 : (int64_t) gf->log[roots[i]];

		if (roots[i] == 0)
			return TAPAS_EDECODE;
		if (j == 0)
			j = gf->N;			/* alpha^N = alpha^0 = 1 */
		if (j > bch->n)
			return TAPAS_EDECODE;	/* a root in the shortened-away part */
		support[i] = j;
	}
	qsort(support, L, sizeof(int64_t), tapas_cmp_int64);
	for (i = 1; i < L; i++)
		if (support[i] == support[i - 1])
			return TAPAS_EDECODE;
	if (!bch_syndromes_match(bch, support, L, syn_odd))
		return TAPAS_EDECODE;
	*weight = L;
	return TAPAS_OK;
}
