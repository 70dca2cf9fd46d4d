/*-------------------------------------------------------------------------
 *
 * ledger_store_int.h
 *	  Internal layout of the ledger store, shared by the lstore files
 *	  only (ledger_store.c, ledger_apply.c, ledger_batch.c, ledger_reset.c,
 *	  ledger_validate.c).
 *
 * Layout and invariants are described in ledger_store.h and
 * ledger_store.c.  The tapas_ledger_store_put_* primitives assume the caller has
 * checked capacity; they cannot fail.
 *
 * IDENTIFICATION
 *	  src/lstore/ledger_store_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_LEDGER_STORE_INT_H
#define TAPAS_LEDGER_STORE_INT_H

#include "lstore/ledger_store.h"

#define LEDGER_STORE_MAGIC		UINT64_C(0x54415041534C4731)	/* "TAPASLG1" */
#define ALIGN8(x)			(((uint64_t) (x) + 7) & ~UINT64_C(7))

typedef struct ledger_store_table
{
	uint64_t	table_id;
	uint32_t	n;				/* records of this table = next dense index */
} ledger_store_table_t;

typedef struct ledger_store_record
{
	int64_t		key;
	uint32_t	table;			/* slot */
	uint32_t	idx;			/* dense index within the table */
} ledger_store_record_t;

typedef struct ledger_store_role
{
	uint32_t	role;
	uint32_t	pad;
	uint64_t	cells;
	uint64_t	bytes;
} ledger_store_role_t;

/*
 * An interned statistic in the arena, followed by len bytes and a NUL,
 * then (basis_len > 0) the basis tree's bytes and a NUL.  One text may be
 * interned twice: a statistic first logged without a basis (a file of an
 * older version) gets a second, newer entry when a cell brings its basis;
 * lookups find the newest entry first (the list runs newest first).
 */
typedef struct ledger_store_stat
{
	uint64_t	next;			/* arena offset of the previous statistic, 0 = end */
	uint64_t	table_id;
	uint32_t	len;
	uint32_t	basis_len;		/* bytes of the basis tree, 0 = none */
} ledger_store_stat_t;

/* ---- Region accessors ---- */

#define REGION(s)		((uint8_t *) (s))
#define TABLES(s)		((ledger_store_table_t *) (REGION(s) + (s)->off_tables))
#define ROLES(s)		((ledger_store_role_t *) (REGION(s) + (s)->off_roles))
#define RECORDS(s)		((ledger_store_record_t *) (REGION(s) + (s)->off_records))
#define HASH(s)			((uint32_t *) (REGION(s) + (s)->off_hash))
#define CELLS(s)		((tapas_ledger_store_cell_t *) (REGION(s) + (s)->off_cells))
#define ARENA(s)		(REGION(s) + (s)->off_arena)

/* arena bytes a statistic (with a basis of blen bytes, 0 = none) costs when interned */
#define STAT_BYTES(len)		ALIGN8(sizeof(ledger_store_stat_t) + (uint64_t) (len) + 1)
#define STAT_BYTES2(len, blen) \
	ALIGN8(sizeof(ledger_store_stat_t) + (uint64_t) (len) + 1 + \
		   ((blen) > 0 ? (uint64_t) (blen) + 1 : 0))

/* hash slot holding (table_id, key), or the empty slot where it would go */
extern uint32_t tapas_ledger_store_probe(const tapas_ledger_store_t *s, uint64_t table_id, int64_t key);
/* adds usage to role's entry, made if missing (capacity checked by the caller) */
extern void tapas_ledger_store_put_role_usage(tapas_ledger_store_t *s, uint32_t role,
										tapas_ledger_store_usage_t usage);
/*
 * What cell i adds to its role's usage, as apply counted it: the cell, its
 * cover and query text unless an earlier cell holds them (offsets grow with
 * every new cover or text, so a first use is an offset above every earlier
 * one).  *seen carries, over calls for i = 0, 1, ..., the largest cover
 * offset (cells) and query offset (bytes) so far; start it at {0, 0}.
 */
extern tapas_ledger_store_usage_t tapas_ledger_store_cell_usage(const tapas_ledger_store_t *s, uint64_t i,
													tapas_ledger_store_usage_t *seen);
/* the entry of role, or NULL */
extern ledger_store_role_t *tapas_ledger_store_role_entry(const tapas_ledger_store_t *s, uint32_t role);
/* slot of table_id, added if missing (capacity checked by the caller) */
extern uint32_t tapas_ledger_store_put_table(tapas_ledger_store_t *s, uint64_t table_id);
/* appends key to the table of slot with the next dense index */
extern void tapas_ledger_store_put_record(tapas_ledger_store_t *s, uint32_t slot, int64_t key);
/* copies len bytes (plus a NUL if nul) into the arena; returns the offset */
extern uint64_t tapas_ledger_store_put_bytes(tapas_ledger_store_t *s, const void *data, uint64_t len, int nul);
/*
 * Arena offset of the interned (table_id, stat), interned now if new, or
 * interned again with the basis when the entry found has none and
 * basis_len > 0 (see ledger_store_stat_t).
 */
extern uint64_t tapas_ledger_store_put_stat(tapas_ledger_store_t *s, uint64_t table_id, const char *stat,
										 uint32_t len, const char *basis, uint32_t basis_len);
/*
 * What the store will hold for cell i's statistic once cells 0..i-1 of b
 * are applied: *exists (an entry), *has_basis (the newest entry has a
 * basis).  Cell i then interns a new entry iff !*exists, or !*has_basis
 * and it carries a basis.
 */
extern void tapas_ledger_store_stat_state(const tapas_ledger_store_t *s, const tapas_ledger_batch_t *b,
									   int i, int *exists, int *has_basis);
/*
 * The same answers for every cell of b in turn, O(1) each
 * (ledger_stat_walk.c): init, then for i = 0, 1, ...: state(i), and once
 * cell i's basis is final, done(i); free at the end.  Cells are read as
 * they are at each call.
 */
typedef struct ledger_stat_walk
{
	const tapas_ledger_store_t *s;
	const tapas_ledger_batch_t *b;
	uint32_t	mask;			/* hash slots - 1 */
	int32_t    *slot;			/* first cell of each statistic, -1 = empty; NULL: scan */
	uint8_t    *flags;			/* per first cell: in store, has a basis */
	int			cur;			/* first cell of the statistic of the cell asked last */
} ledger_stat_walk_t;

extern void ledger_stat_walk_init(ledger_stat_walk_t *w, const tapas_ledger_store_t *s,
								  const tapas_ledger_batch_t *b);
extern void ledger_stat_walk_state(ledger_stat_walk_t *w, int i, int *exists, int *has_basis);
extern void ledger_stat_walk_done(ledger_stat_walk_t *w, int i);
extern void ledger_stat_walk_free(ledger_stat_walk_t *w);
/* max member of a serialised cover, -1 if empty, -2 if it does not decode */
extern int64_t tapas_ledger_store_cover_max(const uint8_t *cover, uint64_t len, uint64_t *card);

#endif							/* TAPAS_LEDGER_STORE_INT_H */
