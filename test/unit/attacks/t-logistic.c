/*
 * t-logistic.c
 *	  Unit tests for src/attacks/logistic.c.
 *
 * Oracles:
 * - liblinear's own train() (L2R_LR, the solver tapas used before, same
 *   objective) on the same rows, its bias node appended explicitly.  The
 *   tolerance is a proof, not a guess: f is 1-strongly convex (Hess >= I),
 *   so any w lies within ||grad f(w)|| of the minimiser w*, and two
 *   solutions a, b satisfy ||a - b|| <= ||grad f(a)|| + ||grad f(b)||,
 *   both gradients recomputed here by the textbook formula.
 * - The optimality condition: that recomputed gradient meets the stopping
 *   rule of logistic.h.
 * - The dense, standardised-on-the-fly and sparse layouts of the same data
 *   give the same fit.
 * Degenerate inputs (separable rows, a constant feature, one class only,
 * zero gradient at 0, no rows, bad labels, non-finite values), allocation
 * failure at every allocation and cancellation at every poll.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linear.h>

#include "attacks/logistic.h"
#include "util/memory.h"
#include "tapas_test.h"

/* a test problem: dense features, the sparse copy built from them */
typedef struct Prob
{
	size_t		n,
				d;
	double	   *X;
	int		   *y;
	size_t	   *row_start;
	uint32_t   *col;
	double	   *val;
} Prob;

static void
prob_sparse(Prob *P)
{
	size_t		i,
				j,
				k = 0;

	P->row_start = malloc((P->n + 1) * sizeof(size_t));
	P->col = malloc((P->n * P->d + 1) * sizeof(uint32_t));
	P->val = malloc((P->n * P->d + 1) * sizeof(double));
	for (i = 0; i < P->n; i++)
	{
		P->row_start[i] = k;
		for (j = 0; j < P->d; j++)
			if (P->X[i * P->d + j] != 0)
			{
				P->col[k] = (uint32_t) j;
				P->val[k++] = P->X[i * P->d + j];
			}
	}
	P->row_start[P->n] = k;
}

/*
 * n rows of d features: about a third zero (sparse-ish), the rest normal
 * with column scales 1..4 and offsets; labels from a noisy linear rule.
 */
static Prob
prob_random(tapas_rng_t *rng, size_t n, size_t d, double noise)
{
	Prob		P;
	size_t		i,
				j;

	P.n = n;
	P.d = d;
	P.X = malloc(n * d * sizeof(double));
	P.y = malloc(n * sizeof(int));
	for (i = 0; i < n; i++)
	{
		double		z = 0.3;

		for (j = 0; j < d; j++)
		{
			double		x = tapas_rng_uniform(rng) < 0.33 ? 0.0 :
				(1.0 + (double) (j % 4)) * tapas_rng_normal(rng) + 0.1 * (double) (j % 3);

			P.X[i * d + j] = x;
			z += (j % 2 ? 0.7 : -0.4) * x / (1.0 + (double) (j % 4));
		}
		P.y[i] = z + noise * tapas_rng_normal(rng) > 0;
	}
	prob_sparse(&P);
	return P;
}

static void
prob_free(Prob *P)
{
	free(P->X);
	free(P->y);
	free(P->row_start);
	free(P->col);
	free(P->val);
}

static tapas_logit_data_t
dense_data(const Prob *P, double bias)
{
	tapas_logit_data_t D;

	memset(&D, 0, sizeof(D));
	D.n = P->n;
	D.d = P->d;
	D.X = P->X;
	D.y = P->y;
	D.bias = bias;
	return D;
}

static tapas_logit_data_t
sparse_data(const Prob *P, double bias)
{
	tapas_logit_data_t D = dense_data(P, bias);

	D.X = NULL;
	D.row_start = P->row_start;
	D.col = P->col;
	D.val = P->val;
	return D;
}

/* ||grad f(w)|| by the textbook formula, on feature (x - shift) * scale */
static double
ref_gradient_norm(const Prob *P, const double *shift, const double *scale,
				  double bias, double C, const double *w)
{
	size_t		dim = P->d + (bias > 0),
				i,
				j;
	double	   *g = malloc(dim * sizeof(double)),
			   *x = malloc(dim * sizeof(double)),
				s = 0;

	memcpy(g, w, dim * sizeof(double));
	for (i = 0; i < P->n; i++)
	{
		double		y = P->y[i] ? 1 : -1,
					z = 0,
					c;

		for (j = 0; j < P->d; j++)
			x[j] = (P->X[i * P->d + j] - (shift ? shift[j] : 0)) * (scale ? scale[j] : 1);
		if (bias > 0)
			x[P->d] = bias;
		for (j = 0; j < dim; j++)
			z += w[j] * x[j];
		/* d/dz C log(1 + exp(-y z)) = -C y / (1 + exp(y z)) */
		c = -C * y / (1 + exp(y * z));
		for (j = 0; j < dim; j++)
			g[j] += c * x[j];
	}
	for (j = 0; j < dim; j++)
		s += g[j] * g[j];
	free(g);
	free(x);
	return sqrt(s);
}

static void
quiet(const char *s)
{
	(void) s;
}

/* liblinear's L2R_LR fit of the same problem into w (dim), +1 = label 1 */
static int
liblinear_fit(const Prob *P, double bias, double C, double eps, double *w)
{
	struct feature_node *pool = malloc(P->n * (P->d + 2) * sizeof(*pool));
	struct feature_node **rows = malloc(P->n * sizeof(*rows));
	double	   *labels = malloc(P->n * sizeof(double));
	struct problem prob;
	struct parameter param;
	struct model *model;
	size_t		i,
				j,
				k = 0,
				dim = P->d + (bias > 0);

	for (i = 0; i < P->n; i++)
	{
		rows[i] = pool + k;
		for (j = 0; j < P->d; j++)
			if (P->X[i * P->d + j] != 0)
			{
				pool[k].index = (int) j + 1;
				pool[k++].value = P->X[i * P->d + j];
			}
		if (bias > 0)
		{
			/* train() does not append the bias node: its caller does */
			pool[k].index = (int) P->d + 1;
			pool[k++].value = bias;
		}
		pool[k++].index = -1;
		labels[i] = P->y[i];
	}
	memset(&prob, 0, sizeof(prob));
	prob.l = (int) P->n;
	prob.n = (int) dim;
	prob.y = labels;
	prob.x = rows;
	prob.bias = bias > 0 ? bias : -1;
	memset(&param, 0, sizeof(param));
	param.solver_type = L2R_LR;
	param.C = C;
	param.eps = eps;
	set_print_string_function(quiet);
	model = train(&prob, &param);
	if (model == NULL)
		return 0;
	for (j = 0; j < dim; j++)
		w[j] = model->label[0] == 1 ? model->w[j] : -model->w[j];
	free_and_destroy_model(&model);
	free(pool);
	free(rows);
	free(labels);
	return 1;
}

static double
dist(const double *a, const double *b, size_t n)
{
	double		s = 0;
	size_t		j;

	for (j = 0; j < n; j++)
		s += (a[j] - b[j]) * (a[j] - b[j]);
	return sqrt(s);
}

/* the stopping threshold of logistic.h for problem P at tolerance tol */
static double
goal(const Prob *P, double bias, double C, double tol)
{
	size_t		i,
				pos = 0,
				small;
	double	   *zero = calloc(P->d + 1, sizeof(double)),
				g0 = ref_gradient_norm(P, NULL, NULL, bias, C, zero);

	for (i = 0; i < P->n; i++)
		pos += (size_t) P->y[i];
	small = pos < P->n - pos ? pos : P->n - pos;
	free(zero);
	return tol * (double) (small > 1 ? small : 1) / (double) P->n * g0;
}

/*
 * Fits P with both layouts and liblinear; checks the gradient rule and the
 * strong-convexity bound against liblinear at a tight eps.
 */
static void
check_against_liblinear(const Prob *P, double bias, double C)
{
	size_t		dim = P->d + (bias > 0);
	double	   *w = malloc(dim * sizeof(double)),
			   *ws = malloc(dim * sizeof(double)),
			   *wl = malloc(dim * sizeof(double)),
				gw,
				gl,
				limit = goal(P, bias, C, 1e-4);
	tapas_logit_data_t D = dense_data(P, bias),
				S = sparse_data(P, bias);
	tapas_logit_info_t info;

	TAPAS_CHECK(tapas_logit_fit(w, &D, C, 1e-4, &info, NULL) == TAPAS_OK);
	TAPAS_CHECK_MSG(info.converged, "n %zu d %zu C %g: %d Newton", P->n, P->d, C, info.newton);
	gw = ref_gradient_norm(P, NULL, NULL, bias, C, w);
	/* the kernel's own gradient is the textbook one (to rounding) */
	TAPAS_CHECK_MSG(gw <= limit * (1 + 1e-6) + 1e-12 && fabs(gw - info.gnorm) <= 1e-7 * (1 + info.gnorm0),
					"gradient %g, kernel %g, rule %g", gw, info.gnorm, limit);
	TAPAS_CHECK(tapas_logit_fit(ws, &S, C, 1e-4, NULL, NULL) == TAPAS_OK);
	TAPAS_CHECK_MSG(dist(w, ws, dim) <= gw + ref_gradient_norm(P, NULL, NULL, bias, C, ws) + 1e-12,
					"dense and sparse fits %g apart", dist(w, ws, dim));
	TAPAS_CHECK(liblinear_fit(P, bias, C, 1e-8, wl));
	gl = ref_gradient_norm(P, NULL, NULL, bias, C, wl);
	/* gw <= limit was checked: so this bounds the distance by the rule */
	TAPAS_CHECK_MSG(dist(w, wl, dim) <= fmin(gw, limit * (1 + 1e-6)) + gl + 1e-12,
					"n %zu d %zu C %g: |w - liblinear| %g > %g + %g", P->n, P->d, C,
					dist(w, wl, dim), gw, gl);
	/* liblinear at tapas's old tolerance meets the same bound */
	TAPAS_CHECK(liblinear_fit(P, bias, C, 1e-4, wl));
	gl = ref_gradient_norm(P, NULL, NULL, bias, C, wl);
	TAPAS_CHECK(dist(w, wl, dim) <= gw + gl + 1e-12);
	free(w);
	free(ws);
	free(wl);
}

static void
test_logit_random_vs_liblinear(void)
{
	tapas_rng_t rng;
	long		t,
				iters = tapas_test_iters(12);
	static const double Cs[] = {0.01, 1.0, 100.0};

	tapas_rng_seed(&rng, tapas_test_seed());
	for (t = 0; t < iters; t++)
	{
		size_t		n = 5 + tapas_rng_below(&rng, 300),
					d = 1 + tapas_rng_below(&rng, 40);
		Prob		P = prob_random(&rng, n, d, 0.5 + tapas_rng_uniform(&rng));

		check_against_liblinear(&P, t % 2 ? 1.0 : 0.0, Cs[t % 3]);
		prob_free(&P);
	}
}

/* the on-the-fly standardisation equals fitting a standardised copy */
static void
test_logit_standardised(void)
{
	tapas_rng_t rng;
	Prob		P,
				Q;
	double		shift[6],
				scale[6],
				w[7],
				wq[7];
	size_t		i,
				j;
	tapas_logit_data_t D,
				E;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	P = prob_random(&rng, 200, 6, 1.0);
	Q = P;
	Q.X = malloc(P.n * P.d * sizeof(double));
	for (j = 0; j < P.d; j++)
	{
		shift[j] = 0.5 * (double) j - 1;
		scale[j] = j == 3 ? 0.0 : 1.0 / (1.0 + (double) j);
		for (i = 0; i < P.n; i++)
			Q.X[i * P.d + j] = (P.X[i * P.d + j] - shift[j]) * scale[j];
	}
	D = dense_data(&P, 1.0);
	D.shift = shift;
	D.scale = scale;
	E = dense_data(&Q, 1.0);
	TAPAS_CHECK(tapas_logit_fit(w, &D, 1.0, 1e-4, NULL, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_logit_fit(wq, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_OK);
	TAPAS_CHECK(dist(w, wq, 7) <= ref_gradient_norm(&P, shift, scale, 1.0, 1.0, w) +
				ref_gradient_norm(&Q, NULL, NULL, 1.0, 1.0, wq) + 1e-12);
	/* a feature scaled to 0 carries no information and gets weight 0 */
	TAPAS_CHECK_MSG(w[3] == 0.0, "w[3] = %g", w[3]);
	free(Q.X);
	prob_free(&P);
}

/* separable rows: the regularised optimum is finite and classifies all */
static void
test_logit_separable(void)
{
	tapas_rng_t rng;
	Prob		P;
	size_t		i;
	double		w[3];
	tapas_logit_data_t D;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	P = prob_random(&rng, 100, 2, 0.0);
	for (i = 0; i < P.n; i++)
	{
		/* a margin of at least 1 around x0 + x1 = 0 */
		double		m = P.X[i * 2] + P.X[i * 2 + 1];

		P.y[i] = m > 0;
		P.X[i * 2] += P.y[i] ? 1 : -1;
	}
	free(P.row_start);
	free(P.col);
	free(P.val);
	prob_sparse(&P);
	check_against_liblinear(&P, 1.0, 1000.0);
	D = dense_data(&P, 1.0);
	TAPAS_CHECK(tapas_logit_fit(w, &D, 1000.0, 1e-4, NULL, NULL) == TAPAS_OK);
	for (i = 0; i < P.n; i++)
	{
		double		z = w[0] * P.X[i * 2] + w[1] * P.X[i * 2 + 1] + w[2];

		TAPAS_CHECK_MSG((z > 0) == P.y[i], "row %zu z %g", i, z);
	}
	TAPAS_CHECK(isfinite(w[0]) && fabs(w[0]) < 1e3);
	prob_free(&P);
}

/* a constant feature (a second bias, regularised) and one class only */
static void
test_logit_degenerate(void)
{
	tapas_rng_t rng;
	Prob		P;
	size_t		i;
	double		w[4],
				X0[4] = {0, 0, 0, 0};
	int			y0[4] = {0, 1, 0, 1};
	tapas_logit_data_t D;
	tapas_logit_info_t info;

	tapas_rng_seed(&rng, tapas_test_seed() + 3);
	P = prob_random(&rng, 80, 3, 1.0);
	for (i = 0; i < P.n; i++)
		P.X[i * 3 + 1] = 2.5;
	free(P.row_start);
	free(P.col);
	free(P.val);
	prob_sparse(&P);
	check_against_liblinear(&P, 1.0, 1.0);
	check_against_liblinear(&P, 0.0, 1.0);

	/* one class only: the fit exists, is finite and predicts that class */
	for (i = 0; i < P.n; i++)
		P.y[i] = 1;
	check_against_liblinear(&P, 1.0, 1.0);
	D = dense_data(&P, 1.0);
	TAPAS_CHECK(tapas_logit_fit(w, &D, 1.0, 1e-4, NULL, NULL) == TAPAS_OK);
	for (i = 0; i < P.n; i++)
		TAPAS_CHECK(w[0] * P.X[i * 3] + w[1] * P.X[i * 3 + 1] + w[2] * P.X[i * 3 + 2] + w[3] > 0);
	prob_free(&P);

	/* grad f(0) = 0 (zero features, balanced labels, no bias): w = 0 at once */
	memset(&D, 0, sizeof(D));
	D.n = 4;
	D.d = 1;
	D.X = X0;
	D.y = y0;
	TAPAS_CHECK(tapas_logit_fit(w, &D, 1.0, 1e-4, &info, NULL) == TAPAS_OK);
	TAPAS_CHECK(w[0] == 0.0 && info.newton == 0 && info.converged);
}

static void
test_logit_errors(void)
{
	double		X[4] = {1, 2, 3, 4},
				bad[4] = {1, NAN, 3, 4},
				w[3],
				val[2] = {1, 2};
	int			y[4] = {0, 1, 0, 1},
				y2[4] = {0, 2, 0, 1};
	size_t		rs[3] = {0, 1, 2};
	uint32_t	col[2] = {0, 2};
	tapas_logit_data_t D,
				E;

	memset(&D, 0, sizeof(D));
	D.n = 2;
	D.d = 2;
	D.X = X;
	D.y = y;
	D.bias = 1.0;
	E = D;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_OK);
	E.n = 0;					/* zero rows */
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	E = D;
	E.d = 0;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	E = D;
	E.y = y2;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	E = D;
	E.X = bad;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	E = D;
	E.bias = -1;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_logit_fit(w, &D, 0.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_logit_fit(w, &D, INFINITY, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_logit_fit(w, &D, 1.0, 0.0, NULL, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_logit_fit(w, NULL, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	/* sparse: a feature number >= d */
	E = D;
	E.X = NULL;
	E.row_start = rs;
	E.col = col;
	E.val = val;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_EINVAL);
	col[1] = 1;
	TAPAS_CHECK(tapas_logit_fit(w, &E, 1.0, 1e-4, NULL, NULL) == TAPAS_OK);
	TAPAS_CHECK(fabs(tapas_logit_sigmoid(800) - 1) < 1e-15 && tapas_logit_sigmoid(-800) >= 0 &&
				fabs(tapas_logit_sigmoid(0) - 0.5) < 1e-15);
}

static void
test_logit_enomem(void)
{
	tapas_rng_t rng;
	Prob		P;
	double		w[5];
	long		live = tapas_memory_live(),
				k;
	tapas_status st;
	tapas_logit_data_t D;

	tapas_rng_seed(&rng, tapas_test_seed() + 4);
	P = prob_random(&rng, 50, 4, 1.0);
	D = dense_data(&P, 1.0);
	for (k = 0; k < 16; k++)
	{
		tapas_memory_fail_after(k);
		st = tapas_logit_fit(w, &D, 1.0, 1e-4, NULL, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK_MSG(k < 13 ? st == TAPAS_ENOMEM : st == TAPAS_OK, "allocation %ld: %d", k, st);
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after failure %ld", k);
	}
	prob_free(&P);
}

/* progress callback: counts its calls, cancels at call number *stop_at */
typedef struct Counter
{
	long		calls;
	long		stop_at;		/* 0: never */
} Counter;

static int
count_polls(void *arg, double fraction)
{
	Counter    *c = arg;

	(void) fraction;
	return ++c->calls == c->stop_at;
}

/*
 * A cancel at every poll returns TAPAS_ECANCELED with nothing allocated;
 * rows are polled within passes (n > TAPAS_LOGIT_POLL_ROWS).
 */
static void
test_logit_cancel_every_poll(void)
{
	tapas_rng_t rng;
	Prob		P;
	double		w[4];
	long		live = tapas_memory_live(),
				total,
				k;
	Counter		c = {0, 0};
	tapas_progress_t progress = {count_polls, &c};
	tapas_logit_data_t D,
				S;
	tapas_logit_info_t info;
	int			layout;

	tapas_rng_seed(&rng, tapas_test_seed() + 5);
	P = prob_random(&rng, 2 * TAPAS_LOGIT_POLL_ROWS + 10, 3, 1.0);
	D = dense_data(&P, 1.0);
	S = sparse_data(&P, 1.0);
	for (layout = 0; layout < 2; layout++)
	{
		const tapas_logit_data_t *X = layout ? &S : &D;

		c.calls = 0;
		c.stop_at = 0;
		TAPAS_CHECK(tapas_logit_fit(w, X, 1.0, 1e-4, &info, &progress) == TAPAS_OK);
		total = c.calls;
		/* 3 polls per pass: a gradient and diag(Hess) per iteration, 2 passes per CG step */
		TAPAS_CHECK_MSG(total >= 3 * (2 * info.newton + 2 * info.cg), "%ld polls", total);
		for (k = 1; k <= total; k++)
		{
			c.calls = 0;
			c.stop_at = k;
			TAPAS_CHECK_MSG(tapas_logit_fit(w, X, 1.0, 1e-4, NULL, &progress) == TAPAS_ECANCELED,
							"layout %d, poll %ld of %ld", layout, k, total);
			TAPAS_CHECK(tapas_memory_live() == live);
		}
	}
	prob_free(&P);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_logit_random_vs_liblinear);
	TAPAS_TEST_RUN(test_logit_standardised);
	TAPAS_TEST_RUN(test_logit_separable);
	TAPAS_TEST_RUN(test_logit_degenerate);
	TAPAS_TEST_RUN(test_logit_errors);
	TAPAS_TEST_RUN(test_logit_enomem);
	TAPAS_TEST_RUN(test_logit_cancel_every_poll);
	TAPAS_TEST_DONE();
}
