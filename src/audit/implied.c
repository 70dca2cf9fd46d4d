/*-------------------------------------------------------------------------
 *
 * implied.c
 *	  The zeros a 0/1 class inherits from the classes it implies.
 *
 * When class A implies class B (count(*) FILTER (WHERE rare AND income >
 * 3000) implies count(*) FILTER (WHERE rare): on the domain grid, A's
 * support lies inside B's; truth.c), a record that B's logged answers
 * exclude (a row of B answered 0) is excluded for A too: not B means not
 * A.  Without this, B answered 0 over everyone but the target, then A over
 * everyone, names the target, and an audit that merged A with B only when
 * their truths coincided refused A exactly when the target's income was
 * above 3000: the refusal told it (issue 11, "refusals as an oracle").
 * The candidates test (candidates.c) removes these records from A's
 * candidates.  The implication is structural and the zeros are logged
 * answers, so the decision stays simulatable.
 *
 * The rows are read from the ledger (every role under tapas.audit_scope =
 * all, else the entry's role), like the entry's own sync, and kept in the
 * entry: a statement reads only the rows logged since the last, and
 * everything again when A's implications grew or the table's dense index
 * was renumbered (tapas.reset).
 *
 * IDENTIFICATION
 *	  src/audit/implied.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "audit/audit_int.h"

void
tapas_audit_implied_reset(TapasAuditEntry *e)
{
	if (e->implied_zero != NULL)
		roaring_bitmap_free(e->implied_zero);
	e->implied_zero = NULL;
	e->implied_synced = 0;
	e->implied_n = 0;
}

/* whether cls is one of the classes that e's class implies */
static bool
implied_by(const TapasClass *a, const TapasClass *cls)
{
	if (cls == NULL)
		return false;
	for (int i = 0; i < a->nimplies; i++)
		if (a->implies[i] == cls->id)
			return true;
	return false;
}

/*
 * The records that the logged zeros of the classes e's class implies
 * exclude, over e's dense index, or NULL when it implies none (or when
 * *complete is false: the implications kept growing while the rows were
 * read, and the caller fails closed).  Call after the entry's sync (the
 * same index).
 */
static void read_zeros(TapasAuditEntry *e);

const roaring_bitmap_t *
tapas_audit_implied_zeros(TapasAuditEntry *e, bool *complete)
{
	TapasClass *a = e->cls;

	*complete = true;
	if (a == NULL || a->nimplies == 0)
		return NULL;
	/* classes met in the rows may add implications: then read again, once */
	for (int pass = 0; pass < 2 && e->implied_n != a->nimplies; pass++)
		read_zeros(e);
	*complete = e->implied_n == a->nimplies;
	if (!*complete)
		return NULL;			/* still growing: the caller fails closed */
	read_zeros(e);
	return e->implied_zero;
}

/* takes the ledger rows logged since the last call (all of them after a reset) */
static void
read_zeros(TapasAuditEntry *e)
{
	TapasClass *a = e->cls;
	TapasLedgerFilter f;
	TapasLedgerSnapshot *snap;

	if (e->implied_n != a->nimplies || e->implied_zero == NULL)
		tapas_audit_implied_reset(e);
	memset(&f, 0, sizeof(f));
	f.relid = e->key.relid;
	f.statistic = NULL;
	f.roleid = e->key.roleid;
	f.after_log_id = e->implied_synced;
	snap = tapas_ledger_snapshot(&f);
	if (snap->generation != e->keys_generation && e->implied_synced > 0)
	{
		/* renumbered since: read every row again */
		tapas_ledger_snapshot_free(snap);
		tapas_audit_implied_reset(e);
		f.after_log_id = 0;
		snap = tapas_ledger_snapshot(&f);
	}
	if (e->implied_zero == NULL)
		e->implied_zero = roaring_bitmap_create();
	e->implied_n = a->nimplies;
	for (int i = 0; i < snap->nrows; i++)
	{
		TapasClass *b;
		double		answer;

		if ((i & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		e->implied_synced = Max(e->implied_synced, snap->log_ids[i]);
		b = tapas_audit_class_logged(e->key.relid, snap->statistics[i], snap->roles[i]);
		if (!implied_by(a, b))
			continue;
		answer = tapas_audit_class_answer(e->key.relid, snap->statistics[i], snap->answers[i],
										  (int64) roaring_bitmap_get_cardinality(snap->covers[i]));
		if (answer == 0.0)
			roaring_bitmap_or_inplace(e->implied_zero, snap->covers[i]);
	}
	tapas_ledger_snapshot_free(snap);
}
