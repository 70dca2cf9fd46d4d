/*-------------------------------------------------------------------------
 *
 * gate_int.h
 *	  The state of a TapasGate execution, shared by gate.c (the CustomScan:
 *	  drain, audit, log, release) and gate_cells.c (the cells of the
 *	  drained groups, the HAVING drop and the k threshold).
 *
 * IDENTIFICATION
 *	  src/capture/gate_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef TAPAS_GATE_INT_H
#define TAPAS_GATE_INT_H

#include "nodes/execnodes.h"
#include "utils/tuplestore.h"

#include "capture/capture.h"
#include "ledger/ledger.h"

typedef struct TapasGateState
{
	CustomScanState css;
	MemoryContext cxt;			/* "tapas gate": store and cells */
	Tuplestorestate *store;		/* drained groups (flat Agg rows) */
	TupleTableSlot *readslot;	/* minimal slot for reading the store */
	bool		drained;		/* this execution's groups are in store */
	int			ncovers;		/* statistics captured (several per capture
								 * column: one per covered set) */
	AttrNumber *cover_att;		/* [ncovers] attno in the scan tuple */
	int		   *cover_slot;		/* [ncovers] its answer in that capture */
	Oid		   *cover_relid;	/* [ncovers] protected table */
	TapasStatSpec **cover_spec;	/* [ncovers] what the capture logs */
	TapasGroupedCover **cover_grouped;	/* [ncovers] non-NULL: grouped by a
										 * sensitive column (groups.c) */
	bool		incomplete;		/* a cell of several sensitive bases was answered */
	TapasCell  *cells;			/* cells of this execution */
	int		   *cell_group;		/* [maxcells] the Agg row of each cell, 1, 2, ...
								 * (0: grouped by a sensitive column) */
	List	  **cell_aggs;		/* [maxcells] the aggregates it is a term of */
	int			group_no;		/* Agg rows drained so far */
	int			ncells;
	int			maxcells;
	/*
	 * The captures of the current Agg row unpacked so far (at most
	 * ncovers): a capture with the same keys as one of them (the statistics
	 * of one GROUP BY over the same rows) shares its keys array instead of
	 * unpacking its own, and the auditor and the ledger then see one
	 * pointer (their per-cell work on keys is done once per pointer).
	 */
	int			nrow;
	bytea	  **row_cover;		/* [ncovers] the packed capture */
	const int64 **row_keys;		/* [ncovers] its keys */
	Oid		   *row_relid;		/* [ncovers] its table */
} TapasGateState;

/* gate_cells.c */
extern void gate_add_cover(TapasGateState *gs, int i, const char *stat, const Node *basis,
						   bytea *cover, const Datum *values, const bool *isnull);
extern bool gate_group_dropped(TapasGateState *gs, const Datum *values, const bool *isnull);
extern void gate_grouped_cells(TapasGateState *gs, ParamListInfo params);
extern void gate_check_k(TapasGateState *gs);

#endif							/* TAPAS_GATE_INT_H */
