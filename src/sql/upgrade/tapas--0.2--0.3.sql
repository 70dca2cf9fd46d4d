-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit

-- joint audit (issue 11): the 'incomplete' alert kind; the audit per class and scope
COMMENT ON VIEW tapas.alerts IS
	'Alerts of the auditor: one row per isolated record and query (alert id, time, session user, pid, table, statistic, key of the record, kind determined, reconstructed or incomplete (a check that could not complete; record_key 0), method, action logged/warned/denied, log_ids of the queries involved, detail); survives ROLLBACK and restart; admin only';
COMMENT ON FUNCTION tapas.audit(regclass) IS
	'Re-runs the full audit of a table on the whole ledger (per basis-value class and audit scope: every role under tapas.audit_scope = all, shown as (all), else per role; no time budget) and returns every isolated record: determined by the logged rows or reconstructed from the logged answers; raises no alert; admin only';
