/*
 * b-release_risk.c
 *	  Benchmark: the dataset-only release audit kernel on census50k, the
 *	  columnar Hamming scan against the row-at-a-time reference scan.
 *
 * Training table: the 50,000 census rows.  Synthetic table: 25,000 census
 * rows copied and 25,000 rows drawn from the census marginals (each column
 * from an independent random row).  Holdout: 10,000 rows from the marginals.
 * Default parameters (1,000 targets per side, 1,000 full-row predicates,
 * 200 bootstrap resamples), sensitive column Sex.  Prints the kernel time of
 * both scans, their ratio, and checks that every per-record result is the
 * same.  The end-to-end SQL figure is test/bench/b-release-risk-sql.sh.
 *
 * Environment: TAPAS_CENSUS (path prefix, default ../shared/data/census50k);
 * without the data the benchmark is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "census_load.h"
#include "attacks/dataset.h"
#include "attacks/release_risk.h"
#include "util/memory.h"
#include "util/rng.h"

#define NSYN 50000
#define NHOLD 10000

/* n rows: the first ncopy copied from c, the rest drawn from its marginals */
static tapas_dataset_t *
make_table(const census *c, const tapas_column_spec_t *specs, size_t n,
		   size_t ncopy, tapas_rng_t *rng)
{
	tapas_dataset_t *ds = tapas_dataset_create(n, c->m, specs);
	size_t		i,
				j;

	for (i = 0; i < n; i++)
	{
		size_t		r = tapas_rng_below(rng, c->n);

		for (j = 0; j < c->m; j++)
		{
			if (i >= ncopy)
				r = tapas_rng_below(rng, c->n);
			ds->values[i * c->m + j] = c->x[r * c->m + j];
		}
	}
	return ds;
}

static double
run(const tapas_dataset_t *r, const tapas_dataset_t *s,
	const tapas_dataset_t *h, const tapas_release_params_t *p,
	tapas_risk_summary_t *out, tapas_risk_record_t **rec, size_t *nrec)
{
	double		t0 = bench_seconds();

	if (tapas_release_risk(r, s, h, p, out, rec, nrec, NULL) != TAPAS_OK)
	{
		printf("b-release_risk: the audit failed\n");
		exit(1);
	}
	return bench_seconds() - t0;
}

int
main(void)
{
	const char *prefix = getenv("TAPAS_CENSUS") ? getenv("TAPAS_CENSUS") : "../shared/data/census50k";
	census		c;
	tapas_column_spec_t specs[CENSUS_MAX_COLS];
	tapas_dataset_t *real,
			   *syn,
			   *hold;
	tapas_release_params_t p;
	tapas_risk_summary_t o1[TAPAS_RISK_COUNT],
				o2[TAPAS_RISK_COUNT];
	tapas_risk_record_t *r1,
			   *r2;
	size_t		link_a[CENSUS_MAX_COLS],
				n1,
				n2,
				j,
				k,
				same = 0;
	tapas_rng_t rng;
	double		tc,
				tr;

	if (census_load(&c, prefix) != 0 && census_load(&c, "/work/shared/data/census50k") != 0)
	{
		printf("b-release_risk: %s.{csv,json} not readable, skipped\n", prefix);
		return 0;
	}
	for (j = 0; j < c.m; j++)
	{
		memset(&specs[j], 0, sizeof(specs[j]));
		specs[j].kind = TAPAS_COLUMN_CATEGORICAL;
		specs[j].cardinality = (size_t) c.ncat[j];
		link_a[j] = j;
	}
	real = tapas_dataset_from_values(c.n, c.m, specs, c.x);
	tapas_rng_seed(&rng, 1);
	syn = make_table(&c, specs, NSYN, NSYN / 2, &rng);
	hold = make_table(&c, specs, NHOLD, 0, &rng);

	memset(&p, 0, sizeof(p));
	p.distance.kind = TAPAS_DISTANCE_HAMMING;
	p.n_targets = 1000;
	p.n_predicates = 1000;
	p.link_a = link_a;
	p.n_link_a = c.m / 2 + c.m % 2;
	p.sensitive = 4;			/* Sex */
	p.tolerance = 0.01;
	p.confidence = 0.95;
	p.n_bootstrap = 200;
	p.seed = 0;

	tc = run(real, syn, hold, &p, o1, &r1, &n1);
	p.rowwise = 1;
	tr = run(real, syn, hold, &p, o2, &r2, &n2);
	for (k = 0; k < n1 && n1 == n2; k++)
		same += memcmp(&r1[k].value, &r2[k].value, sizeof(double)) == 0 &&
			r1[k].row == r2[k].row && r1[k].kind == r2[k].kind;
	for (k = 0; k < TAPAS_RISK_COUNT; k++)
		printf("%-20s real %.3f holdout %.3f baseline %.3f residual %.3f [%.3f, %.3f]\n",
			   tapas_risk_kind_name(k), o1[k].real.est, o1[k].holdout.est,
			   o1[k].baseline.est, o1[k].residual.est, o1[k].residual.low,
			   o1[k].residual.high);
	printf("release_risk kernel, %zu x %zu training, %d synthetic, %d holdout, hamming:\n",
		   c.n, c.m, NSYN, NHOLD);
	printf("  columnar scan %.2f s, row-wise scan %.2f s: %.1fx; %zu of %zu records identical\n",
		   tc, tr, tr / tc, same, n1);
	tapas_free(r1);
	tapas_free(r2);
	tapas_dataset_free(real);
	tapas_dataset_free(syn);
	tapas_dataset_free(hold);
	free(c.x);
	return same == n1 && n1 == n2 ? 0 : 1;
}
