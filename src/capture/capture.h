/*-------------------------------------------------------------------------
 *
 * capture.h
 *	  Capture of aggregate answers on protected tables: query validation
 *	  and normalisation, the capture aggregate, the gate CustomScan.
 *
 * Phases (one file each, pg_diffix style):
 *	  validate.c	refusals only (verify_* functions raise, never rewrite)
 *	  allowlist.c	the closed expression language of per-row expressions;
 *					folding of row-independent constant sub-expressions
 *	  curated.c		built-in functions admitted with valid constant arguments
 *	  refs.c		the column-reference test
 *	  normalise.c	Query rewrite: sensitive WHERE conjuncts into FILTER,
 *					hidden group-existence HAVING, capture aggregates
 *	  cover_build.c	builds the capture aggregates and the hidden HAVING
 *	  flatten.c		pull-up of plain views over a protected table
 *	  statistic.c	statistic texts (the ledger key)
 *	  plan.c		places a gate above each capturing Agg; fail-closed
 *					check that every scan of a protected table is gated
 *	  gate.c		the TapasGate CustomScan: drain, build cells, k check,
 *					hand-off to the ledger, release
 *	  groups.c		cells of captures grouped by a sensitive column
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
 * Result of tapas._cover, after the bytea header; then setbytes of a
 * Roaring bitmap (portable format) of the keys in [0, 2^32), then nextra
 * int64 keys outside that range (cover.c).
 */
typedef struct TapasCoverHeader
{
	double		answer;			/* sum of the non-null contributions */
	int64		nkeys;			/* covered rows */
	int64		nextra;			/* keys outside [0, 2^32) */
	int64		setbytes;		/* size of the serialised bitmap */
} TapasCoverHeader;

/* cover.c: the keys of a _cover result, in a new array in cxt */
extern int64 *tapas_cover_keys(const bytea *cover, MemoryContext cxt,
							   TapasCoverHeader *hdr);

/* Audited aggregate kinds (validate.c decides, normalise.c captures). */
typedef enum TapasAggKind
{
	TAPAS_AGG_NONE,
	TAPAS_AGG_COUNT_STAR,		/* count(*) */
	TAPAS_AGG_COUNT,			/* count(x) */
	TAPAS_AGG_SUM,				/* sum(x) */
	TAPAS_AGG_AVG				/* avg(x): captured as sum(x) and count(x) */
} TapasAggKind;

/* What normalise.c tells plan.c about one planned Query. */
typedef struct TapasCaptureInfo
{
	int			ncovers;		/* capture aggregates added (0: nothing to gate) */
	List	   *covers;			/* [ncovers] (relid Integer, statistic String);
								 * a capture's third argument indexes it */
	bool		protected_read; /* some level reads a protected table */
} TapasCaptureInfo;

/* One protected level being normalised (normalise.c, cover_build.c). */
typedef struct TapasLevelContext
{
	Query	   *q;
	int			varno;			/* range-table index of p */
	const TapasProtection *prot;
	List	   *sens_where;		/* S: sensitive WHERE conjuncts */
	List	   *stats;			/* statistic texts of captures added (dedup) */
	List	   *filters;		/* and their capture FILTERs, in step */
	List	   *groups;			/* GROUP BY clauses if one is sensitive, else NIL */
	TapasCaptureInfo *info;
} TapasLevelContext;

/* normalise.c */
extern void tapas_normalise_query(Query *parse, TapasCaptureInfo *info);
extern bool tapas_query_reads_protected(Query *parse);
extern int	tapas_single_protected_from(Query *q);

/* cover_build.c */
extern void tapas_cover_add(TapasLevelContext *lc, TapasAggKind kind, Node *arg,
							List *sens, List *narrow);
extern Node *tapas_cover_group_exists_qual(TapasLevelContext *lc);

/* flatten.c */
extern void tapas_flatten_query(Query *q);

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
									   Oid relid);
extern void tapas_allowlist_fold_query(Query *q, ParamListInfo params);

/* curated.c */
extern bool tapas_curated_call(Oid funcid, List *args, Oid inputcollid, bool params_ok,
							   uint32 *rowargs);

/* refs.c */
extern bool tapas_expr_refs(Node *node, int varno, const Bitmapset *attnos);

/* plan.c */
extern void tapas_plan_place_gates(PlannedStmt *stmt, const TapasCaptureInfo *info);
extern void tapas_plan_verify_gated(PlannedStmt *stmt);
extern bool tapas_plan_reads_protected(PlannedStmt *stmt);
extern void tapas_plan_verify_no_write(PlannedStmt *stmt);

/* gate.c */
extern CustomScan *tapas_gate_create(Agg *agg, List *cells, List *scan_tlist,
									 List *tlist, List *qual, int plan_node_id);
extern bool tapas_plan_is_gate(Plan *plan);
extern void tapas_gate_register(void);

/* inspect.c */
extern void tapas_capture_record(const TapasCell *cells, int ncells);

/* hooks.c */
extern void tapas_capture_install(void);

/* statistic.c */
#define TAPAS_STAT_DEFERRED '\x1f'	/* separates a deferred text's parts */

/* The parts of a deferred statistic text (expressions over varno 1). */
typedef struct TapasStatSpec
{
	int			kind;			/* TapasAggKind */
	Node	   *arg;			/* aggregate argument, or NULL */
	List	   *conds;			/* sensitive conjuncts */
	List	   *groups;			/* GROUP BY clauses, see tapas_statistic_text */
} TapasStatSpec;

extern char *tapas_statistic_text(TapasAggKind kind, Node *arg, List *sens,
								  int varno, Oid relid, List *groups);
extern TapasStatSpec *tapas_statistic_parse(const char *stat);
extern char *tapas_statistic_format(const TapasStatSpec *spec, Oid relid,
									ParamListInfo params, const Datum *gvals,
									const bool *gnulls);
extern char *tapas_statistic_finish(const char *stat, Oid relid, ParamListInfo params);

/* groups.c */
typedef struct TapasGroupedCover TapasGroupedCover;
extern TapasGroupedCover *tapas_grouped_create(const TapasStatSpec *spec, List *groupcols,
											   TupleDesc desc, Oid relid);
extern void tapas_grouped_reset(TapasGroupedCover *gc);
extern void tapas_grouped_add(TapasGroupedCover *gc, MemoryContext cxt, const Datum *values,
							  const bool *isnull, double answer, const int64 *keys,
							  int64 nkeys);
extern bool tapas_grouped_same(const TapasGroupedCover *a, const TapasGroupedCover *b);
extern TapasCell *tapas_grouped_cells(TapasGroupedCover *gc, ParamListInfo params,
									  int *ncells);

#endif							/* TAPAS_CAPTURE_H */
