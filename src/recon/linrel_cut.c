/*-------------------------------------------------------------------------
 *
 * linrel_cut.c
 *	  Cutting a component of related classes at a bridge class: two
 *	  families of classes that share one class only (health and religion
 *	  classes of a census, joined by "health = -9" being the very records
 *	  of "religion = -9") are audited as two systems, not one over the
 *	  product of their regions.
 *
 * Representations.  Modulo ONE (linrel_plan.c) every class b is
 * r_b = sum_i r_b[i] gen_i over the generators other than g*.  A
 * component C of M/ONE with a class X whose contraction splits C \ X into
 * parts P_1..P_k (the components of M/{ONE, X}, found like those of M/ONE
 * after the exchange p -> X for a generator p with r_X[p] != 0: r'_b =
 * r_b - beta_b r_X, beta_b = r_b[p] / r_X[p]) has span V' (+) <X> with
 * V' = V_1' (+) ... (+) V_k', V_l' spanned by the generators of part l,
 * and b = beta_b X + (its part's component).
 *
 * Soundness of auditing part i alone, with the cells of X (and of the
 * classes that are multiples of X modulo ONE), and with one row Q x X for
 * every cell over Q of a class b of another part with beta_b != 0 (the
 * "projected" cells, more than the attacker knows of them): let t be the
 * value of a class of part i (or X) at a record, in the span of all the
 * cells.  t = s_i + sum_{l != i} s_l with s_l in the span of part l's
 * cells, inside R^n x (V_l' (+) <X>).  Projecting along V_i' (+) <X>
 * onto V_l' gives 0 = proj(s_l), so each s_l lies in R^n x <X>: a
 * combination of part l's cells whose V_l' parts cancel, i.e.
 * sum c_q beta_q Q_q x X, which is in the span of the projected rows.  So
 * t is in the span of part i's system: every value the real system
 * determines, the part's system determines too.
 *
 * The cut chosen is the one whose largest part has the fewest classes;
 * one level only (parts are not cut again).
 *
 * IDENTIFICATION
 *	  src/recon/linrel_cut.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include <flint/flint.h>
#include <flint/nmod.h>
#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/linrel_int.h"

uint32_t
tapas_linrel_rank_rows(uint64_t *rows, uint32_t n, uint32_t G, nmod_t mod)
{
	uint32_t	rank = 0;

	for (uint32_t col = 0; col < G && rank < n; col++)
	{
		uint32_t	piv = rank;
		uint64_t	inv;

		while (piv < n && rows[(size_t) piv * G + col] == 0)
			piv++;
		if (piv == n)
			continue;
		if (piv != rank)
			for (uint32_t k = 0; k < G; k++)
			{
				uint64_t	t = rows[(size_t) piv * G + k];

				rows[(size_t) piv * G + k] = rows[(size_t) rank * G + k];
				rows[(size_t) rank * G + k] = t;
			}
		inv = n_invmod(rows[(size_t) rank * G + col], mod.n);
		for (uint32_t i = rank + 1; i < n; i++)
		{
			uint64_t	f = rows[(size_t) i * G + col];

			if (f == 0)
				continue;
			f = nmod_mul(f, inv, mod);
			for (uint32_t k = col; k < G; k++)
				rows[(size_t) i * G + k] = nmod_sub(rows[(size_t) i * G + k],
													nmod_mul(f, rows[(size_t) rank * G + k], mod), mod);
		}
		rank++;
	}
	return rank;
}

static uint32_t
cut_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/*
 * The parts of C \ X after contracting X (members cl[0..nm), X = cl[xi]):
 * part[b] = 0..k-1, or -1 for X and the classes that are multiples of X
 * modulo ONE; beta_nz[b] = 1 when beta_b != 0.  Returns k (0 when a
 * class of C could not be placed).  r is [K * MAXC].
 */
static uint32_t
contract(const tapas_linrel_t *lr, const uint64_t *r, const uint32_t *cl, uint32_t nm,
		 uint32_t xi, int32_t *part, uint8_t *beta_nz)
{
	const uint64_t *x = r + (size_t) cl[xi] * MAXC;
	uint32_t	G = lr->G,
				parent[MAXC],
				k = 0;
	int32_t		p = -1,
				root_part[MAXC];
	uint64_t	pinv,
				rb[MAXC];
	nmod_t		mod = lr->mod;

	for (uint32_t i = 0; i < G && p < 0; i++)
		if (x[i] != 0)
			p = (int32_t) i;
	if (p < 0)
		return 0;
	pinv = n_invmod(x[p], mod.n);
	for (uint32_t b = 0; b < lr->K; b++)
		parent[b] = b;
	for (uint32_t m = 0; m < nm; m++)
	{
		uint32_t	b = cl[m];
		uint64_t	beta;
		int			any = 0;

		part[b] = -1;
		beta_nz[b] = 0;
		if (m == xi)
			continue;
		memcpy(rb, r + (size_t) b * MAXC, G * sizeof(uint64_t));
		beta = nmod_mul(rb[p], pinv, mod);
		beta_nz[b] = beta != 0;
		for (uint32_t i = 0; i < G; i++)
		{
			rb[i] = nmod_sub(rb[i], nmod_mul(beta, x[i], mod), mod);
			if (rb[i] != 0)
			{
				uint32_t	u = cut_find(parent, b),
							v = cut_find(parent, lr->gen_class[i]);

				any = 1;
				if (u != v)
					parent[u] = v;
			}
		}
		part[b] = any ? 0 : -2;	/* -2: a multiple of X modulo ONE */
	}
	for (uint32_t b = 0; b < lr->K; b++)
		root_part[b] = -1;
	for (uint32_t m = 0; m < nm; m++)
	{
		uint32_t	b = cl[m],
					rt;

		if (part[b] != 0)
		{
			part[b] = -1;
			continue;
		}
		rt = cut_find(parent, b);
		if (root_part[rt] < 0)
			root_part[rt] = (int32_t) k++;
		part[b] = root_part[rt];
	}
	return k;
}

int
tapas_linrel_find_cut(const tapas_linrel_t *lr, const uint64_t *r, const uint32_t *cl,
					  uint32_t nm, int32_t *part, uint8_t *beta_nz)
{
	int32_t    *tp = tapas_malloc(lr->K * sizeof(int32_t));
	uint8_t    *tb = tapas_malloc(lr->K * sizeof(uint8_t));
	int			best = -1;
	uint32_t	best_max = nm,
				best_k = 0;

	if (tp == NULL || tb == NULL)
	{
		tapas_free(tp);
		tapas_free(tb);
		return -2;
	}
	for (uint32_t xi = 0; nm >= 3 && xi < nm; xi++)
	{
		uint32_t	k = contract(lr, r, cl, nm, xi, tp, tb),
					size[MAXC],
					mx = 0;

		if (k < 2)
			continue;
		memset(size, 0, k * sizeof(uint32_t));
		for (uint32_t m = 0; m < nm; m++)
			if (tp[cl[m]] >= 0)
				size[tp[cl[m]]]++;
		for (uint32_t i = 0; i < k; i++)
			mx = size[i] > mx ? size[i] : mx;
		if (best < 0 || mx < best_max || (mx == best_max && k > best_k))
		{
			best = (int) xi;
			best_max = mx;
			best_k = k;
			for (uint32_t m = 0; m < nm; m++)
			{
				part[cl[m]] = tp[cl[m]];
				beta_nz[cl[m]] = tb[cl[m]];
			}
		}
	}
	tapas_free(tp);
	tapas_free(tb);
	return best;
}
