/*
 * t-distance_sum.c
 *	  Unit tests for the sum of distances (TAPAS_DISTANCE_SUM, distance.c)
 *	  and the attacks that take it (closest distance, local neighbourhood).
 *
 * Oracle: each term written out from its definition (Hamming as a count of
 * differing raw values, L_p over the encoded cells of the chosen columns,
 * weights and scale applied by hand), summed and scaled, then every scan
 * (pair, to_rows, min, count_within) and the attacks' scores recomputed by
 * brute force from those distances.  Random mixed datasets, random terms.
 */
#include <math.h>
#include <string.h>

#include "attacks/dataset.h"
#include "attacks/distance.h"
#include "attacks/score_attacks.h"
#include "util/memory.h"
#include "util/rng.h"
#include "mixed_dataset.h"
#include "tapas_test.h"

/* one term from its definition, on columns cols (mask) */
static double
term_oracle(const tapas_distance_t *t, const tapas_dataset_t *ds,
			const double *x, const double *xe, const double *y, const double *ye,
			const int *mask)
{
	double		sum = 0;
	size_t		j,
				k;

	for (j = 0; j < NC; j++)
	{
		double		w = t->weights ? t->weights[j] : 1.0;

		if (!mask[j])
			continue;
		if (t->kind == TAPAS_DISTANCE_HAMMING)
			sum += w * (x[j] != y[j]);
		else
			for (k = ds->offset[j]; k < ds->offset[j] + ds->width[j]; k++)
				sum += w * pow(fabs(xe[k] - ye[k]), t->p);
	}
	if (t->kind == TAPAS_DISTANCE_LP)
		sum = pow(sum, 1.0 / t->p);
	return (t->scale > 0 ? t->scale : 1.0) * sum;
}

typedef struct random_sum
{
	tapas_distance_t d;
	tapas_distance_t terms[3];
	size_t		cols[3][NC];
	int			mask[3][NC];
	double		weights[3][NC];
} random_sum;

/* a sum of 1..3 random Hamming / L_p terms, each with a random subset */
static void
draw_sum(tapas_rng_t *rng, random_sum *rs)
{
	size_t		k,
				j;

	memset(rs, 0, sizeof(*rs));
	rs->d.kind = TAPAS_DISTANCE_SUM;
	rs->d.n_terms = 1 + tapas_rng_below(rng, 3);
	rs->d.terms = rs->terms;
	rs->d.scale = tapas_rng_below(rng, 2) ? 0 : 0.5 + tapas_rng_uniform(rng);
	for (k = 0; k < rs->d.n_terms; k++)
	{
		tapas_distance_t *t = &rs->terms[k];
		int			subset = (int) tapas_rng_below(rng, 2);

		t->kind = tapas_rng_below(rng, 2) ? TAPAS_DISTANCE_HAMMING : TAPAS_DISTANCE_LP;
		t->p = tapas_rng_below(rng, 2) ? 2.0 : 1.0 + tapas_rng_uniform(rng) * 2;
		t->scale = tapas_rng_below(rng, 2) ? 0 : 0.25 + tapas_rng_uniform(rng);
		for (j = 0; j < NC; j++)
		{
			rs->mask[k][j] = !subset || tapas_rng_below(rng, 2);
			if (subset && rs->mask[k][j])
				rs->cols[k][t->ncolumns++] = j;
			rs->weights[k][j] = tapas_rng_uniform(rng) * 2;
		}
		if (subset)
			t->columns = rs->cols[k];
		if (tapas_rng_below(rng, 2))
			t->weights = rs->weights[k];
	}
}

static double
sum_oracle(const random_sum *rs, const tapas_dataset_t *ds, const double *x,
		   const double *xe, size_t i)
{
	double		total = 0;
	size_t		k;

	for (k = 0; k < rs->d.n_terms; k++)
		total += term_oracle(&rs->terms[k], ds, x, xe, ds->values + i * NC,
							 ds->encoded + i * ds->encoded_dim, rs->mask[k]);
	return (rs->d.scale > 0 ? rs->d.scale : 1.0) * total;
}

static int
close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

static void
test_scans_vs_oracle(void)
{
	tapas_rng_t rng;
	long		it,
				iters = tapas_test_iters(300);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 80),
					i,
					within = 0,
					got_within;
		tapas_dataset_t *ds = random_dataset(&rng, n);
		random_sum	rs;
		double		x[NC],
					xe[12],
				   *out = tapas_malloc(n * sizeof(double)),
					best = INFINITY,
					radius;

		draw_sum(&rng, &rs);
		if (it % 4 == 0)
			memcpy(x, ds->values + tapas_rng_below(&rng, n) * NC, sizeof(x));
		else
			random_record(&rng, x);
		tapas_dataset_encode_record(ds, x, xe);
		TAPAS_CHECK(tapas_distance_check(&rs.d, ds) == TAPAS_OK);
		TAPAS_CHECK(tapas_distance_needs_encoding(&rs.d) ==
					(rs.terms[0].kind == TAPAS_DISTANCE_LP ||
					 (rs.d.n_terms > 1 && rs.terms[1].kind == TAPAS_DISTANCE_LP) ||
					 (rs.d.n_terms > 2 && rs.terms[2].kind == TAPAS_DISTANCE_LP)));
		tapas_distance_to_rows(&rs.d, ds, x, xe, out);
		radius = tapas_rng_uniform(&rng) * 4;
		for (i = 0; i < n; i++)
		{
			double		want = sum_oracle(&rs, ds, x, xe, i);

			TAPAS_CHECK_MSG(close_to(out[i], want), "row %zu: %.17g, oracle %.17g",
							i, out[i], want);
			TAPAS_CHECK(close_to(tapas_distance_pair(&rs.d, ds, x, xe, ds->values + i * NC,
													 ds->encoded + i * ds->encoded_dim), want));
			if (want < best)
				best = want;
			within += want <= radius;
		}
		TAPAS_CHECK_MSG(close_to(tapas_distance_min(&rs.d, ds, x, xe), best),
						"min %.17g, oracle %.17g", tapas_distance_min(&rs.d, ds, x, xe), best);
		got_within = tapas_distance_count_within(&rs.d, ds, x, xe, radius);
		/* a distance within rounding of the radius may fall either side */
		TAPAS_CHECK_MSG(got_within == within || fabs((double) got_within - (double) within) <= 1,
						"within %zu, oracle %zu", got_within, within);
		tapas_free(out);
		tapas_dataset_free(ds);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/*
 * The attacks with a sum: closest distance MIA = -min, local neighbourhood
 * MIA = ball fraction, local neighbourhood AIA = the ball measured without
 * the sensitive column in every term.
 */
static void
test_attacks_vs_oracle(void)
{
	tapas_rng_t rng;
	long		it,
				iters = tapas_test_iters(100);
	size_t		s = 2;			/* categorical(2) */

	tapas_rng_seed(&rng, tapas_test_seed() + 7);
	for (it = 0; it < iters; it++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 60),
					i,
					k,
					ball = 0,
					ball_v[2] = {0, 0},
					inside = 0;
		tapas_dataset_t *ds = random_dataset(&rng, n);
		random_sum	rs,
					rs_s;
		double		x[NC],
					xe[12],
					score,
					scores[2],
					best = INFINITY,
					radius = tapas_rng_uniform(&rng) * 3;

		draw_sum(&rng, &rs);
		random_record(&rng, x);
		tapas_dataset_encode_record(ds, x, xe);
		/* the same sum with column s out of every term */
		rs_s = rs;
		rs_s.d.terms = rs_s.terms;
		for (k = 0; k < rs.d.n_terms; k++)
			rs_s.mask[k][s] = 0;
		for (i = 0; i < n; i++)
		{
			double		dv = sum_oracle(&rs, ds, x, xe, i),
						dw = sum_oracle(&rs_s, ds, x, xe, i);

			best = dv < best ? dv : best;
			ball += dv <= radius;
			if (dw <= radius)
			{
				ball_v[(size_t) ds->values[i * NC + s]]++;
				inside++;
			}
		}
		TAPAS_CHECK(tapas_closest_distance_mia(&rs.d, ds, x, xe, &score) == TAPAS_OK);
		TAPAS_CHECK(close_to(score, -best));
		TAPAS_CHECK(tapas_local_neighbourhood_mia(&rs.d, ds, x, xe, radius, &score) == TAPAS_OK);
		TAPAS_CHECK_MSG(fabs(score - (double) ball / (double) n) <= 1.0 / (double) n,
						"ball %g, oracle %g", score, (double) ball / (double) n);
		TAPAS_CHECK(tapas_local_neighbourhood_aia(&rs.d, ds, x, xe, s, radius, scores) == TAPAS_OK);
		if (inside == 0)
			TAPAS_CHECK(scores[0] == 0.5 && scores[1] == 0.5);
		else
			TAPAS_CHECK_MSG(fabs(scores[1] - (double) ball_v[1] / (double) inside) <=
							1.0 / (double) inside,
							"aia %g, oracle %g", scores[1], (double) ball_v[1] / (double) inside);
		tapas_dataset_free(ds);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* by hand: Hamming on column 0 plus 2 x L1 on column 1, all scaled by 3 */
static void
test_hand_and_invalid(void)
{
	double		v[2 * NC] = {0, -2, 0, 0, 0, 1, 2, 1, 3, 4};
	double		x[NC] = {1, 0, 0, 0, 0},
				xe[12];
	size_t		c0 = 0,
				c1 = 1;
	tapas_distance_t terms[2] = {
		{TAPAS_DISTANCE_HAMMING, 0, &c0, 1, NULL, 0, NULL, 0},
		{TAPAS_DISTANCE_LP, 1, &c1, 1, NULL, 2, NULL, 0}
	};
	tapas_distance_t d = {TAPAS_DISTANCE_SUM, 0, NULL, 0, NULL, 3, terms, 2};
	tapas_distance_t nested = {TAPAS_DISTANCE_SUM, 0, NULL, 0, NULL, 0, &d, 1};
	tapas_distance_t empty = {TAPAS_DISTANCE_SUM, 0, NULL, 0, NULL, 0, terms, 0};
	tapas_dataset_t *ds = tapas_dataset_from_values(2, NC, SPECS, v);

	tapas_dataset_encode(ds);
	tapas_dataset_encode_record(ds, x, xe);
	/* row 0: 1 + 2 * |0.5 - 0| = 2, times 3 = 6; row 1: 0 + 2 * 0.5 = 1 -> 3 */
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_OK);
	TAPAS_CHECK(close_to(tapas_distance_min(&d, ds, x, xe), 3));
	TAPAS_CHECK(tapas_distance_count_within(&d, ds, x, xe, 5.9) == 1);
	TAPAS_CHECK(tapas_distance_count_within(&d, ds, x, xe, 6) == 2);
	TAPAS_CHECK(tapas_distance_check(&nested, ds) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_distance_check(&empty, ds) == TAPAS_EINVAL);
	terms[1].p = -1;
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_scans_vs_oracle);
	TAPAS_TEST_RUN(test_attacks_vs_oracle);
	TAPAS_TEST_RUN(test_hand_and_invalid);
	TAPAS_TEST_DONE();
}
