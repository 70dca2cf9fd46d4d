/*-------------------------------------------------------------------------
 *
 * release_risk.h
 *	  Dataset-only audit of a synthetic release: the real (training) rows,
 *	  the synthetic rows and a holdout of real rows the generator never saw,
 *	  and no generator.
 *
 * Every risk is an attack run twice with the same synthetic data: once
 * against the training rows and once against the holdout rows (the
 * control).  Whatever the attack achieves on the holdout is what the
 * release teaches about the population; the excess on the training rows
 * is attributable to the release (residual risk, release_stats.h).  A
 * naive baseline attacker, who uses only the synthetic marginals, says how
 * much of either success needs no record-level information at all.
 *
 * Samples.  m = min(n_targets, |real|, |holdout|) target rows are drawn
 * without replacement from each of real and holdout (seeded).  Singling
 * out instead works on whole datasets: real and holdout are each
 * subsampled to the same size min(|real|, |holdout|), since whether a
 * predicate isolates one row depends on the number of rows.
 *
 * The risks (success of one trial in brackets):
 *
 *	singling_out	predicates built from the synthetic data: predicate i is
 *		the conjunction "column = value" over predicate_columns random
 *		columns (all when 0) with the values of a random synthetic row
 *		(distinct rows until every row has been used)
 *		(continuous columns: |x - v| <= tolerance * (upper - lower)).
 *		[the predicate matches exactly one row of the dataset]; the trials
 *		are the predicates (n_real = n_holdout = n_predicates).  Baseline:
 *		the same predicates with each value taken from an independent random
 *		synthetic row (the product of the synthetic marginals).
 *	linkability		the attacker holds the A-half (link_a columns) and the
 *		B-half (the other columns) of the m targets as two unlinked lists.
 *		For a's A-half, the synthetic row s* nearest on A (ties broken at
 *		random) proposes a B-half; the attacker links a to the B-half of the
 *		list nearest to s* on B (ties at random).  [a is linked to its own
 *		B-half].  Baseline: s* a random synthetic row.
 *	attribute_inference	(sensitive column given, categorical or ordinal)
 *		the synthetic rows nearest to the target on every other column
 *		vote; the most frequent sensitive value among them (ties at random)
 *		is the guess.  [the guess equals the target's value].  Baseline: the
 *		synthetic mode of the sensitive column.
 *	exact_copy		[some synthetic row equals the target on every column].
 *		Baseline: the probability 1 - (1 - prod_j f_j(x_j))^n_syn that a
 *		release of n_syn rows drawn from the synthetic marginals f_j holds
 *		the target, averaged over the training targets.
 *	dcr				distance to the closest synthetic record, compared as
 *		A = P(DCR_real < DCR_holdout) (release_stats.h); the holdout's own
 *		value and the baseline are 1/2.
 *	nndr			nearest-neighbour distance ratio d1 / d2 (closest over
 *		second closest synthetic record; 0 when d1 = 0), compared the same
 *		way.
 *
 * Distances are the attack library's (distance.h: Hamming on raw values or
 * L_p on the encoding, all columns); L_p needs every dataset encoded.
 * Cost: one pass over the synthetic rows per target computes every
 * distance at once (whole row, A-half, all but the sensitive column); for
 * Hamming the pass is columnar (value codes column by column into small
 * counters, vectorised), so the audit is O(2 m n_syn c) plus O(P (|real'| + |holdout'|)) for the
 * predicates and O(m^2) for the linking step.
 *
 * IDENTIFICATION
 *	  src/attacks/release_risk.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_RELEASE_RISK_H
#define TAPAS_RELEASE_RISK_H

#include <stddef.h>
#include <stdint.h>

#include "attacks/dataset.h"
#include "attacks/distance.h"
#include "attacks/release_stats.h"
#include "util/progress.h"
#include "util/status.h"

typedef enum tapas_risk_kind
{
	TAPAS_RISK_SINGLING_OUT,
	TAPAS_RISK_LINKABILITY,
	TAPAS_RISK_ATTRIBUTE_INFERENCE,
	TAPAS_RISK_EXACT_COPY,
	TAPAS_RISK_DCR,
	TAPAS_RISK_NNDR,
	TAPAS_RISK_COUNT
} tapas_risk_kind;

typedef struct tapas_release_params
{
	tapas_distance_t distance;	/* kind and p; columns must be NULL */
	size_t		n_targets;		/* target rows per side (> 0) */
	size_t		n_predicates;	/* singling-out predicates (> 0) */
	size_t		predicate_columns;	/* columns per predicate, 0 = all */
	double		tolerance;		/* continuous predicate half-width, >= 0,
								 * as a fraction of the column range */
	const size_t *link_a;		/* the A-half's columns (1 .. c-1 of them) */
	size_t		n_link_a;
	long		sensitive;		/* attribute-inference column, or -1 */
	double		confidence;		/* of every interval, in (0, 1) */
	size_t		n_bootstrap;	/* resamples for dcr and nndr */
	uint64_t	seed;
	int			rowwise;		/* Hamming: the row-at-a-time reference scan
								 * instead of the columnar one (tests and
								 * benchmarks; same results) */
} tapas_release_params_t;

typedef struct tapas_risk_summary
{
	int			computed;		/* 0: not run (attribute inference without a
								 * sensitive column) */
	size_t		n_real;			/* trials on the training side */
	size_t		n_holdout;		/* trials on the holdout side */
	tapas_estimate_t real;		/* success on the training rows */
	tapas_estimate_t holdout;	/* success on the holdout rows */
	tapas_estimate_t baseline;	/* naive attacker (NaN est if none) */
	tapas_estimate_t residual;	/* attributable to the release, in [0, 1] */
} tapas_risk_summary_t;

/* one per-record result: row `row` of real (holdout = 0) or holdout */
typedef struct tapas_risk_record
{
	unsigned char holdout;
	size_t		row;
	tapas_risk_kind kind;
	double		value;			/* 1/0 success; dcr, nndr: the statistic;
								 * singling_out: predicates isolating it */
} tapas_risk_record_t;

/* "singling_out", "linkability", ...; never NULL */
extern const char *tapas_risk_kind_name(tapas_risk_kind kind);

/*
 * Runs the audit.  real, syn and holdout share one schema (same columns),
 * each has at least one row; all encoded for L_p.  out[k] for every kind.
 * *records (tapas_malloc'd, caller frees) gets *nrecords per-record
 * results: every risk but singling out for each sampled target, and
 * singling out for each row some predicate isolates.  TAPAS_EINVAL on a bad
 * parameter or schema, TAPAS_ENOMEM, TAPAS_ECANCELED (progress polled once
 * per target).
 */
extern tapas_status tapas_release_risk(const tapas_dataset_t *real,
									   const tapas_dataset_t *syn,
									   const tapas_dataset_t *holdout,
									   const tapas_release_params_t *p,
									   tapas_risk_summary_t out[TAPAS_RISK_COUNT],
									   tapas_risk_record_t **records,
									   size_t *nrecords,
									   const tapas_progress_t *progress);

#endif							/* TAPAS_RELEASE_RISK_H */
