#!/usr/bin/env bash
# The article's BCH attack at production scale (issue 12): one positive
# among n records (default 10^7), the binary BCH parity-check design of
# tapas.design_member with every query covering about n/2 records, asked as
# ordinary COUNTs by an audited role in deny mode.  Per query it prints the
# time of the attack query on an unprotected copy of the table and on the
# protected table (capture, gate, k, row-space and decoder audit, ledger),
# interleaved query by query, their ratio, and the audit's own time (audited
# minus unprotected) per unit of query time (the issue's target: the audit
# within 2x the query).  Then: the first query refused in deny mode against
# the number of answers the attacker's BCH decoder needs (a log-mode run of
# all queries, decoded by tapas.reconstruct: the attack works), and the
# median and worst ratio.
#
# Usage: bash test/bench/bch-scale.sh [n]   (default 10000000: about 1 GB of
#        disk and some minutes; not in CI).  Starts a private instance
#        (TAPAS_PGROOT's relocated install if set) unless PGHOST is set.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
n=${1:-10000000}
pos=$((n * 7301 / 10000))
k=$(((n + 1) / 2))
db=tapas_bench_bch
inst=""
trap '[ -n "$inst" ] && instance_destroy "$inst"' EXIT
bench_instance "shared_buffers = '512MB'" "tapas.ledger_memory = '256MB'"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
export PGDATABASE=$db
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION tapas;
DO \$\$ BEGIN CREATE ROLE bench_bch_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
CREATE TABLE b_p (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO b_p SELECT g, g = $pos FROM generate_series(1, $n) g;
CREATE TABLE b_u AS SELECT * FROM b_p;
ALTER TABLE b_u ADD PRIMARY KEY (id);
VACUUM ANALYZE b_p, b_u;
SELECT tapas.protect('b_p', 'id', ARRAY['pos'], 10);
GRANT SELECT ON b_p, b_u TO bench_bch_analyst;
CREATE TABLE ans (mode text, q int, a bigint, refused text, ms_plain float8, ms_audited float8);
GRANT ALL ON ans TO bench_bch_analyst;
-- one query of the design against tbl; its time in ms, its answer in a
CREATE FUNCTION ask(tbl text, q int, OUT a bigint, OUT ms float8) LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I WHERE tapas.design_member(''bch'', $n, 1, %s, id, $k)', tbl, q)
	   INTO a;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
-- the whole attack, each query first on the unprotected copy, then audited
CREATE FUNCTION attack(mode text) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE plain record; aud record; t0 timestamptz;
BEGIN
	FOR q IN 1..tapas.design_size('bch', $n, 1, $k) LOOP
		plain := ask('b_u', q);
		t0 := clock_timestamp();
		BEGIN
			aud := ask('b_p', q);
			INSERT INTO ans VALUES (mode, q, aud.a, NULL, plain.ms, aud.ms);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO ans VALUES (mode, q, NULL, SQLSTATE, plain.ms,
									extract(epoch FROM clock_timestamp() - t0) * 1000);
		END;
	END LOOP;
END \$\$;
SQL
bench_unlock
echo "n = $n, one positive (record $pos), $(psql -X -qAt -c "SELECT tapas.design_size('bch', $n, 1, $k)") queries of about n/2 records each"
psql -X -q -o /dev/null -c "SET tapas.mode = log" -c "SET SESSION AUTHORIZATION bench_bch_analyst" -c "SELECT attack('log')"
psql -X -q -o /dev/null -c "SELECT tapas.reset('b_p')"
psql -X -q -o /dev/null -c "SET tapas.mode = deny" -c "SET SESSION AUTHORIZATION bench_bch_analyst" -c "SELECT attack('deny')"
psql -X -c "SELECT q, round(ms_plain::numeric, 1) AS plain_ms, round(ms_audited::numeric, 1) AS audited_ms,
                   round((ms_audited / ms_plain)::numeric, 2) AS ratio,
                   round(((ms_audited - ms_plain) / ms_plain)::numeric, 2) AS audit_per_query, coalesce(refused, a::text) AS answer
              FROM ans WHERE mode = 'deny' ORDER BY q"
psql -X -c "
SELECT (SELECT min(q) FROM ans WHERE mode = 'deny' AND refused IS NOT NULL) AS first_refused,
       (SELECT count(*) FROM ans WHERE mode = 'log') AS decoder_needs,
       (SELECT string_agg(record::text, ',') FROM tapas.reconstruct('bch', $n,
            (SELECT array_agg(a ORDER BY q) FROM ans WHERE mode = 'log'), 1, $k)) AS decoded_from_log_run,
       (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms_audited / ms_plain)::numeric, 2)
          FROM ans WHERE mode = 'deny') AS median_ratio,
       (SELECT round(max(ms_audited / ms_plain)::numeric, 2) FROM ans WHERE mode = 'deny') AS worst_ratio,
       (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY (ms_audited - ms_plain) / ms_plain)::numeric, 2)
          FROM ans WHERE mode = 'deny') AS median_audit_per_query"
