/*-------------------------------------------------------------------------
 *
 * threat_model.h
 *	  Targeted MIA and AIA threat models with auxiliary-data knowledge:
 *	  sampling of the labelled training and test "real" datasets.
 *
 * The procedure is the TAPAS toolbox's (Houssiau et al. 2022, arXiv
 * 2211.06550, threat models), with explicit seeds and without its bugs.  The
 * pool is the N records of the auxiliary table other than the target,
 * numbered 0..N-1.
 *	1. Split: a uniformly random floor(auxiliary_split * N) of the pool is
 *	   the attacker's auxiliary part (training datasets are drawn from it);
 *	   the rest is the test part (test datasets).
 *	2. Base datasets of size num_training_records from each part, by
 *	   TAPAS' index_split: shuffle the part, cut it into floor(N_part /
 *	   size) disjoint chunks, reshuffle when they are used up.
 *	3. MIA: each base dataset D gives a pair (D with the target, label 1)
 *	   and (D, label 0), emitted in random order (generate_pairs), where
 *	   "with" replaces a uniformly random record of D by the target
 *	   (replace_target) or appends it.  For an odd count the last pair is
 *	   cut to one dataset (the reference instead drops to 0 datasets for a
 *	   count of 1).  Without pairs each D gets a Bernoulli(1/2) label.
 *	   AIA: each D has a random record replaced by the target, whose
 *	   sensitive value is drawn uniformly among n_values candidates
 *	   independently of everything else; the label is the value's index.
 *	   The value is drawn from value_weights (normalised) when given: the
 *	   reference's AIA `distribution` option.
 * Exact data knowledge (the reference's ExactDataKnowledge, the worst case
 * for auditing a generator: the attacker knows the training set but the
 * target): step 1 draws one base dataset D of num_training_records pool
 * records and every training and test dataset is built from D (the
 * parts are not used); the datasets then differ only by the target's
 * presence (MIA) or value (AIA), the record it replaces, and the
 * generator's randomness.
 * Several targets (the reference's multiple-label mode: one set of datasets
 * for all of them, generation being the costly part): every draw above is
 * made per target t in order, each target with its own label, and a
 * target replaces a record that no earlier target replaced.  MIA pairs
 * then hold complementary labels (each target is in exactly one dataset
 * of the pair); an AIA dataset holds every target.  With one target the
 * draws are exactly those of the single-target model.
 * A dataset is a list of pool row numbers, TAPAS_THREAT_MODEL_TARGET_T(t)
 * for target t (TAPAS_THREAT_MODEL_TARGET for target 0).
 * Every draw comes from one generator seeded with `seed`, in the order
 * split, training datasets, test datasets, so a seed fixes everything.
 *
 * IDENTIFICATION
 *	  src/attacks/threat_model.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_THREAT_MODEL_H
#define TAPAS_THREAT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define TAPAS_THREAT_MODEL_MIA	0
#define TAPAS_THREAT_MODEL_AIA	1

#define TAPAS_THREAT_MODEL_TARGET (-1)
/* row code of target t (0 .. n_targets-1); target 0 is TAPAS_THREAT_MODEL_TARGET */
#define TAPAS_THREAT_MODEL_TARGET_T(t) (-1 - (int32_t) (t))
#define TAPAS_THREAT_MODEL_MAX_TARGETS 1024

#define TAPAS_THREAT_MODEL_MAX_VALUES 64	/* AIA candidate values */

typedef struct tapas_threat_model_params
{
	int			goal;			/* TAPAS_THREAT_MODEL_MIA or TAPAS_THREAT_MODEL_AIA */
	size_t		n_pool;			/* records other than the target */
	double		auxiliary_split;	/* in (0, 1), default 0.5 */
	size_t		num_training_records;	/* size of a base dataset, >= 1 */
	size_t		n_train;		/* training datasets, >= 1 */
	size_t		n_test;			/* test datasets, >= 1 */
	int			replace_target; /* MIA: 1 replace a record, 0 append */
	int			generate_pairs; /* MIA: 1 pairs, 0 independent labels */
	int			n_values;		/* AIA: candidate sensitive values, 2 ..
								 * TAPAS_THREAT_MODEL_MAX_VALUES */
	uint64_t	seed;
	const double *value_weights;	/* AIA: n_values weights >= 0 with a
									 * positive sum, or NULL (uniform) */
	int			exact_knowledge;	/* 1: every dataset from one base D */
	size_t		n_targets;		/* 1 .. TAPAS_THREAT_MODEL_MAX_TARGETS (0 means 1),
								 * at most num_training_records */
} tapas_threat_model_params_t;

typedef struct tapas_threat_model_dataset
{
	int32_t    *rows;			/* pool row numbers or TAPAS_THREAT_MODEL_TARGET */
	size_t		n_rows;
	int			label;			/* target 0's label: labels[0] */
	int		   *labels;			/* n_targets: MIA 1 iff target t is in; AIA:
								 * target t's value index */
	int			training;		/* 1 from the auxiliary part, 0 test */
} tapas_threat_model_dataset_t;

typedef struct tapas_threat_model
{
	size_t		n_datasets;		/* n_train training ones, then n_test */
	tapas_threat_model_dataset_t *ds;
	size_t		n_aux;			/* size of the auxiliary part */
	size_t		n_test_part;	/* size of the test part */
	int32_t    *storage;		/* all rows, owned */
	int		   *label_storage;	/* all labels, owned */
	size_t		n_targets;
} tapas_threat_model_t;

/* Fills *p with the defaults (MIA, split 0.5, pairs, replace, seed 0). */
extern void tapas_threat_model_params_default(tapas_threat_model_params_t *p);

/*
 * Samples every dataset.  Returns TAPAS_OK (free *out with tapas_threat_model_free),
 * TAPAS_EINVAL with *reason (a part smaller than num_training_records, a
 * parameter out of range) or TAPAS_ENOMEM.
 */
extern tapas_status tapas_threat_model_sample(tapas_threat_model_t **out, const tapas_threat_model_params_t *p,
									const char **reason);

/* Checks the labels and the target's presence; 1 if valid, else 0. */
extern int	tapas_threat_model_validate(const tapas_threat_model_t *tm, const tapas_threat_model_params_t *p,
							  const char **reason);

extern void tapas_threat_model_free(tapas_threat_model_t *tm);

#endif							/* TAPAS_THREAT_MODEL_H */
