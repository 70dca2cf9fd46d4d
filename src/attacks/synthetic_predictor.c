/*-------------------------------------------------------------------------
 *
 * synthetic_predictor.c
 *	  SyntheticPredictorAttack: a classifier fit on the synthetic rows
 *	  predicts the sensitive attribute of the target from its other
 *	  attributes (Houssiau et al. 2022; related to CAP, Elliot 2015).
 *
 * The classifier is L2-regularised logistic regression (attacks/logistic.c:
 * liblinear's L2R_LR objective, which tapas used until 0.3, fit by
 * tapas's own Newton-CG at tolerance 1e-4), the model sklearn's
 * LogisticRegression fits up to its solver and its unregularised
 * intercept.  Features are the encoded cells of every column but s (sparse:
 * one-hot cells are mostly zero), plus a bias feature of value 1; labels
 * are the codes of s.  With two codes present one model predicts the first
 * seen; with k > 2 one model per present code predicts "that code or not"
 * (one-vs-rest) and the k sigmoid outputs are normalised, as liblinear's
 * predict_probability does.
 *
 * IDENTIFICATION
 *	  src/attacks/synthetic_predictor.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "attacks/logistic.h"
#include "attacks/model_progress.h"
#include "attacks/score_attacks.h"
#include "util/memory.h"

/* stopping tolerance (scikit-learn's default tol; liblinear's default was 0.01) */
#define PREDICTOR_TOL 1e-4

/* the sparse features of the synthetic rows and the one-vs-rest labels */
typedef struct PredictorFit
{
	tapas_logit_data_t data;
	size_t	   *row_start;
	uint32_t   *col;
	double	   *val;
	int		   *y;				/* labels of the current model */
	long	   *codes;			/* the present codes, in order of first appearance */
	size_t		ncodes;
	double	   *w;				/* ncodes models (one when ncodes == 2) of e + 1 weights */
} PredictorFit;

/*
 * Appends the nonzero cells of one encoded row, column s's block skipped,
 * to col/val at *k.  Feature numbers are cell numbers (s's cells are never
 * used, so their weights stay 0).
 */
static void
row_features(const tapas_dataset_t *syn, size_t s, const double *enc,
			 uint32_t *col, double *val, size_t *k)
{
	size_t		lo = syn->offset[s],
				hi = lo + syn->width[s],
				j;

	for (j = 0; j < syn->encoded_dim; j++)
		if ((j < lo || j >= hi) && enc[j] != 0)
		{
			col[*k] = (uint32_t) j;
			val[(*k)++] = enc[j];
		}
}

/* the decision value of model c for one encoded row (bias weight last) */
static double
decision(const PredictorFit *P, size_t c, const tapas_dataset_t *syn,
		 size_t s, const double *enc)
{
	const double *w = P->w + c * (syn->encoded_dim + 1);
	size_t		lo = syn->offset[s],
				hi = lo + syn->width[s],
				j;
	double		z = w[syn->encoded_dim];

	for (j = 0; j < syn->encoded_dim; j++)
		if (j < lo || j >= hi)
			z += w[j] * enc[j];
	return z;
}

/* scores for m targets from the fitted models */
static void
predict_all(const PredictorFit *P, const tapas_dataset_t *syn, size_t s,
			const double *xenc, size_t m, double *scores)
{
	size_t		k = syn->cols[s].cardinality,
				e = syn->encoded_dim,
				a,
				c;

	for (a = 0; a < m; a++)
	{
		double	   *out = scores + a * k,
					sum = 0;

		for (c = 0; c < k; c++)
			out[c] = 0;
		if (P->ncodes == 2)
		{
			double		p = tapas_logit_sigmoid(decision(P, 0, syn, s, xenc + a * e));

			out[P->codes[0]] = p;
			out[P->codes[1]] = 1 - p;
			continue;
		}
		for (c = 0; c < P->ncodes; c++)
			sum += out[P->codes[c]] = tapas_logit_sigmoid(decision(P, c, syn, s, xenc + a * e));
		for (c = 0; c < P->ncodes; c++)
			out[P->codes[c]] /= sum;
	}
}

/* the codes of column s in order of first appearance (liblinear's order) */
static void
present_codes(PredictorFit *P, const tapas_dataset_t *syn, size_t s, char *seen)
{
	size_t		i;

	for (i = 0; i < syn->n; i++)
	{
		long		v = (long) syn->values[i * syn->c + s];

		if (!seen[v])
		{
			seen[v] = 1;
			P->codes[P->ncodes++] = v;
		}
	}
}

static void
predictor_free(PredictorFit *P)
{
	tapas_free(P->row_start);
	tapas_free(P->col);
	tapas_free(P->val);
	tapas_free(P->y);
	tapas_free(P->codes);
	tapas_free(P->w);
}

/* fills P's sparse rows and codes; TAPAS_OK or TAPAS_ENOMEM */
static tapas_status
predictor_build(PredictorFit *P, const tapas_dataset_t *syn, size_t s)
{
	size_t		n = syn->n,
				e = syn->encoded_dim,
				k = syn->cols[s].cardinality,
				i,
				nnz = 0;
	char	   *seen = tapas_calloc(k, 1);

	for (i = 0; i < n * e; i++)
		nnz += syn->encoded[i] != 0;
	P->row_start = tapas_malloc((n + 1) * sizeof(size_t));
	P->col = tapas_malloc(nnz * sizeof(uint32_t) + 1);
	P->val = tapas_malloc(nnz * sizeof(double) + 1);
	nnz = 0;
	P->y = tapas_malloc(n * sizeof(int));
	P->codes = tapas_malloc(k * sizeof(long));
	if (!seen || !P->row_start || !P->col || !P->val || !P->y || !P->codes)
	{
		tapas_free(seen);
		return TAPAS_ENOMEM;
	}
	for (i = 0; i < n; i++)
	{
		P->row_start[i] = nnz;
		row_features(syn, s, syn->encoded + i * e, P->col, P->val, &nnz);
	}
	P->row_start[n] = nnz;
	present_codes(P, syn, s, seen);
	tapas_free(seen);
	P->w = tapas_malloc(P->ncodes * (e + 1) * sizeof(double));
	if (P->w == NULL)
		return TAPAS_ENOMEM;
	memset(&P->data, 0, sizeof(P->data));
	P->data.n = n;
	P->data.d = e;
	P->data.row_start = P->row_start;
	P->data.col = P->col;
	P->data.val = P->val;
	P->data.y = P->y;
	P->data.bias = 1.0;
	return TAPAS_OK;
}

/* the only code present in column s, or -1 if there are several */
static long
single_code(const tapas_dataset_t *syn, size_t s)
{
	size_t		i;
	double		first = syn->values[s];

	for (i = 1; i < syn->n; i++)
		if (syn->values[i * syn->c + s] != first)
			return -1;
	return (long) first;
}

tapas_status
tapas_synthetic_predictor_aia(const tapas_dataset_t *syn, size_t s, double C,
							  const double *xenc, size_t m, double *scores,
							  const tapas_progress_t *progress)
{
	tapas_model_progress_t mp = {progress, 0, 1};
	tapas_progress_t inner = {tapas_model_progress_poll, &mp};
	size_t		k,
				i,
				c,
				models;
	long		only;
	PredictorFit P;
	tapas_status st;

	if (syn->n == 0 || syn->encoded == NULL || s >= syn->c || !(C > 0) ||
		syn->cols[s].kind != TAPAS_COLUMN_CATEGORICAL)
		return TAPAS_EINVAL;
	k = syn->cols[s].cardinality;
	if ((only = single_code(syn, s)) >= 0)
	{
		/* one class: logistic regression is undefined, the answer is not */
		for (i = 0; i < m * k; i++)
			scores[i] = (i % k) == (size_t) only ? 1.0 : 0.0;
		return TAPAS_OK;
	}
	memset(&P, 0, sizeof(P));
	st = predictor_build(&P, syn, s);
	models = P.ncodes == 2 ? 1 : P.ncodes;
	mp.models = models;
	for (c = 0; st == TAPAS_OK && c < models; c++)
	{
		for (i = 0; i < syn->n; i++)
			P.y[i] = (long) syn->values[i * syn->c + s] == P.codes[c];
		mp.c = c;
		st = tapas_logit_fit(P.w + c * (syn->encoded_dim + 1), &P.data, C,
							 PREDICTOR_TOL, NULL, progress != NULL ? &inner : NULL);
	}
	if (st == TAPAS_OK)
		predict_all(&P, syn, s, xenc, m, scores);
	predictor_free(&P);
	return st;
}
