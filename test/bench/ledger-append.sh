#!/usr/bin/env bash
# Ledger append latency through the server, sync on vs off, and memory per
# logged cell as the server accounts it (tapas.ledger_usage), at n = 100,000.
# Starts a private instance (tapas installed from this checkout, under the
# machine-wide install lock), logs cells with tapas.ledger_record (the same
# C path the gate uses: prepare, write, fdatasync if tapas.ledger_sync,
# apply), and prints microseconds per cell with sync off and on (the
# ratio is the cost of the fdatasync, measured in the same session).
# Usage: bash test/bench/ledger-append.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
make -s -j2 >/dev/null
dir=$(mktemp -d /tmp/tapas-bench.XXXXXX)
trap 'instance_destroy "$dir"' EXIT
# install and start under the lock; the running server keeps its library
(
	flock 9
	make -s install >/dev/null
	instance_start "$dir" "tapas.ledger_memory = '256MB'" >/dev/null
) 9>/tmp/tapas-install.lock
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres PGDATABASE=postgres
psql -X -q -c "CREATE EXTENSION tapas"
psql -X -q -o /dev/null <<'SQL'
CREATE TABLE t (id bigint PRIMARY KEY);
SELECT setseed(0.42);
CREATE TABLE arrays AS
	SELECT 50000 AS m, array_agg(g) AS a FROM (SELECT g FROM generate_series(1, 100000) g ORDER BY random() LIMIT 50000) s
	UNION ALL
	SELECT 500, array_agg(g) FROM (SELECT g FROM generate_series(1, 100000) g ORDER BY random() LIMIT 500) s;
-- the dense index, in key order, as a first full-table count would make it
SET tapas.ledger_sync = off;
SELECT tapas.ledger_record('t', 'count(*)', 100000, (SELECT array_agg(g) FROM generate_series(1, 100000) g)) > 0 AS indexed;

CREATE FUNCTION bench(m int, reps int, sync boolean, OUT us_per_cell float8,
					  OUT bytes_per_cell float8) LANGUAGE plpgsql AS $$
DECLARE
	a bigint[] := (SELECT arrays.a FROM arrays WHERE arrays.m = bench.m);
	t0 timestamptz;
	mem0 bigint;
	cells0 bigint;
	i int;
BEGIN
	PERFORM set_config('tapas.ledger_sync', sync::text, true);
	SELECT memory_used, cells INTO mem0, cells0 FROM tapas.ledger_usage();
	t0 := clock_timestamp();
	FOR i IN 1 .. reps LOOP
		PERFORM tapas.ledger_record('t', 'count(*)', i, a);
	END LOOP;
	us_per_cell := extract(epoch FROM clock_timestamp() - t0) * 1e6 / reps;
	SELECT (memory_used - mem0)::float8 / (cells - cells0) + 80 INTO bytes_per_cell FROM tapas.ledger_usage();
END $$;
SQL
echo "ledger append through SQL at n = 100000 (tapas.ledger_record; bytes = 80-byte header + arena growth)"
psql -X -q -c "
WITH r AS (
	SELECT m, sync, b.*
	  FROM (VALUES (500, 400), (50000, 40)) v(m, reps), (VALUES (false), (true)) s(sync),
		   LATERAL bench(m, reps, sync) b)
SELECT off.m AS covered, round(off.us_per_cell::numeric, 1) AS us_sync_off,
	   round(\"on\".us_per_cell::numeric, 1) AS us_sync_on,
	   round((\"on\".us_per_cell / off.us_per_cell)::numeric, 1) AS on_vs_off,
	   round(off.bytes_per_cell::numeric) AS bytes_per_cell,
	   round((off.bytes_per_cell / 12500)::numeric, 3) AS vs_bitset_n8,
	   round((off.bytes_per_cell / (8 * off.m))::numeric, 3) AS vs_int64_keys
  FROM r off JOIN r \"on\" ON off.m = \"on\".m AND NOT off.sync AND \"on\".sync
 ORDER BY off.m"
psql -X -q -c "SELECT cells, records, pg_size_pretty(memory_used) AS arena, pg_size_pretty(file_bytes) AS file,
					  pg_size_pretty(shared_memory) AS shmem FROM tapas.ledger_usage()"
