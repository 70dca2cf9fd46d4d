/*-------------------------------------------------------------------------
 *
 * first_seen.h
 *	  Numbering keys in order of first appearance, by sorting instead of
 *	  hashing.
 *
 * The auditor gives the keys of a statement's cells that the ledger has
 * not seen provisional dense indices n, n + 1, ... in the order the ledger
 * will give them (cell order, then key order: lstore/ledger_batch.c).  A
 * GROUP BY over a fresh table meets 10^5..10^7 such keys; a hash insert
 * per key (PostgreSQL's dynahash: hash_bytes, a bucket chain, a palloc per
 * segment) cost about 25 % of a 20-group statement at n = 10^5.  Here the
 * (key, position) pairs are radix sorted by key (stable, so the first
 * position of a key comes first in its run; byte passes that are equal in
 * every key are skipped, so keys below 2^24 take three passes), each run
 * points at its first position, and one walk over the positions numbers
 * the first appearances.  O(n) time, 32 bytes of scratch per key.
 * tapas_keys_match finds keys in such a numbering by the same sort.
 *
 * IDENTIFICATION
 *	  src/util/first_seen.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_FIRST_SEEN_H
#define TAPAS_FIRST_SEEN_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

/*
 * For keys[0..n) (repeats allowed), sets rank[i] to the number of distinct
 * keys whose first appearance comes before that of keys[i] (so equal keys
 * get equal ranks, and ranks count 0, 1, 2, ... in order of first
 * appearance), writes the distinct keys in that order to uniq (room for n;
 * uniq[rank[i]] == keys[i]) and their number to *nuniq.  rank and uniq must
 * not overlap keys.  Returns TAPAS_OK, TAPAS_EINVAL (n >= 2^32 or a NULL
 * array with n > 0) or TAPAS_ENOMEM (nothing written then).
 */
extern tapas_status tapas_first_seen(const int64_t *keys, size_t n,
									 uint32_t *rank, int64_t *uniq,
									 size_t *nuniq);

/*
 * For each q[i] (i < nq), sets pos[i] to the j < nset with set[j] == q[i],
 * or -1 if there is none; set's keys must be distinct (not checked: with
 * repeats, any matching j).  Both sides are radix sorted with their
 * positions and merged: O(nset + nq), where a hash of set would cost a
 * probe (a cache miss, for large sets) per query.  Returns TAPAS_OK,
 * TAPAS_EINVAL (a size >= 2^32 or a NULL array with its size > 0) or
 * TAPAS_ENOMEM (nothing written then).
 */
extern tapas_status tapas_keys_match(const int64_t *set, size_t nset,
									 const int64_t *q, size_t nq,
									 int64_t *pos);

#endif							/* TAPAS_FIRST_SEEN_H */
