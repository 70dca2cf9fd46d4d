/*-------------------------------------------------------------------------
 *
 * synthetic_predictor.c
 *	  SyntheticPredictorAttack: a classifier fit on the synthetic rows
 *	  predicts the sensitive attribute of the target from its other
 *	  attributes (Houssiau et al. 2022; related to CAP, Elliot 2015).
 *
 * The classifier is liblinear's L2-regularised logistic regression
 * (solver L2R_LR, trust-region Newton; Fan et al. 2008, JMLR 9), the model
 * sklearn's LogisticRegression fits up to its solver.  Features are the
 * encoded cells of every column but s (sparse: one-hot cells are mostly
 * zero), plus a bias feature of value 1; labels are the codes of s.  With
 * k > 2 classes liblinear trains one-vs-rest and normalises the k sigmoid
 * outputs, which is what predict_probability returns.
 *
 * liblinear allocates its model with malloc and prints progress to stdout;
 * printing is silenced once, and the model is always destroyed before
 * returning.
 *
 * IDENTIFICATION
 *	  src/attacks/synthetic_predictor.c
 *
 *-------------------------------------------------------------------------
 */
#include <linear.h>
#include <string.h>

#include "attacks/score_attacks.h"
#include "util/memory.h"

/* liblinear's progress printer, replaced by silence */
static void
quiet(const char *msg)
{
	(void) msg;
}

/*
 * Writes the sparse features of one encoded row (skipping column s's block)
 * into nodes, followed by the bias node and the terminator; returns the
 * number of nodes written.  Feature indices are 1-based cell numbers.
 */
static size_t
row_features(const tapas_dataset_t *syn, size_t s, const double *enc,
			 struct feature_node *nodes)
{
	size_t		e = syn->encoded_dim,
				lo = syn->offset[s],
				hi = lo + syn->width[s],
				k,
				w = 0;

	for (k = 0; k < e; k++)
	{
		if ((k >= lo && k < hi) || enc[k] == 0)
			continue;
		nodes[w].index = (int) k + 1;
		nodes[w].value = enc[k];
		w++;
	}
	nodes[w].index = (int) e + 1;	/* bias */
	nodes[w].value = 1.0;
	nodes[w + 1].index = -1;
	return w + 2;
}

/* scores for m targets from a fitted model (k codes) */
static tapas_status
predict_all(const struct model *model, const tapas_dataset_t *syn, size_t s,
			const double *xenc, size_t m, double *scores)
{
	size_t		k = syn->cols[s].cardinality,
				e = syn->encoded_dim,
				a,
				v;
	int			nc = get_nr_class(model);
	int		   *labels = tapas_malloc((nc + 1) * sizeof(int));
	double	   *prob = tapas_malloc((nc + 1) * sizeof(double));
	struct feature_node *nodes = tapas_malloc((e + 2) * sizeof(struct feature_node));

	if (labels == NULL || prob == NULL || nodes == NULL)
	{
		tapas_free(labels);
		tapas_free(prob);
		tapas_free(nodes);
		return TAPAS_ENOMEM;
	}
	get_labels(model, labels);
	for (a = 0; a < m; a++)
	{
		int			l;

		row_features(syn, s, xenc + a * e, nodes);
		predict_probability(model, nodes, prob);
		for (v = 0; v < k; v++)
			scores[a * k + v] = 0;
		for (l = 0; l < nc; l++)
			scores[a * k + (size_t) labels[l]] = prob[l];
	}
	tapas_free(labels);
	tapas_free(prob);
	tapas_free(nodes);
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
							  const double *xenc, size_t m, double *scores)
{
	size_t		n = syn->n,
				e = syn->encoded_dim,
				k,
				i,
				used = 0;
	long		only;
	struct problem prob;
	struct parameter param;
	struct model *model;
	struct feature_node *pool;
	tapas_status st;

	if (n == 0 || syn->encoded == NULL || s >= syn->c || !(C > 0) ||
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

	memset(&prob, 0, sizeof(prob));
	memset(&param, 0, sizeof(param));
	prob.l = (int) n;
	prob.n = (int) e + 1;
	prob.bias = 1.0;
	prob.y = tapas_malloc(n * sizeof(double));
	prob.x = tapas_malloc(n * sizeof(struct feature_node *));
	pool = tapas_malloc(n * (e + 2) * sizeof(struct feature_node));
	if (prob.y == NULL || prob.x == NULL || pool == NULL)
	{
		st = TAPAS_ENOMEM;
		goto done;
	}
	for (i = 0; i < n; i++)
	{
		prob.y[i] = syn->values[i * syn->c + s];
		prob.x[i] = pool + used;
		used += row_features(syn, s, syn->encoded + i * e, pool + used);
	}
	param.solver_type = L2R_LR;
	param.eps = 0.01;
	param.C = C;
	set_print_string_function(quiet);
	if (check_parameter(&prob, &param) != NULL ||
		(model = train(&prob, &param)) == NULL)
	{
		st = TAPAS_ENUMERIC;
		goto done;
	}
	st = predict_all(model, syn, s, xenc, m, scores);
	free_and_destroy_model(&model);

done:
	tapas_free(prob.y);
	tapas_free(prob.x);
	tapas_free(pool);
	return st;
}
