/*-------------------------------------------------------------------------
 *
 * design.h
 *	  Query designs for reconstruction attacks: one interface over the
 *	  Hadamard, BCH and Bernoulli designs, with the k-anonymity rewrite.
 *
 * A design fixes m binary queries over records 1..n; queries are numbered
 * 0..m-1 here (the SQL API adds one).  Methods:
 *	hadamard	N = 2^ceil(log2 n) rows of (H + J) / 2 (hadamard.h); decodes
 *				every value of x from exact or noisy answers.
 *	bch			s * q parity-check rows of a binary BCH code (bch.h); decodes
 *				the support of a binary x of weight <= s from exact counts.
 *	bernoulli	ceil(2 s log2(n / s)) rows (at least s + 1, at most n),
 *				record j in row i (i = 1..rows) iff the low bit of
 *				tapas_design_bernoulli_bits(seed, i, j) is 1; decoded by
 *				compressed sensing (cs.h).  The row count is only the
 *				recommendation: a random design is endless, and
 *				tapas_design_extend adds rows beyond it (below).
 *
 * Respecting k: a query must cover at least k records.  A base row
 * covering fewer than k is replaced by its complement, and one total query
 * (covering all n) is appended unless the design already has one
 * (Hadamard row 0); the decoder recovers the base answer as total minus
 * the complement's answer.  k > n, or a row whose complement also covers
 * fewer than k records, makes the design impossible (TAPAS_EINVAL).
 *
 * Calling sequence: tapas_design_create, then tapas_design_member (cheap,
 * thread-safe) and tapas_design_decode (not reentrant on one design), then
 * tapas_design_free.
 *
 * IDENTIFICATION
 *	  src/recon/design.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_DESIGN_H
#define TAPAS_DESIGN_H

#include <stdint.h>

#include "util/progress.h"
#include "util/status.h"
#include "recon/bch.h"
#include "recon/hadamard.h"

/* largest n of any design (BCH stops at 2^24 - 1) */
#define TAPAS_DESIGN_MAX_N		((int64_t) 1 << 24)
/* most hash evaluations a Bernoulli coverage count may take (rows x n) */
#define TAPAS_DESIGN_MAX_WORK	((int64_t) 1 << 33)
/* most Bernoulli queries beyond the recommended design */
#define TAPAS_DESIGN_MAX_EXTRA	(1 << 20)

typedef enum tapas_design_method
{
	TAPAS_DESIGN_HADAMARD = 0,
	TAPAS_DESIGN_BCH,
	TAPAS_DESIGN_BERNOULLI
} tapas_design_method;

typedef struct tapas_design
{
	tapas_design_method method;
	int64_t		n;				/* records 1..n */
	int			s;				/* sparsity the design is built for */
	int64_t		k;				/* minimum records per query */
	uint64_t	seed;			/* Bernoulli seed */
	int			base_rows;		/* rows of the underlying design */
	int			m;				/* queries: base rows (+ 1 total query) */
	int			total_query;	/* query covering all n, or -1 if none */
	uint8_t    *complemented;	/* base_rows flags (NULL: none complemented) */
	int64_t    *coverage;		/* m entries, records per query (or NULL) */
	int64_t		min_coverage;	/* smallest coverage (-1 if not computed) */
	double		mean_coverage;	/* mean coverage (-1 if not computed) */
	tapas_bch_t *bch;			/* BCH tables and decoder scratch */
	uint64_t   *row_key;		/* Bernoulli per-row hash keys */
	/* Bernoulli queries m .. m + extra - 1, beyond the recommendation */
	int			extra;			/* built so far */
	int			extra_cap;		/* allocated entries of the arrays below */
	uint64_t   *extra_key;		/* their row keys (hash rows base_rows + 1 ...) */
	uint8_t    *extra_comp;		/* complemented for k (NULL while none) */
} tapas_design_t;

/* "hadamard", "bch", "bernoulli" -> method; -1 for any other name */
extern int	tapas_design_method_from_name(const char *name);

/*
 * The documented Bernoulli hash, so that anyone can rebuild the design:
 * with mix(z) the splitmix64 finaliser (z += 0x9e3779b97f4a7c15;
 * z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9; z = (z ^ z >> 27) *
 * 0x94d049bb133111eb; z ^= z >> 31, all mod 2^64), the bits of record j
 * for row i (1-based) are mix(mix(seed ^ mix(i)) ^ j); the row covers j iff
 * the lowest bit is 1 (before any complement for k).
 */
extern uint64_t tapas_design_bernoulli_bits(uint64_t seed, int64_t row,
											int64_t record);

/*
 * Builds the design.  want_coverage computes coverage, min and mean even
 * when k = 0 (they are always computed when k > 0).  Returns NULL with
 * *status TAPAS_EINVAL (and *reason, a static string, when reason is not
 * NULL) for an unknown method, n outside 1..TAPAS_DESIGN_MAX_N (BCH:
 * 2^24 - 1), s < 1 or too large for the field, k < 0, k > n or a k no
 * complement can meet; TAPAS_ELIMIT when counting Bernoulli coverage
 * would exceed TAPAS_DESIGN_MAX_WORK; TAPAS_ENOMEM; TAPAS_ECANCELED.
 */
extern tapas_design_t *tapas_design_create(int method, int64_t n, int s,
										   int64_t k, uint64_t seed,
										   int want_coverage,
										   const tapas_progress_t *progress,
										   tapas_status *status,
										   const char **reason);

/* Frees the design; accepts NULL and half-built designs. */
extern void tapas_design_free(tapas_design_t *d);

/*
 * Bernoulli designs are endless.  Query m + e (e >= 0, 0-based) is hash
 * row base_rows + 1 + e (tapas_design_bernoulli_bits), so that, numbered
 * from 1, query q beyond the recommendation is hash row q, or q - 1 when
 * the recommended design has a total query.  With k > 0 it is complemented
 * when it covers fewer than k records; decoding its answer then needs the
 * total query.  tapas_design_extend makes queries 0..queries-1 available
 * (a no-op when they are): TAPAS_EINVAL (*reason set) for another method,
 * more than m + TAPAS_DESIGN_MAX_EXTRA queries or a row that neither it
 * nor its complement lets cover k records; TAPAS_ELIMIT when the coverage
 * counts would exceed TAPAS_DESIGN_MAX_WORK; TAPAS_ENOMEM; TAPAS_ECANCELED.
 */
extern tapas_status tapas_design_extend(tapas_design_t *d, int queries,
										const tapas_progress_t *progress,
										const char **reason);

/* queries available: m plus the extension */
static inline int
tapas_design_queries(const tapas_design_t *d)
{
	return d->m + d->extra;
}

/*
 * Whether query (0..tapas_design_queries()-1) covers record (1..n).  Never
 * fails: any query or record outside its range gives 0.
 */
extern int	tapas_design_member(const tapas_design_t *d, int query,
								int64_t record);

/*
 * Whether base row r (0..base_rows-1) covers record j (1..n), before the k
 * complements: the matrix the decoders work on.  Arguments are assumed in
 * range, not checked.
 */
extern int	tapas_design_base_member(const tapas_design_t *d, int r, int64_t j);

/*
 * Decodes answers[0..m-1] (answers[i] = the sum of x over query i) with
 * answer noise scale noise >= 0 (0: exact answers, which must then be
 * integers).  Writes count records (1..n, ascending) and their values to
 * records[] and values[] (caller's arrays of n entries): every record for
 * hadamard, the nonzero ones otherwise.  Errors: TAPAS_EINVAL (*reason
 * says which: non-integer or negative counts, non-finite answers, noise
 * with bch, ...), TAPAS_EINCONSISTENT (no x of the assumed kind explains
 * the answers), TAPAS_EDECODE (weight above s detected), TAPAS_ELIMIT,
 * TAPAS_ENOMEM, TAPAS_ECANCELED, or the compressed-sensing decoder's
 * status for bernoulli.
 */
extern tapas_status tapas_design_decode(tapas_design_t *d, const double *answers,
										double noise, int64_t *records,
										double *values, int64_t *count,
										const tapas_progress_t *progress,
										const char **reason);

/*
 * The same for the answers to queries 0..nanswers-1.  Hadamard and BCH
 * need nanswers = m.  Bernoulli takes any nanswers from 1 to
 * tapas_design_queries(d) (extend first): the decoder works on every
 * answered row but the total query; an answered complemented row needs
 * the total query answered too (TAPAS_EINVAL otherwise).
 */
extern tapas_status tapas_design_decode_n(tapas_design_t *d,
										  const double *answers, int nanswers,
										  double noise, int64_t *records,
										  double *values, int64_t *count,
										  const tapas_progress_t *progress,
										  const char **reason);

/*
 * Query q (0..tapas_design_queries()-1, not the total query): whether it
 * covers record j before its complement, and whether it is complemented.
 */
extern int	tapas_design_query_base_member(const tapas_design_t *d, int q,
										   int64_t j);
extern int	tapas_design_query_complemented(const tapas_design_t *d, int q);

#endif							/* TAPAS_DESIGN_H */
