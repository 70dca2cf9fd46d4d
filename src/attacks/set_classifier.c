/*-------------------------------------------------------------------------
 *
 * set_classifier.c
 *	  Random forest or liblinear logistic regression behind one interface.
 *
 * liblinear takes sparse rows of (index >= 1, value) ending with index -1;
 * with bias >= 0 it appends a constant feature itself.  A model with one
 * class only (all labels equal) predicts that class with probability 1.
 *
 * Progress and cancellation of the logistic fit: liblinear's train() has
 * no callback; it only prints, once per trust-region Newton iteration
 * (Lin, Weng and Keerthi 2008), through the print function.  That print
 * calls the progress callback, so the fit reports between iterations; a
 * stop the callback asks for takes effect when train() returns (the model
 * is then discarded, TAPAS_ECANCELED): liblinear cannot be left early
 * without leaking its memory or corrupting its state (making the problem
 * trivial mid-fit does not make its trust region converge).
 *
 * IDENTIFICATION
 *	  src/attacks/set_classifier.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <string.h>

#include <linear.h>

#include "attacks/set_classifier.h"
#include "util/memory.h"
#include "util/rng.h"

void
tapas_clf_params_default(tapas_clf_params_t *p)
{
	memset(p, 0, sizeof(*p));
	p->type = TAPAS_CLF_RANDOM_FOREST;
	tapas_rf_params_default(&p->rf);
	p->C = 1.0;
}

/* the logistic fit in progress, for liblinear_print (train() is not reentrant either) */
typedef struct LrFit
{
	const tapas_progress_t *progress;
	int			cancelled;		/* the callback asked to stop */
} LrFit;

static LrFit *lr_fit = NULL;

/* liblinear's output, once per Newton iteration (and per CG boundary hit): the fit's poll */
static void
liblinear_print(const char *s)
{
	LrFit	   *f = lr_fit;

	(void) s;
	if (f != NULL && !f->cancelled && tapas_progress_poll(f->progress, -1.0))
		f->cancelled = 1;
}

/* standardised sparse row of x into nodes (index -1 terminated) */
static void
lr_row(const tapas_clf_t *clf, const double *x, struct feature_node *nodes)
{
	size_t		j,
				k = 0;

	for (j = 0; j < clf->d; j++)
	{
		double		v = (x[j] - clf->mu[j]) * clf->inv_sd[j];

		if (v != 0.0)
		{
			nodes[k].index = (int) j + 1;
			nodes[k++].value = v;
		}
	}
	nodes[k].index = -1;
}

static tapas_status
fit_logistic(tapas_clf_t *clf, const double *X, const int *y, size_t n,
			 size_t d, double C, const tapas_progress_t *progress)
{
	LrFit		fit;
	struct problem prob;
	struct parameter param;
	struct feature_node *all = NULL;
	struct feature_node **rows = NULL;
	double	   *labels = NULL;
	size_t		i,
				j;
	tapas_status st = TAPAS_ENOMEM;

	clf->mu = tapas_calloc(d, sizeof(double));
	clf->inv_sd = tapas_calloc(d, sizeof(double));
	clf->nodes = tapas_malloc((d + 2) * sizeof(struct feature_node));
	all = tapas_malloc(n * (d + 1) * sizeof(struct feature_node));
	rows = tapas_malloc(n * sizeof(*rows));
	labels = tapas_malloc(n * sizeof(double));
	if (!clf->mu || !clf->inv_sd || !clf->nodes || !all || !rows || !labels)
		goto done;
	for (j = 0; j < d; j++)
	{
		double		s = 0,
					ss = 0;

		for (i = 0; i < n; i++)
			s += X[i * d + j];
		clf->mu[j] = s / (double) n;
		for (i = 0; i < n; i++)
			ss += (X[i * d + j] - clf->mu[j]) * (X[i * d + j] - clf->mu[j]);
		ss = sqrt(ss / (double) n);
		clf->inv_sd[j] = ss > 1e-12 * (1.0 + fabs(clf->mu[j])) ? 1.0 / ss : 0.0;
	}
	for (i = 0; i < n; i++)
	{
		rows[i] = all + i * (d + 1);
		lr_row(clf, X + i * d, rows[i]);
		labels[i] = y[i];
	}
	memset(&prob, 0, sizeof(prob));
	prob.l = (int) n;
	prob.n = (int) d + 1;		/* with the bias feature */
	prob.y = labels;
	prob.x = rows;
	prob.bias = 1.0;
	memset(&param, 0, sizeof(param));
	param.solver_type = L2R_LR;
	param.C = C;
	param.eps = 1e-4;
	set_print_string_function(liblinear_print);
	if (check_parameter(&prob, &param) != NULL)
	{
		st = TAPAS_EINVAL;
		goto done;
	}
	if (tapas_progress_poll(progress, 0.0))
	{
		st = TAPAS_ECANCELED;
		goto done;
	}
	fit.progress = progress;
	fit.cancelled = 0;
	lr_fit = &fit;
	clf->lr = train(&prob, &param);
	lr_fit = NULL;
	st = clf->lr ? TAPAS_OK : TAPAS_ENOMEM;
	if (st == TAPAS_OK && (fit.cancelled || tapas_progress_poll(progress, 1.0)))
		st = TAPAS_ECANCELED;	/* the caller frees the model */
done:
	/* the model keeps no pointer into the problem */
	tapas_free(all);
	tapas_free(rows);
	tapas_free(labels);
	return st;
}

tapas_status
tapas_clf_fit(tapas_clf_t **out, const double *X, const int *y, size_t n,
			  size_t d, const tapas_clf_params_t *p,
			  const tapas_progress_t *progress)
{
	tapas_clf_t *clf;
	tapas_status st;
	tapas_rng_t rng;
	size_t		i;

	*out = NULL;
	if (n < 1 || d < 1 || d > INT32_MAX - 2)
		return TAPAS_EINVAL;
	for (i = 0; i < n; i++)
		if (y[i] != 0 && y[i] != 1)
			return TAPAS_EINVAL;
	clf = tapas_calloc(1, sizeof(*clf));
	if (clf == NULL)
		return TAPAS_ENOMEM;
	clf->type = p->type;
	clf->d = d;
	if (p->type == TAPAS_CLF_RANDOM_FOREST)
	{
		tapas_rng_seed(&rng, p->seed);
		st = tapas_rf_fit(&clf->rf, X, y, n, d, &p->rf, &rng, progress);
	}
	else if (p->type == TAPAS_CLF_LOGISTIC && p->C > 0)
		st = fit_logistic(clf, X, y, n, d, p->C, progress);
	else
		st = TAPAS_EINVAL;
	if (st != TAPAS_OK)
	{
		tapas_clf_free(clf);
		return st;
	}
	*out = clf;
	return TAPAS_OK;
}

double
tapas_clf_predict_proba(tapas_clf_t *clf, const double *x)
{
	struct model *model = clf->lr;
	double		prob[2];
	int			labels[2];

	if (clf->type == TAPAS_CLF_RANDOM_FOREST)
		return tapas_rf_predict_proba(clf->rf, x);
	if (get_nr_class(model) < 2)
	{
		get_labels(model, labels);
		return labels[0] == 1 ? 1.0 : 0.0;
	}
	lr_row(clf, x, clf->nodes);
	predict_probability(model, clf->nodes, prob);
	get_labels(model, labels);
	return labels[0] == 1 ? prob[0] : prob[1];
}

void
tapas_clf_free(tapas_clf_t *clf)
{
	struct model *model;

	if (clf == NULL)
		return;
	tapas_rf_free(clf->rf);
	model = clf->lr;
	if (model)
		free_and_destroy_model(&model);
	tapas_free(clf->mu);
	tapas_free(clf->inv_sd);
	tapas_free(clf->nodes);
	tapas_free(clf);
}
