/*-------------------------------------------------------------------------
 *
 * dataset_labels.c
 *	  Distinct labels of text columns gathered in C, in one scan.
 *
 * The dictionaries of categorical columns are their distinct values in the
 * column's order, NULL last (dataset_gather.c, gather_labels: one
 * GROUPING SETS query).  For text and varchar columns under a
 * deterministic collation the same lists come cheaper from a plain scan:
 * equality under a deterministic collation is byte equality, so the
 * distinct values are the distinct byte strings (hashed here, one set per
 * column), their labels (v::text) are those bytes, and ORDER BY v sorts
 * them by varstr_cmp under the collation, which is a total order for a
 * deterministic collation (ties broken by the bytes).  The scan's rows go
 * to a DestReceiver, so the table is never materialised; on the census
 * table (50,000 rows, 17 columns) this replaces a hash aggregation of
 * 850,000 lookups through the executor by as many C hash probes.
 *
 * The same scan can keep the rows (TapasLabelRows): each cell's label id
 * and the key's text, coded through the dictionaries once they are built,
 * so that tapas.evaluate reads its auxiliary table once, not twice.
 *
 * IDENTIFICATION
 *	  src/api/dataset_labels.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "api/dataset_int.h"
#include "api/label_hash.h"

/* the distinct non-NULL byte strings of one column */
typedef struct LabelSet
{
	uint32		n;				/* distinct strings */
	uint32		cap;			/* slots, a power of 2 */
	uint32	   *hash;			/* per slot */
	uint64	   *word;			/* per slot: label_word() */
	char	  **str;			/* per slot, NUL-terminated; NULL = empty */
	int		   *len;
	uint32	   *id;				/* per slot: order of first occurrence */
	int32		byte_id[256];	/* the id of each one-byte label, or -1 */
	bool		has_null;
	Oid			collid;
} LabelSet;

typedef struct LabelReceiver
{
	DestReceiver pub;
	int			k;
	LabelSet   *sets;
	uint64		rows;
	MemoryContext cxt;			/* the caller's: the executor's is gone
								 * when the scan ends */
	TapasLabelRows *keep;		/* the rows too, or NULL */
	FmgrInfo	key_out;		/* with keep->key: its type's output function */
	Oid			key_type;		/* with keep->key: its type */
	char	   *key_next;		/* integer keys: the block they are written to */
	Size		key_room;		/* bytes left there */
} LabelReceiver;

/* the key texts of integer keys are written this many bytes a block */
#define KEY_BLOCK 65536

static void
set_init(LabelSet *s, uint32 cap)
{
	s->n = 0;
	s->cap = cap;
	s->hash = palloc(sizeof(uint32) * cap);
	s->word = palloc(sizeof(uint64) * cap);
	s->str = palloc0(sizeof(char *) * cap);
	s->len = palloc(sizeof(int) * cap);
	s->id = palloc(sizeof(uint32) * cap);
	s->has_null = false;
	memset(s->byte_id, 0xff, sizeof(s->byte_id));
}

/*
 * The first 8 bytes of a label, zero-padded, read byte by byte (a label
 * can end a heap page: no wider load).  Census-like columns hold codes of
 * one to a few bytes, so one word comparison decides most probes.
 */
static inline uint64
label_word(const char *bytes, int len)
{
	uint64		w = 0;
	int			i,
				m = len < 8 ? len : 8;

	for (i = 0; i < m; i++)
		w |= (uint64) (unsigned char) bytes[i] << (8 * i);
	return w;
}

/* the label's hash: of its word and length when short, else FNV-1a */
static inline uint32
label_set_hash(const char *bytes, int len, uint64 w)
{
	if (len <= 8)
	{
		uint64		x = (w ^ ((uint64) len << 59)) * UINT64CONST(0x9E3779B97F4A7C15);

		return (uint32) (x >> 32);
	}
	return tapas_label_hash(bytes, len);
}

/* the slot of (bytes, len, h, w): where it is, or the empty slot for it */
static inline uint32
set_find(const LabelSet *s, const char *bytes, int len, uint32 h, uint64 w)
{
	uint32		i = h & (s->cap - 1);

	while (s->str[i] != NULL &&
		   !(s->word[i] == w && s->len[i] == len &&
			 (len <= 8 || tapas_label_eq(s->str[i] + 8, bytes + 8, len - 8))))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* stores (bytes, len) with hash h and word w in empty slot i; its slot */
static uint32
set_insert(LabelSet *s, const char *bytes, int len, uint32 h, uint64 w, uint32 i)
{
	s->hash[i] = h;
	s->word[i] = w;
	s->len[i] = len;
	s->str[i] = pnstrdup(bytes, len);
	s->id[i] = s->n;
	if (++s->n * 2 > s->cap)
	{
		/* grow: rehash into twice the slots */
		LabelSet	g;
		uint32		j;

		set_init(&g, s->cap * 2);
		g.has_null = s->has_null;
		g.collid = s->collid;
		memcpy(g.byte_id, s->byte_id, sizeof(g.byte_id));
		for (j = 0; j < s->cap; j++)
			if (s->str[j] != NULL)
			{
				uint32		t = set_find(&g, s->str[j], s->len[j], s->hash[j],
										 s->word[j]);

				g.hash[t] = s->hash[j];
				g.word[t] = s->word[j];
				g.len[t] = s->len[j];
				g.str[t] = s->str[j];
				g.id[t] = s->id[j];
			}
		g.n = s->n;
		pfree(s->hash);
		pfree(s->word);
		pfree(s->str);
		pfree(s->len);
		pfree(s->id);
		*s = g;
	}
	return set_find(s, bytes, len, h, w);
}

/* adds (bytes, len) to s if new; returns its id */
static inline uint32
set_add(LabelSet *s, const char *bytes, int len)
{
	uint64		w;
	uint32		h,
				i,
				id;

	/* one-byte codes (census-like columns) by direct lookup */
	if (len == 1 && s->byte_id[(unsigned char) bytes[0]] >= 0)
		return (uint32) s->byte_id[(unsigned char) bytes[0]];
	w = label_word(bytes, len);
	h = label_set_hash(bytes, len, w);
	i = set_find(s, bytes, len, h, w);
	if (s->str[i] == NULL)
		i = set_insert(s, bytes, len, h, w, i);
	id = s->id[i];
	if (len == 1)
		s->byte_id[(unsigned char) bytes[0]] = (int32) id;
	return id;
}

/* room for one more row in keep (grown by doubling) */
static double *
keep_next_row(TapasLabelRows *keep)
{
	if (keep->n == keep->cap)
	{
		/*
		 * the first allocation holds the rows the statistics expect (and a
		 * little more), so a table of known size is not copied while it is
		 * read
		 */
		keep->cap = keep->cap ? 2 * keep->cap :
			Max(1024, keep->expect + keep->expect / 64 + 1);
		keep->cells = keep->cells == NULL ?
			MemoryContextAllocHuge(keep->cxt, sizeof(double) * keep->k * keep->cap) :
			repalloc_huge(keep->cells, sizeof(double) * keep->k * keep->cap);
		if (keep->key != NULL)
			keep->keys = keep->keys == NULL ?
				MemoryContextAllocHuge(keep->cxt, sizeof(char *) * keep->cap) :
				repalloc_huge(keep->keys, sizeof(char *) * keep->cap);
	}
	return keep->cells + keep->n * keep->k;
}

/*
 * The text of a key as its type's output function gives it, in the current
 * context: a bigint, integer or smallint key is written with the digits
 * int8out, int4out and int2out write (pg_lltoa), packed into blocks
 * instead of a palloc'd string each through the function manager (for a
 * 50,000-row table, 2% of a 1,000-record Groundhog call, half of it the
 * page faults of the strings' 2.4 MB).
 */
static char *
key_text(LabelReceiver *r, Datum v)
{
	char	   *out;
	int64		i;

	switch (r->key_type)
	{
		case INT8OID:
			i = DatumGetInt64(v);
			break;
		case INT4OID:
			i = DatumGetInt32(v);
			break;
		case INT2OID:
			i = DatumGetInt16(v);
			break;
		default:
			return OutputFunctionCall(&r->key_out, v);
	}
	if (r->key_room < MAXINT8LEN + 1)
	{
		r->key_next = palloc(KEY_BLOCK);
		r->key_room = KEY_BLOCK;
	}
	out = r->key_next;
	r->key_next += pg_lltoa(i, out) + 1;
	r->key_room -= r->key_next - out;
	return out;
}

static bool
label_receive(TupleTableSlot *slot, DestReceiver *self)
{
	LabelReceiver *r = (LabelReceiver *) self;
	MemoryContext old = MemoryContextSwitchTo(r->cxt);
	double	   *ids = r->keep != NULL ? keep_next_row(r->keep) : NULL;
	int			i;

	slot_getallattrs(slot);
	for (i = 0; i < r->k; i++)
	{
		struct varlena *v,
				   *p;
		double		id;

		if (slot->tts_isnull[i])
		{
			r->sets[i].has_null = true;
			id = -1.0;
		}
		else
		{
			v = (struct varlena *) DatumGetPointer(slot->tts_values[i]);
			/* pg_detoast_datum_packed without the call for inline values */
			p = VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v) ?
				pg_detoast_datum_packed(v) : v;
			id = set_add(&r->sets[i], VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
			if (p != v)
				pfree(p);
		}
		if (ids != NULL)
			ids[i] = id;
	}
	if (r->keep != NULL)
	{
		if (r->keep->key != NULL)
		{
			MemoryContextSwitchTo(r->keep->cxt);
			r->keep->keys[r->keep->n] = slot->tts_isnull[r->k] ? NULL :
				key_text(r, slot->tts_values[r->k]);
		}
		r->keep->n++;
	}
	MemoryContextSwitchTo(old);
	if ((++r->rows & 1023) == 0)
		CHECK_FOR_INTERRUPTS();
	return true;
}

static void
label_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	LabelReceiver *r = (LabelReceiver *) self;
	int			i;

	/* the union's column must be what the caller checked */
	for (i = 0; i < r->k; i++)
		if (TupleDescAttr(desc, i)->attcollation != r->sets[i].collid)
			elog(ERROR, "label scan: column %d has collation %u, expected %u",
				 i + 1, TupleDescAttr(desc, i)->attcollation, r->sets[i].collid);
	/* the key's text as v::text gives it: its type's output function */
	if (r->keep != NULL && r->keep->key != NULL)
	{
		Oid			out;
		bool		varlena;

		r->key_type = TupleDescAttr(desc, r->k)->atttypid;
		getTypeOutputInfo(r->key_type, &out, &varlena);
		fmgr_info_cxt(out, &r->key_out, r->cxt);
	}
}

static void
label_noop(DestReceiver *self)
{
}

/* qsort_arg comparator of labels under collation *arg */
static int
cmp_collated(const void *a, const void *b, void *arg)
{
	const char *x = *(char *const *) a,
			   *y = *(char *const *) b;

	return varstr_cmp(x, strlen(x), y, strlen(y), *(Oid *) arg);
}

/* the collation of column name of rel if it is text or varchar, else InvalidOid */
static Oid
text_collation(Oid relid, const char *name)
{
	AttrNumber	att = get_attnum(relid, name);
	Oid			typid,
				collid;
	int32		typmod;

	if (att == InvalidAttrNumber)
		return InvalidOid;
	get_atttypetypmodcoll(relid, att, &typid, &typmod, &collid);
	if (typid != TEXTOID && typid != VARCHAROID)
		return InvalidOid;
	return collid;
}

Oid
tapas_dataset_text_label_collation(const char *name, Oid synthetic, const Oid *targets)
{
	Oid			collid = text_collation(synthetic, name);
	int			i;

	if (!OidIsValid(collid) || !get_collation_isdeterministic(collid))
		return InvalidOid;
	for (i = 0; targets != NULL && i < 2; i++)
		if (OidIsValid(targets[i]) && text_collation(targets[i], name) != collid)
			return InvalidOid;
	return collid;
}

void
tapas_dataset_gather_text_labels(const char *from, const Oid *collid, int k,
								 List **observed, TapasLabelRows *keep)
{
	LabelReceiver r;
	SPIExecuteOptions opt;
	StringInfoData q;
	int			i,
				rc;

	memset(&r, 0, sizeof(r));
	r.pub.receiveSlot = label_receive;
	r.pub.rStartup = label_startup;
	r.pub.rShutdown = label_noop;
	r.pub.rDestroy = label_noop;
	r.pub.mydest = DestNone;
	r.k = k;
	r.cxt = CurrentMemoryContext;
	r.keep = keep;
	r.sets = palloc(sizeof(LabelSet) * k);
	for (i = 0; i < k; i++)
	{
		set_init(&r.sets[i], 64);
		r.sets[i].collid = collid[i];
	}
	initStringInfo(&q);
	appendStringInfoString(&q, "SELECT ");
	for (i = 0; i < k; i++)
		appendStringInfo(&q, "%sv%d", i ? ", " : "", i + 1);
	if (keep != NULL && keep->key != NULL)
		appendStringInfoString(&q, ", vk");
	appendStringInfo(&q, " FROM %s", from);
	if (keep != NULL)
	{
		keep->k = k;
		keep->labels = palloc(sizeof(char **) * k);
		keep->label_len = palloc(sizeof(int *) * k);
		keep->n_labels = palloc(sizeof(uint32) * k);
	}
	memset(&opt, 0, sizeof(opt));
	opt.read_only = true;
	opt.dest = (DestReceiver *) &r;
	/* a SELECT into a receiver that is not SPI's own reports SPI_OK_UTILITY */
	rc = SPI_execute_extended(q.data, &opt);
	if (rc != SPI_OK_SELECT && rc != SPI_OK_UTILITY)
		elog(ERROR, "label scan failed (%d): %s", rc, q.data);
	for (i = 0; i < k; i++)
	{
		LabelSet   *s = &r.sets[i];
		char	  **labels = palloc(sizeof(char *) * (s->n + 1));
		uint32		j,
					m = 0;

		if (keep != NULL)
		{
			/* the labels by id, for the caller to code the kept rows */
			keep->labels[i] = palloc(sizeof(char *) * (s->n + 1));
			keep->label_len[i] = palloc(sizeof(int) * (s->n + 1));
			keep->n_labels[i] = s->n;
		}
		for (j = 0; j < s->cap; j++)
			if (s->str[j] != NULL)
			{
				labels[m++] = s->str[j];
				if (keep != NULL)
				{
					keep->labels[i][s->id[j]] = s->str[j];
					keep->label_len[i][s->id[j]] = s->len[j];
				}
			}
		qsort_arg(labels, m, sizeof(char *), cmp_collated, &s->collid);
		for (j = 0; j < m; j++)
			observed[i] = lappend(observed[i], labels[j]);
		if (s->has_null)
			observed[i] = lappend(observed[i], NULL);
	}
}

/* ----------------------------------------------------------------
 *		The kept rows (one scan for dictionaries and rows)
 * ----------------------------------------------------------------
 */

char *
tapas_dataset_kept_rows_from(TapasAttackColumn *cols, const int *idx, int k,
							 Oid synthetic, const char *key)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "(SELECT ");
	for (i = 0; i < k; i++)
		appendStringInfo(&buf, "%s AS v%d, ", quote_identifier(cols[idx[i]].name), i + 1);
	if (key != NULL)
	{
		/*
		 * the key's text is what v::text gives; for these types that is
		 * their output function's, applied in the receiver without the
		 * cast's text datum (bool, bpchar or inet have casts of their own)
		 */
		Oid			typid = get_atttype(synthetic, get_attnum(synthetic, key));
		bool		out_is_text = typid == INT2OID || typid == INT4OID ||
			typid == INT8OID || typid == TEXTOID || typid == VARCHAROID ||
			typid == UUIDOID;

		appendStringInfo(&buf, out_is_text ? "%s AS vk" : "(%s)::text AS vk",
						 quote_identifier(key));
	}
	else
		appendStringInfoString(&buf, "NULL::text AS vk");
	appendStringInfo(&buf, " FROM %s) u", tapas_dataset_rel_sql_name(synthetic));
	return buf.data;
}

/* the rows coded in place: each column's labels by id looked up once */
TapasAttackRows *
tapas_dataset_code_kept_rows(TapasAttackColumn *cols, const TapasLabelRows *keep,
							 MemoryContext cxt)
{
	TapasAttackRows *rows = MemoryContextAlloc(cxt, sizeof(TapasAttackRows));
	double	  **code = palloc(sizeof(double *) * keep->k);
	int			k = keep->k,
				i;
	uint64		r;

	for (i = 0; i < k; i++)
	{
		TapasAttackColumn *col = &cols[i];
		int			c = tapas_dataset_label_code(col, NULL, 0);
		uint32		id;

		/* code[i][-1]: SQL NULL (without a NULL category: code 0) */
		code[i] = (double *) palloc(sizeof(double) * (keep->n_labels[i] + 1)) + 1;
		code[i][-1] = c < 0 ? 0.0 : (double) c;
		for (id = 0; id < keep->n_labels[i]; id++)
		{
			c = tapas_dataset_label_code(col, keep->labels[i][id],
										 keep->label_len[i][id]);
			if (c < 0)
				elog(ERROR, "value \"%s\" of column \"%s\" is not in its dictionary",
					 keep->labels[i][id], col->name);
			code[i][id] = (double) c;
		}
	}
	for (r = 0; r < keep->n; r++)
	{
		double	   *row = keep->cells + r * k;

		for (i = 0; i < k; i++)
			row[i] = code[i][(long) row[i]];
	}
	rows->n = keep->n;
	rows->values = keep->cells;
	rows->keys = keep->keys;
	return rows;
}
