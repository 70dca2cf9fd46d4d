/*-------------------------------------------------------------------------
 *
 * rowspace.h
 *	  Which records are determined by the logged rows (Chin's criterion),
 *	  incrementally, with trial/commit/rollback for deny mode.
 *
 * A ledger of one (table, statistic, role) is a binary query matrix A whose
 * rows are sets of records 0..n-1.  Record j is determined iff e_j lies in
 * rowspace(A): then its value follows from the answers whatever the data.
 * The test looks only at A, never at the answers, so refusing a query on it
 * leaks nothing (simulatable auditing).
 *
 * Arithmetic is modulo a prime p, which the caller draws once at server
 * start with tapas_rowspace_prime_draw() from a secret seed.  Errors are
 * one-sided: a record reported determined could be a false alarm with
 * probability below about 2^-120 per check (two random projections), and a
 * determined record is missed only if p divides a pivot minor of A over Q
 * (about 1e-10 for 10^4 rows at p ~ 2^62, less for a secret random p).  See
 * rowspace.c for the algorithm.
 *
 * Usage: create once per ledger; for each statement, tapas_rowspace_trial()
 * with all its cells, read the records that would become determined, then
 * tapas_rowspace_commit() (answer sent) or tapas_rowspace_rollback() (deny:
 * the state is exactly as before the trial).  tapas_rowspace_add() is trial
 * plus commit.  Not thread-safe; one object per ledger.
 *
 * IDENTIFICATION
 *	  src/recon/rowspace.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_ROWSPACE_H
#define TAPAS_ROWSPACE_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "util/rng.h"
#include "util/status.h"

typedef struct tapas_rowspace tapas_rowspace_t;

/* default and hard maximum of the rank (number of independent rows) */
#define TAPAS_ROWSPACE_RANK_DEFAULT	2048
#define TAPAS_ROWSPACE_RANK_MAX		8192

/* --- rowspace.c: creation --- */

/*
 * Draws a secret prime uniformly-ish in [2^61, 2^62): n_nextprime of a
 * uniform 61-bit offset from 2^61.  The caller seeds rng from a secret
 * (e.g. /dev/urandom at server start) and never discloses the prime.
 */
extern uint64_t tapas_rowspace_prime_draw(tapas_rng_t *rng);

/*
 * Creates the state for records 0..n-1 (1 <= n < 2^31) and no rows.
 * prime: an odd prime below 2^62 (checked; primes other than a secret one
 * near 2^62 are for tests only).  rank_limit: 0 for the default, else at
 * most TAPAS_ROWSPACE_RANK_MAX; the trial that would exceed it fails with
 * TAPAS_ELIMIT.  rng: draws the two secret projection vectors (advanced;
 * not kept); the basis rows it bounds exclude atoms whose indicator lies
 * in the row space (a GROUP BY's disjoint groups take none).  Returns NULL
 * on a bad argument or out of memory, with a
 * static message in *reason if reason is not NULL.  Memory: about 80 bytes
 * per record at creation; at rank r, 8 c (c + n / 64 + 2 sqrt(n)) bytes
 * more (the inverse, the basis row bitmaps and block sums), where the
 * capacity c < 2r after commits and c <= 4r after rollbacks (r >= 64);
 * tapas_rowspace_memory tells.  Free with tapas_rowspace_free.
 */
extern tapas_rowspace_t *tapas_rowspace_create(uint32_t n, uint64_t prime,
											   uint32_t rank_limit,
											   tapas_rng_t *rng,
											   const char **reason);

/*
 * tapas_rowspace_create polling progress (may be NULL) every 2^20 records
 * of the secret draws (about 1 s per 10^7 records), so a cancel acts
 * within a fraction of a second.  NULL with *status: TAPAS_EINVAL (a bad
 * argument), TAPAS_ENOMEM, or TAPAS_ECANCELED (progress asked to stop;
 * nothing is left allocated).
 */
extern tapas_rowspace_t *tapas_rowspace_create_progress(uint32_t n, uint64_t prime,
														uint32_t rank_limit,
														tapas_rng_t *rng,
														const tapas_progress_t *progress,
														tapas_status *status,
														const char **reason);

/*
 * The secret projections of row spaces over n records modulo prime, drawn
 * once (2n draws from rng, polling progress as tapas_rowspace_create_progress
 * does) and shared read-only by every row space created from them: a
 * backend's new row spaces of one size then cost no draws.  Sharing is
 * sound: each row space's test uses z independently of its rows, whoever
 * chose them, and errs with probability p^-2 per check, as with its own z.
 * Reference-counted: the creator holds one reference, released by
 * tapas_rowspace_proj_release, and each row space one, released by
 * tapas_rowspace_free.  NULL with *status as tapas_rowspace_create_progress.
 */
typedef struct tapas_rowspace_proj tapas_rowspace_proj_t;

extern tapas_rowspace_proj_t *tapas_rowspace_proj_create(uint32_t n, uint64_t prime,
														 tapas_rng_t *rng,
														 const tapas_progress_t *progress,
														 tapas_status *status,
														 const char **reason);
extern void tapas_rowspace_proj_release(tapas_rowspace_proj_t *pj);
extern uint32_t tapas_rowspace_proj_n(const tapas_rowspace_proj_t *pj);
extern uint64_t tapas_rowspace_proj_prime(const tapas_rowspace_proj_t *pj);

/*
 * A row space over pj's records and modulus, as tapas_rowspace_create, its
 * projections pj's (rng seeds only its pivot sampling).
 */
extern tapas_rowspace_t *tapas_rowspace_create_from(tapas_rowspace_proj_t *pj,
													uint32_t rank_limit,
													tapas_rng_t *rng,
													tapas_status *status,
													const char **reason);

/* Frees rs and everything it owns; accepts NULL. */
extern void tapas_rowspace_free(tapas_rowspace_t *rs);

/* --- rowspace_trial.c: trials and accessors --- */

/*
 * Tests a batch of rows (one statement's cells) on top of the committed
 * state.  Row i is ids[offsets[i] .. offsets[i+1]) (offsets has nrows + 1
 * entries, nondecreasing), ids distinct within a row and < n; rows may be
 * empty.  On success, *newly points to the *count records that the batch
 * makes determined (not determined before), in increasing basis order; the
 * array is owned by rs and valid until the next trial or rollback.  The
 * trial then stays open: exactly one of tapas_rowspace_commit/rollback must
 * follow before the next trial.  On failure nothing changes and no trial is
 * open: TAPAS_EINVAL (bad row, or a trial already open), TAPAS_ELIMIT (the
 * rank would exceed rank_limit: the statement cannot be audited, so a deny
 * mode caller should refuse it), TAPAS_ENOMEM, TAPAS_ECANCELED (progress,
 * polled once per row, asked to stop; progress may be NULL), and
 * TAPAS_EINCONSISTENT only on an internal error (cannot happen).
 * Cost: O(|row|) for a row implied by earlier ones; O(|row| + r^2) for an
 * independent row (plus O(r sqrt(n)) when the pivot search falls back to
 * the block search).
 */
extern tapas_status tapas_rowspace_trial(tapas_rowspace_t *rs,
										 const uint32_t *ids,
										 const size_t *offsets, size_t nrows,
										 const tapas_progress_t *progress,
										 const uint32_t **newly,
										 size_t *count);

/* Keeps the open trial's rows.  TAPAS_EINVAL if no trial is open.  O(1). */
extern tapas_status tapas_rowspace_commit(tapas_rowspace_t *rs);

/*
 * Discards the open trial: the state (atoms, basis, inverse, determined
 * set) is restored exactly.  TAPAS_EINVAL if no trial is open.
 * O(r^2) per independent row of the trial (an exact downdate of the
 * inverse) plus O(records in the atoms the trial created).
 */
extern tapas_status tapas_rowspace_rollback(tapas_rowspace_t *rs);

/* tapas_rowspace_trial followed by tapas_rowspace_commit on success. */
extern tapas_status tapas_rowspace_add(tapas_rowspace_t *rs,
									   const uint32_t *ids,
									   const size_t *offsets, size_t nrows,
									   const tapas_progress_t *progress,
									   const uint32_t **newly, size_t *count);

/* Read-only accessors (they include an open trial's effect). */

/* Number of records n. */
extern uint32_t tapas_rowspace_n(const tapas_rowspace_t *rs);

/*
 * Rank of the logged rows (over F_p): the resolved blocks (unions of atoms
 * whose indicators lie in the row space, kept outside the basis, see
 * rowspace_resolved.c) plus the basis rows.
 */
extern uint32_t tapas_rowspace_rank(const tapas_rowspace_t *rs);

/*
 * The basis rows alone: what rank_limit bounds and what the memory grows
 * with (8 r (r + n / 64) bytes).
 */
extern uint32_t tapas_rowspace_kernel_rank(const tapas_rowspace_t *rs);

/* Number of atoms. */
extern uint32_t tapas_rowspace_natoms(const tapas_rowspace_t *rs);

/*
 * Number of records in record j's atom (< n, not checked): records covered
 * by exactly the same rows as j, j included.  A record whose atom is not a
 * singleton cannot be told apart from its atom-mates by any decoder.
 * O(1).  (Added for the auditor, audit/reconstructed.c.)
 */
extern uint32_t tapas_rowspace_atom_size(const tapas_rowspace_t *rs,
										 uint32_t j);

/* 1 if record j (< n, not checked) is determined, else 0.  O(1). */
extern int	tapas_rowspace_is_determined(const tapas_rowspace_t *rs,
										 uint32_t j);

/*
 * All determined records, in the order they became determined; owned by
 * rs, valid until the next trial/commit/rollback.
 */
extern const uint32_t *tapas_rowspace_determined(const tapas_rowspace_t *rs,
												 size_t *count);

/* --- rowspace_span.c: membership of a 0/1 vector --- */

/* longest vector tapas_rowspace_contains accepts (a region set's capacity, recon/regset.h) */
#define TAPAS_ROWSPACE_SPAN_MAX	1024

/*
 * 1 if the 0/1 vector w with support ids[0..len) (distinct, < n, len <=
 * TAPAS_ROWSPACE_SPAN_MAX) lies in the row space of the rows so far (an
 * open trial's included), 0 if not, -1 on a bad argument.  For the joint
 * system (audit/joint.c): the value of a class at one record is the sum of
 * a few of its virtual records, not one of them.  One-sided like the
 * determined set: a vector of the row space is always found; one outside
 * it is reported inside with probability about p^-2.  O(len log len).
 */
extern int	tapas_rowspace_contains(const tapas_rowspace_t *rs,
									const uint32_t *ids, size_t len);

/*
 * Calls fn(arg, id) for every id in an atom of at most max_size members
 * that is a basis pivot or resolved (its indicator lies in the row space),
 * pivots first (an open trial's included; an id may come more than once).  A
 * nonzero 0/1 vector of at most max_size ids lies in the row space only if
 * it touches such an atom (a vector of the row space is a combination of
 * the RREF rows, which is nonzero on a pivot, plus resolved indicators;
 * and it covers each atom it touches wholly), so a caller testing many
 * short vectors (audit/joint.c: a class's value at every record) tests
 * only those that touch one.  O(r + natoms) when some atom is resolved,
 * O(r) otherwise, plus the calls.
 */
extern void tapas_rowspace_anchors(const tapas_rowspace_t *rs, uint32_t max_size,
								   void (*fn) (void *arg, uint32_t id), void *arg);

/*
 * For benchmarks and tests: on = 1 keeps every row in the basis, as the
 * kernel did before rowspace_resolved.c (the baseline of
 * test/bench/b-rowspace.c); on = 2 keeps resolved atoms but gives every
 * block a row cuts back to the basis, as the kernel did before blocks
 * (the baseline of test/bench/b-rowspace-wide.c); 0 is the default.
 * Only before the first row, on in 0..2: TAPAS_EINVAL otherwise.
 */
extern tapas_status tapas_rowspace_set_basis_only(tapas_rowspace_t *rs, int on);

/*
 * Entry j < n of basis row k < kernel rank: 1, -1 or 0, whatever the
 * storage (private, in place).  For tests: the storage-independent view of
 * the basis that t-rowspace_basis.c checks against a dense oracle.
 */
extern int	tapas_rowspace_basis_entry(const tapas_rowspace_t *rs, uint32_t k,
									   uint32_t j);

/* Work counters since creation (trials that were rolled back included). */
typedef struct tapas_rowspace_stats
{
	uint64_t	rows;			/* rows processed */
	uint64_t	independent;	/* rows that extended the basis */
	uint64_t	block_searches;	/* pivot searches that needed the
								 * O(r sqrt(n)) block search */
} tapas_rowspace_stats_t;

extern void tapas_rowspace_stats(const tapas_rowspace_t *rs,
								 tapas_rowspace_stats_t *stats);

/* --- rowspace_check.c: accounting and test support --- */

/*
 * Bytes currently allocated by rs (all buffers, including scratch), and
 * the basis rows it reads in place (tapas_rowspace_deserialise_ext), so
 * that the figure is the same for a private copy of the same state.
 */
extern size_t tapas_rowspace_memory(const tapas_rowspace_t *rs);

/*
 * Hash of the whole logical state (partition, basis rows and pivots, the
 * inverse, projections, determined set), for tests of rollback.  O(r^2 +
 * r n / 64 + n).
 */
extern uint64_t tapas_rowspace_fingerprint(const tapas_rowspace_t *rs);

/*
 * Checks the invariants, including the exact identity M * A[I,P] = 1 when
 * the rank is at most max_rank_exact (O(r^3); pass 0 to skip it).  Returns
 * 1 if valid, else 0 with a static message in *reason (may be NULL).
 */
extern int	tapas_rowspace_validate(const tapas_rowspace_t *rs,
									uint32_t max_rank_exact,
									const char **reason);

/* --- rowspace_serial.c: a copy of the state in a flat buffer --- */

/*
 * Bytes tapas_rowspace_serialise writes for rs: a header, the per-record
 * arrays (about 36 bytes per record) and the basis (about 8 r (r + n / 64
 * + 2 sqrt(n)) bytes at rank r), and a CRC-32C.  O(1).
 */
extern size_t tapas_rowspace_serial_size(const tapas_rowspace_t *rs);

/*
 * Writes rs into buf[0..len), len >= tapas_rowspace_serial_size(rs).
 * TAPAS_EINVAL while a trial is open (only a committed state is copied)
 * or when len is too short.  The buffer holds the secret projections:
 * keep it where only the server reads it.  O(size).
 */
extern tapas_status tapas_rowspace_serialise(const tapas_rowspace_t *rs,
											 void *buf, size_t len);

/*
 * A new state equal to the one serialised in buf[0..len): the same
 * fingerprint, and every later trial, commit and rollback gives what it
 * gives on the original (the pivot sampler's state is copied too).  The
 * prime must be the one serialised (a copy from another server start is
 * refused).  NULL with *status TAPAS_EINVAL and a static message in
 * *reason when the bytes are not such a copy (wrong magic, version,
 * sizes, prime or checksum, or structural invariants broken), or
 * TAPAS_ENOMEM.  O(size).
 */
extern tapas_rowspace_t *tapas_rowspace_deserialise(const void *buf, size_t len,
													uint64_t prime,
													tapas_status *status,
													const char **reason);

/*
 * 1 if the CRC-32C of the copy buf[0..len) is right, else 0.  O(len).
 * For a caller that checks a copy once (when it is written) and reads it
 * many times with TAPAS_ROWSPACE_SERIAL_VERIFIED.
 */
extern int	tapas_rowspace_serial_verify(const void *buf, size_t len);

/* flags of tapas_rowspace_deserialise_ext */
#define TAPAS_ROWSPACE_SERIAL_VERIFIED	1	/* the caller checked the CRC */
#define TAPAS_ROWSPACE_SERIAL_INPLACE	2	/* read basis rows from buf */

/*
 * tapas_rowspace_deserialise with flags.  TAPAS_ROWSPACE_SERIAL_INPLACE:
 * the basis row bitmaps (most of a copy at large n: 2 r n / 8 bytes),
 * their block sums (16 r sqrt(n) bytes) and the secret projections (16 n
 * bytes) are not copied but read from buf
 * (8-byte aligned) for as long as the state lives; basis rows are only
 * ever appended and the projections drawn once, so the state never
 * writes them.  buf must then stay mapped and unchanged until release(arg),
 * which tapas_rowspace_free calls exactly once, after its last read of
 * buf (release may not be NULL).  When NULL is returned, release is not
 * called and buf is the caller's again.  Every later trial, commit,
 * rollback and serialisation gives what it gives on a private copy.
 */
extern tapas_rowspace_t *tapas_rowspace_deserialise_ext(const void *buf, size_t len,
														uint64_t prime, int flags,
														void (*release) (void *arg),
														void *arg,
														tapas_status *status,
														const char **reason);

#endif							/* TAPAS_ROWSPACE_H */
