/*-------------------------------------------------------------------------
 *
 * random_forest.h
 *	  Binary random-forest classifier of CART trees (Breiman 2001), the
 *	  default set classifier of the Groundhog attack.
 *
 * Each tree is grown on a bootstrap sample (n draws with replacement, kept
 * as distinct samples with integer weights, as scikit-learn does), with the
 * Gini criterion: at each node up to max_features features are drawn
 * without replacement (features constant in the node do not count, and
 * drawing stops when every feature was tried), the split maximising the
 * weighted impurity decrease is kept, with its threshold halfway between
 * two adjacent distinct values.  A node becomes a leaf when it is pure,
 * has fewer than min_samples_split samples, reached max_depth, or has no
 * split leaving min_samples_leaf samples on both sides.  A leaf stores the
 * weighted fraction of class-1 samples; predict_proba averages the leaves
 * reached over the trees.  Defaults are scikit-learn's
 * RandomForestClassifier ones (100 trees, sqrt(d) features, unlimited
 * depth, min_samples_split 2, min_samples_leaf 1).
 *
 * Features are stored as float (like scikit-learn) and feature-major for
 * the split search; thresholds compare against (float) x.
 *
 * IDENTIFICATION
 *	  src/attacks/random_forest.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_RANDOM_FOREST_H
#define TAPAS_RANDOM_FOREST_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/rng.h"
#include "util/status.h"

typedef struct tapas_rf_params
{
	int			n_trees;		/* >= 1, default 100 */
	int			max_depth;		/* 0 = unlimited */
	int			min_samples_split;	/* >= 2, default 2 */
	int			min_samples_leaf;	/* >= 1, default 1 */
	int			max_features;	/* 0 = floor(sqrt(d)) (at least 1) */
	int			bootstrap;		/* 1 = bootstrap samples (default) */
} tapas_rf_params_t;

typedef struct tapas_rf_node
{
	int32_t		feature;		/* -1 for a leaf */
	int32_t		left;			/* child for x[feature] <= threshold */
	int32_t		right;
	double		threshold;
	double		p1;				/* leaf: probability of class 1 */
} tapas_rf_node_t;

typedef struct tapas_rf_tree
{
	size_t		n_nodes;
	size_t		cap;
	tapas_rf_node_t *nodes;		/* node 0 is the root */
} tapas_rf_tree_t;

typedef struct tapas_rf
{
	size_t		d;				/* number of features */
	size_t		n_trees;
	tapas_rf_tree_t *trees;
} tapas_rf_t;

/* Fills *p with the defaults above. */
extern void tapas_rf_params_default(tapas_rf_params_t *p);

/*
 * Fits a forest on X (n x d, row-major) and labels y[i] in {0, 1}.  The
 * caller seeds rng; the forest depends only on it and the inputs.  progress
 * is polled once per tree.  Returns TAPAS_OK (caller frees *out with
 * tapas_rf_free), TAPAS_EINVAL (n < 1, d < 1, a label not 0/1, bad
 * params), TAPAS_ENOMEM or TAPAS_ECANCELED.
 */
extern tapas_status tapas_rf_fit(tapas_rf_t **out, const double *X, const int *y,
								 size_t n, size_t d, const tapas_rf_params_t *params,
								 tapas_rng_t *rng, const tapas_progress_t *progress);

/*
 * tapas_rf_fit on X as floats: the forest sees every value as a float, so
 * a matrix of (float) X gives the very same forest for half the memory.
 */
extern tapas_status tapas_rf_fit_float(tapas_rf_t **out, const float *X, const int *y,
									   size_t n, size_t d,
									   const tapas_rf_params_t *params,
									   tapas_rng_t *rng,
									   const tapas_progress_t *progress);

/* Probability of class 1 for one record x[d]. */
extern double tapas_rf_predict_proba(const tapas_rf_t *rf, const double *x);

/* The same for x as floats: the value of (double) x for x[d] = (float) x. */
extern double tapas_rf_predict_proba_float(const tapas_rf_t *rf, const float *x);

/* Checks the tree invariants; returns 1 if valid, else 0 and *reason. */
extern int	tapas_rf_validate(const tapas_rf_t *rf, const char **reason);

extern void tapas_rf_free(tapas_rf_t *rf);

#endif							/* TAPAS_RANDOM_FOREST_H */
