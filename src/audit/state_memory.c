/*-------------------------------------------------------------------------
 *
 * state_memory.c
 *	  The bound on a backend's audit state of one (table, audit scope):
 *	  tapas.audit_memory.
 *
 * The audit state of a protected table grows with its records (the
 * row-space kernel keeps about 80 bytes per record from creation, the
 * dense index 8), with the logged rows (their covers) and with the rank
 * (the kernel's basis rows, n / 8 bytes each; recon/rowspace.h).  At
 * 10^7 records and a few thousand independent rows that is several GB per
 * class, so the bound is counted on what the entries of one (table, scope)
 * really hold, never estimated ahead: only a state that truly reached it
 * fails closed.
 *
 * When the entries of one (table, scope) hold more than the bound after
 * an allocation (a row space created or rebuilt, rows added, a trial), the
 * entry that grew frees its row space and its decoder matrix, keeps its
 * rows (the ledger is the truth, they are cheap next to the row space),
 * and is marked over_memory: its checks cannot run, so every statement
 * that needs it fails closed (TP004 in deny mode, an 'incomplete' alert
 * otherwise; decide.c), with the reason and the figures in the server log
 * and in the alert.  Raising tapas.audit_memory (or tapas.reset of the
 * table) rebuilds the entry from its rows at the next statement.
 *
 * IDENTIFICATION
 *	  src/audit/state_memory.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "audit/audit_int.h"
#include "recon/binmat.h"

/* tapas.audit_memory, kB per (table, audit scope) in one backend */
int			tapas_audit_memory_kb = 8 * 1024 * 1024;

void
tapas_audit_define_memory_guc(void)
{
	DefineCustomIntVariable("tapas.audit_memory",
							"Maximum memory of one backend's audit state of one protected table and audit scope.",
							"Counted on what the state holds: about 90 bytes per record per "
							"basis-value class, the logged covers, and n / 8 bytes per "
							"independent logged row.  A state that reaches it fails closed "
							"(TP004 in deny mode) until it is raised or the table is reset.",
							&tapas_audit_memory_kb,
							8 * 1024 * 1024, 1024, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
}

/*
 * bytes held by one entry: row space, decoder matrix, rows, dense index,
 * and for a group of related classes its combined entries
 */
size_t
tapas_audit_entry_memory(const TapasAuditEntry *e)
{
	size_t		bytes = e->rows_bytes;

	if (e->rs != NULL)
		bytes += tapas_rowspace_memory(e->rs);
	if (e->A != NULL)
		bytes += e->A->m * e->A->words * sizeof(uint64);
	bytes += (size_t) e->nkeys * sizeof(int64);
	bytes += (size_t) e->maxrows * (sizeof(void *) + sizeof(double) + sizeof(int64) +
									sizeof(int16));
	/* a group's combined rows (combined_memory.c): entries in no hash of their own */
	bytes += tapas_audit_combined_memory(e);
	return bytes;
}

static size_t
bound_bytes(void)
{
	return (size_t) tapas_audit_memory_kb * 1024;
}

/*
 * Whether the entries of e's (table, scope) hold no more than
 * tapas.audit_memory.  If they hold more, e drops its row space and
 * decoder matrix and is marked over_memory (the caller returns "cannot
 * complete"), and the figures go to the server log.  An open trial of e
 * is rolled back first.
 */
bool
tapas_audit_memory_ok(TapasAuditEntry *e)
{
	size_t		total = tapas_audit_scope_memory(e->key.relid, e->key.roleid);

	if (total <= bound_bytes())
		return true;
	tapas_audit_trial_end(e);
	tapas_audit_parked_drop(e);
	tapas_rowspace_free(e->rs);
	e->rs = NULL;
	tapas_binmat_free(e->A);
	e->A = NULL;
	e->A_cap = 0;
	e->A_rows = 0;
	e->rs_rows = 0;
	e->rs_broken = true;
	e->over_memory = true;
	e->over_memory_kb = tapas_audit_memory_kb;
	ereport(LOG_SERVER_ONLY,
			(errmsg("tapas: audit state of table \"%s\" reached tapas.audit_memory for \"%s\": %zu kB held, bound %d kB",
					get_rel_name(e->key.relid), e->key.statistic, total / 1024,
					tapas_audit_memory_kb),
			 errhint("Raise tapas.audit_memory, or tapas.reset the table.")));
	return false;
}

/*
 * An entry marked over_memory under a smaller bound than today's is
 * rebuilt: returns true when the caller should forget its state and take
 * it from the ledger again.
 */
bool
tapas_audit_memory_retry(const TapasAuditEntry *e)
{
	return e->over_memory && tapas_audit_memory_kb > e->over_memory_kb;
}

/* why e's checks cannot run, for the 'incomplete' alert (decide.c) */
const char *
tapas_audit_broken_reason(const TapasAuditEntry *e, bool joint)
{
	if (e->over_memory)
		return "the audit state of the table reached tapas.audit_memory";
	return joint
		? "the joint row-space test of related classes reached its size or rank limit"
		: "the row-space test reached its rank limit";
}
