/*-------------------------------------------------------------------------
 *
 * audit_int.h
 *	  Internal declarations of the auditor (src/audit/ and src/audit/audit_sql.c).
 *
 * A TapasAuditEntry is the audit state of one (table, audit scope,
 * basis-value class) -- key.roleid is InvalidOid under tapas.audit_scope =
 * all, key.statistic the class's representative text: the logged rows of A (CRoaring copies over the ledger's dense
 * record indices) and answers b, the incremental row-space object, the
 * records already reported, and the cached truth (the records whose
 * per-row value v_j is nonzero).  Entries live in a per-backend hash in
 * "tapas audit cache", a child of TopMemoryContext: they outlive
 * statements so the row space is updated incrementally, and are rebuilt
 * from the ledger when its dense index outgrows them.  The rowspace object
 * and the bitmaps are malloc'd by their libraries and freed with the entry.
 *
 * IDENTIFICATION
 *	  src/audit/audit_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_AUDIT_INT_H
#define TAPAS_AUDIT_INT_H

#include "postgres.h"

#include <roaring/roaring.h>

#include "nodes/pg_list.h"
#include "utils/dsa.h"

#include "audit/audit.h"
#include "recon/regset.h"
#include "recon/rowspace.h"

typedef struct TapasAuditKey
{
	Oid			relid;
	Oid			roleid;
	char		statistic[TAPAS_LEDGER_MAX_STATISTIC + 1];
} TapasAuditKey;

/* tag of a logged row recognised as a design row (designs.c) */
#define TAPAS_DESIGN_TAG_NONE	(-1)	/* no design row */
#define TAPAS_DESIGN_TAG_TOTAL	(-2)	/* covers every record 1..n */
typedef struct TapasDesignTag
{
	int64		log_id;			/* row the tag is for (-1: none) */
	int64		n;				/* design size it was classified under */
	int32		bch;			/* 2 r + complemented, or TAPAS_DESIGN_TAG_* */
	int32		had;			/* same for Hadamard */
} TapasDesignTag;

/*
 * A basis-value class (truth.c): the sensitive statistics of one table
 * whose per-row values v have the same truth vector.  Named by the first
 * statistic text seen of it (rep, the class's basis id until the normal
 * form provides canonical ones).  Kept per backend until the table
 * changes.
 */
typedef struct TapasClass
{
	Oid			relid;
	int			id;				/* 1, 2, ... per table, in order of creation */
	char	   *rep;			/* representative statistic text */
	Node	   *vtree;			/* canonical per-row value v (float8), or NULL:
								 * no tree known to this backend; owned by the
								 * basis registry */
	bool		usable;			/* the truth was read: keys/vals valid */
	uint64		hash;			/* of the truth vector */
	int64		nnz;			/* records with v != 0 */
	int64	   *keys;			/* [nnz] their keys, ascending */
	double	   *vals;			/* [nnz] their values */
	bool		binary;			/* every v in {0, 1} */
	bool		shape_binary;	/* 0/1 on the domain grid (on the truth when the
								 * grid is inexact; by the text without truth):
								 * the candidates test's prior */
	bool		is_one;			/* v is one nonzero constant on every record: a
								 * multiple of count(*), public (relations.c) */
	int64		nrecords;		/* rows of the table when the truth was read */
	int			nimplies;		/* classes this one implies (truth.c): */
	int		   *implies;		/* [nimplies] their ids; on the domain grid */
	int			nimplied_by;	/* classes that imply this one */
	int			nmeets;			/* classes whose support meets this one's */
	int		   *meets;			/* [nmeets] their ids: neither implies the other */
	bool		logged;			/* in a logged row (tapas_audit_class_logged) */
	Oid			creator;		/* then the session user of the first */
	bool		no_grid;		/* its component of the domain grid could not be
								 * built (truth_domain_star.c): its identity and
								 * relations come from the records' values */
	bool		broke_grid;		/* its arrival took the grid from another class */
} TapasClass;

/*
 * A class as a function of a row's sensitive columns: its nonzero values
 * on the points of the table's domain grid (truth_domain.c), or inexact.
 */
typedef struct TapasDomainVector
{
	bool		exact;
	int			comp;			/* the grid's component it reads (-1: none, a constant) */
	int64		npoints;		/* points of the grid (its star, truth_domain_star.c) */
	int64		nnz;
	int64	   *keys;			/* [nnz] points, ascending */
	double	   *vals;			/* [nnz] */
	bool		sliced;			/* its component is laid out in slices (truth_domain_slices.c) */
	uint8	   *links;			/* the last class's only, when asked: [n] DOMAIN_LINK_* with class k */
} TapasDomainVector;

/*
 * How the supports of the last class a and of class k lie on the whole
 * grid when their component is sliced (the slices hold their linear
 * relations, not their supports' intersections): known, then a's support
 * inside k's, k's inside a's, the two share a point.  Neither empty nor
 * constant is not tested here (the caller knows from the vectors).
 */
#define DOMAIN_LINK_KNOWN		0x01
#define DOMAIN_LINK_INSIDE		0x02
#define DOMAIN_LINK_CONTAINS	0x04
#define DOMAIN_LINK_MEET		0x08

extern void tapas_audit_domain_vectors(Oid relid, TapasClass **cls, int n, bool links,
									   TapasDomainVector *out);
/* how a new class's support lies among the classes' before it, on the grid */
typedef struct TapasClassLinks
{
	List	   *c_implies;		/* TapasClass *: its support lies inside theirs */
	List	   *implies_c;		/* theirs inside its */
	List	   *meets;			/* the supports meet, neither inside the other */
	bool		grid_exact;		/* the grid could be built and evaluated */
	bool		grid_binary;	/* then: its values on the grid are 0/1 */
	List	   *lost;			/* TapasClass *: classes with a grid that it takes */
} TapasClassLinks;

extern TapasClass *tapas_audit_class_same(List *classes, TapasClass *c, double *scale,
										  double *offset, TapasClassLinks *links);
extern void tapas_audit_class_add_implication(TapasClass *o, int id);
extern void tapas_audit_class_add_meet(TapasClass *o, int id);
extern bool tapas_audit_class_is_binary(const TapasClass *c);
extern void **tapas_audit_domain_cache(Oid relid, MemoryContext *cxt, bool renew);

/* entries.c: the generator of the row spaces' projections */
extern tapas_rng_t *tapas_audit_rng(void);
extern roaring_bitmap_t *tapas_audit_cover_take(const roaring_bitmap_t *r);
extern void tapas_audit_cover_release(roaring_bitmap_t *r);
extern tapas_rowspace_t *tapas_audit_rowspace_create(uint32 n, const tapas_progress_t *progress,
													 tapas_status *status, const char **reason);
extern bool tapas_audit_class_is_public(const TapasClass *c);
extern bool tapas_audit_statistic_no_grid(Oid relid, const char *statistic);
extern const roaring_bitmap_t *tapas_audit_implied_zeros(TapasAuditEntry *e, bool *complete);
extern bool tapas_audit_implied_ones(TapasAuditEntry *e, roaring_bitmap_t *c);
extern void tapas_audit_implied_reset(TapasAuditEntry *e);

/*
 * A group of related classes (relations.c): classes whose truth vectors
 * take part in a linear relation modulo the public count(*) (ONE),
 * audited as one joint system (joint.c) over the unknowns (region,
 * record), where a cell of class cls[i] is a row over the regions in
 * regions[i] and the class's value at a record the unknowns of test[i]
 * (recon/linrel.h; the two differ in the quotient by ONE).  Kept per
 * backend and table.
 */
typedef struct TapasJoint
{
	Oid			relid;
	int			ncls;
	TapasClass **cls;			/* [ncls] the related classes */
	tapas_regset_t *regions;	/* [ncls] r in it: a cell's row holds region r */
	tapas_regset_t *test;		/* [ncls] r in it: the class's value at j holds (r, j) */
	int			nregions;		/* G, or -1: no 0/1 coordinates (fail closed) */
	tapas_regset_t *patterns;	/* [ncls] r in it: the class is nonzero on pattern r
								 * (the regions before the quotient by ONE) */
	int			npatterns;		/* patterns, or -1 */
	bool		split;			/* split coordinates: a cell is one row per region */
	bool		one;			/* ONE lies in the span: quotient coordinates */
	char	   *name;			/* key.statistic of its entries */
} TapasJoint;

struct TapasAuditEntry
{
	TapasAuditKey key;			/* hash key: must be first */
	bool		initialised;
	TapasClass *cls;			/* the class of the entry (key.statistic = cls->rep) */
	TapasJoint *joint;			/* or the group of related classes (key.statistic
								 * = joint->name; cls = its first class) */
	int16	   *row_member;		/* [maxrows] joint: class of each row in joint->cls */
	struct TapasCombined *combined; /* joint: the attacker's combined rows (combined.c) */

	/* row space (determined.c) */
	tapas_rowspace_t *rs;		/* over dense indices 0..cap_n-1 */
	uint32		cap_n;
	int64		synced;			/* last log_id taken from the ledger */
	int			rs_rows;		/* rows[0..rs_rows-1] are in rs */
	bool		rs_broken;		/* rank limit reached: no further test */
	bool		trial_open;		/* a batch's trial awaits tapas_audit_trial_end */

	/*
	 * A trial kept open after its statement was audited (parked, in
	 * determined.c): if the statement is logged exactly as tried, the next
	 * sync commits it instead of rolling it back and adding the same rows
	 * again.
	 */
	bool		parked;
	int64		parked_first_log_id;	/* 0 until the statement is logged */
	int			parked_ncells;
	int		   *parked_cell_no; /* [parked_ncells] cells in the statement */
	int64		parked_nkeys;	/* nkeys of the trial: its new keys follow */
	int64		parked_nnew;
	int64	   *parked_newkeys; /* [parked_nnew] key of index nkeys + i */

	/* logged rows of A and b, in the order taken from the ledger */
	int			nrows;
	int			maxrows;
	roaring_bitmap_t **rows;	/* references into the covers' store (entries.c): read only */
	double	   *answers;
	int64	   *log_ids;

	/* the table's dense index at the last sync: keys[j] of index j */
	int64		nkeys;
	int64	   *keys;
	uint64		keys_generation;	/* the ledger's reset generation of keys */

	/* A as a bit matrix for the decoders (reconstructed.c), built lazily */
	struct tapas_binmat *A;		/* A_cap rows x cap_n columns, or NULL */
	size_t		A_cap;
	int			A_rows;			/* logged rows copied into A */
	/* A's column patterns for the decoders' A^T r (tapas_audit_patterns) */
	struct tapas_binmat_colbytes *P;	/* or NULL */
	int			P_rows;			/* rows of A whose patterns in P are current */
	struct tapas_sparse_hashes *H;	/* sparse search's column hashes of the
									 * logged rows of A, or NULL */

	/* records already reported (dense indices) */
	roaring_bitmap_t *reported;
	/* records determined by rows of other sessions taken at sync, to alert */
	roaring_bitmap_t *sync_new;

	/* candidates.c: rows 0..cand_rows-1 folded into */
	int			cand_rows;
	roaring_bitmap_t *cand_zero;	/* union of the rows answered 0 */
	roaring_bitmap_t *cand_one; /* intersection of the rows answered 1, or NULL */
	roaring_bitmap_t *cand_full;	/* union of the rows answered their size (>= 2) */
	double		cand_value;		/* a class not 0/1: its rows' one nonzero answer, 0
								 * until one is logged */
	bool		cand_refuted;	/* two different nonzero answers: not one nonzero */
	/* implied.c: the zeros of the classes cls implies, from the ledger */
	roaring_bitmap_t *implied_zero; /* union of their rows answered 0, or NULL */
	roaring_bitmap_t *implied_one;	/* intersection of the rows answered 1 of
									 * the classes implying cls, or NULL */
	roaring_bitmap_t **via_one;		/* [implied_n]: of the rows answered 1 of
									 * cls->implies[k] and the classes
									 * implying it, or NULL */
	bool	   *via_refuted;	/* [implied_n]: one answered 2 or more */
	int64		implied_synced; /* ledger rows up to this log_id taken */
	int			implied_n;		/* cls->nimplies + nmeets when taken */
	double	   *implied_value;	/* [implied_nvalues] by class id - 1: the first
								 * nonzero answer of a class not 0/1 */
	int			implied_nvalues;

	/* the class's truth (views of cls's arrays, set by tapas_audit_ensure_truth) */
	int64		nnz;			/* records with v != 0 */
	int64	   *nz_keys;		/* [nnz] ascending */
	double	   *nz_vals;		/* [nnz] */
	bool		truth_binary;	/* every v in {0, 1} */

	/* design recognition of the logged rows (designs.c) */
	TapasDesignTag *design_tags;	/* [design_tags_max], entry i for logged row i */
	int			design_tags_max;

	/* copies shared with other backends (state_shared.c) */
	int			shared_rows;	/* rows in the copy published or taken last */
	int64		shared_work_us; /* kernel work since then, microseconds */

	/* tapas.audit_memory (state_memory.c) */
	size_t		rows_bytes;		/* serialised size of rows[0..nrows) */
	bool		over_memory;	/* the bound was reached: rs freed, rs_broken */
	int			over_memory_kb; /* the bound then (a larger one retries) */
	int			over_unknowns;	/* > 0: a group too wide under this bound on unknowns */
};

/*
 * Candidate cells of one statement for one entry, with dense indices:
 * existing ones from the ledger, new keys numbered from n on in the order
 * the ledger will assign them.
 */
typedef struct TapasAuditBatch
{
	TapasAuditEntry *entry;
	int			ncells;
	int		   *cell_no;		/* [ncells] index in the statement's cells */
	uint32	   *ids;			/* concatenated dense indices */
	size_t	   *offsets;		/* [ncells + 1] */
	double	   *answers;		/* [ncells] */
	int64		n_total;		/* records known incl. this batch's new keys */
	int64	   *keys;			/* [n_total] key of each dense index */
} TapasAuditBatch;

/* determined.c */
extern TapasAuditEntry *tapas_audit_entry(TapasClass *cls, Oid scope_roleid);
extern bool tapas_audit_sync(TapasAuditEntry *e, TimestampTz deadline);
extern bool tapas_audit_build_batch(TapasAuditBatch *batch, TapasAuditEntry *e,
									const TapasCell *cells, int ncells,
									const int *cell_no, int nbatch,
									TimestampTz deadline);
extern void tapas_audit_batch_memo_clear(void);
extern void tapas_audit_batch_indices(const TapasAuditBatch *batch,
									  const int64 *keys, int64 nkeys,
									  int64 *idx);
extern int	tapas_audit_determined(TapasAuditBatch *batch, TapasFinding **found,
								   TimestampTz deadline);
extern void tapas_audit_trial_end(TapasAuditEntry *e);
extern size_t tapas_audit_scope_memory(Oid relid, Oid roleid);

/* state_memory.c */
extern int	tapas_audit_memory_kb;
extern void tapas_audit_define_memory_guc(void);
extern size_t tapas_audit_entry_memory(const TapasAuditEntry *e);
extern bool tapas_audit_memory_ok(TapasAuditEntry *e);
extern bool tapas_audit_memory_retry(const TapasAuditEntry *e);
extern const char *tapas_audit_broken_reason(const TapasAuditEntry *e, bool joint);

/* state_shared.c */
extern int	tapas_audit_shared_memory_kb;
extern struct dsa_area *tapas_audit_shared_dsa(void);
extern bool tapas_audit_shared_run(void (*fn) (void *), void *arg);

/* state_shared_slots.c */
extern tapas_rowspace_t *tapas_audit_shared_copy(TapasAuditEntry *e, int64 need, int *nrows);
extern void tapas_audit_shared_publish(TapasAuditEntry *e);

/* state_pins.c: reference counts on the copies, basis rows read in place */
extern dsa_pointer tapas_audit_blob_alloc(struct dsa_area *a, Size bytes, void **data);
extern void tapas_audit_blob_set_id(struct dsa_area *a, dsa_pointer blob, uint64 id);
extern void *tapas_audit_blob_data(struct dsa_area *a, dsa_pointer blob);
extern uint32 tapas_audit_blob_refs(struct dsa_area *a, dsa_pointer blob);
extern void tapas_audit_blob_unref(struct dsa_area *a, dsa_pointer blob);
extern tapas_rowspace_t *tapas_audit_blob_read(struct dsa_area *a, dsa_pointer blob, Size bytes,
											   uint64 prime, const char **reason);
extern void tapas_audit_shared_pins_check(void);
extern int	tapas_audit_shared_pins(void);

/* truth_stamp.c: the write stamp of a table */
extern void tapas_audit_write_stamp_install(void);
extern bool tapas_audit_write_stamp(Oid relid, uint64 *stamp);

/* truth_shared.c: truth vectors shared between backends */
extern void tapas_audit_truth_shared_install(void);
extern bool tapas_audit_truth_stamp(Oid relid, uint64 *stamp, int64 *stat_stamp);
extern bool tapas_audit_truth_shared_take(TapasClass *c, const struct TapasProtection *prot);
extern void tapas_audit_truth_shared_publish(const TapasClass *c, const struct TapasProtection *prot,
											 uint64 stamp, int64 stat_stamp);

/* parked.c */
extern void tapas_audit_trial_park(TapasAuditBatch *batch);
extern void tapas_audit_trial_logged(TapasAuditEntry *e, int64 first_log_id);
extern int	tapas_audit_parked_adopt(TapasAuditEntry *e,
									 const TapasLedgerSnapshot *snap,
									 const bool *in_class);
extern void tapas_audit_parked_drop(TapasAuditEntry *e);
extern void tapas_audit_entry_drop(TapasAuditEntry *e);
extern MemoryContext tapas_audit_cxt(void);

/* truth.c */
extern TapasClass *tapas_audit_class(Oid relid, const char *statistic);
extern TapasClass *tapas_audit_class_logged(Oid relid, const char *statistic, Oid role);
extern void tapas_audit_class_room(Oid relid, const TapasClass *cls, Oid role, int nnew);
extern int	tapas_audit_classes_per_role;
extern bool tapas_audit_class_known(Oid relid, const char *statistic);
extern double tapas_audit_class_answer(Oid relid, const char *statistic, double answer,
									   int64 nkeys);
extern void tapas_audit_classes_check(Oid relid);
extern void tapas_audit_class_refresh(Oid relid, const char *statistic);
extern bool tapas_audit_ensure_truth(TapasAuditEntry *e);
extern bool tapas_audit_truth_unknown(Oid relid, const char **statistic);

/* determined.c: drops every entry of relid (its classes are about to go) */
extern void tapas_audit_drop_relation(Oid relid);
extern TapasAuditEntry *tapas_audit_joint_entry(TapasJoint *jt, Oid scope_roleid);
extern void tapas_audit_drop_joint_entries(TapasJoint *jt);
extern bool tapas_audit_rowspace_ready(TapasAuditEntry *e, int64 n_total,
									   TimestampTz deadline);
extern int	tapas_audit_virtual_width(const TapasAuditEntry *e);
extern List *tapas_audit_table_classes(Oid relid);

/* relations.c */
extern TapasJoint *tapas_audit_joint_of(Oid relid, const TapasClass *cls);
extern List *tapas_audit_joints_of(Oid relid, const TapasClass *cls);
extern int	tapas_audit_joint_member(const TapasJoint *jt, const TapasClass *cls);
extern void tapas_audit_relations_drop(Oid relid);

/* joint.c */

/*
 * most unknowns (regions x records) of a joint system, about 80 bytes each
 * (tapas.audit_joint_max_unknowns; above, TP004); the memory of what it
 * holds is bounded by tapas.audit_memory as for one class's row space
 */
#define TAPAS_JOINT_MAX_UNKNOWNS	(1 << 21)
extern int	tapas_audit_joint_max_unknowns;

extern size_t tapas_audit_joint_nrows(const TapasJoint *jt, int member);
extern size_t tapas_audit_joint_cell_rows(const TapasJoint *jt, int member, uint32 cap_n,
										  uint32 *ids, size_t at, size_t card,
										  size_t *offsets, size_t *nrows);
extern size_t tapas_audit_joint_expand(const tapas_regset_t *regions, uint32 cap_n, uint32 *ids,
									   size_t at, size_t card);
extern int	tapas_audit_joint_determined(TapasAuditBatch *batch, const int16 *member,
										 TapasFinding **found, TimestampTz deadline);

/* reconstructed.c */
extern int	tapas_audit_reconstructed(TapasAuditBatch *batch, TapasFinding **found,
									  TimestampTz deadline, const char **why);
/* A (logged rows, then the batch's) for the decoders, and b; cached in e */
extern struct tapas_binmat *tapas_audit_matrix(TapasAuditBatch *batch, double **b);
extern void tapas_audit_matrix_done(TapasAuditEntry *e);
/* the column patterns of the A just returned by tapas_audit_matrix, cached in e */
extern struct tapas_binmat_colbytes *tapas_audit_patterns(TapasAuditBatch *batch,
														  struct tapas_binmat *A);
/* the sparse search's column hashes of A's logged rows, cached in e (or NULL) */
extern struct tapas_sparse_hashes *tapas_audit_hashes(TapasAuditBatch *batch,
													  struct tapas_binmat *A);
extern bool tapas_audit_fast_decoders;
/* warms the matrix and the decoders' caches; the time taken (not the decoders') */
extern int64 tapas_audit_warm(TapasAuditBatch *batch, bool patterns, bool hashes);

/* a kernel progress callback's argument: stop at the deadline */
typedef struct TapasAuditDeadline
{
	TimestampTz deadline;
	bool		expired;
} TapasAuditDeadline;
extern int	tapas_audit_deadline_progress(void *arg, double fraction);

/*
 * simulated.c: the most positives the decoders are run for
 * (tapas.audit_max_positives; above, TP004).  The decoders' own limit is
 * the budget: a trial that does not finish in it fails closed.
 */
#define TAPAS_AUDIT_MAX_POSITIVES	100000000	/* the default: no cap but the budget */
extern int	tapas_audit_max_positives;
/* the greedy trial's products from runs of disjoint rows (off: the patterns', as before) */
extern bool tapas_audit_row_families;
extern int	tapas_audit_simulated(TapasAuditBatch *batch, TapasFinding **found,
								  TimestampTz deadline, const char **why);

/* combined.c: targets (sets of patterns) and the masks kept per cover */
#define TAPAS_COMBINED_MAX_TARGETS	8
#define TAPAS_COMBINED_MAX_MASKS	64
typedef struct TapasCombined TapasCombined;
/* combined_batch.c */
extern int	tapas_audit_combined(TapasAuditBatch *batch, const int16 *member,
								 TapasAuditBatch *out);
/* combined_memory.c */
extern void tapas_audit_combined_free(TapasAuditEntry *e);
extern size_t tapas_audit_combined_memory(const TapasAuditEntry *e);
extern bool tapas_audit_combined_rows;	/* decide_gucs.c */

/* candidates.c */
extern void tapas_audit_candidates_reset(TapasAuditEntry *e);
extern int	tapas_audit_candidates(TapasAuditBatch *batch, TapasFinding **found,
								   bool simulate);
extern int	tapas_audit_candidates_logged(TapasAuditBatch *batch, TapasFinding **found);
extern int	tapas_audit_joint_candidates(TapasAuditBatch *batch, const int16 *member,
										 TapasFinding **found, bool simulate);

/* designs.c */
extern int	tapas_audit_designs(TapasAuditBatch *batch, const int64 *supp, int w,
								TapasFinding **found);
extern const char *tapas_audit_designs_complete(TapasAuditBatch *batch, int s,
												bool binary, char *detail);

/* truth_basis.c */
extern Node *tapas_audit_statistic_tree(Oid relid, const char *stat, bool *sensitive);
extern bool tapas_audit_basis_known(Oid relid, const char *statistic);

/* truth_read.c */
extern int64 tapas_audit_table_change_stamp(Oid relid);
extern bool tapas_audit_class_read_truth(TapasClass *c);
extern bool tapas_audit_truths_read(TapasClass **cs, int k,
									const struct TapasProtection *prot);

/* truth_preread.c: the truths of a statement's new statistics in one scan */
extern void tapas_audit_truth_preread(const TapasCell *cells, int ncells);
extern bool tapas_audit_truth_pending_take(TapasClass *c);
extern void tapas_audit_class_free(TapasClass *c);
extern void tapas_audit_truth_pending_clear(void);

#endif							/* TAPAS_AUDIT_INT_H */
