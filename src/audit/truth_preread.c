/*-------------------------------------------------------------------------
 *
 * truth_preread.c
 *	  The truths of every statistic a statement brings new to the backend,
 *	  read in one scan of each table instead of one scan per statistic.
 *
 * A class's truth (truth_read.c) is the statistic's canonical tree
 * evaluated on every row of the table.  A backend's first statement over a
 * table with k sensitive statistics (count(*) FILTER (WHERE rare) and
 * sum(income): k = 2) read the table k times while it grouped the cells
 * into classes (decide.c, truth.c): about a quarter of the first `g20`
 * statement at 10^6 records (README "Scale benchmark", session 8), most of
 * it the heap scan and the tuple deforming, which are the same for every
 * tree.  Before the grouping, tapas_audit_truth_preread reads the truths of
 * the statistics of the statement that the backend has not classed yet
 * (two or more per table; a statistic whose truth another backend shares
 * is taken from its copy first) in one scan, and keeps them here; the
 * grouping then classes each statistic exactly as before, in the same
 * order, taking its truth from here instead of scanning
 * (tapas_audit_truth_pending_take, called by tapas_audit_class_read_truth).
 *
 * Exactness: the scan evaluates each tree on each row under the snapshot
 * a single read would use, so each truth is the one k scans give.  If the
 * combined scan fails (one tree's evaluation raises), nothing is kept and
 * every statistic is read alone, so a failing tree still makes only its
 * own class unusable.  What is kept lives until the end of the grouping
 * (tapas_audit_truth_pending_clear) and is matched by (table, statistic
 * text), the statistic's class being made from that same text.
 *
 * IDENTIFICATION
 *	  src/audit/truth_preread.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "policy/policy.h"

/* truths read ahead, TapasClass * in the audit context, not registered */
static List *pending = NIL;

void
tapas_audit_truth_pending_clear(void)
{
	ListCell   *lc;

	foreach(lc, pending)
		tapas_audit_class_free(lfirst(lc));
	list_free(pending);
	pending = NIL;
}

/* whether statistics[0..n) already holds s */
static bool
listed(const char **statistics, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(statistics[i], s) == 0)
			return true;
	return false;
}

/*
 * Reads ahead the truths of the statistics of cells[0..ncells) over
 * relid that the backend has not classed and that have a sensitive tree,
 * when there are at least two (one is read alone as before).
 */
static void
preread_table(Oid relid, const TapasCell *cells, int ncells)
{
	const TapasProtection *prot = tapas_protection_lookup(relid);
	const char **stats;
	TapasClass **cs;
	int			nstats = 0;
	int			k = 0;
	MemoryContext old;

	if (prot == NULL)
		return;
	stats = palloc(sizeof(char *) * ncells);
	cs = palloc(sizeof(TapasClass *) * ncells);
	for (int i = 0; i < ncells; i++)
	{
		bool		sensitive;
		Node	   *v;

		if (cells[i].relid != relid || listed(stats, nstats, cells[i].statistic) ||
			tapas_audit_class_known(relid, cells[i].statistic))
			continue;
		stats[nstats++] = cells[i].statistic;
		v = tapas_audit_statistic_tree(relid, cells[i].statistic, &sensitive);
		if (v == NULL || !sensitive)
			continue;
		old = MemoryContextSwitchTo(tapas_audit_cxt());
		cs[k] = palloc0(sizeof(TapasClass));
		cs[k]->relid = relid;
		cs[k]->rep = pstrdup(cells[i].statistic);
		cs[k]->vtree = v;		/* owned by the basis registry */
		MemoryContextSwitchTo(old);
		k++;
	}
	if (k >= 2)
	{
		int			nread = 0;

		/* a truth another backend shares costs no scan */
		for (int i = 0; i < k; i++)
		{
			if (tapas_audit_truth_shared_take(cs[i], prot))
			{
				old = MemoryContextSwitchTo(tapas_audit_cxt());
				pending = lappend(pending, cs[i]);
				MemoryContextSwitchTo(old);
			}
			else
				cs[nread++] = cs[i];
		}
		k = nread;
		if (k >= 2 && tapas_audit_truths_read(cs, k, prot))
		{
			old = MemoryContextSwitchTo(tapas_audit_cxt());
			for (int i = 0; i < k; i++)
				pending = lappend(pending, cs[i]);
			MemoryContextSwitchTo(old);
			k = 0;
		}
	}
	/* one left, or the combined scan failed: each is read alone */
	for (int i = 0; i < k; i++)
		tapas_audit_class_free(cs[i]);
	pfree(cs);
	pfree(stats);
}

void
tapas_audit_truth_preread(const TapasCell *cells, int ncells)
{
	Oid		   *done = palloc(sizeof(Oid) * Max(ncells, 1));
	int			ndone = 0;

	tapas_audit_truth_pending_clear();
	for (int i = 0; i < ncells; i++)
	{
		bool		seen = false;

		for (int j = 0; j < ndone && !seen; j++)
			seen = done[j] == cells[i].relid;
		if (seen)
			continue;
		done[ndone++] = cells[i].relid;
		CHECK_FOR_INTERRUPTS();
		preread_table(cells[i].relid, cells, ncells);
	}
	pfree(done);
}

bool
tapas_audit_truth_pending_take(TapasClass *c)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		TapasClass *p = lfirst(lc);

		if (p->relid != c->relid || strcmp(p->rep, c->rep) != 0)
			continue;
		c->keys = p->keys;
		c->vals = p->vals;
		c->nnz = p->nnz;
		c->nrecords = p->nrecords;
		p->keys = NULL;
		p->vals = NULL;
		pending = foreach_delete_current(pending, lc);
		tapas_audit_class_free(p);
		return true;
	}
	return false;
}
