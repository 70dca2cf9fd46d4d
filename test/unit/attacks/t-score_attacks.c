/*
 * t-score_attacks.c
 *	  Unit tests for closest_distance.c, local_neighbourhood.c and
 *	  synthetic_predictor.c (the functions of score_attacks.h).
 *
 * Oracles: hand-computed scores on 4-row datasets, brute-force Hamming on
 * random data, and logistic regression on separable data (the predicted
 * class must be right with high probability).
 */
#include <math.h>
#include <string.h>

#include "attacks/dataset.h"
#include "attacks/random_forest.h"
#include "attacks/score_attacks.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

/* columns: a (categorical 3), s (categorical 2), z (continuous [0, 1]) */
static const tapas_column_spec_t SPECS[3] = {
	{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CATEGORICAL, 2, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 1},
};
static const double ROWS[4 * 3] = {
	0, 0, 0.0,
	0, 1, 0.5,
	1, 1, 1.0,
	2, 0, 1.0,
};

static tapas_dataset_t *
toy(void)
{
	tapas_dataset_t *ds = tapas_dataset_from_values(4, 3, SPECS, ROWS);

	tapas_dataset_encode(ds);
	return ds;
}

static void
test_closest_distance_mia(void)
{
	tapas_dataset_t *ds = toy();
	tapas_distance_t ham = {TAPAS_DISTANCE_HAMMING, 0, NULL, 0, NULL, 0, NULL, 0};
	tapas_distance_t l1 = {TAPAS_DISTANCE_LP, 1, NULL, 0, NULL, 0, NULL, 0};
	double		in[3] = {1, 1, 1.0},
				out[3] = {1, 0, 0.25},
				enc[6],
				score;

	tapas_closest_distance_mia(&ham, ds, in, NULL, &score);
	TAPAS_CHECK(score == 0);
	tapas_closest_distance_mia(&ham, ds, out, NULL, &score);
	TAPAS_CHECK_MSG(score == -2, "score %g", score);	/* row 0 differs on a, z */
	/* L1: row 0 = 2 (one-hot a) + 0.25 = 2.25; row 2: 2 (s) + 0.75 */
	tapas_dataset_encode_record(ds, out, enc);
	tapas_closest_distance_mia(&l1, ds, out, enc, &score);
	TAPAS_CHECK_MSG(fabs(score + 2.25) < 1e-12, "score %g", score);
	tapas_dataset_free(ds);
}

static void
test_closest_distance_aia(void)
{
	tapas_dataset_t *ds = toy();
	tapas_distance_t ham = {TAPAS_DISTANCE_HAMMING, 0, NULL, 0, NULL, 0, NULL, 0};
	double		x[3] = {2, 1, 1.0},	/* its s is ignored */
				sc[2];

	/* x|0 = row 3 (d 0); x|1: rows 2 and 3 at distance 1 -> d = (0, 1) */
	TAPAS_CHECK(tapas_closest_distance_aia(&ham, ds, x, 1, sc) == TAPAS_OK);
	TAPAS_CHECK_MSG(sc[0] == 0 && sc[1] == -1, "%g %g", sc[0], sc[1]);
	/* a = 0, z = 0.25: x|0 -> row 0 (1); x|1 -> row 1 (1): tie = -1/2 each */
	x[0] = 0;
	x[2] = 0.25;
	tapas_closest_distance_aia(&ham, ds, x, 1, sc);
	TAPAS_CHECK(sc[0] == -0.5 && sc[1] == -0.5);
	/* sensitive must be categorical */
	TAPAS_CHECK(tapas_closest_distance_aia(&ham, ds, x, 2, sc) == TAPAS_EINVAL);
	tapas_dataset_free(ds);
}

static void
test_local_neighbourhood(void)
{
	tapas_dataset_t *ds = toy();
	tapas_distance_t ham = {TAPAS_DISTANCE_HAMMING, 0, NULL, 0, NULL, 0, NULL, 0};
	double		x[3] = {0, 1, 1.0},
				score,
				sc[2];

	/* Hamming from x to the rows: 2, 1, 1, 2 */
	tapas_local_neighbourhood_mia(&ham, ds, x, NULL, 1, &score);
	TAPAS_CHECK_MSG(score == 0.5, "score %g", score);
	tapas_local_neighbourhood_mia(&ham, ds, x, NULL, 2, &score);
	TAPAS_CHECK(score == 1);
	tapas_local_neighbourhood_mia(&ham, ds, x, NULL, 0, &score);
	TAPAS_CHECK(score == 0);
	/* AIA ignores s: x = (0, ?, 0) is at (a, z) distance 0, 1, 2, 2 */
	x[2] = 0.0;
	tapas_local_neighbourhood_aia(&ham, ds, x, NULL, 1, 0, sc);
	TAPAS_CHECK_MSG(sc[0] == 1 && sc[1] == 0, "%g %g", sc[0], sc[1]);
	tapas_local_neighbourhood_aia(&ham, ds, x, NULL, 1, 1, sc);
	TAPAS_CHECK(sc[0] == 0.5 && sc[1] == 0.5);
	tapas_local_neighbourhood_aia(&ham, ds, x, NULL, 1, 2, sc);
	TAPAS_CHECK(sc[0] == 0.5 && sc[1] == 0.5);
	/* an empty ball gives 1/k */
	x[0] = 2;
	x[2] = 0.5;
	tapas_local_neighbourhood_aia(&ham, ds, x, NULL, 1, 0, sc);
	TAPAS_CHECK(sc[0] == 0.5 && sc[1] == 0.5);
	TAPAS_CHECK(tapas_local_neighbourhood_mia(&ham, ds, x, NULL, -1, &score) ==
				TAPAS_EINVAL);
	tapas_dataset_free(ds);
}

/* s = a mod 2 on 200 rows with noise columns: the predictor must learn it */
static void
test_synthetic_predictor_separable(void)
{
	tapas_column_spec_t specs[3] = {{TAPAS_COLUMN_CATEGORICAL, 4, 0, 0},
	{TAPAS_COLUMN_CATEGORICAL, 2, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 1}};
	tapas_dataset_t *ds = tapas_dataset_create(200, 3, specs);
	tapas_rng_t rng;
	double		targets[4 * 3],
				tenc[4 * 7],
				sc[4 * 2];
	size_t		i,
				a;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < 200; i++)
	{
		ds->values[3 * i] = (double) tapas_rng_below(&rng, 4);
		ds->values[3 * i + 1] = (double) ((size_t) ds->values[3 * i] % 2);
		ds->values[3 * i + 2] = tapas_rng_uniform(&rng);
	}
	tapas_dataset_encode(ds);
	for (a = 0; a < 4; a++)
	{
		targets[3 * a] = (double) a;
		targets[3 * a + 1] = 0;	/* ignored */
		targets[3 * a + 2] = 0.5;
		tapas_dataset_encode_record(ds, targets + 3 * a, tenc + 7 * a);
	}
	TAPAS_CHECK(tapas_synthetic_predictor_aia(ds, 1, 100.0, tenc, 4, sc, NULL) ==
				TAPAS_OK);
	for (a = 0; a < 4; a++)
	{
		TAPAS_CHECK_MSG(sc[2 * a + a % 2] > 0.9, "target %zu: %g %g", a,
						sc[2 * a], sc[2 * a + 1]);
		TAPAS_CHECK(fabs(sc[2 * a] + sc[2 * a + 1] - 1) < 1e-9);
	}
	/* one class only */
	for (i = 0; i < 200; i++)
		ds->values[3 * i + 1] = 1;
	tapas_dataset_encode(ds);
	tapas_synthetic_predictor_aia(ds, 1, 1.0, tenc, 1, sc, NULL);
	TAPAS_CHECK(sc[0] == 0 && sc[1] == 1);
	TAPAS_CHECK(tapas_synthetic_predictor_aia(ds, 2, 1.0, tenc, 1, sc, NULL) ==
				TAPAS_EINVAL);
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* three classes: each of a = 0, 1, 2 determines s = a */
static void
test_synthetic_predictor_multiclass(void)
{
	tapas_column_spec_t specs[2] = {{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CATEGORICAL, 4, 0, 0}};
	tapas_dataset_t *ds = tapas_dataset_create(90, 2, specs);
	double		tenc[7],
				t[2] = {2, 0},
				sc[4];
	size_t		i;

	for (i = 0; i < 90; i++)
	{
		ds->values[2 * i] = (double) (i % 3);
		ds->values[2 * i + 1] = (double) (i % 3);
	}
	tapas_dataset_encode(ds);
	tapas_dataset_encode_record(ds, t, tenc);
	tapas_synthetic_predictor_aia(ds, 1, 10.0, tenc, 1, sc, NULL);
	TAPAS_CHECK_MSG(sc[2] > sc[0] && sc[2] > sc[1] && sc[3] == 0,
					"%g %g %g %g", sc[0], sc[1], sc[2], sc[3]);
	tapas_dataset_free(ds);
}

/*
 * The random-forest predictor on the same known answers: s = a mod 2
 * (binary), s = a (three classes, one code absent), one class only; and an
 * exact oracle: without bootstrap and with every feature tried, each tree
 * is the same CART tree, which separates the classes, so P = 0 or 1.
 */
/* the fractions a progress callback is polled with: each above the last, in [0, 1) */
typedef struct FractionLog
{
	int			calls;
	double		last;
	int			ok;
} FractionLog;

static int
log_fraction(void *arg, double fraction)
{
	FractionLog *fl = (FractionLog *) arg;

	if (fl->calls == 0)
		fl->ok = 1;
	fl->ok &= fraction > fl->last && fraction >= 0 && fraction < 1;
	fl->last = fraction;
	fl->calls++;
	return 0;
}

static void
test_synthetic_predictor_rf(void)
{
	tapas_column_spec_t specs[3] = {{TAPAS_COLUMN_CATEGORICAL, 4, 0, 0},
	{TAPAS_COLUMN_CATEGORICAL, 4, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 1}};
	tapas_dataset_t *ds = tapas_dataset_create(240, 3, specs);
	tapas_rf_params_t rp;
	tapas_rng_t rng;
	double		targets[4 * 3],
				tenc[4 * 9],
				sc[4 * 4];
	size_t		i,
				a,
				v;
	int			multi;

	tapas_rf_params_default(&rp);
	rp.n_trees = 30;
	tapas_rng_seed(&rng, tapas_test_seed());
	for (multi = 0; multi < 2; multi++)
	{
		for (i = 0; i < 240; i++)
		{
			size_t		x = (size_t) tapas_rng_below(&rng, multi ? 3 : 4);

			ds->values[3 * i] = (double) x;
			ds->values[3 * i + 1] = (double) (multi ? x : x % 2);
			ds->values[3 * i + 2] = tapas_rng_uniform(&rng);
		}
		tapas_dataset_encode(ds);
		for (a = 0; a < 4; a++)
		{
			targets[3 * a] = (double) (multi ? a % 3 : a);
			targets[3 * a + 1] = 0;	/* ignored */
			targets[3 * a + 2] = 0.5;
			tapas_dataset_encode_record(ds, targets + 3 * a, tenc + 9 * a);
		}
		TAPAS_CHECK(tapas_synthetic_predictor_rf_aia(ds, 1, &rp, 7, tenc, 4, sc, NULL) == TAPAS_OK);
		{
			/* polled once per tree of every forest, fractions rising to 1 */
			FractionLog fl = {0, -1.0, 0};
			tapas_progress_t log = {log_fraction, &fl};
			tapas_progress_t cancel = {tapas_test_cancel, NULL};
			double		sc2[16];

			TAPAS_CHECK(tapas_synthetic_predictor_rf_aia(ds, 1, &rp, 7, tenc, 4, sc2, &log) == TAPAS_OK);
			TAPAS_CHECK(memcmp(sc, sc2, sizeof(sc2)) == 0);
			TAPAS_CHECK_MSG(fl.calls == (multi ? 3 : 1) * rp.n_trees && fl.ok &&
							fl.last < 1.0 && fl.last >= 1.0 - 1.0 / rp.n_trees / (multi ? 3 : 1) - 1e-12,
							"multi %d: %d polls, last %g, ok %d", multi, fl.calls, fl.last, fl.ok);
			TAPAS_CHECK(tapas_synthetic_predictor_rf_aia(ds, 1, &rp, 7, tenc, 4, sc2, &cancel) ==
						TAPAS_ECANCELED);
		}
		for (a = 0; a < 4; a++)
		{
			size_t		want = multi ? a % 3 : a % 2;
			double		sum = 0;

			for (v = 0; v < 4; v++)
				sum += sc[4 * a + v];
			TAPAS_CHECK_MSG(sc[4 * a + want] > 0.9, "multi %d target %zu: %g", multi, a,
							sc[4 * a + want]);
			TAPAS_CHECK(fabs(sum - 1) < 1e-9);
			TAPAS_CHECK(sc[4 * a + 3] == 0);	/* code 3 never occurs */
		}
	}
	/* exact: one deterministic tree */
	rp.n_trees = 1;
	rp.bootstrap = 0;
	rp.max_features = 8;
	TAPAS_CHECK(tapas_synthetic_predictor_rf_aia(ds, 1, &rp, 1, tenc, 4, sc, NULL) == TAPAS_OK);
	for (a = 0; a < 4; a++)
		TAPAS_CHECK(sc[4 * a + a % 3] == 1.0);
	/* one class only */
	for (i = 0; i < 240; i++)
		ds->values[3 * i + 1] = 2;
	tapas_dataset_encode(ds);
	TAPAS_CHECK(tapas_synthetic_predictor_rf_aia(ds, 1, &rp, 1, tenc, 1, sc, NULL) == TAPAS_OK);
	TAPAS_CHECK(sc[2] == 1 && sc[0] == 0 && sc[1] == 0 && sc[3] == 0);
	TAPAS_CHECK(tapas_synthetic_predictor_rf_aia(ds, 2, &rp, 1, tenc, 1, sc, NULL) == TAPAS_EINVAL);
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_closest_distance_mia);
	TAPAS_TEST_RUN(test_closest_distance_aia);
	TAPAS_TEST_RUN(test_local_neighbourhood);
	TAPAS_TEST_RUN(test_synthetic_predictor_separable);
	TAPAS_TEST_RUN(test_synthetic_predictor_multiclass);
	TAPAS_TEST_RUN(test_synthetic_predictor_rf);
	TAPAS_TEST_DONE();
}
