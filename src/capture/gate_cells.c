/*-------------------------------------------------------------------------
 *
 * gate_cells.c
 *	  The cells of a TapasGate execution: each capture of a drained Agg row
 *	  unpacked into a cell (steps 1 and 2 of gate.c), groups that HAVING
 *	  drops by their size alone, the cells of captures grouped by a
 *	  sensitive column, and the k threshold.
 *
 * Cells live in the gate's context (gate.c, "Memory").  The captures of
 * one Agg row with the same packed keys (the statistics of one GROUP BY
 * over the same rows) share one keys array: unpacked once, and the
 * auditor and the ledger do their per-key work once for that pointer
 * (lstore/ledger_batch.c batch_same_keys).
 *
 * IDENTIFICATION
 *	  src/capture/gate_cells.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "capture/capture.h"
#include "capture/gate_int.h"
#include "policy/policy.h"

/*
 * appends a cell (keys owned by the caller, in gs->cxt), a term of the
 * aggregates aggs of Agg row group (for tapas.last_capture)
 */
static void
gate_append_cell(TapasGateState *gs, Oid relid, const char *stat, const Node *basis,
				 double answer, const int64 *keys, int64 nkeys, int group, List *aggs)
{
	if (gs->ncells == gs->maxcells)
	{
		gs->maxcells = Max(16, gs->maxcells * 2);
		gs->cells = gs->cells == NULL ?
			MemoryContextAlloc(gs->cxt, gs->maxcells * sizeof(TapasCell)) :
			repalloc(gs->cells, gs->maxcells * sizeof(TapasCell));
		gs->cell_group = gs->cell_group == NULL ?
			MemoryContextAlloc(gs->cxt, gs->maxcells * sizeof(int)) :
			repalloc(gs->cell_group, gs->maxcells * sizeof(int));
		gs->cell_aggs = gs->cell_aggs == NULL ?
			MemoryContextAlloc(gs->cxt, gs->maxcells * sizeof(List *)) :
			repalloc(gs->cell_aggs, gs->maxcells * sizeof(List *));
	}
	gs->cell_group[gs->ncells] = group;
	gs->cell_aggs[gs->ncells] = aggs;
	gs->cells[gs->ncells].relid = relid;
	gs->cells[gs->ncells].statistic = stat;
	gs->cells[gs->ncells].answer = answer;
	gs->cells[gs->ncells].keys = keys;
	gs->cells[gs->ncells].nkeys = nkeys;
	gs->cells[gs->ncells].basis = (const struct Node *) basis;
	gs->ncells++;
}

/*
 * The keys of an earlier capture of this Agg row over the same table with
 * the same packed keys as cover, or NULL; fills *hdr with cover's header
 * when it finds them.
 */
static int64 *
gate_row_keys(TapasGateState *gs, Oid relid, const bytea *cover, TapasCoverHeader *hdr)
{
	for (int k = 0; k < gs->nrow; k++)
		if (gs->row_relid[k] == relid && tapas_cover_same_keys(gs->row_cover[k], cover, hdr))
			return (int64 *) gs->row_keys[k];
	return NULL;
}

/*
 * Unpacks capture i of one Agg row: a cell, unless an identical one (same
 * statistic and keys) came from another capture of the same row; or, for
 * a capture grouped by a sensitive column, a row for groups.c.
 */
void
gate_add_cover(TapasGateState *gs, int i, const char *stat, const Node *basis, bytea *cover,
			   const Datum *values, const bool *isnull)
{
	TapasCoverHeader hdr;
	int64	   *keys;
	Oid			relid = gs->cover_relid[i];
	bool		shared = false;
	double		answer = tapas_cover_answer(cover, gs->cover_slot[i]);

	gs->incomplete |= gs->cover_spec[i]->incomplete;
	if (gs->cover_grouped[i] != NULL)
	{
		keys = tapas_cover_keys(cover, gs->cxt, &hdr);
		tapas_grouped_add(gs->cover_grouped[i], gs->cxt, values, isnull,
						  answer, keys, hdr.nkeys);
		return;
	}
	keys = gate_row_keys(gs, relid, cover, &hdr);
	shared = keys != NULL;
	if (!shared)
		keys = tapas_cover_keys(cover, gs->cxt, &hdr);
	/*
	 * An empty term of a split condition (no row with age = 91) adds
	 * nothing to its cell; an empty cell as a whole still answers "no such
	 * row" and meets k below.
	 */
	if (hdr.nkeys == 0 && gs->cover_spec[i]->split)
	{
		if (!shared)
			pfree(keys);
		return;
	}
	if (!shared)
	{
		gs->row_cover[gs->nrow] = cover;
		gs->row_keys[gs->nrow] = keys;
		gs->row_relid[gs->nrow] = relid;
		gs->nrow++;
	}
	for (int j = gs->ncells - 1; j >= 0 && j >= gs->ncells - gs->ncovers; j--)
	{
		TapasCell  *c = &gs->cells[j];

		if (c->relid == relid && c->nkeys == hdr.nkeys && strcmp(c->statistic, stat) == 0 &&
			c->answer == answer && memcmp(c->keys, keys, hdr.nkeys * sizeof(int64)) == 0)
		{
			MemoryContext old = MemoryContextSwitchTo(gs->cxt);

			/* one term of several aggregates (count(*) in SELECT and HAVING) */
			gs->cell_aggs[j] = list_union(gs->cell_aggs[j], gs->cover_spec[i]->aggs);
			MemoryContextSwitchTo(old);
			if (!shared)
			{
				gs->nrow--;		/* it is not kept: the cell keeps its own */
				pfree(keys);
			}
			return;
		}
	}
	gate_append_cell(gs, relid, stat, basis, answer, keys, hdr.nkeys, gs->group_no,
					 gs->cover_spec[i]->aggs);
}

#define GATE_MAX_HAVING 32		/* HAVING conjuncts tracked per group */

/*
 * Whether this Agg row (a group) is dropped, neither logged nor released:
 * one of its captures covers fewer than k rows, and a conjunct h of the
 * user's HAVING rejects it by its size alone, its count's captures
 * covering fewer than t_h rows together (having.c).  The decision reads
 * covered-set sizes only, which no sensitive value decides; the group
 * would not be released anyway.
 */
bool
gate_group_dropped(TapasGateState *gs, const Datum *values, const bool *isnull)
{
	int64		sum[GATE_MAX_HAVING + 1] = {0};
	int			need[GATE_MAX_HAVING + 1] = {0};
	bool		small = false;
	bool		tagged = false;

	for (int i = 0; i < gs->ncovers; i++)
	{
		int			a = gs->cover_att[i] - 1;
		int64		n = isnull[a] ? 0 : tapas_cover_count(DatumGetByteaPP(values[a]));
		const TapasProtection *prot = tapas_protection_lookup(gs->cover_relid[i]);
		ListCell   *lc;

		if (prot != NULL && n < prot->k)
			small = true;
		for (lc = list_head(gs->cover_spec[i]->having); lc != NULL;
			 lc = lnext(gs->cover_spec[i]->having, lnext(gs->cover_spec[i]->having, lc)))
		{
			int			h = intVal(lfirst(lc));
			int			t = intVal(lfirst(lnext(gs->cover_spec[i]->having, lc)));

			if (h < 1 || h > GATE_MAX_HAVING)
				continue;
			sum[h] += n;
			need[h] = t;
			tagged = true;
		}
	}
	if (!small || !tagged)
		return false;
	for (int h = 1; h <= GATE_MAX_HAVING; h++)
		if (need[h] > 0 && sum[h] < need[h])
			return true;
	return false;
}

/* the cells of the captures grouped by a sensitive column, after the drain */
void
gate_grouped_cells(TapasGateState *gs, ParamListInfo params)
{
	for (int i = 0; i < gs->ncovers; i++)
	{
		TapasCell  *cells;
		int			n;
		bool		dup = false;

		if (gs->cover_grouped[i] == NULL)
			continue;
		/* the hidden HAVING's capture often repeats the user's count(*) */
		for (int j = 0; j < i && !dup; j++)
			dup = gs->cover_grouped[j] != NULL &&
				equal(gs->cover_spec[i]->phi, gs->cover_spec[j]->phi) &&
				tapas_grouped_same(gs->cover_grouped[i], gs->cover_grouped[j]);
		if (dup)
			continue;
		cells = tapas_grouped_cells(gs->cover_grouped[i], params, &n);
		for (int c = 0; c < n; c++)
			gate_append_cell(gs, cells[c].relid, cells[c].statistic,
							 (const Node *) cells[c].basis, cells[c].answer,
							 cells[c].keys, cells[c].nkeys, 0, gs->cover_spec[i]->aggs);
	}
}

/* k threshold: the whole query fails if one cell covers fewer than k rows */
void
gate_check_k(TapasGateState *gs)
{
	for (int i = 0; i < gs->ncells; i++)
	{
		const TapasProtection *prot = tapas_protection_lookup(gs->cells[i].relid);

		if (prot != NULL && gs->cells[i].nkeys < prot->k)
			ereport(ERROR,
					(errcode(ERRCODE_TAPAS_GROUP_TOO_SMALL),
					 errmsg("query answers a group of fewer than k = %d rows of protected table \"%s\"",
							prot->k, get_rel_name(prot->relid)),
					 errdetail("Every answered aggregate, including groups filtered by HAVING, must cover at least %d rows.",
							   prot->k),
					 errhint("Widen the conditions that involve no sensitive column, or use coarser groups.")));
	}
}
