/*
 * b-groundhog.c
 *	  The reference toolbox's census Groundhog example, run on the tapas
 *	  kernels: census50k, target = record 1 (removed from the data), 50/50
 *	  auxiliary split, 5,000-record datasets, raw generator with 5,000
 *	  synthetic records, MIA pairs with replacement, naive + hist + corr
 *	  features, random forest of 100 trees, 1,000 training and 100 test
 *	  datasets (the toolbox's examples/groundhog_census.py, which took
 *	  191 s for accuracy 0.54 and AUC 0.573 on this machine).
 *
 * With BENCH_ROWS=1000 BENCH_TRAIN=300 it is the small setting (1,000-record
 * datasets, 300 training and 100 test datasets; the toolbox took about 9 s).
 *
 * Prints wall and CPU time, each split into the datasets-and-features phase
 * and the classifier, accuracy and AUC, the ratio against the reference's
 * recorded time, and an in-process ratio of the feature extraction
 * against a straightforward dense implementation (encode to a dense n x e
 * matrix, sort for medians, two-pass correlation) on the same datasets.
 * Environment: TAPAS_CENSUS (path prefix, default ../shared/data/census50k),
 * BENCH_ROWS (records per dataset, default 5000), BENCH_TRAIN, BENCH_TEST,
 * BENCH_SEED, BENCH_FEATURES (groundhog|queries),
 * BENCH_DUMP (a path: writes the feature matrix and labels as raw doubles,
 * n_datasets x (dim + 1) with the label last, to compare classifiers).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "attacks/generators.h"
#include "attacks/shadow_eval.h"
#include "census_load.h"

#define REFERENCE_SECONDS 191.0	/* 5,000-record datasets, 1,000/100 */
#define REFERENCE_SECONDS_1000 9.0	/* 1,000-record datasets, 300/100 */

static long
env_long(const char *name, long dflt)
{
	const char *s = getenv(name);

	return s ? atol(s) : dflt;
}

/* Mann-Whitney AUC, ties one half */
static double
auc(const double *s, const int *y, size_t n)
{
	double		num = 0,
				P = 0,
				N = 0;
	size_t		i,
				j;

	for (i = 0; i < n; i++)
	{
		if (!y[i])
			continue;
		P++;
		for (j = 0; j < n; j++)
			if (!y[j])
				num += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
	}
	for (j = 0; j < n; j++)
		N += !y[j];
	return P > 0 && N > 0 ? num / (P * N) : 0.5;
}

/* the straightforward dense implementation of naive + hist + corr */
static void
dense_features(const tapas_coded_schema_t *s, const double *x, size_t n, double *out)
{
	size_t		e = s->e,
				a,
				b,
				r,
				j,
				pos;
	double	   *X = calloc(n * e, sizeof(double));
	double	   *col = malloc(n * sizeof(double));
	double	   *mu = malloc(e * sizeof(double));
	double	   *sd = malloc(e * sizeof(double));

	for (r = 0; r < n; r++)
		for (j = 0; j < s->m; j++)
			X[r * e + s->offset[j] + (size_t) x[r * s->m + j]] = 1.0;
	for (a = 0; a < e; a++)
	{
		double		sum = 0,
					ss = 0;

		for (r = 0; r < n; r++)
			sum += col[r] = X[r * e + a];
		mu[a] = sum / n;
		for (r = 0; r < n; r++)
			ss += (X[r * e + a] - mu[a]) * (X[r * e + a] - mu[a]);
		sd[a] = sqrt(ss / n);
		qsort(col, n, sizeof(double), bench_cmp_double);
		out[a] = mu[a];
		out[e + a] = n % 2 ? col[n / 2] : (col[n / 2 - 1] + col[n / 2]) / 2;
		out[2 * e + a] = ss / n;
		out[3 * e + a] = mu[a];	/* hist of a categorical column */
	}
	pos = 4 * e;
	for (a = 0; a < e; a++)
		for (b = a + 1; b < e; b++)
		{
			double		c = 0;

			for (r = 0; r < n; r++)
				c += (X[r * e + a] - mu[a]) * (X[r * e + b] - mu[b]);
			out[pos++] = sd[a] > 0 && sd[b] > 0 ? c / n / (sd[a] * sd[b]) : 0.0;
		}
	free(X);
	free(col);
	free(mu);
	free(sd);
}

int
main(void)
{
	const char *prefix = getenv("TAPAS_CENSUS") ? getenv("TAPAS_CENSUS") : "../shared/data/census50k";
	const char *which = getenv("BENCH_FEATURES") ? getenv("BENCH_FEATURES") : "groundhog";
	census		c;
	tapas_coded_schema_t *schema;
	int			kind[CENSUS_MAX_COLS];
	tapas_setfeat_item_t items[3];
	size_t		n_items = 0;
	tapas_shadow_params_t p;
	tapas_shadow_eval_t *ev;
	const char *reason = NULL;
	double		t0,
				t1,
				t2,
				t_data,
				c0,
				c_data,
				c1,
				acc = 0,
				a,
				tf_fast,
				tf_dense,
				maxdiff = 0;
	double	   *pool;
	size_t		j,
				i,
				n_pool;
	int		   *ytest;
	tapas_status st;

	if (census_load(&c, prefix) != 0)
	{
		printf("b-groundhog: %s.{csv,json} not readable, skipped\n", prefix);
		return 0;
	}
	for (j = 0; j < c.m; j++)
		kind[j] = TAPAS_COL_CATEGORICAL;
	schema = tapas_coded_schema_create(c.m, kind, c.ncat);

	/* the target is record 1; the pool is every other record */
	pool = malloc((c.n - 1) * c.m * sizeof(double));
	memcpy(pool, c.x, c.m * sizeof(double));
	memcpy(pool + c.m, c.x + 2 * c.m, (c.n - 2) * c.m * sizeof(double));
	n_pool = c.n - 1;

	memset(items, 0, sizeof(items));
	if (strcmp(which, "queries") == 0)
	{
		/* the paper's best custom attack: 1-, 2- and 3-way queries */
		items[0].type = items[1].type = items[2].type = TAPAS_SETFEAT_QUERIES;
		items[0].order = 1, items[0].number = 20, items[0].seed = 1;
		items[1].order = 2, items[1].number = 500, items[1].seed = 2;
		items[2].order = 3, items[2].number = 500, items[2].seed = 3;
		n_items = 3;
	}
	else
	{
		items[0].type = TAPAS_SETFEAT_NAIVE;
		items[1].type = TAPAS_SETFEAT_HIST;
		items[1].n_bins = 10, items[1].lo = 0, items[1].hi = 1;
		items[2].type = TAPAS_SETFEAT_CORR;
		n_items = 3;
	}
	memset(&p, 0, sizeof(p));
	tapas_threat_model_params_default(&p.tm);
	p.tm.num_training_records = env_long("BENCH_ROWS", 5000);
	p.tm.n_train = env_long("BENCH_TRAIN", 1000);
	p.tm.n_test = env_long("BENCH_TEST", 100);
	p.tm.seed = env_long("BENCH_SEED", 0);
	p.generator = TAPAS_GEN_RAW;
	p.num_synthetic_records = p.tm.num_training_records;
	p.gen_seed = p.tm.seed + 1;
	p.items = items;
	p.n_items = n_items;
	tapas_clf_params_default(&p.clf);
	p.clf.seed = p.tm.seed + 2;

	t0 = bench_seconds();
	c0 = bench_cpu_seconds();
	st = tapas_shadow_eval_create(&ev, schema, pool, n_pool, c.x + c.m, &p, &reason);
	if (st != TAPAS_OK)
	{
		printf("create failed: %s\n", reason ? reason : tapas_status_message(st));
		return 1;
	}
	/* tapas_shadow_eval_run, with its two phases timed apart */
	for (i = 0; i < ev->tm->n_datasets; i++)
	{
		size_t		n_syn;

		st = tapas_shadow_eval_generate(ev, i, &n_syn);
		if (st == TAPAS_OK)
			st = tapas_shadow_eval_featurise(ev, i, n_syn);
		if (st != TAPAS_OK)
		{
			printf("dataset %zu failed: %s\n", i, tapas_status_message(st));
			return 1;
		}
	}
	t_data = bench_seconds();
	c_data = bench_cpu_seconds();
	st = tapas_shadow_eval_fit(ev, NULL);
	t1 = bench_seconds();
	c1 = bench_cpu_seconds();
	if (st != TAPAS_OK)
	{
		printf("fit failed: %s\n", tapas_status_message(st));
		return 1;
	}
	if (getenv("BENCH_DUMP"))
	{
		FILE	   *f = fopen(getenv("BENCH_DUMP"), "wb");
		size_t		k;

		for (k = 0; f && k < ev->tm->n_datasets; k++)
		{
			double		lab = ev->y[k];

			if (ev->F != NULL)
				fwrite(ev->F + k * ev->dim, sizeof(double), ev->dim, f);
			else
				for (i = 0; i < ev->dim; i++)
				{
					double		v = ev->Ff[k * ev->dim + i];

					fwrite(&v, sizeof(double), 1, f);
				}
			fwrite(&lab, sizeof(double), 1, f);
		}
		if (f)
			fclose(f);
	}
	ytest = ev->y + p.tm.n_train;
	for (i = 0; i < p.tm.n_test; i++)
		acc += (ev->scores[i] > 0.5) == (ytest[i] == 1);
	acc /= p.tm.n_test;
	a = auc(ev->scores, ytest, p.tm.n_test);
	printf("census %s (%zu records, %zu x %zu datasets of %zu, raw): features %zu\n",
		   which, c.n, (size_t) p.tm.n_train, (size_t) p.tm.n_test,
		   p.tm.num_training_records, ev->dim);
	printf("  tapas wall time %.2f s (datasets and features %.2f s, classifier %.2f s), accuracy %.3f, AUC %.3f\n",
		   t1 - t0, t_data - t0, t1 - t_data, acc, a);
	printf("  tapas CPU time %.3f s (datasets and features %.3f s, classifier %.3f s)\n",
		   c1 - c0, c_data - c0, c1 - c_data);
	if (p.tm.num_training_records == 5000 && p.tm.n_train == 1000 && p.tm.n_test == 100)
	{
		printf("  reference (TAPAS, same machine): 191 s, accuracy 0.54, AUC 0.573\n");
		printf("  speed ratio vs reference: %.1fx\n", REFERENCE_SECONDS / (t1 - t0));
	}
	else if (p.tm.num_training_records == 1000 && p.tm.n_train == 300 && p.tm.n_test == 100)
	{
		printf("  reference (TAPAS, same machine): about 9 s\n");
		printf("  speed ratio vs reference: %.1fx\n", REFERENCE_SECONDS_1000 / (t1 - t0));
	}

	/* in-process baseline: dense feature extraction on 20 datasets */
	if (strcmp(which, "groundhog") == 0)
	{
		double	   *fa = malloc(ev->dim * sizeof(double));
		double	   *fb = malloc(ev->dim * sizeof(double));
		size_t		n_syn,
					k;

		tf_fast = tf_dense = 0;
		for (k = 0; k < 20; k++)
		{
			tapas_shadow_eval_generate(ev, k, &n_syn);
			t1 = bench_cpu_seconds();
			tapas_setfeat_extract(ev->fs, ev->syn_cur, n_syn, fa);
			t2 = bench_cpu_seconds();
			tf_fast += t2 - t1;
			dense_features(schema, ev->syn_cur, n_syn, fb);
			tf_dense += bench_cpu_seconds() - t2;
			for (j = 0; j < ev->dim; j++)
				if (fabs(fa[j] - fb[j]) > maxdiff)
					maxdiff = fabs(fa[j] - fb[j]);
		}
		printf("  features per dataset (CPU): tapas %.2f ms, dense baseline %.2f ms (ratio %.1fx, max |diff| %.1e)\n",
			   tf_fast / 20 * 1e3, tf_dense / 20 * 1e3, tf_dense / tf_fast, maxdiff);
		free(fa);
		free(fb);
	}
	tapas_shadow_eval_free(ev);
	tapas_coded_schema_free(schema);
	free(pool);
	free(c.x);
	return 0;
}
