/*-------------------------------------------------------------------------
 *
 * truth.c
 *	  Basis-value classes: every sensitive statistic of a protected table
 *	  is mapped to the class of statistics whose per-row value v has the
 *	  same truth vector over the table, read from the table itself.
 *
 * The joint system (DESIGN.md section 2) has one unknown per (record,
 * basis value), and basis values whose truth vectors are identical are
 * ONE unknown: "count(*) filter (where rare)", "sum((rare)::integer)" and
 * "sum(CASE WHEN rare THEN 1 ELSE 0 END)" all have v_j = 1[rare_j], so an
 * attacker adds their cells as cells of one statistic.  Until the normal
 * form identifies basis values structurally (issue 10), a class is found
 * by value: the full truth vector {(key, v) : v != 0}, sorted by key, is
 * hashed, and a class with the same hash is taken only after an exact
 * comparison of the vectors.  Unifying by value may also merge statistics
 * that agree on this table by coincidence; that only adds rows an
 * attacker who knew the coincidence could combine (more refusals, never
 * fewer).  A class is named by the first statistic text seen of it (its
 * "basis id", TapasClass.rep).
 *
 * The statistic text (capture/normalise.c: "count(*)", "count(x)",
 * "sum(x)", optionally " filter (where S)") is turned back into v, and
 * "SELECT key, v FROM ONLY tbl WHERE v <> 0" is run through SPI in a
 * subtransaction with the capture bypassed (tapas_internal_read), so the
 * auditor's own read is neither refused nor logged.  Errors of that read
 * are swallowed, never shown to the analyst: the class is then "unusable"
 * (identified by its text alone) and every check that needs its truth
 * fails closed (decide.c).  Statistics calling functions that are not
 * built in are never evaluated (they would run with the bypass on).
 *
 * The classes of a table are kept per backend and dropped, with every
 * audit entry of the table, when the table's change counters move
 * (cumulative statistics plus this backend's pending counts): the entries
 * are then rebuilt from the ledger against the new truth.
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
#include "common/hashfn.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "audit/audit_int.h"
#include "capture/capture.h"
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
 * *sensitive: v reads a sensitive column (an expression that cannot be
 * analysed counts as sensitive); returns the SQL of v, or NULL when v
 * cannot be evaluated safely.
 */
static char *
statistic_prepare(Oid relid, const char *stat, bool *sensitive)
{
	const TapasProtection *prot = tapas_protection_lookup(relid);
	char	   *v = statistic_value_sql(stat);
	char	   *sql;
	Query	   *q;
	Node	   *expr;
	Bitmapset  *attnos = NULL;
	int			a = -1;

	*sensitive = true;
	if (prot == NULL || v == NULL)
		return NULL;
	sql = psprintf("SELECT (%s)::float8 FROM %s", v, relation_sql(relid));
	q = analyse_quietly(sql);
	if (q == NULL || q->commandType != CMD_SELECT || list_length(q->targetList) != 1)
		return NULL;
	expr = (Node *) linitial_node(TargetEntry, q->targetList)->expr;
	pull_varattnos(expr, 1, &attnos);
	*sensitive = false;
	while ((a = bms_next_member(attnos, a)) >= 0)
		if (bms_is_member(a + FirstLowInvalidHeapAttributeNumber, prot->sensitive))
			*sensitive = true;
	if (check_functions_in_node(expr, not_builtin, NULL))
		return NULL;
	return v;
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

/* runs the truth query into c (keys ascending); false on any error */
static bool
read_truth(TapasClass *c, const char *sql)
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
		if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "truth query failed");
		c->nnz = (int64) SPI_processed;
		c->binary = true;
		c->keys = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(int64) * Max(c->nnz, 1));
		c->vals = MemoryContextAllocHuge(tapas_audit_cxt(), sizeof(double) * Max(c->nnz, 1));
		for (int64 i = 0; i < c->nnz; i++)
		{
			bool		n1,
						n2;
			HeapTuple	tup = SPI_tuptable->vals[i];

			if ((i & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			c->keys[i] = DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &n1));
			c->vals[i] = DatumGetFloat8(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &n2));
			if (n1 || n2)
				elog(ERROR, "null in the truth");
			if (c->vals[i] != 1.0)
				c->binary = false;
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
		c->nnz = 0;
		return false;
	}
	PG_END_TRY();
	tapas_internal_read--;
	MemoryContextSwitchTo(caller);
	CurrentResourceOwner = owner;
	return ok;
}

/* reads c's truth vector and its hash; false if it cannot be read */
static bool
class_read_truth(TapasClass *c)
{
	const TapasProtection *prot = tapas_protection_lookup(c->relid);
	const char *key;
	char	   *sql;

	if (c->vexpr == NULL || prot == NULL)
		return false;
	key = quote_identifier(get_attname(c->relid, prot->key_attno, false));
	sql = psprintf("SELECT (%s)::int8, v FROM (SELECT %s, (%s)::float8 AS v FROM %s) t "
				   "WHERE v <> 0 ORDER BY 1",
				   key, key, c->vexpr, relation_sql(c->relid));
	if (!read_truth(c, sql))
		return false;
	for (int64 i = 0; i < c->nnz; i++)
		if (c->vals[i] == 0.0)
			c->vals[i] = 0.0;	/* -0 and 0 are one value */
	c->hash = hash_bytes_extended((const unsigned char *) c->keys,
								  (int) Min(sizeof(int64) * c->nnz, (size_t) PG_INT32_MAX), 0x7461706173ULL) ^
		hash_bytes_extended((const unsigned char *) c->vals,
							(int) Min(sizeof(double) * c->nnz, (size_t) PG_INT32_MAX), (uint64) c->nnz);
	return true;
}

/* ----------------------------------------------------------------
 *		The registry: statistic text -> class, classes per table
 * ----------------------------------------------------------------
 */

typedef struct StatKey
{
	Oid			relid;
	char		statistic[TAPAS_LEDGER_MAX_STATISTIC + 1];
} StatKey;

typedef struct StatEnt
{
	StatKey		key;			/* hash key: must be first */
	TapasClass *cls;			/* NULL: the statistic is not sensitive */
} StatEnt;

typedef struct RelClasses
{
	Oid			relid;			/* hash key */
	int64		stamp;			/* table change counter when read */
	List	   *classes;		/* TapasClass *, in order of creation */
} RelClasses;

static HTAB *stat_map = NULL;
static HTAB *rel_map = NULL;

static void
registry_init(void)
{
	HASHCTL		ctl;

	if (stat_map != NULL)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(StatKey);
	ctl.entrysize = sizeof(StatEnt);
	ctl.hcxt = tapas_audit_cxt();
	stat_map = hash_create("tapas statistic classes", 64, &ctl,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(RelClasses);
	ctl.hcxt = tapas_audit_cxt();
	rel_map = hash_create("tapas table classes", 16, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
class_free(TapasClass *c)
{
	if (c->keys)
		pfree(c->keys);
	if (c->vals)
		pfree(c->vals);
	if (c->vexpr)
		pfree(c->vexpr);
	pfree(c->rep);
	pfree(c);
}

/* forgets the classes of relid and every audit entry built on them */
static void
registry_drop_relation(RelClasses *r)
{
	HASH_SEQ_STATUS seq;
	StatEnt    *s;
	ListCell   *lc;

	tapas_audit_drop_relation(r->relid);
	hash_seq_init(&seq, stat_map);
	while ((s = hash_seq_search(&seq)) != NULL)
		if (s->key.relid == r->relid)
			hash_search(stat_map, &s->key, HASH_REMOVE, NULL);
	foreach(lc, r->classes)
		class_free(lfirst(lc));
	list_free(r->classes);
	r->classes = NIL;
}

/* the classes of relid, dropped first if the table changed since they were read */
static RelClasses *
relation_classes(Oid relid, bool check)
{
	RelClasses *r;
	bool		found;
	int64		stamp;

	registry_init();
	r = hash_search(rel_map, &relid, HASH_ENTER, &found);
	if (!found)
	{
		r->classes = NIL;
		r->stamp = table_change_stamp(relid);
		return r;
	}
	if (!check)
		return r;
	stamp = table_change_stamp(relid);
	if (r->stamp != stamp)
	{
		registry_drop_relation(r);
		r->stamp = stamp;
	}
	return r;
}

void
tapas_audit_classes_check(Oid relid)
{
	(void) relation_classes(relid, true);
}

/* an existing class of r whose truth equals c's (hash, then every value) */
static TapasClass *
find_equal_class(RelClasses *r, const TapasClass *c)
{
	ListCell   *lc;

	foreach(lc, r->classes)
	{
		TapasClass *o = lfirst(lc);

		if (o->usable && o->hash == c->hash && o->nnz == c->nnz &&
			memcmp(o->keys, c->keys, sizeof(int64) * c->nnz) == 0 &&
			memcmp(o->vals, c->vals, sizeof(double) * c->nnz) == 0)
			return o;
	}
	return NULL;
}

TapasClass *
tapas_audit_class(Oid relid, const char *statistic)
{
	RelClasses *r = relation_classes(relid, false);
	StatKey		k;
	StatEnt    *s;
	bool		found;
	bool		sensitive;
	char	   *v;
	TapasClass *c;
	TapasClass *same;
	MemoryContext old;

	memset(&k, 0, sizeof(k));
	k.relid = relid;
	strlcpy(k.statistic, statistic, sizeof(k.statistic));
	s = hash_search(stat_map, &k, HASH_FIND, NULL);
	if (s != NULL)
		return s->cls;
	v = statistic_prepare(relid, statistic, &sensitive);
	c = NULL;
	if (sensitive)
	{
		old = MemoryContextSwitchTo(tapas_audit_cxt());
		c = palloc0(sizeof(TapasClass));
		c->relid = relid;
		c->rep = pstrdup(statistic);
		c->vexpr = v ? pstrdup(v) : NULL;
		MemoryContextSwitchTo(old);
		c->usable = class_read_truth(c);
		same = c->usable ? find_equal_class(r, c) : NULL;
		if (same != NULL)
		{
			class_free(c);
			c = same;
		}
		else
		{
			old = MemoryContextSwitchTo(tapas_audit_cxt());
			c->id = list_length(r->classes) + 1;
			r->classes = lappend(r->classes, c);
			MemoryContextSwitchTo(old);
		}
	}
	s = hash_search(stat_map, &k, HASH_ENTER, &found);
	s->cls = c;
	return c;
}

/* points e's truth at its class's; false if the class's truth is unusable */
bool
tapas_audit_ensure_truth(TapasAuditEntry *e)
{
	TapasClass *c = e->cls;

	if (c == NULL || !c->usable)
		return false;
	e->nnz = c->nnz;
	e->nz_keys = c->keys;
	e->nz_vals = c->vals;
	e->truth_binary = c->binary;
	return true;
}
