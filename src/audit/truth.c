/*-------------------------------------------------------------------------
 *
 * truth.c
 *	  The auditor's truth: the per-row value v of a logged statistic, read
 *	  from the table for the reconstruction audit (reconstructed.c).
 *
 * The statistic text (capture/normalise.c: "count(*)",
 * "count(x)", "sum(x)", optionally " filter (where S)") is turned back into
 * the per-row value v, and "SELECT key, v FROM ONLY tbl WHERE v <> 0 LIMIT
 * 65" is run through SPI in a subtransaction, with the capture bypassed
 * (tapas_internal_read) so the auditor's own read is neither refused nor
 * logged.  Errors of that read (e.g. a division by zero on some row) are
 * swallowed, never shown to the analyst: the truth is then unusable for
 * this statistic.  Statistics calling functions that are not built in are
 * never evaluated (they would run with the bypass on).  The result is
 * cached in the entry and re-read when the table's change counters move
 * (cumulative statistics plus this backend's pending counts; other
 * backends publish theirs within seconds) or after 10 seconds.
 *
 * IDENTIFICATION
 *	  src/audit/truth.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "policy/policy.h"

/* ----------------------------------------------------------------
 *		Statistic text -> per-row value
 * ----------------------------------------------------------------
 */

/* index of the ')' closing the '(' at s[open], skipping quoted text; -1 */
static int
matching_paren(const char *s, int open)
{
	int			depth = 0;
	char		quote = 0;

	for (int i = open; s[i]; i++)
	{
		if (quote)
		{
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '\'' || s[i] == '"')
			quote = s[i];
		else if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i;
	}
	return -1;
}

/* SQL of v for a statistic text, or NULL if the text is not understood */
static char *
statistic_value_sql(const char *stat)
{
	const char *filter_kw = " filter (where ";
	char	   *base;
	int			close;
	const char *rest;

	if (strncmp(stat, "count(*)", 8) == 0)
	{
		base = pstrdup("1");
		rest = stat + 8;
	}
	else if (strncmp(stat, "count(", 6) == 0 || strncmp(stat, "sum(", 4) == 0)
	{
		int			open = stat[0] == 'c' ? 5 : 3;
		char	   *x;

		close = matching_paren(stat, open);
		if (close < 0)
			return NULL;
		x = pnstrdup(stat + open + 1, close - open - 1);
		base = stat[0] == 'c'
			? psprintf("CASE WHEN (%s) IS NOT NULL THEN 1 ELSE 0 END", x)
			: psprintf("COALESCE(((%s))::float8, 0)", x);
		rest = stat + close + 1;
	}
	else
		return NULL;
	if (*rest == '\0')
		return base;
	if (strncmp(rest, filter_kw, strlen(filter_kw)) != 0)
		return NULL;
	close = matching_paren(rest, 8);
	if (close < 0 || rest[close + 1] != '\0')
		return NULL;
	return psprintf("CASE WHEN (%s) THEN %s ELSE 0 END",
					pnstrdup(rest + 15, close - 15), base);
}

static bool
not_builtin(Oid funcid, void *context)
{
	return funcid >= FirstNormalObjectId;
}

/* "FROM ONLY schema.table" of relid */
static char *
relation_sql(Oid relid)
{
	return psprintf("ONLY %s.%s",
					quote_identifier(get_namespace_name(get_rel_namespace(relid))),
					quote_identifier(get_rel_name(relid)));
}

/*
 * Parse analysis of sql in a subtransaction: NULL on any error (which is
 * not shown; the statement being audited goes on), except a cancel.
 */
static Query *
analyse_quietly(const char *sql)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Query	   *volatile q = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		List	   *raw = raw_parser(sql, RAW_PARSE_DEFAULT);

		if (list_length(raw) == 1)
			q = parse_analyze_fixedparams(linitial_node(RawStmt, raw), sql, NULL, 0, NULL);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(caller);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(err);
		FreeErrorData(err);
		return NULL;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return q;
}

/*
 * Sets e->sensitive (v reads a sensitive column) and e->vexpr (NULL when v
 * cannot be evaluated safely).  An expression that cannot be analysed is
 * treated as sensitive.
 */
void
tapas_audit_prepare_statistic(TapasAuditEntry *e)
{
	const TapasProtection *prot = tapas_protection_lookup(e->key.relid);
	char	   *v = statistic_value_sql(e->key.statistic);
	char	   *sql;
	Query	   *q;
	Node	   *expr;
	Bitmapset  *attnos = NULL;
	int			a = -1;

	e->sensitive = true;
	e->vexpr = NULL;
	if (prot == NULL || v == NULL)
		return;
	sql = psprintf("SELECT (%s)::float8 FROM %s", v, relation_sql(e->key.relid));
	q = analyse_quietly(sql);
	if (q == NULL || q->commandType != CMD_SELECT || list_length(q->targetList) != 1)
		return;
	expr = (Node *) linitial_node(TargetEntry, q->targetList)->expr;
	pull_varattnos(expr, 1, &attnos);
	e->sensitive = false;
	while ((a = bms_next_member(attnos, a)) >= 0)
		if (bms_is_member(a + FirstLowInvalidHeapAttributeNumber, prot->sensitive))
			e->sensitive = true;
	if (!check_functions_in_node(expr, not_builtin, NULL))
		e->vexpr = MemoryContextStrdup(tapas_audit_cxt(), v);
}

/* ----------------------------------------------------------------
 *		The truth
 * ----------------------------------------------------------------
 */

/* changes to relid known to this backend (shared counters + own pending) */
static int64
table_change_stamp(Oid relid)
{
	PgStat_StatTabEntry *t;
	PgStat_TableStatus *own;
	int64		stamp = 0;

	pgstat_clear_snapshot();
	t = pgstat_fetch_stat_tabentry(relid);
	if (t != NULL)
		stamp += t->tuples_inserted + t->tuples_updated + t->tuples_deleted;
	own = find_tabstat_entry(relid);
	if (own != NULL)
	{
		stamp += own->t_counts.t_tuples_inserted + own->t_counts.t_tuples_updated +
			own->t_counts.t_tuples_deleted;
		for (PgStat_TableXactStatus *x = own->trans; x != NULL; x = x->upper)
			stamp += x->tuples_inserted + x->tuples_updated + x->tuples_deleted;
	}
	return stamp;
}

/* runs the truth query; false (and nothing kept) on any error */
static bool
read_truth(TapasAuditEntry *e, const char *sql)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(caller);
	tapas_internal_read++;
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		if (SPI_execute(sql, true, TRUTH_MAX_NONZERO + 1) != SPI_OK_SELECT)
			elog(ERROR, "truth query failed");
		e->nnz = (int) SPI_processed;
		e->truth_binary = true;
		e->nz_keys = MemoryContextAlloc(tapas_audit_cxt(), sizeof(int64) * Max(e->nnz, 1));
		e->nz_vals = MemoryContextAlloc(tapas_audit_cxt(), sizeof(double) * Max(e->nnz, 1));
		for (int i = 0; i < e->nnz; i++)
		{
			bool		n1,
						n2;
			HeapTuple	tup = SPI_tuptable->vals[i];

			e->nz_keys[i] = DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &n1));
			e->nz_vals[i] = DatumGetFloat8(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &n2));
			if (n1 || n2 || e->nz_vals[i] != 1.0)
				e->truth_binary = false;
		}
		SPI_finish();
		ReleaseCurrentSubTransaction();
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *err;

		MemoryContextSwitchTo(caller);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		tapas_internal_read--;
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		/* a cancel must still cancel; any other error stays hidden */
		if (err->sqlerrcode == ERRCODE_QUERY_CANCELED)
			ReThrowError(err);
		FreeErrorData(err);
		return false;
	}
	PG_END_TRY();
	tapas_internal_read--;
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/* makes e's truth cache current; false if the truth is unusable */
bool
tapas_audit_ensure_truth(TapasAuditEntry *e)
{
	const TapasProtection *prot;
	int64		stamp;
	const char *key;
	char	   *sql;

	if (e->vexpr == NULL || !e->sensitive)
		return false;
	stamp = table_change_stamp(e->key.relid);
	if (e->truth == TRUTH_OK && stamp == e->truth_stamp)
		return true;
	if (e->truth == TRUTH_UNUSABLE && stamp == e->truth_stamp)
		return false;
	prot = tapas_protection_lookup(e->key.relid);
	if (prot == NULL)
		return false;
	if (e->nz_keys)
		pfree(e->nz_keys);
	if (e->nz_vals)
		pfree(e->nz_vals);
	e->nz_keys = NULL;
	e->nz_vals = NULL;
	e->nnz = 0;
	key = quote_identifier(get_attname(e->key.relid, prot->key_attno, false));
	sql = psprintf("SELECT (%s)::int8, v FROM (SELECT %s, (%s)::float8 AS v FROM %s) t WHERE v <> 0",
				   key, key, e->vexpr, relation_sql(e->key.relid));
	e->truth_stamp = stamp;
	e->truth = read_truth(e, sql) ? TRUTH_OK : TRUTH_UNUSABLE;
	return e->truth == TRUTH_OK;
}

