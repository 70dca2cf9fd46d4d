/*-------------------------------------------------------------------------
 *
 * density.c
 *	  Gaussian KDE and the independent per-column model (see density.h).
 *
 * KDE: the log density is a log-sum-exp over the n synthetic rows, taken
 * with the largest exponent factored out so that far-away targets (whose
 * every kernel underflows) still get a finite log density.  Cost O(n e)
 * per target.
 *
 * Independent model: one table of log probabilities per column (card cells,
 * or `bins` cells for a continuous column), so scoring costs O(c).  The
 * joint histogram is in density_histogram.c.
 *
 * IDENTIFICATION
 *	  src/attacks/density.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>

#include "attacks/density.h"
#include "attacks/density_int.h"
#include "util/memory.h"


/* sqrt of the mean per-cell variance of the encoded rows, 1 if 0 */
static double
encoded_sigma(const tapas_dataset_t *syn)
{
	size_t		e = syn->encoded_dim,
				i,
				k;
	double		total = 0;

	for (k = 0; k < e; k++)
	{
		double		mean = 0,
					var = 0;

		for (i = 0; i < syn->n; i++)
			mean += syn->encoded[i * e + k];
		mean /= (double) syn->n;
		for (i = 0; i < syn->n; i++)
		{
			double		t = syn->encoded[i * e + k] - mean;

			var += t * t;
		}
		total += var / (double) syn->n;
	}
	total /= (double) e;
	return total > 0 ? sqrt(total) : 1.0;
}

tapas_density_t *
tapas_density_fit_kde(const tapas_dataset_t *syn, tapas_bandwidth_rule rule,
					  double h)
{
	tapas_density_t *m;
	double		n = (double) syn->n,
				e = (double) syn->encoded_dim;

	if (syn->n == 0 || syn->encoded == NULL)
		return NULL;
	if (rule == TAPAS_BANDWIDTH_SCOTT)
		h = encoded_sigma(syn) * pow(n, -1.0 / (e + 4));
	else if (rule == TAPAS_BANDWIDTH_SILVERMAN)
		h = encoded_sigma(syn) * pow(n * (e + 2) / 4.0, -1.0 / (e + 4));
	if (!(h > 0) || !isfinite(h))
		return NULL;
	m = tapas_calloc(1, sizeof(tapas_density_t));
	if (m == NULL)
		return NULL;
	m->kind = TAPAS_DENSITY_KDE;
	m->syn = syn;
	m->h = h;
	m->log_norm = -log(n) - 0.5 * e * log(2 * M_PI * h * h);
	m->scratch = tapas_malloc(syn->n * sizeof(double));
	if (m->scratch == NULL)
	{
		tapas_density_free(m);
		return NULL;
	}
	return m;
}

/* fills the log-probability table of column j */
static void
fit_column(tapas_density_t *m, const tapas_dataset_t *syn, size_t j,
		   size_t cells, double alpha)
{
	const tapas_column_spec_t *spec = &syn->cols[j];
	double	   *t = m->logp[j];
	double		width = 1.0;
	size_t		i,
				k;

	for (k = 0; k < cells; k++)
		t[k] = 0;
	for (i = 0; i < syn->n; i++)
	{
		double		v = syn->values[i * syn->c + j];

		if (spec->kind == TAPAS_COLUMN_CONTINUOUS)
			t[tapas_density_bin(v, spec->lower, spec->upper, cells)] += 1;
		else if (v >= 0 && v < (double) cells)
			t[(size_t) v] += 1;
	}
	if (spec->kind == TAPAS_COLUMN_CONTINUOUS && spec->upper > spec->lower)
		width = (spec->upper - spec->lower) / (double) cells;
	for (k = 0; k < cells; k++)
		t[k] = log((t[k] + alpha) / ((double) syn->n + alpha * (double) cells)) -
			log(width);
}

tapas_density_t *
tapas_density_fit_independent(const tapas_dataset_t *syn, size_t bins,
							  double alpha)
{
	tapas_density_t *m;
	size_t		j;

	if (syn->n == 0 || bins == 0 || !(alpha >= 0))
		return NULL;
	m = tapas_calloc(1, sizeof(tapas_density_t));
	if (m == NULL)
		return NULL;
	m->kind = TAPAS_DENSITY_INDEPENDENT;
	m->syn = syn;
	m->h = NAN;
	m->bins = bins;
	m->logp = tapas_calloc(syn->c, sizeof(double *));
	if (m->logp == NULL)
		goto fail;
	for (j = 0; j < syn->c; j++)
	{
		size_t		cells = syn->cols[j].kind == TAPAS_COLUMN_CONTINUOUS ?
			bins : syn->cols[j].cardinality;

		m->logp[j] = tapas_malloc(cells * sizeof(double));
		if (m->logp[j] == NULL)
			goto fail;
		fit_column(m, syn, j, cells, alpha);
	}
	return m;

fail:
	tapas_density_free(m);
	return NULL;
}

double
tapas_density_bandwidth(const tapas_density_t *model)
{
	return model->h;
}

/* KDE log density: logsumexp with the largest exponent factored out */
static double
kde_log(const tapas_density_t *m, const double *xenc)
{
	const tapas_dataset_t *syn = m->syn;
	size_t		e = syn->encoded_dim,
				i,
				k;
	double		top = -INFINITY,
				sum = 0,
				inv = 1.0 / (2 * m->h * m->h);

	for (i = 0; i < syn->n; i++)
	{
		const double *y = syn->encoded + i * e;
		double		d2 = 0;

		for (k = 0; k < e; k++)
			d2 += (xenc[k] - y[k]) * (xenc[k] - y[k]);
		m->scratch[i] = -d2 * inv;
		if (m->scratch[i] > top)
			top = m->scratch[i];
	}
	/*
	 * No row (syn emptied after the fit), or every kernel 0 (x infinitely
	 * far): the density is 0.  Said directly, since log(0) of the empty sum
	 * and exp(-inf - -inf) = NaN would otherwise speak for it.
	 */
	if (syn->n == 0 || top == -INFINITY)
		return -INFINITY;
	for (i = 0; i < syn->n; i++)
		sum += exp(m->scratch[i] - top);
	return top + log(sum) + m->log_norm;
}

double
tapas_density_log(const tapas_density_t *model, const double *xraw,
				  const double *xenc)
{
	const tapas_dataset_t *syn = model->syn;
	double		lp = 0;
	size_t		j;

	if (model->kind == TAPAS_DENSITY_KDE)
		return kde_log(model, xenc);
	if (model->kind == TAPAS_DENSITY_HISTOGRAM)
		return tapas_density_histogram_log(model, xraw);
	for (j = 0; j < syn->c; j++)
	{
		const tapas_column_spec_t *spec = &syn->cols[j];
		double		v = xraw[j];

		if (spec->kind == TAPAS_COLUMN_CONTINUOUS)
			lp += model->logp[j][tapas_density_bin(v, spec->lower, spec->upper,
										model->bins)];
		else if (v >= 0 && v < (double) spec->cardinality)
			lp += model->logp[j][(size_t) v];
		else
			return -INFINITY;
	}
	return lp;
}

void
tapas_density_free(tapas_density_t *model)
{
	size_t		j;

	if (model == NULL)
		return;
	if (model->logp != NULL)
		for (j = 0; j < model->syn->c; j++)
			tapas_free(model->logp[j]);
	tapas_free(model->logp);
	tapas_free(model->scratch);
	tapas_free(model->cells);
	tapas_free(model->counts);
	tapas_free(model->slots);
	tapas_free(model);
}
