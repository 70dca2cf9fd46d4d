/*-------------------------------------------------------------------------
 *
 * entries.c
 *	  The per-backend audit entries: one per (table, audit scope,
 *	  basis-value class or group of related classes), kept for the life of
 *	  the backend in the audit's memory context, with the generator of
 *	  their row spaces' random projections.  What an entry holds and how
 *	  it follows the ledger is determined.c.
 *
 * IDENTIFICATION
 *	  src/audit/entries.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "audit/audit_int.h"
#include "util/rng.h"
#include "recon/binmat.h"
#include "recon/sparse_search.h"
#include "lstore/cover_store.h"

static MemoryContext audit_cxt = NULL;
static HTAB *audit_entries = NULL;
static tapas_rng_t audit_rng;

MemoryContext
tapas_audit_cxt(void)
{
	if (audit_cxt == NULL)
	{
		HASHCTL		ctl;
		uint64		seed;

		/* backend lifetime: the row spaces are incremental across statements */
		audit_cxt = AllocSetContextCreate(TopMemoryContext, "tapas audit cache",
										  ALLOCSET_DEFAULT_SIZES);
		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(TapasAuditKey);
		ctl.entrysize = sizeof(TapasAuditEntry);
		ctl.hcxt = audit_cxt;
		audit_entries = hash_create("tapas audit entries", 16, &ctl,
									HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		if (!pg_strong_random(&seed, sizeof(seed)))
			seed = (uint64) MyProcPid * 0x9E3779B97F4A7C15ULL ^ (uint64) MyStartTimestamp;
		tapas_rng_seed(&audit_rng, seed);
	}
	return audit_cxt;
}

/* the backend's generator of the row spaces' random projections */
tapas_rng_t *
tapas_audit_rng(void)
{
	tapas_audit_cxt();
	return &audit_rng;
}

/*
 * The row spaces' secret projections, drawn once per size and shared by
 * the backend's row spaces of that size (recon/rowspace.h says why that is
 * sound): a new class's row space over 10^6 records then costs no 2 10^6
 * draws.  The two sizes used last are kept (a table's classes share one;
 * a group of related classes has its width times the records).
 */
#define AUDIT_PROJ_KEEP		2
static tapas_rowspace_proj_t *audit_proj[AUDIT_PROJ_KEEP];	/* latest first */

/* a row space over n unknowns (tapas_rowspace_create_progress's NULL and *status) */
tapas_rowspace_t *
tapas_audit_rowspace_create(uint32 n, const tapas_progress_t *progress,
							tapas_status *status, const char **reason)
{
	uint64		prime = tapas_audit_prime();
	tapas_rowspace_proj_t *pj;
	int			k;

	for (k = 0; k < AUDIT_PROJ_KEEP; k++)
		if (audit_proj[k] != NULL && tapas_rowspace_proj_n(audit_proj[k]) == n &&
			tapas_rowspace_proj_prime(audit_proj[k]) == prime)
			break;
	if (k < AUDIT_PROJ_KEEP)
		pj = audit_proj[k];
	else
	{
		pj = tapas_rowspace_proj_create(n, prime, tapas_audit_rng(), progress, status, reason);
		if (pj == NULL)
			return NULL;
		k = AUDIT_PROJ_KEEP - 1;
		tapas_rowspace_proj_release(audit_proj[k]);
	}
	for (; k > 0; k--)
		audit_proj[k] = audit_proj[k - 1];
	audit_proj[0] = pj;
	return tapas_rowspace_create_from(pj, TAPAS_ROWSPACE_RANK_MAX, tapas_audit_rng(), status, reason);
}

/*
 * The backend's store of covers (lstore/cover_store.h): every entry's
 * rows are references into it, one copy per distinct cover, so the groups
 * of a GROUP BY logged by count(*), sum(income) and a related group are
 * kept once, not once per class (at 10^6 records a random half is about
 * 125 kB).  A stored cover is never written: the callers copy before any
 * in-place operation.
 */
static tapas_cover_store_t *audit_covers;

/* a reference to the stored cover of r's content (r stays the caller's) */
roaring_bitmap_t *
tapas_audit_cover_take(const roaring_bitmap_t *r)
{
	roaring_bitmap_t *t;

	if (audit_covers == NULL && (audit_covers = tapas_cover_store_create()) == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory for the audit's covers")));
	t = tapas_cover_store_take(audit_covers, r);
	if (t == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory for the audit's covers")));
	return t;
}

/* drops a reference of tapas_audit_cover_take */
void
tapas_audit_cover_release(roaring_bitmap_t *r)
{
	tapas_status st = tapas_cover_store_release(audit_covers, r);

	/* the reference is dropped all the same; a changed cover is a bug to report */
	if (st != TAPAS_OK)
		elog(WARNING, "tapas: a stored cover was %s",
			 st == TAPAS_EINCONSISTENT ? "changed after it was stored" : "not in the store");
}

/* the entry of key, created empty if it is new or was dropped */
static TapasAuditEntry *
entry_enter(Oid relid, Oid scope_roleid, const char *statistic)
{
	TapasAuditKey key;
	TapasAuditEntry *e;
	bool		found;

	tapas_audit_cxt();
	memset(&key, 0, sizeof(key));
	key.relid = relid;
	key.roleid = scope_roleid;
	strlcpy(key.statistic, statistic, sizeof(key.statistic));
	e = hash_search(audit_entries, &key, HASH_ENTER, &found);
	if (!found || !e->initialised)
	{
		memset(((char *) e) + sizeof(TapasAuditKey), 0,
			   sizeof(TapasAuditEntry) - sizeof(TapasAuditKey));
		e->reported = roaring_bitmap_create();
		e->sync_new = roaring_bitmap_create();
		e->initialised = true;
	}
	return e;
}

/* the entry of a class in an audit scope (the session user, or InvalidOid: all) */
TapasAuditEntry *
tapas_audit_entry(TapasClass *cls, Oid scope_roleid)
{
	TapasAuditEntry *e = entry_enter(cls->relid, scope_roleid, cls->rep);

	e->cls = cls;
	return e;
}

/*
 * The entry of a group of related classes (relations.c, joint.c): one
 * system over (region, record) for the cells of all its classes.
 */
TapasAuditEntry *
tapas_audit_joint_entry(TapasJoint *jt, Oid scope_roleid)
{
	TapasAuditEntry *e = entry_enter(jt->relid, scope_roleid, jt->name);

	e->cls = jt->cls[0];
	e->joint = jt;
	return e;
}

/* drops every entry of relid (relid valid) or of the group jt */
static void
drop_entries(Oid relid, const TapasJoint *jt)
{
	HASH_SEQ_STATUS seq;
	TapasAuditEntry *e;

	if (audit_entries == NULL)
		return;
	hash_seq_init(&seq, audit_entries);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (OidIsValid(relid) ? e->key.relid == relid : e->joint == jt)
			tapas_audit_entry_drop(e);
}

/* drops the entries of a group of related classes that is going away */
void
tapas_audit_drop_joint_entries(TapasJoint *jt)
{
	drop_entries(InvalidOid, jt);
}

void
tapas_audit_drop_relation(Oid relid)
{
	drop_entries(relid, NULL);
	tapas_audit_relations_drop(relid);
}

/* bytes held by the entries of one (table, scope) (state_memory.c) */
size_t
tapas_audit_scope_memory(Oid relid, Oid roleid)
{
	HASH_SEQ_STATUS seq;
	TapasAuditEntry *e;
	size_t		total = 0;

	if (audit_entries == NULL)
		return 0;
	hash_seq_init(&seq, audit_entries);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (e->key.relid == relid && e->key.roleid == roleid)
			total += tapas_audit_entry_memory(e);
	return total;
}

/*
 * Unknowns per record of e's row space: 1 for a class, the number of
 * regions for a group of related classes (record j of region r is the
 * kernel's index r cap_n + j).
 */
int
tapas_audit_virtual_width(const TapasAuditEntry *e)
{
	return e->joint != NULL ? Max(e->joint->nregions, 1) : 1;
}

/* frees everything the entry owns and forgets it */
void
tapas_audit_entry_drop(TapasAuditEntry *e)
{
	tapas_audit_parked_drop(e);
	tapas_audit_combined_free(e);
	for (int i = 0; i < e->nrows; i++)
		tapas_audit_cover_release(e->rows[i]);
	tapas_rowspace_free(e->rs);
	tapas_binmat_free(e->A);
	tapas_binmat_colbytes_free(e->P);
	tapas_sparse_hashes_free(e->H);
	if (e->reported)
		roaring_bitmap_free(e->reported);
	if (e->sync_new)
		roaring_bitmap_free(e->sync_new);
	tapas_audit_candidates_reset(e);
	if (e->rows)
		pfree(e->rows);
	if (e->answers)
		pfree(e->answers);
	if (e->log_ids)
		pfree(e->log_ids);
	if (e->row_member)
		pfree(e->row_member);
	if (e->keys)
		pfree(e->keys);
	if (e->design_tags)
		pfree(e->design_tags);
	hash_search(audit_entries, &e->key, HASH_REMOVE, NULL);
}
