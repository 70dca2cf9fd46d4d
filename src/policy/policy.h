/*-------------------------------------------------------------------------
 *
 * policy.h
 *	  The base of the server side: the protection catalog, who is audited
 *	  and who administers tapas, and tapas's SQLSTATEs.
 *
 * Every server subsystem (capture/, audit/, ledger/, api/) rests on this;
 * pure-C kernels (util/, lstore/, recon/, attacks/) never include it.
 *
 * IDENTIFICATION
 *	  src/policy/policy.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_POLICY_H
#define TAPAS_POLICY_H

#include "postgres.h"

#include "nodes/bitmapset.h"
#include "executor/tuptable.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "utils/elog.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "policy/status_error.h"

/*
 * SQLSTATEs.  Class "TP" is ours (classes I-Z are implementation-defined);
 * standard codes are used where PostgreSQL already has the right one.
 *
 *	refusal of a protected read, or deny mode	ERRCODE_INSUFFICIENT_PRIVILEGE / TP001
 *	query shape not supported on protected data	ERRCODE_FEATURE_NOT_SUPPORTED
 *	bad argument								ERRCODE_INVALID_PARAMETER_VALUE
 *	size above configured limits				ERRCODE_PROGRAM_LIMIT_EXCEEDED
 *	extension not preloaded						ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE
 *
 * A kernel's tapas_status is reported through status_error.h only.
 */
#define ERRCODE_TAPAS_ISOLATION_DENIED	MAKE_SQLSTATE('T','P','0','0','1')
#define ERRCODE_TAPAS_GROUP_TOO_SMALL	MAKE_SQLSTATE('T','P','0','0','2')
#define ERRCODE_TAPAS_LEDGER_FULL		MAKE_SQLSTATE('T','P','0','0','3')
#define ERRCODE_TAPAS_AUDIT_INCOMPLETE	MAKE_SQLSTATE('T','P','0','0','4')

/* auth.c */
extern char *tapas_admin_role;
extern bool tapas_loaded_at_startup;
extern void tapas_policy_define_gucs(void);
extern bool tapas_session_is_audited(void);

/*
 * > 0 while the auditor reads the truth of a protected table for itself
 * (audit/reconstructed.c, set and reset around its SPI query): the session
 * then counts as not audited, so capture neither refuses nor logs that read.
 */
extern int	tapas_internal_read;
extern void tapas_require_admin(const char *what);
extern void tapas_require_preloaded(void);

/* most columns of a composite key */
#define TAPAS_MAX_KEY_COLUMNS	8

/*
 * One protected table, or one partition of a protected partitioned table,
 * as cached per backend (protection_cache.c, partitions.c).  A partition is audited
 * as its protected table: relid (the ledger's identity, and the name in
 * messages) is the protected table's, the attribute numbers are the
 * partition's own.
 */
typedef struct TapasProtection
{
	Oid			lookup_relid;	/* hash key: the relation looked up */
	Oid			relid;			/* the protected table (lookup_relid, or its
								 * protected partitioned ancestor) */
	AttrNumber	key_attno;		/* the (first) key column */
	Oid			key_type;		/* its type */
	int			nkeys;			/* key columns (unique together, not null) */
	AttrNumber	key_attnos[TAPAS_MAX_KEY_COLUMNS];	/* of lookup_relid */
	Oid			key_types[TAPAS_MAX_KEY_COLUMNS];
	int16		key_typlen[TAPAS_MAX_KEY_COLUMNS];
	bool		key_typbyval[TAPAS_MAX_KEY_COLUMNS];
	bool		key_hashed;		/* records named by tapas_key_hash (keys.c),
								 * not by one integer column */
	Bitmapset  *sensitive;		/* attnos of sensitive columns */
	int			k;				/* minimum covered-set size of a cell */
	bool		broken;			/* key column vanished: refuse every read */
	bool		partition;		/* lookup_relid is a partition of relid */
	bool		remapped;		/* a partition whose columns are numbered
								 * unlike relid's, or bounded by a sensitive
								 * column: direct reads are refused */
} TapasProtection;

/* guard.c: DROP EXTENSION tapas (and what drops it) while tables are protected */
extern bool tapas_allow_drop_with_protections;
extern void tapas_guard_define_gucs(void);
extern void tapas_guard_utility(Node *parsetree);

/* protection_cache.c */
extern const TapasProtection *tapas_protection_lookup(Oid relid);
extern bool tapas_protection_any(void);
extern Oid	tapas_protection_catalog_oid(void);
extern Oid	tapas_cover_aggregate_oid(Oid keytype);
extern bool tapas_is_cover_aggregate(Oid fnoid);
extern void tapas_protection_install(void);


/* keys.c: record identity of uuid, text and composite keys */
extern bool tapas_column_is_unique(Relation rel, AttrNumber attno);
extern bool tapas_columns_are_unique(Relation rel, const AttrNumber *attnos, int n);
extern bool tapas_key_is_hashed(const TapasProtection *p);
extern int64 tapas_key_hash(int n, const Datum *values, const bool *isnull,
							const int16 *typlen, const bool *typbyval);
extern char *tapas_key_text_of(int n, const Datum *values, const bool *isnull,
							   const Oid *types);
extern Oid	tapas_key_id_oid(void);
extern void tapas_key_forget_oids(void);
extern void tapas_key_check_columns(Relation rel, TapasProtection *p, const Datum *names);
extern bool tapas_key_has_trigger(Oid relid);
extern void tapas_key_protect(Relation rel, const TapasProtection *p);
extern void tapas_key_unprotect(Oid relid);
extern void tapas_key_register_partition(Oid parent, Oid child);

/* partitions.c: declarative partitioning of protected tables */
extern void tapas_partition_check_protectable(Relation rel);
extern void tapas_partition_derive(const TapasProtection *root, Oid partid,
								   TapasProtection *out);
extern List *tapas_protected_leaves(Oid relid, LOCKMODE lockmode);

/* foreign_leaves.c */
typedef struct TapasForeignRead TapasForeignRead;
extern bool tapas_foreign_check_structure(Oid root, const TapasProtection *p);
extern int64 tapas_foreign_leaf_stamp(Oid root, const TapasProtection *p, Oid leaf);
extern TapasForeignRead *tapas_foreign_read_begin(Relation root, Oid leaf);
extern bool tapas_foreign_read_next(TapasForeignRead *r, TupleTableSlot *rootslot);
extern void tapas_foreign_read_end(TapasForeignRead *r);
extern void tapas_partition_guard_utility(Node *parsetree);
extern void tapas_partition_after_utility(Node *parsetree);

/*
 * A heap scan of every row of a protected table (every leaf partition of
 * a partitioned one), rows in the table's own attribute numbering.
 */
typedef struct TapasTableScan TapasTableScan;
extern TapasTableScan *tapas_table_scan_begin(Oid relid, Snapshot snapshot);
extern TupleTableSlot *tapas_table_scan_next(TapasTableScan *scan);
extern void tapas_table_scan_end(TapasTableScan *scan);

#endif							/* TAPAS_POLICY_H */
