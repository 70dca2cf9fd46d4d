/*-------------------------------------------------------------------------
 *
 * capture.h
 *	  Capture of aggregate answers on protected tables: query validation
 *	  and normalisation, the capture aggregate, the gate CustomScan.
 *
 * Phases (one file each, pg_diffix style):
 *	  validate.c	refusals only (verify_* functions raise, never rewrite)
 *	  allowlist.c	the closed expression language of per-row expressions
 *	  fold.c		row-independent sub-expressions, folded before the scan
 *	  curated.c		built-in functions admitted with valid constant arguments
 *	  refs.c		the column-reference test
 *	  normalise.c	Query rewrite: sensitive WHERE conjuncts into FILTER,
 *					hidden group-existence HAVING, capture aggregates
 *	  cover_build.c	builds the capture aggregates and the hidden HAVING
 *	  flatten.c		pull-up of plain views over a protected table
 *	  cellform.c	the normal form of an aggregate: terms over covered sets
 *	  basis.c		canonical basis values and their statistic texts
 *	  basis_atoms.c	the arithmetic and sensitive atoms under them
 *	  statistic.c	what a capture logs, as plan nodes; binding per execution
 *	  plan.c		places a gate above each capturing Agg
 *	  plan_verify.c	fail-closed check that every scan of a protected table
 *					is gated
 *	  gate.c		the TapasGate CustomScan: drain, build cells, k check,
 *					hand-off to the ledger, release
 *	  groups.c		cells of captures grouped by a sensitive column
 *	  having.c		HAVING conjuncts that reject a group by its size alone
 *	  cover.c		tapas._cover, the resjunk capture aggregate
 *	  inspect.c		tapas.last_capture(), the admin's view of the last cells
 *	  hooks.c		thin hook bodies, chained
 *
 * The Query phase passes what the plan phase needs in TapasCaptureInfo;
 * what the executor needs travels in the plan itself (Const arguments of
 * the capture aggregate, custom_private of the gate), so cached and copied
 * plans keep working.
 *
 * IDENTIFICATION
 *	  src/capture/capture.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_CAPTURE_H
#define TAPAS_CAPTURE_H

#include "postgres.h"

#include "nodes/bitmapset.h"
#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "utils/relcache.h"

#include "ledger/ledger.h"
#include "policy/policy.h"

/*
 * Result of tapas._cover, after the bytea header; then nanswers doubles
 * (the answer of each statistic of the covered set, in the order of the
 * capture's values), setbytes of a Roaring bitmap (portable format) of the
 * keys in [0, 2^32), then nextra int64 keys outside that range (cover.c).
 */
typedef struct TapasCoverHeader
{
	int64		nanswers;		/* statistics (0: an empty group) */
	int64		nkeys;			/* covered rows */
	int64		nextra;			/* keys outside [0, 2^32) */
	int64		setbytes;		/* size of the serialised bitmap */
} TapasCoverHeader;

/* cover.c: the keys of a _cover result, in a new array in cxt */
extern int64 *tapas_cover_keys(const bytea *cover, MemoryContext cxt,
							   TapasCoverHeader *hdr);
/* cover.c: the number of covered keys of a _cover result */
extern int64 tapas_cover_count(const bytea *cover);
/* cover.c: the answer of statistic slot of a _cover result */
extern double tapas_cover_answer(const bytea *cover, int slot);
/*
 * cover.c: whether two _cover results hold the same keys (their answers
 * may differ), by their bytes: equal bytes are equal sets; unequal bytes
 * answer false even for equal sets, so this is a shortcut, never a proof
 * of difference.  Fills *hdr with b's header.
 */
extern bool tapas_cover_same_keys(const bytea *a, const bytea *b, TapasCoverHeader *hdr);

/* Audited aggregate kinds (validate.c decides, normalise.c captures). */
typedef enum TapasAggKind
{
	TAPAS_AGG_NONE,
	TAPAS_AGG_COUNT_STAR,		/* count(*) */
	TAPAS_AGG_COUNT,			/* count(x) */
	TAPAS_AGG_SUM,				/* sum(x) */
	TAPAS_AGG_AVG,				/* avg(x): captured as sum(x) and count(x) */
	TAPAS_AGG_VARIANCE,			/* variance, var_pop, stddev ...: captured as
								 * sum(x), count(x) and sum(x * x) */
	TAPAS_AGG_NONSENSITIVE		/* min, max, count(DISTINCT x) over columns
								 * that are not sensitive, with no sensitive
								 * condition: captured as count(*) (k) */
} TapasAggKind;

/* What normalise.c tells plan.c about one planned Query. */
typedef struct TapasCaptureInfo
{
	int			ncovers;		/* capture aggregates added (0: nothing to gate) */
	List	   *covers;			/* [ncovers] the statistics of each capture,
								 * in the order of its values: (Integer
								 * seq, statistic node (statistic.c))
								 * pairs; a capture's second argument
								 * indexes it, seq numbers the statistics
								 * of the statement in order of creation */
	int			nstats;			/* statistics created so far (next seq) */
	bool		protected_read; /* some level reads a protected table */
	List	   *prevalidate;	/* (relid Const, expression) pairs checked on
								 * every row before the query (prevalidate.c) */
} TapasCaptureInfo;

/* One protected level being normalised (normalise.c, cover_build.c). */
typedef struct TapasLevelContext
{
	Query	   *q;
	int			varno;			/* range-table index of p */
	const TapasProtection *prot;
	List	   *sens_where;		/* S: sensitive WHERE conjuncts */
	List	   *captures;		/* TapasCapture of each covered set (cover_build.c) */
	List	   *groups;			/* GROUP BY clauses if one is sensitive, else NIL */
	TapasCaptureInfo *info;
} TapasLevelContext;

/* normalise.c */
extern void tapas_normalise_query(Query *parse, TapasCaptureInfo *info);
extern bool tapas_query_reads_protected(Query *parse);
extern int	tapas_single_protected_from(Query *q);

/* cover_build.c */
extern List *tapas_cover_add(TapasLevelContext *lc, TapasAggKind kind, Node *arg,
							 List *sens, List *narrow);
extern Node *tapas_cover_group_exists_qual(TapasLevelContext *lc);
extern void tapas_cover_finish(TapasLevelContext *lc);

/* having.c */
extern void tapas_having_bounds(TapasLevelContext *lc, Node *having, List *aggs, List *aggspecs);

/* flatten.c */
extern void tapas_flatten_query(Query *q);
extern void tapas_distinct_as_grouping(Query *q);

/* validate.c */
extern void tapas_verify_statement(Query *q);
extern void tapas_verify_level(Query *q, int varno, const TapasProtection *prot);
extern void tapas_verify_only_protected(Node *expr, int varno, const char *what, Oid relid);
extern TapasAggKind tapas_verify_aggregate(Aggref *agg, Oid relid);
extern void tapas_verify_sublink(SubLink *sl);
extern void tapas_verify_no_cover(Query *q);
extern void tapas_verify_grouping(Query *q, int varno, const TapasProtection *prot);

/* allowlist.c */
extern void tapas_allowlist_check_expr(Node *expr, const char *what, bool every_row,
									   Oid relid, int varno);

/* allowlist_calls.c */
extern bool tapas_allow_widening_cast(Oid funcid, Oid from, Oid to);
extern bool tapas_allow_builtin_comparison(Oid opno);
extern bool tapas_allow_is_design_member(Oid funcid);
extern bool tapas_allow_design_member_call(Oid funcid, List *args, bool params_ok,
										   uint32 *rowargs);
extern bool tapas_allow_text_output_cast(CoerceViaIO *c);

/* prevalidate.c */
extern void tapas_prevalidate_collect_begin(void);
extern List *tapas_prevalidate_collect_end(void);
extern bool tapas_prevalidate_standalone(Node *node, int varno, Oid relid);
extern int	tapas_prevalidate_mark(void);
extern void tapas_prevalidate_guard(int mark, List *conjuncts, int varno, Oid relid);
extern bool tapas_prevalidate_admit(Node *call, Node *root, Oid funcid, int varno, Oid relid);
extern bool tapas_prevalidate_admit_cast(Node *cast, Node *root, int varno, Oid relid);
extern void tapas_prevalidate_run(List *items, EState *estate);

/* fold.c */
extern bool tapas_row_independent(Node *node);
extern void tapas_allowlist_fold_query(Query *q, ParamListInfo params);

/* curated.c */
extern bool tapas_curated_call(Oid funcid, List *args, Oid inputcollid, bool params_ok,
							   uint32 *rowargs);
extern bool tapas_curated_arithmetic(Oid funcid);

/* refs.c */
extern bool tapas_expr_refs(Node *node, int varno, const Bitmapset *attnos);

/* plan.c */
extern bool tapas_plan_place_gates(PlannedStmt *stmt, const TapasCaptureInfo *info);
extern bool tapas_is_partial_cover(Node *node);
extern bool tapas_tlist_has(List *tlist, bool (*pred) (Node *));

/* plan_parallel.c */
extern bool tapas_plan_is_gather(Plan *plan);
extern bool tapas_plan_has(Plan *plan, bool (*pred) (Plan *));
extern bool tapas_plan_parallel_gates_ok(PlannedStmt *stmt);

/* plan_verify.c */
extern void tapas_plan_verify_gated(PlannedStmt *stmt);
extern bool tapas_plan_reads_protected(PlannedStmt *stmt);
extern void tapas_plan_verify_no_write(PlannedStmt *stmt);

/* gate.c */
extern CustomScan *tapas_gate_create(Agg *agg, List *cells, List *scan_tlist,
									 List *tlist, List *qual, int plan_node_id);
extern bool tapas_plan_is_gate(Plan *plan);
extern void tapas_gate_register(void);

/* inspect.c: groups[i] is cell i's output group (0: unknown), aggs[i] its aggregates */
extern void tapas_capture_record(const TapasCell *cells, int ncells, const int *groups,
								 List *const *aggs);

/* hooks.c */
extern void tapas_capture_install(void);

/* cellform.c: the normal form of one aggregate */
#define TAPAS_MAX_NS_ATOMS	4		/* non-sensitive atoms per aggregate */
#define TAPAS_TV_TRUE	0			/* 3-valued truth values of an atom */
#define TAPAS_TV_FALSE	1
#define TAPAS_TV_NULL	2

/* One term of a cell: sum over Q (rows passing cond) of phi. */
typedef struct TapasTerm
{
	Node	   *cond;			/* non-sensitive assignment over the level's
								 * varno, or NULL: every row */
	struct TapasBasis *basis;	/* phi: reads sensitive columns only (or none) */
} TapasTerm;

extern List *tapas_cell_terms(TapasAggKind kind, Node *arg, List *sens, List *narrow,
							  int varno, const TapasProtection *prot,
							  bool sensitive_groups);
extern void tapas_expr_reads(Node *expr, int varno, const Bitmapset *sensitive,
							 bool *sens, bool *other);
extern Node *tapas_make_case(Node *cond, Node *then, Node *otherwise);
extern Node *tapas_searched_case(Node *node, void *unused);
extern Node *tapas_substitute_atoms(Node *expr, List *atoms, const int *value);
extern bool tapas_next_assignment(int *value, const int *dom, int n);
extern Node *tapas_atom_test(Node *atom, int value);

/* basis.c: canonical identity of a basis value */
#define TAPAS_MAX_S_ATOMS	5		/* sensitive atoms canonicalised */

typedef enum TapasBasisKind
{
	TAPAS_BASIS_ZERO,			/* adds nothing: no capture */
	TAPAS_BASIS_COUNT,			/* 1[indicator], or the constant 1 */
	TAPAS_BASIS_VALUE			/* value * 1[indicator], or opaque */
} TapasBasisKind;

typedef struct TapasBasis
{
	TapasBasisKind kind;
	bool		sensitive;		/* reads a sensitive column */
	Node	   *phi;			/* canonical value over varno 1 */
	Node	   *tree;			/* phi as float8: the capture's contribution */
	char	   *text;			/* canonical statistic text (the ledger key) */
} TapasBasis;

extern TapasBasis *tapas_basis_make(Node *phi, Oid relid, const Bitmapset *sensitive);
extern int64 tapas_basis_id(const char *text);

/* basis_atoms.c: the algebra under it */
extern Node *tapas_basis_prepare(Node *phi);
extern Node *tapas_simplify(Node *expr);
extern bool tapas_is_zero(Node *node);
extern bool tapas_const_same_value(Node *a, Node *b);

/* statistic.c: what one capture logs, as plan nodes */
typedef struct TapasStatSpec
{
	Oid			relid;
	Node	   *phi;			/* canonical basis over varno 1, may hold $n */
	char	   *text;			/* its text at plan time ($n unbound) */
	List	   *groups;			/* GROUP BY clauses, see tapas_statistic_node */
	bool		final;			/* text needs no binding per execution */
	bool		incomplete;		/* part of a cell of several sensitive bases */
	bool		split;			/* covered set of one term of a split condition */
	Node	   *tree;			/* phi as float8 (the capture's v) */
	List	   *having;			/* Integer pairs (h, t): the capture is a term
								 * of a count in HAVING conjunct h, which
								 * rejects the group unless the terms of h
								 * cover t rows or more (having.c) */
	List	   *aggs;			/* Integers: the aggregates of the level the
								 * capture is a term of (0: hidden) */
} TapasStatSpec;

extern Node *tapas_statistic_node(Oid relid, TapasBasis *basis, List *groups, int varno,
								  bool split);
extern TapasStatSpec *tapas_statistic_spec(Node *node);
extern void tapas_statistic_mark_incomplete(Node *node);
extern void tapas_statistic_tag_having(Node *node, int h, int64 t);
extern void tapas_statistic_tag_aggregate(Node *node, int n);
extern char *tapas_statistic_format(const TapasStatSpec *spec, ParamListInfo params,
									const Datum *gvals, const bool *gnulls, Node **tree);

/* groups.c */
typedef struct TapasGroupedCover TapasGroupedCover;
extern TapasGroupedCover *tapas_grouped_create(const TapasStatSpec *spec, List *groupcols,
											   TupleDesc desc);
extern void tapas_grouped_reset(TapasGroupedCover *gc);
extern void tapas_grouped_add(TapasGroupedCover *gc, MemoryContext cxt, const Datum *values,
							  const bool *isnull, double answer, const int64 *keys,
							  int64 nkeys);
extern bool tapas_grouped_same(const TapasGroupedCover *a, const TapasGroupedCover *b);
extern TapasCell *tapas_grouped_cells(TapasGroupedCover *gc, ParamListInfo params,
									  int *ncells);

#endif							/* TAPAS_CAPTURE_H */
