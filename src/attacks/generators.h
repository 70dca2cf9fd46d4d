/*-------------------------------------------------------------------------
 *
 * generators.h
 *	  Built-in black-box synthetic data generators for the threat models:
 *	  raw and independent marginals.
 *
 * A generator maps a training dataset (n x m coded records, row-major, as
 * in set_features.h) to a synthetic dataset of n_syn records.
 *	raw:		TAPAS' Raw(): n_syn records sampled without replacement from
 *				the training dataset (all of them, in order, when n_syn = n;
 *				every set feature is order-free, so the reference's
 *				permutation is skipped).  n_syn > n is an error.
 *	marginals:	each cell of each synthetic record is the same column's
 *				value in an independently, uniformly drawn training record:
 *				a sample from the product of the empirical marginals.
 * Both draw from the caller's generator only.
 *
 * IDENTIFICATION
 *	  src/attacks/generators.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_GENERATORS_H
#define TAPAS_GENERATORS_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"
#include "util/status.h"

#define TAPAS_GEN_RAW		0
#define TAPAS_GEN_MARGINALS 1

/*
 * Writes n_syn synthetic records into out (n_syn x m, must not alias
 * train).  scratch: n size_t, used by raw only (may be NULL otherwise).
 * TAPAS_EINVAL for an unknown generator, n = 0, or raw with n_syn > n.
 */
extern tapas_status tapas_gen_run(int generator, const double *train, size_t n,
								  size_t m, size_t n_syn, tapas_rng_t *rng,
								  size_t *scratch, double *out);

/*
 * Copies the rows of a threat-model dataset into out (n_rows x m): pool
 * row r comes from pool[r * m ...], TAPAS_THREAT_MODEL_TARGET_T(t) from row t
 * of target (target[t * m ...], t < the number of targets).
 */
extern void tapas_gen_materialise(const double *pool, size_t m, const double *target,
								  const int32_t *rows, size_t n_rows, double *out);

#endif							/* TAPAS_GENERATORS_H */
