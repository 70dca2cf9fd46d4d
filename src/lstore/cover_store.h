/*-------------------------------------------------------------------------
 *
 * cover_store.h
 *	  Reference-counted store of immutable covers (CRoaring bitmaps).
 *
 * Every audit class entry of a table holds the covers of the cells it
 * logged; the same cover (one group of a GROUP BY, logged by count(*),
 * sum(income), ...) used to be copied once per class.  The store keeps
 * one bitmap per distinct content and hands out references: take returns
 * the stored bitmap of r's content (copying r only when the content is
 * new) with one more reference, release drops one and frees the bitmap
 * with the last.  A stored cover is never modified: callers copy it
 * before any _inplace operation; release checks the content hash, so a
 * write into a shared cover is caught (TAPAS_EINCONSISTENT) instead of
 * silently changing another class's rows.
 *
 * Identity is a 64-bit hash of the content with exact comparison
 * (roaring_bitmap_equals) on equal hashes, so two different covers are
 * never merged.  Cost: take and release are O(|r|) (the hash).
 *
 * IDENTIFICATION
 *	  src/lstore/cover_store.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_COVER_STORE_H
#define TAPAS_COVER_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <roaring/roaring.h>

#include "util/status.h"

typedef struct tapas_cover_store tapas_cover_store_t;

/* An empty store, or NULL when out of memory.  Free with _free. */
extern tapas_cover_store_t *tapas_cover_store_create(void);

/* Frees the store and every cover still in it (NULL is a no-op). */
extern void tapas_cover_store_free(tapas_cover_store_t *s);

/*
 * The stored cover with r's content (r itself is not kept; the caller
 * still owns it), with one more reference; NULL when out of memory (the
 * store is unchanged).  The result must not be modified or freed other
 * than through tapas_cover_store_release.
 */
extern roaring_bitmap_t *tapas_cover_store_take(tapas_cover_store_t *s,
												const roaring_bitmap_t *r);

/*
 * Drops one reference to r, a result of _take, and frees it with the
 * last.  Returns 0, TAPAS_EINVAL when r is not in the store, or
 * TAPAS_EINCONSISTENT when its content changed since it was stored (the
 * reference is dropped all the same when r is found by address).
 */
extern tapas_status tapas_cover_store_release(tapas_cover_store_t *s,
											  roaring_bitmap_t *r);

/* Distinct covers stored, and references held on them. */
extern size_t tapas_cover_store_ncovers(const tapas_cover_store_t *s);
extern size_t tapas_cover_store_nrefs(const tapas_cover_store_t *s);

/* Bytes of the stored covers (portable serialised size, each once). */
extern size_t tapas_cover_store_bytes(const tapas_cover_store_t *s);

/*
 * Checks the invariants: every cover's hash matches its content, its
 * reference count is positive, counts add up.  0 or TAPAS_EINCONSISTENT with
 * a static *reason.
 */
extern tapas_status tapas_cover_store_validate(const tapas_cover_store_t *s,
											   const char **reason);

/* The content hash the store uses (exposed for tests). */
extern uint64_t tapas_cover_store_hash(const roaring_bitmap_t *r);

#endif							/* TAPAS_COVER_STORE_H */
