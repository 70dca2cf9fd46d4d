/*
 * b-rf-fit.c
 *	  The random forest's fit on the census Groundhog feature matrix at
 *	  1,000-record datasets (300 training datasets, 6,099 naive + hist +
 *	  corr features, 100 trees, scikit-learn's defaults): the fit as
 *	  tapas.evaluate runs it against a baseline in the same run, the trees
 *	  checked identical node for node.
 *
 * The fits run on the float feature matrix, as tapas.evaluate's (one
 * target, random forest: shadow_eval.h).  Baseline: the same code with
 * tapas_rf_sweep_buckets = 0 (each drawn feature's ranks sorted before the
 * sweep, as before the bucket sweep).  Also: the one-tree fit (mostly the
 * ranking) on the floats with the rows fetched ahead against the fit on
 * the same values as doubles without (the fit before both), and a check
 * that the 100-tree forests on floats and on doubles are identical.
 * The two fits alternate BENCH_REPS (default 5) times, so the load of the
 * shared machine hits both alike; prints the best and median CPU time of
 * each and the ratio of the bests.  Environment: TAPAS_CENSUS (path
 * prefix, default ../shared/data/census50k), BENCH_ROWS (default 1000),
 * BENCH_TRAIN (default 300), BENCH_REPS, BENCH_TREES (default 100; 1
 * leaves mostly the fixed cost of a fit: ranking the features).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "attacks/generators.h"
#include "attacks/rf_int.h"
#include "attacks/shadow_eval.h"
#include "census_load.h"

static long
env_long(const char *name, long dflt)
{
	const char *s = getenv(name);

	return s ? atol(s) : dflt;
}

/* the training datasets' Groundhog features, as b-groundhog.c makes them */
static tapas_shadow_eval_t *
groundhog_features(census *c, size_t rows, size_t n_train)
{
	static tapas_setfeat_item_t items[3];
	int			kind[CENSUS_MAX_COLS];
	tapas_coded_schema_t *schema;
	tapas_shadow_params_t p;
	tapas_shadow_eval_t *ev;
	double	   *pool;
	size_t		j,
				k,
				n_syn;

	for (j = 0; j < c->m; j++)
		kind[j] = TAPAS_COL_CATEGORICAL;
	schema = tapas_coded_schema_create(c->m, kind, c->ncat);
	pool = malloc((c->n - 1) * c->m * sizeof(double));
	memcpy(pool, c->x, c->m * sizeof(double));
	memcpy(pool + c->m, c->x + 2 * c->m, (c->n - 2) * c->m * sizeof(double));
	memset(items, 0, sizeof(items));
	items[0].type = TAPAS_SETFEAT_NAIVE;
	items[1].type = TAPAS_SETFEAT_HIST;
	items[1].n_bins = 10, items[1].lo = 0, items[1].hi = 1;
	items[2].type = TAPAS_SETFEAT_CORR;
	memset(&p, 0, sizeof(p));
	tapas_threat_model_params_default(&p.tm);
	p.tm.num_training_records = rows;
	p.tm.n_train = n_train;
	p.tm.n_test = 1;
	p.generator = TAPAS_GEN_RAW;
	p.num_synthetic_records = rows;
	p.gen_seed = 1;
	p.items = items;
	p.n_items = 3;
	tapas_clf_params_default(&p.clf);
	if (tapas_shadow_eval_create(&ev, schema, pool, c->n - 1, c->x + c->m, &p, NULL) != TAPAS_OK)
		return NULL;
	for (k = 0; k < ev->tm->n_datasets; k++)
		if (tapas_shadow_eval_generate(ev, k, &n_syn) != TAPAS_OK ||
			tapas_shadow_eval_featurise(ev, k, n_syn) != TAPAS_OK)
			return NULL;
	return ev;
}

/* same nodes in every tree */
static int
same_forest(const tapas_rf_t *a, const tapas_rf_t *b)
{
	size_t		t;

	for (t = 0; t < a->n_trees; t++)
		if (a->trees[t].n_nodes != b->trees[t].n_nodes ||
			memcmp(a->trees[t].nodes, b->trees[t].nodes,
				   a->trees[t].n_nodes * sizeof(tapas_rf_node_t)) != 0)
			return 0;
	return 1;
}

/*
 * One fit with or without the bucket sweep, on the float matrix as
 * tapas.evaluate runs it (Xd NULL) or on the doubles Xd; its CPU seconds.
 */
static double
fit(tapas_shadow_eval_t *ev, const double *Xd, int buckets, tapas_rf_t **out)
{
	tapas_rf_params_t p;
	tapas_rng_t rng;
	tapas_status st;
	double		c0;

	tapas_rf_params_default(&p);
	p.n_trees = (int) env_long("BENCH_TREES", 100);
	tapas_rng_seed(&rng, 2);
	tapas_rf_sweep_buckets = buckets;
	c0 = bench_cpu_seconds();
	if (Xd != NULL)
		st = tapas_rf_fit(out, Xd, ev->y, ev->p.tm.n_train, ev->dim, &p, &rng, NULL);
	else
		st = tapas_rf_fit_float(out, ev->Ff, ev->y, ev->p.tm.n_train, ev->dim, &p, &rng, NULL);
	if (st != TAPAS_OK)
	{
		printf("b-rf-fit: the fit failed\n");
		exit(1);
	}
	c0 = bench_cpu_seconds() - c0;
	tapas_rf_sweep_buckets = 1;
	return c0;
}

int
main(void)
{
	const char *prefix = getenv("TAPAS_CENSUS") ? getenv("TAPAS_CENSUS") : "../shared/data/census50k";
	size_t		rows = env_long("BENCH_ROWS", 1000),
				n_train = env_long("BENCH_TRAIN", 300);
	int			reps = (int) env_long("BENCH_REPS", 5),
				r,
				same = 1;
	double	   *now,
			   *base,
			   *Xd,
				best_now = 1e300,
				best_base = 1e300;
	census		c;
	tapas_shadow_eval_t *ev;

	if (reps < 1)
		reps = 1;
	now = malloc(reps * sizeof(double));
	base = malloc(reps * sizeof(double));
	if (census_load(&c, prefix) != 0)
	{
		printf("b-rf-fit: %s.{csv,json} not readable, skipped\n", prefix);
		return 0;
	}
	ev = groundhog_features(&c, rows, n_train);
	if (ev == NULL || ev->Ff == NULL)
	{
		printf("b-rf-fit: could not build the features\n");
		return 1;
	}
	/* the same values as doubles: the matrix before the float one */
	Xd = malloc(n_train * ev->dim * sizeof(double));
	for (r = 0; r < (int) (n_train * ev->dim); r++)
		Xd[r] = ev->Ff[r];
	for (r = 0; r < reps; r++)
	{
		tapas_rf_t *a,
				   *b;

		now[r] = fit(ev, NULL, 1, &a);
		base[r] = fit(ev, NULL, 0, &b);
		same &= same_forest(a, b);
		best_now = now[r] < best_now ? now[r] : best_now;
		best_base = base[r] < best_base ? base[r] : best_base;
		tapas_rf_free(a);
		tapas_rf_free(b);
	}
	{
		/*
		 * The fixed cost of a fit (one tree: mostly the ranking) on the
		 * float matrix with the rows fetched ahead, against the doubles
		 * without (as before): the same trees.
		 */
		double	   *ra = malloc(reps * 3 * sizeof(double)),
				   *rb = malloc(reps * 3 * sizeof(double)),
					best_a = 1e300,
					best_b = 1e300;
		int			ahead = tapas_rf_rank_ahead;
		char		trees[32];
		const char *saved = getenv("BENCH_TREES");

		snprintf(trees, sizeof(trees), "%s", saved ? saved : "100");
		setenv("BENCH_TREES", "1", 1);
		for (r = 0; r < 3 * reps; r++)
		{
			tapas_rf_t *a,
					   *b;

			tapas_rf_rank_ahead = ahead;
			ra[r] = fit(ev, NULL, 1, &a);
			tapas_rf_rank_ahead = 0;
			rb[r] = fit(ev, Xd, 1, &b);
			tapas_rf_rank_ahead = ahead;
			same &= same_forest(a, b);
			best_a = ra[r] < best_a ? ra[r] : best_a;
			best_b = rb[r] < best_b ? rb[r] : best_b;
			tapas_rf_free(a);
			tapas_rf_free(b);
		}
		setenv("BENCH_TREES", trees, 1);
		printf("one-tree fit (the ranking of the features), %d alternating runs:\n", 3 * reps);
		printf("  floats, rows fetched %d ahead: best %.4f s, median %.4f s CPU\n", ahead,
			   best_a, bench_median(ra, 3 * reps));
		printf("  doubles, no fetch ahead:       best %.4f s, median %.4f s CPU\n", best_b,
			   bench_median(rb, 3 * reps));
		printf("  ratio (best): %.2fx, (median): %.2fx\n", best_b / best_a,
			   bench_median(rb, 3 * reps) / bench_median(ra, 3 * reps));
	}
	printf("random forest fit, census Groundhog features (%zu training datasets of %zu records, %zu features, 100 trees)\n",
		   n_train, rows, ev->dim);
	printf("  tapas (bucket sweep):    best %.3f s, median %.3f s CPU\n",
		   best_now, bench_median(now, reps));
	printf("  baseline (sorted sweep): best %.3f s, median %.3f s CPU\n",
		   best_base, bench_median(base, reps));
	printf("  ratio (best): %.2fx; trees identical: %s\n", best_base / best_now,
		   same ? "yes" : "NO");
	{
		/* the whole fit, doubles against floats: the same trees */
		tapas_rf_t *a,
				   *b;

		fit(ev, NULL, 1, &a);
		fit(ev, Xd, 1, &b);
		same &= same_forest(a, b);
		printf("  100-tree forests on floats and on doubles identical: %s\n",
			   same_forest(a, b) ? "yes" : "NO");
		tapas_rf_free(a);
		tapas_rf_free(b);
	}
	free(Xd);
	tapas_shadow_eval_free(ev);
	return same ? 0 : 1;
}
