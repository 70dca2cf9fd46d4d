/*-------------------------------------------------------------------------
 *
 * alerts_merge.c
 *	  One alert per (statement, table, kind): the findings of a statement merged,
 *	  their records, log ids, statistics and methods listed once each.
 *
 * IDENTIFICATION
 *	  src/audit/alerts_merge.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "audit/alerts_int.h"
#include "util/compare.h"

/* appends item to the ", "-separated list in buf (size len) unless listed */
static void
list_append(char *buf, size_t len, const char *item)
{
	size_t		n = strlen(buf),
				k = strlen(item);
	const char *p;

	for (p = buf; (p = strstr(p, item)) != NULL; p++)
		if ((p == buf || (p >= buf + 2 && p[-2] == ',' && p[-1] == ' ')) &&
			(p[k] == '\0' || (p[k] == ',' && p[k + 1] == ' ')))
			return;
	if (n + 2 + k + 1 <= len)
	{
		memcpy(buf + n, ", ", 2);
		memcpy(buf + n + 2, item, k + 1);
	}
}

/* dst's log_ids joined with src's: sorted, distinct, the newest kept */
static void
merge_log_ids(TapasAlert *dst, const TapasAlert *src)
{
	int64		all[2 * TAPAS_ALERT_MAX_LOG_IDS];
	int			n = 0,
				m = 0;

	memcpy(all, dst->log_ids, sizeof(int64) * dst->nlog_ids);
	memcpy(all + dst->nlog_ids, src->log_ids, sizeof(int64) * src->nlog_ids);
	n = dst->nlog_ids + src->nlog_ids;
	qsort(all, n, sizeof(int64), tapas_cmp_int64);
	for (int i = 0; i < n; i++)
		if (m == 0 || all[i] != all[m - 1])
			all[m++] = all[i];
	n = Min(m, TAPAS_ALERT_MAX_LOG_IDS);
	memcpy(dst->log_ids, all + (m - n), sizeof(int64) * n);
	dst->nlog_ids = n;
}

/* the distinct record keys of the findings of group g */
static void
merge_records(TapasAlert *dst, const TapasAlert *in, int n, const int *group, int g)
{
	int64	   *keys = palloc(sizeof(int64) * Max(n, 1));
	int			k = 0,
				m = 0;

	/* an incomplete audit isolates no record: it lists none */
	for (int i = 0; i < n; i++)
		if (group[i] == g && in[i].kind != TAPAS_ALERT_INCOMPLETE)
			keys[k++] = in[i].record_key;
	qsort(keys, k, sizeof(int64), tapas_cmp_int64);
	for (int i = 0; i < k; i++)
		if (m == 0 || keys[i] != keys[m - 1])
			keys[m++] = keys[i];
	dst->nrecords = m;
	dst->nkeys = Min(m, TAPAS_ALERT_MAX_RECORDS);
	memcpy(dst->record_keys, keys, sizeof(int64) * dst->nkeys);
	if (m > 1)
	{
		size_t		len = strlen(dst->detail);

		snprintf(dst->detail + len, sizeof(dst->detail) - len,
				 " (first of %d isolated records)", m);
	}
	pfree(keys);
}

/*
 * Merges the n findings of one statement into one alert per (table,
 * kind), in order of first appearance; group[i] gets the alert of finding
 * i.  Each alert keeps its first finding's record_key, detail and action.
 * Returns the number of alerts in out.
 */
int
tapas_alerts_merge(const TapasAlert *in, int n, TapasAlert *out, int *group)
{
	int			m = 0;

	for (int i = 0; i < n; i++)
	{
		int			g;

		for (g = 0; g < m; g++)
			if (out[g].relid == in[i].relid && out[g].kind == in[i].kind)
				break;
		if (g == m)
			out[m++] = in[i];
		else
		{
			merge_log_ids(&out[g], &in[i]);
			list_append(out[g].statistic, sizeof(out[g].statistic), in[i].statistic);
			list_append(out[g].method, sizeof(out[g].method), in[i].method);
		}
		group[i] = g;
	}
	for (int g = 0; g < m; g++)
		merge_records(&out[g], in, n, group, g);
	return m;
}
