/*
 * t-release_risk.c
 *	  Unit tests for src/attacks/release_stats.c and release_risk.c.
 *
 * Oracles: the Wilson bounds are checked as the roots of the score test
 * (p^ - p0)^2 = z^2 p0 (1 - p0) / n; the closer-than-holdout probability
 * against the O(n^2) pair count; the Katz interval against a hand-computed
 * case; per-record distances and exact copies against distance.c's scans
 * and a brute membership test.  Known answers on whole audits: a release
 * that copies half the real rows (high residual risk), one drawn from the
 * same distribution independently (residual interval reaching 0), and one
 * equal to the holdout (residual 0).
 */
#include <math.h>
#include <string.h>

#include "attacks/dataset.h"
#include "attacks/distance.h"
#include "attacks/release_risk.h"
#include "attacks/release_stats.h"
#include "util/memory.h"
#include "util/rng.h"
#include "mixed_dataset.h"
#include "tapas_test.h"

/* ----------------------------------------------------------------
 *		Statistics
 * ----------------------------------------------------------------
 */

static void
test_normal_z(void)
{
	TAPAS_CHECK(fabs(tapas_normal_two_sided_z(0.95) - 1.959963985) < 1e-8);
	TAPAS_CHECK(fabs(tapas_normal_two_sided_z(0.99) - 2.575829304) < 1e-8);
	TAPAS_CHECK(fabs(tapas_normal_two_sided_z(0.6826894921) - 1.0) < 1e-8);
}

static void
test_wilson_is_score_inversion(void)
{
	double		z = tapas_normal_two_sided_z(0.95);
	size_t		n,
				k;

	for (n = 1; n <= 60; n += 7)
		for (k = 0; k <= n; k++)
		{
			tapas_estimate_t e = tapas_wilson((double) k, (double) n, 0.95);
			double		ph = (double) k / (double) n,
						bounds[2] = {e.low, e.high};
			int			b;

			TAPAS_CHECK(e.low <= ph + 1e-12 && ph <= e.high + 1e-12);
			for (b = 0; b < 2; b++)
			{
				double		p0 = bounds[b];

				/* an endpoint at 0 or 1 solves the score equation too */
				TAPAS_CHECK_MSG(fabs((ph - p0) * (ph - p0) -
									 z * z * p0 * (1 - p0) / (double) n) < 1e-9,
								"k=%zu n=%zu bound %d", k, n, b);
			}
		}
	TAPAS_CHECK(tapas_wilson(0, 0, 0.95).low == 0 && tapas_wilson(0, 0, 0.95).high == 1);
}

static void
test_residual_risk(void)
{
	/* p_r = 0.6 (60/100), p_h = 0.2 (20/100): R = 0.4 / 0.8 = 0.5 */
	tapas_estimate_t e = tapas_residual_risk(60, 100, 20, 100, 0.95);
	double		z = tapas_normal_two_sided_z(0.95),
				lr = log(0.4 / 0.8),
				se = sqrt(1.0 / 40 - 1.0 / 100 + 1.0 / 80 - 1.0 / 100);

	TAPAS_CHECK(fabs(e.est - 0.5) < 1e-12);
	TAPAS_CHECK(fabs(e.low - (1 - exp(lr + z * se))) < 1e-12);
	TAPAS_CHECK(fabs(e.high - (1 - exp(lr - z * se))) < 1e-12);
	/* equal rates: 0, and the interval is clamped at 0 */
	e = tapas_residual_risk(30, 100, 30, 100, 0.95);
	TAPAS_CHECK(e.est == 0 && e.low == 0 && e.high > 0);
	/* the training side worse than the holdout: no attributable risk */
	e = tapas_residual_risk(0, 100, 50, 100, 0.95);
	TAPAS_CHECK(e.est == 0 && e.low == 0 && e.high == 0);
	/* every training trial succeeds, none on the holdout: finite, near 1 */
	e = tapas_residual_risk(100, 100, 0, 100, 0.95);
	TAPAS_CHECK(e.est == 1 && e.low > 0.9 && e.high == 1);
}

static void
test_closer_probability_vs_pairs(void)
{
	tapas_rng_t rng;
	long		it;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < tapas_test_iters(30); it++)
	{
		size_t		nr = 1 + tapas_rng_below(&rng, 40),
					nh = 1 + tapas_rng_below(&rng, 40),
					i,
					j;
		double		tr[40],
					th[40],
					pairs = 0;
		tapas_estimate_t a,
					g;

		for (i = 0; i < nr; i++)
			tr[i] = (double) tapas_rng_below(&rng, 5);
		for (j = 0; j < nh; j++)
			th[j] = (double) tapas_rng_below(&rng, 5);
		for (i = 0; i < nr; i++)
			for (j = 0; j < nh; j++)
				pairs += tr[i] < th[j] ? 1.0 : (tr[i] == th[j] ? 0.5 : 0.0);
		pairs /= (double) (nr * nh);
		TAPAS_CHECK(tapas_closer_probability(tr, nr, th, nh, 50, 0.9, &rng,
											 &a, &g) == TAPAS_OK);
		TAPAS_CHECK(fabs(a.est - pairs) < 1e-12);
		TAPAS_CHECK(a.low <= a.est && a.est <= a.high);
		TAPAS_CHECK(fabs(g.est - fmax(0, 2 * pairs - 1)) < 1e-12);
	}
	TAPAS_CHECK(tapas_closer_probability(NULL, 0, NULL, 0, 0, 0.9, &rng, NULL,
										 NULL) == TAPAS_EINVAL);
}

/* ----------------------------------------------------------------
 *		Audits with known answers
 * ----------------------------------------------------------------
 */

#define KC 6					/* categorical columns */
#define KCARD 6					/* codes per column */

static tapas_column_spec_t cat_specs[KC];

static void
fill_specs(void)
{
	size_t		j;

	for (j = 0; j < KC; j++)
	{
		cat_specs[j].kind = TAPAS_COLUMN_CATEGORICAL;
		cat_specs[j].cardinality = KCARD;
	}
}

/*
 * n rows: columns 0..4 uniform; column 5 (the sensitive one) equals
 * column 0 with probability 0.5, else uniform, so it is partly
 * predictable from the population.
 */
static tapas_dataset_t *
population(tapas_rng_t *rng, size_t n)
{
	tapas_dataset_t *ds = tapas_dataset_create(n, KC, cat_specs);
	size_t		i,
				j;

	for (i = 0; i < n; i++)
	{
		double	   *x = ds->values + i * KC;

		for (j = 0; j < KC - 1; j++)
			x[j] = (double) tapas_rng_below(rng, KCARD);
		x[KC - 1] = tapas_rng_below(rng, 2) ? x[0] : (double) tapas_rng_below(rng, KCARD);
	}
	return ds;
}

static void
default_params(tapas_release_params_t *p, const size_t *link_a)
{
	memset(p, 0, sizeof(*p));
	p->distance.kind = TAPAS_DISTANCE_HAMMING;
	p->n_targets = 300;
	p->n_predicates = 400;
	p->link_a = link_a;
	p->n_link_a = 3;
	p->sensitive = KC - 1;
	p->confidence = 0.95;
	p->n_bootstrap = 100;
	p->seed = 7;
}

static void
run(const tapas_dataset_t *r, const tapas_dataset_t *s,
	const tapas_dataset_t *h, double confidence, tapas_risk_summary_t *out)
{
	static const size_t link_a[3] = {0, 1, 2};
	tapas_release_params_t p;
	tapas_risk_record_t *rec;
	size_t		nrec;

	default_params(&p, link_a);
	p.confidence = confidence;
	TAPAS_CHECK(tapas_release_risk(r, s, h, &p, out, &rec, &nrec, NULL) == TAPAS_OK);
	tapas_free(rec);
}

static void
test_known_answers(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *r,
			   *h,
			   *fresh,
			   *half,
			   *copy;
	tapas_risk_summary_t out[TAPAS_RISK_COUNT];
	size_t		rows[300],
				i,
				k;

	fill_specs();
	tapas_rng_seed(&rng, tapas_test_seed());
	r = population(&rng, 600);
	h = population(&rng, 600);
	fresh = population(&rng, 600);
	/* half copied: 300 real rows and 300 fresh ones */
	for (i = 0; i < 300; i++)
		rows[i] = 2 * i;
	copy = tapas_dataset_select_rows(r, rows, 300);
	for (i = 0; i < 300; i++)
		rows[i] = i;
	{
		tapas_dataset_t *f = tapas_dataset_select_rows(fresh, rows, 300);

		half = tapas_dataset_concat(copy, f);
		tapas_dataset_free(f);
	}

	run(r, half, h, 0.95, out);
	/* about half the training targets have a copy, no holdout target */
	TAPAS_CHECK(out[TAPAS_RISK_EXACT_COPY].real.est > 0.35 &&
				out[TAPAS_RISK_EXACT_COPY].real.est < 0.65);
	TAPAS_CHECK(out[TAPAS_RISK_EXACT_COPY].holdout.est < 0.08);
	TAPAS_CHECK(out[TAPAS_RISK_EXACT_COPY].baseline.est < 0.05);
	for (k = 0; k < TAPAS_RISK_COUNT; k++)
	{
		TAPAS_CHECK(out[k].computed);
		if (getenv("T_VERBOSE"))
			printf("# %s real %g holdout %g baseline %g residual %g [%g, %g]\n",
				   tapas_risk_kind_name(k), out[k].real.est, out[k].holdout.est,
				   out[k].baseline.est, out[k].residual.est,
				   out[k].residual.low, out[k].residual.high);
		/* linkability needs ties on A broken right: a weaker signal */
		TAPAS_CHECK_MSG(out[k].residual.low >
						(k == TAPAS_RISK_LINKABILITY ? 0.01 : 0.15),
						"%s residual low %g",
						tapas_risk_kind_name(k), out[k].residual.low);
		TAPAS_CHECK(out[k].residual.low <= out[k].residual.est &&
					out[k].residual.est <= out[k].residual.high);
		TAPAS_CHECK(out[k].real.low <= out[k].real.est &&
					out[k].real.est <= out[k].real.high);
	}

	/* six intervals at once: 99.9% keeps a false alarm below 1% a seed */
	run(r, fresh, h, 0.999, out);
	for (k = 0; k < TAPAS_RISK_COUNT; k++)
		TAPAS_CHECK_MSG(out[k].residual.low == 0 && out[k].residual.est < 0.12,
						"independent: %s residual %g [%g, %g]",
						tapas_risk_kind_name(k), out[k].residual.est,
						out[k].residual.low, out[k].residual.high);
	/* the sensitive value is partly predictable from column 0 */
	TAPAS_CHECK(out[TAPAS_RISK_ATTRIBUTE_INFERENCE].holdout.est > 0.3);

	run(r, h, h, 0.95, out);
	for (k = 0; k < TAPAS_RISK_COUNT; k++)
		TAPAS_CHECK_MSG(out[k].residual.est == 0 && out[k].residual.low == 0,
						"holdout copy: %s residual %g", tapas_risk_kind_name(k),
						out[k].residual.est);
	TAPAS_CHECK(out[TAPAS_RISK_EXACT_COPY].holdout.est == 1);

	tapas_dataset_free(r);
	tapas_dataset_free(h);
	tapas_dataset_free(fresh);
	tapas_dataset_free(half);
	tapas_dataset_free(copy);
}

/* per-record dcr and exact copies against the distance kernels */
static void
test_records_vs_scans(void)
{
	tapas_rng_t rng;
	int			lp;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (lp = 0; lp < 3; lp++)
	{
		tapas_dataset_t *r = random_dataset(&rng, 80),
				   *s = random_dataset(&rng, 120),
				   *h = random_dataset(&rng, 70);
		static const size_t link_a[2] = {1, 3};
		tapas_release_params_t p;
		tapas_risk_summary_t out[TAPAS_RISK_COUNT];
		tapas_risk_record_t *rec;
		size_t		nrec,
					t,
					seen = 0;

		/* plant copies of some real rows */
		memcpy(s->values, r->values, sizeof(double) * NC * 10);
		TAPAS_CHECK(tapas_dataset_encode(r) == TAPAS_OK &&
					tapas_dataset_encode(s) == TAPAS_OK &&
					tapas_dataset_encode(h) == TAPAS_OK);
		default_params(&p, link_a);
		p.n_link_a = 2;
		p.sensitive = 0;
		p.n_targets = 50;
		if (lp)
		{
			p.distance.kind = TAPAS_DISTANCE_LP;
			p.distance.p = lp == 1 ? 2.0 : 3.0;
		}
		TAPAS_CHECK(tapas_release_risk(r, s, h, &p, out, &rec, &nrec, NULL) == TAPAS_OK);
		for (t = 0; t < nrec; t++)
		{
			const tapas_dataset_t *ds = rec[t].holdout ? h : r;
			const double *x = ds->values + rec[t].row * NC,
					   *xe = ds->encoded + rec[t].row * ds->encoded_dim;
			size_t		i;
			int			member = 0;

			for (i = 0; i < s->n && !member; i++)
				member = memcmp(s->values + i * NC, x, sizeof(double) * NC) == 0;
			if (rec[t].kind == TAPAS_RISK_DCR)
			{
				seen++;
				TAPAS_CHECK(fabs(rec[t].value - tapas_distance_min(&p.distance, s, x, xe)) < 1e-9);
			}
			if (rec[t].kind == TAPAS_RISK_EXACT_COPY)
				TAPAS_CHECK(rec[t].value == member);
			if (rec[t].kind == TAPAS_RISK_NNDR)
				TAPAS_CHECK(rec[t].value >= 0 && rec[t].value <= 1);
		}
		TAPAS_CHECK(seen == 100);
		tapas_free(rec);
		tapas_dataset_free(r);
		tapas_dataset_free(s);
		tapas_dataset_free(h);
	}
}

/* the columnar scans (Hamming, L2, L3) give exactly the row-wise scan's results */
static void
test_columnar_equals_rowwise(void)
{
	tapas_rng_t rng;
	long		it;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	for (it = 0; it < tapas_test_iters(30); it++)
	{
		tapas_dataset_t *r = random_dataset(&rng, 1 + tapas_rng_below(&rng, 60)),
				   *s = random_dataset(&rng, 1 + tapas_rng_below(&rng, 90)),
				   *h = random_dataset(&rng, 1 + tapas_rng_below(&rng, 60));
		static const size_t link_a[2] = {4, 1};
		tapas_release_params_t p;
		tapas_risk_summary_t o1[TAPAS_RISK_COUNT],
					o2[TAPAS_RISK_COUNT];
		tapas_risk_record_t *r1,
				   *r2;
		size_t		n1,
					n2,
					k;

		/* plant some copies so that distances 0 occur */
		memcpy(s->values, r->values, sizeof(double) * NC * (r->n < s->n ? r->n : s->n) / 2);
		default_params(&p, link_a);
		p.n_link_a = 2;
		p.sensitive = (long) (2 * tapas_rng_below(&rng, 3));	/* 0, 2 or 4 */
		p.n_targets = 40;
		p.n_predicates = 30;
		p.seed = (uint64_t) it;
		if (it % 3 > 0)
		{
			p.distance.kind = TAPAS_DISTANCE_LP;
			p.distance.p = it % 3 == 1 ? 2.0 : 3.0;
		}
		TAPAS_CHECK(tapas_dataset_encode(r) == TAPAS_OK &&
					tapas_dataset_encode(s) == TAPAS_OK);
		TAPAS_CHECK(tapas_release_risk(r, s, h, &p, o1, &r1, &n1, NULL) == TAPAS_OK);
		p.rowwise = 1;
		TAPAS_CHECK(tapas_release_risk(r, s, h, &p, o2, &r2, &n2, NULL) == TAPAS_OK);
		TAPAS_CHECK(n1 == n2);
		for (k = 0; k < n1 && k < n2; k++)
			TAPAS_CHECK_MSG(r1[k].row == r2[k].row && r1[k].kind == r2[k].kind &&
							r1[k].holdout == r2[k].holdout && r1[k].value == r2[k].value,
							"record %zu", k);
		for (k = 0; k < TAPAS_RISK_COUNT; k++)
			TAPAS_CHECK(o1[k].real.est == o2[k].real.est &&
						o1[k].holdout.est == o2[k].holdout.est &&
						o1[k].residual.low == o2[k].residual.low);
		tapas_free(r1);
		tapas_free(r2);
		tapas_dataset_free(r);
		tapas_dataset_free(s);
		tapas_dataset_free(h);
	}
}

/* L2 on categorical columns only takes the code scan: still identical */
static void
test_categorical_l2_equals_rowwise(void)
{
	static const size_t link_a[3] = {0, 1, 2};
	tapas_rng_t rng;
	tapas_dataset_t *r,
			   *s,
			   *h;
	tapas_release_params_t p;
	tapas_risk_summary_t o1[TAPAS_RISK_COUNT],
				o2[TAPAS_RISK_COUNT];
	tapas_risk_record_t *r1,
			   *r2;
	size_t		n1,
				n2,
				k,
				same = 0;

	fill_specs();
	tapas_rng_seed(&rng, tapas_test_seed() + 3);
	r = population(&rng, 200);
	s = population(&rng, 300);
	h = population(&rng, 150);
	memcpy(s->values, r->values, sizeof(double) * KC * 100);
	TAPAS_CHECK(tapas_dataset_encode(r) == TAPAS_OK && tapas_dataset_encode(s) == TAPAS_OK &&
				tapas_dataset_encode(h) == TAPAS_OK);
	default_params(&p, link_a);
	p.distance.kind = TAPAS_DISTANCE_LP;
	p.distance.p = 2;
	TAPAS_CHECK(tapas_release_risk(r, s, h, &p, o1, &r1, &n1, NULL) == TAPAS_OK);
	p.rowwise = 1;
	TAPAS_CHECK(tapas_release_risk(r, s, h, &p, o2, &r2, &n2, NULL) == TAPAS_OK);
	TAPAS_CHECK(n1 == n2);
	for (k = 0; k < n1 && n1 == n2; k++)
		same += r1[k].row == r2[k].row && r1[k].kind == r2[k].kind &&
			r1[k].value == r2[k].value;
	TAPAS_CHECK(same == n1);
	for (k = 0; k < TAPAS_RISK_COUNT; k++)
		TAPAS_CHECK(o1[k].real.est == o2[k].real.est && o1[k].residual.est == o2[k].residual.est);
	tapas_free(r1);
	tapas_free(r2);
	tapas_dataset_free(r);
	tapas_dataset_free(s);
	tapas_dataset_free(h);
}

static void
test_bad_params(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *r,
			   *s;
	static const size_t link_a[1] = {0};
	tapas_release_params_t p;
	tapas_risk_summary_t out[TAPAS_RISK_COUNT];
	tapas_risk_record_t *rec;
	size_t		nrec;

	tapas_rng_seed(&rng, tapas_test_seed());
	r = random_dataset(&rng, 20);
	s = random_dataset(&rng, 20);
	default_params(&p, link_a);
	p.n_link_a = 1;
	p.sensitive = 1;			/* continuous */
	TAPAS_CHECK(tapas_release_risk(r, s, r, &p, out, &rec, &nrec, NULL) == TAPAS_EINVAL);
	p.sensitive = 0;
	p.confidence = 1;
	TAPAS_CHECK(tapas_release_risk(r, s, r, &p, out, &rec, &nrec, NULL) == TAPAS_EINVAL);
	p.confidence = 0.9;
	p.distance.kind = TAPAS_DISTANCE_LP;
	p.distance.p = 2;
	{
		tapas_dataset_t *plain = tapas_dataset_from_values(20, NC, SPECS, r->values);

		/* not encoded */
		TAPAS_CHECK(tapas_release_risk(plain, s, plain, &p, out, &rec, &nrec, NULL) == TAPAS_EINVAL);
		tapas_dataset_free(plain);
	}
	p.distance.kind = TAPAS_DISTANCE_HAMMING;
	{
		tapas_progress_t cancel = {tapas_test_cancel, NULL};

		TAPAS_CHECK(tapas_release_risk(r, s, r, &p, out, &rec, &nrec, &cancel) == TAPAS_ECANCELED);
		TAPAS_CHECK(rec == NULL && nrec == 0);
	}
	/* allocation failures leak nothing */
	{
		long		live = tapas_memory_live(),
					f;

		for (f = 0; f < 30; f++)
		{
			tapas_status st;

			tapas_memory_fail_after(f);
			st = tapas_release_risk(r, s, r, &p, out, &rec, &nrec, NULL);
			tapas_memory_fail_after(-1);
			if (st == TAPAS_OK)
				tapas_free(rec);
			else
				TAPAS_CHECK(st == TAPAS_ENOMEM);
			TAPAS_CHECK(tapas_memory_live() == live);
		}
	}
	tapas_dataset_free(r);
	tapas_dataset_free(s);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_normal_z);
	TAPAS_TEST_RUN(test_wilson_is_score_inversion);
	TAPAS_TEST_RUN(test_residual_risk);
	TAPAS_TEST_RUN(test_closer_probability_vs_pairs);
	TAPAS_TEST_RUN(test_known_answers);
	TAPAS_TEST_RUN(test_records_vs_scans);
	TAPAS_TEST_RUN(test_columnar_equals_rowwise);
	TAPAS_TEST_RUN(test_categorical_l2_equals_rowwise);
	TAPAS_TEST_RUN(test_bad_params);
	TAPAS_TEST_DONE();
}
