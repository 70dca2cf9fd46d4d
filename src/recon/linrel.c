/*-------------------------------------------------------------------------
 *
 * linrel.c
 *	  Linear relations between class truth vectors over F_p: sparse
 *	  vectors mod p and the echelon basis (the plan, components and
 *	  regions, is in linrel_plan.c).
 *
 * Echelon basis.  Generator k is a sparse vector b_k with b_k[piv_k] = 1
 * and b_k[piv_k'] = 0 for every k' < k (it was reduced by them when it
 * arrived), so a new vector w is reduced in generator order, each step
 * w -= w[piv_k] b_k, without disturbing earlier pivots.  T tracks b_k as a
 * combination of the generator classes: b_k = sum_i T[k][i] v_gen(i), and
 * a class reduced to zero gets its coefficients over the generator classes
 * coef = sum_k c_k T[k].  Fill-in is bounded by the union of the supports.
 *
 * IDENTIFICATION
 *	  src/recon/linrel.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <flint/flint.h>
#include <flint/nmod.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include "util/memory.h"
#include "recon/linrel_int.h"

/* ---------------------------------------------------------------------
 * Sparse vectors mod p
 * ---------------------------------------------------------------------
 */

void
tapas_linrel_svec_clear(svec *v)
{
	tapas_free(v->key);
	tapas_free(v->val);
	v->key = NULL;
	v->val = NULL;
	v->nnz = 0;
}

int
tapas_linrel_svec_alloc(svec *v, size_t n)
{
	v->key = tapas_malloc((n ? n : 1) * sizeof(int64_t));
	v->val = tapas_malloc((n ? n : 1) * sizeof(uint64_t));
	v->nnz = 0;
	if (v->key == NULL || v->val == NULL)
	{
		tapas_linrel_svec_clear(v);
		return 0;
	}
	return 1;
}

/* v[key], 0 if absent (binary search) */
uint64_t
tapas_linrel_svec_get(const svec *v, int64_t key)
{
	size_t		lo = 0,
				hi = v->nnz;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (v->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nnz && v->key[lo] == key ? v->val[lo] : 0;
}

/* *w -= c b (a merge of the two supports); 0 when out of memory */
int
tapas_linrel_svec_submul(svec *w, uint64_t c, const svec *b, nmod_t mod)
{
	svec		out;
	size_t		i = 0,
				j = 0;

	if (!tapas_linrel_svec_alloc(&out, w->nnz + b->nnz))
		return 0;
	while (i < w->nnz || j < b->nnz)
	{
		int64_t		k;
		uint64_t	x;

		if (j == b->nnz || (i < w->nnz && w->key[i] < b->key[j]))
		{
			k = w->key[i];
			x = w->val[i++];
		}
		else if (i == w->nnz || b->key[j] < w->key[i])
		{
			k = b->key[j];
			x = nmod_neg(nmod_mul(c, b->val[j++], mod), mod);
		}
		else
		{
			k = w->key[i];
			x = nmod_sub(w->val[i++], nmod_mul(c, b->val[j++], mod), mod);
		}
		if (x != 0)
		{
			out.key[out.nnz] = k;
			out.val[out.nnz++] = x;
		}
	}
	tapas_linrel_svec_clear(w);
	*w = out;
	return 1;
}

/*
 * A finite double as an element of F_p: v = m 2^e with m an integer of at
 * most 53 bits, and Z[1/2] -> F_p is a ring map (p odd), so relations with
 * such coefficients hold mod p exactly.  0 if v is not finite.
 */
static int
double_mod(double v, nmod_t mod, uint64_t *out)
{
	int			e;
	double		f;
	int64_t		m;
	uint64_t	r,
				pw;

	if (!isfinite(v))
		return 0;
	if (v == 0.0)
	{
		*out = 0;
		return 1;
	}
	if (fabs(v) < 4.0e18 && v == trunc(v))
	{
		/* an integer: the common case */
		int64_t		iv = (int64_t) v;

		r = (uint64_t) (iv < 0 ? -iv : iv) % mod.n;
		*out = iv < 0 ? nmod_neg(r, mod) : r;
		return 1;
	}
	f = frexp(v, &e);
	m = (int64_t) ldexp(f, 53);
	e -= 53;
	/* strip trailing zero bits so that integers take the fast path */
	while ((m & 1) == 0)
	{
		m /= 2;
		e++;
	}
	r = (uint64_t) (m < 0 ? -m : m) % mod.n;
	if (m < 0)
		r = nmod_neg(r, mod);
	if (e > 0)
		pw = n_powmod2_ui_preinv(2, (ulong) e, mod.n, mod.ninv);
	else if (e < 0)
		pw = n_invmod(n_powmod2_ui_preinv(2, (ulong) -e, mod.n, mod.ninv), mod.n);
	else
		pw = 1;
	*out = nmod_mul(r, pw, mod);
	return 1;
}

/* ---------------------------------------------------------------------
 * Creation and the echelon basis
 * ---------------------------------------------------------------------
 */

tapas_linrel_t *
tapas_linrel_create(uint64_t prime)
{
	tapas_linrel_t *lr;

	if (prime < 3 || prime >= (UINT64_C(1) << 62) || !n_is_prime(prime))
		return NULL;
	lr = tapas_calloc(1, sizeof(*lr));
	if (lr == NULL)
		return NULL;
	nmod_init(&lr->mod, prime);
	lr->T = tapas_calloc((size_t) MAXC * MAXC, sizeof(uint64_t));
	lr->coef = tapas_calloc((size_t) MAXC * MAXC, sizeof(uint64_t));
	if (lr->T == NULL || lr->coef == NULL)
	{
		tapas_linrel_free(lr);
		return NULL;
	}
	return lr;
}

void
tapas_linrel_free(tapas_linrel_t *lr)
{
	uint32_t	i;

	if (lr == NULL)
		return;
	for (i = 0; i < lr->K; i++)
		tapas_linrel_svec_clear(&lr->cls[i]);
	for (i = 0; i < lr->G; i++)
		tapas_linrel_svec_clear(&lr->basis[i]);
	tapas_free(lr->T);
	tapas_free(lr->coef);
	tapas_free(lr);
}

uint32_t
tapas_linrel_count(const tapas_linrel_t *lr)
{
	return lr->K;
}

uint32_t
tapas_linrel_rank(const tapas_linrel_t *lr)
{
	return lr->G;
}

/* the class's vector mod p into *v; EINVAL (v empty) on bad input */
static tapas_status
class_vector(tapas_linrel_t *lr, const int64_t *keys, const double *val,
			 size_t nnz, svec *v)
{
	size_t		i;

	if (!tapas_linrel_svec_alloc(v, nnz))
		return TAPAS_ENOMEM;
	for (i = 0; i < nnz; i++)
	{
		uint64_t	x;

		if ((i > 0 && keys[i] <= keys[i - 1]) || !double_mod(val[i], lr->mod, &x))
		{
			v->nnz = 0;
			return TAPAS_EINVAL;
		}
		if (x == 0)
			continue;
		v->key[v->nnz] = keys[i];
		v->val[v->nnz++] = x;
	}
	return TAPAS_OK;
}

/* reduces w by the generators: c[k] = the multiple of b_k taken out */
tapas_status
tapas_linrel_reduce(tapas_linrel_t *lr, svec *w, uint64_t *c)
{
	uint32_t	k;

	for (k = 0; k < lr->G; k++)
	{
		c[k] = tapas_linrel_svec_get(w, lr->piv[k]);
		if (c[k] != 0 && !tapas_linrel_svec_submul(w, c[k], &lr->basis[k], lr->mod))
			return TAPAS_ENOMEM;
	}
	return TAPAS_OK;
}

tapas_status
tapas_linrel_add(tapas_linrel_t *lr, const int64_t *keys, const double *val,
				 size_t nnz)
{
	uint32_t	b = lr->K,
				k,
				i;
	uint64_t	c[MAXC];
	svec		w;
	tapas_status st;
	nmod_t		mod = lr->mod;

	if (b >= MAXC)
		return TAPAS_ELIMIT;
	if (nnz > 0 && (keys == NULL || val == NULL))
		return TAPAS_EINVAL;
	st = class_vector(lr, keys, val, nnz, &lr->cls[b]);
	if (st == TAPAS_ENOMEM)
		return st;
	lr->gen_of[b] = -1;
	lr->K++;
	if (st != TAPAS_OK || lr->cls[b].nnz == 0)
		return st;				/* the zero class: in no relation */
	if (!tapas_linrel_svec_alloc(&w, lr->cls[b].nnz))
		return TAPAS_ENOMEM;
	memcpy(w.key, lr->cls[b].key, lr->cls[b].nnz * sizeof(int64_t));
	memcpy(w.val, lr->cls[b].val, lr->cls[b].nnz * sizeof(uint64_t));
	w.nnz = lr->cls[b].nnz;
	if ((st = tapas_linrel_reduce(lr, &w, c)) != TAPAS_OK)
	{
		tapas_linrel_svec_clear(&w);
		return st;
	}
	if (w.nnz == 0)
	{
		/* dependent: coef = sum_k c_k T[k] over the generator classes */
		uint64_t   *cf = lr->coef + (size_t) b * MAXC;

		for (k = 0; k < lr->G; k++)
			if (c[k] != 0)
				for (i = 0; i <= k; i++)
					cf[i] = nmod_add(cf[i], nmod_mul(c[k], lr->T[(size_t) k * MAXC + i], mod), mod);
		tapas_linrel_svec_clear(&w);
		return TAPAS_OK;
	}
	/* a new generator: b_G = w / w[first], T[G] = (e_G - sum c_k T[k]) / w[first] */
	{
		uint32_t	g = lr->G;
		uint64_t	sinv = n_invmod(w.val[0], mod.n);
		uint64_t   *tg = lr->T + (size_t) g * MAXC;

		for (i = 0; i < w.nnz; i++)
			w.val[i] = nmod_mul(w.val[i], sinv, mod);
		for (k = 0; k < g; k++)
			if (c[k] != 0)
				for (i = 0; i <= k; i++)
					tg[i] = nmod_sub(tg[i], nmod_mul(c[k], lr->T[(size_t) k * MAXC + i], mod), mod);
		tg[g] = 1;
		for (i = 0; i <= g; i++)
			tg[i] = nmod_mul(tg[i], sinv, mod);
		lr->piv[g] = w.key[0];
		lr->basis[g] = w;
		lr->gen_class[g] = b;
		lr->gen_of[b] = (int32_t) g;
		lr->G++;
	}
	return TAPAS_OK;
}

