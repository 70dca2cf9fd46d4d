/*-------------------------------------------------------------------------
 *
 * synthetic_predictor_rf.c
 *	  SyntheticPredictorAttack with a random forest, the classifier of the
 *	  reference paper's experiments (Houssiau et al. 2022).
 *
 * Features are the dense encoded cells of every column but s (the one-hot
 * block of s is left out); labels are the codes of s.  The forest is the
 * binary CART forest of random_forest.c, so more than two classes go
 * one-vs-rest (see score_attacks.h for the normalisation).  Each forest
 * draws from its own stream seeded from (seed, class), so the scores do
 * not depend on the order the classes are fitted in.
 *
 * IDENTIFICATION
 *	  src/attacks/synthetic_predictor_rf.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/model_progress.h"
#include "attacks/random_forest.h"
#include "attacks/score_attacks.h"
#include "util/memory.h"
#include "util/rng.h"

/* dense features of one encoded row without column s's block */
static void
features(const tapas_dataset_t *syn, size_t s, const double *enc, double *out)
{
	size_t		lo = syn->offset[s],
				hi = lo + syn->width[s],
				k,
				w = 0;

	for (k = 0; k < syn->encoded_dim; k++)
		if (k < lo || k >= hi)
			out[w++] = enc[k];
}

/* fits "code == v" and writes P(v | target) for the m targets into p */
static tapas_status
fit_one(const tapas_dataset_t *syn, size_t s, const double *X, size_t d,
		const double *Xt, size_t m, size_t v, const tapas_rf_params_t *rp,
		uint64_t seed, const tapas_progress_t *progress, int *y, double *p)
{
	tapas_rf_t *rf = NULL;
	tapas_rng_t rng;
	tapas_status st;
	size_t		i;

	for (i = 0; i < syn->n; i++)
		y[i] = syn->values[i * syn->c + s] == (double) v;
	tapas_rng_seed(&rng, seed * 1000003u + v);
	st = tapas_rf_fit(&rf, X, y, syn->n, d, rp, &rng, progress);
	if (st != TAPAS_OK)
		return st;
	for (i = 0; i < m; i++)
		p[i] = tapas_rf_predict_proba(rf, Xt + i * d);
	tapas_rf_free(rf);
	return TAPAS_OK;
}

tapas_status
tapas_synthetic_predictor_rf_aia(const tapas_dataset_t *syn, size_t s,
								 const tapas_rf_params_t *rp, uint64_t seed,
								 const double *xenc, size_t m, double *scores,
								 const tapas_progress_t *progress)
{
	size_t		n = syn->n,
				e = syn->encoded_dim,
				k,
				d,
				i,
				v,
				present = 0,
				last = 0;
	unsigned char *has;
	double	   *X = NULL,
			   *Xt = NULL,
			   *p = NULL;
	int		   *y = NULL;
	tapas_status st = TAPAS_OK;
	tapas_model_progress_t mp = {progress, 0, 1};
	tapas_progress_t inner = {tapas_model_progress_poll, &mp};

	if (n == 0 || syn->encoded == NULL || s >= syn->c ||
		syn->cols[s].kind != TAPAS_COLUMN_CATEGORICAL)
		return TAPAS_EINVAL;
	k = syn->cols[s].cardinality;
	d = e - syn->width[s];
	has = tapas_calloc(k, 1);
	if (has == NULL)
		return TAPAS_ENOMEM;
	for (i = 0; i < n; i++)
		has[(size_t) syn->values[i * syn->c + s]] = 1;
	for (v = 0; v < k; v++)
		if (has[v])
		{
			present++;
			last = v;
		}
	memset(scores, 0, sizeof(double) * m * k);
	if (present == 1 || d == 0)
	{
		/* one class (or nothing to learn from): the shares in syn */
		if (m == 0)
			goto done;
		for (i = 0; i < n; i++)
			scores[(size_t) syn->values[i * syn->c + s]] += 1.0;
		for (v = 0; v < k; v++)
			scores[v] = present == 1 ? (double) has[v] : scores[v] / (double) n;
		for (i = 1; i < m; i++)
			memcpy(scores + i * k, scores, sizeof(double) * k);
		goto done;
	}
	X = tapas_malloc(sizeof(double) * n * d);
	Xt = tapas_malloc(sizeof(double) * (m * d + 1));
	p = tapas_malloc(sizeof(double) * (m + 1));
	y = tapas_malloc(sizeof(int) * n);
	if (X == NULL || Xt == NULL || p == NULL || y == NULL)
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	for (i = 0; i < n; i++)
		features(syn, s, syn->encoded + i * e, X + i * d);
	for (i = 0; i < m; i++)
		features(syn, s, xenc + i * e, Xt + i * d);
	if (present == 2)
	{
		size_t		first = 0;

		while (!has[first])
			first++;
		if ((st = fit_one(syn, s, X, d, Xt, m, last, rp, seed, &inner, y, p)) != TAPAS_OK)
			goto done;
		for (i = 0; i < m; i++)
		{
			scores[i * k + last] = p[i];
			scores[i * k + first] = 1 - p[i];
		}
		goto done;
	}
	mp.models = present;
	for (v = 0; v < k; v++)
	{
		if (!has[v])
			continue;
		if ((st = fit_one(syn, s, X, d, Xt, m, v, rp, seed, &inner, y, p)) != TAPAS_OK)
			goto done;
		for (i = 0; i < m; i++)
			scores[i * k + v] = p[i];
		mp.c++;
	}
	for (i = 0; i < m; i++)
	{
		double		sum = 0;

		for (v = 0; v < k; v++)
			sum += scores[i * k + v];
		for (v = 0; v < k; v++)
			scores[i * k + v] = sum > 0 ? scores[i * k + v] / sum :
				(has[v] ? 1.0 / (double) present : 0.0);
	}
done:
	tapas_free(has);
	tapas_free(X);
	tapas_free(Xt);
	tapas_free(p);
	tapas_free(y);
	return st;
}
