#!/usr/bin/env bash
# Reconnect per query: a Bernoulli attack on 10 positives among 2,000
# records, each query from a new connection, so each backend rebuilds its
# audit state from the ledger first.  The rebuild is part of the audit (it
# fails closed with TP004 when it cannot finish in time), so the attack is
# refused before the attacker's own decoders (OMP, LP, BHTP) recover the
# positives.
# Usage: t-audit-reconnect.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_reconnect_sys
m=150  # of the design's 153 Bernoulli rows

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
psql -X -q -d "$db" -c "DO \$\$ BEGIN CREATE ROLE regress_tapas_rc LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" || fail "role"
q "CREATE TABLE bern (id int PRIMARY KEY, pos boolean NOT NULL);
   INSERT INTO bern SELECT g, g IN (3, 150, 333, 512, 777, 901, 1200, 1492, 1750, 1999)
     FROM generate_series(1, 2000) g;
   SELECT tapas.protect('bern', 'id', ARRAY['pos'], 900);
   GRANT SELECT ON bern TO regress_tapas_rc;
   CREATE TABLE answers (q int, a numeric)" >/dev/null || fail "setup"

refused=0
for i in $(seq 1 $m); do
	out=$(psql -X -qAt -d "$db" -c "SET tapas.mode = deny" -c "SET SESSION AUTHORIZATION regress_tapas_rc" \
		-c "SELECT count(*) FILTER (WHERE pos) FROM bern WHERE tapas.design_member('bernoulli', 2000, 10, $i, id, 0, 7)" 2>&1)
	# a pattern match, not echo | grep -q: under pipefail, grep -q's early
	# exit can kill echo with SIGPIPE and fail the pipeline on a long output
	if [[ $out == *"query refused"* ]]; then
		refused=$((refused + 1))
	elif [[ "$out" =~ ^[0-9]+$ ]]; then
		q "INSERT INTO answers VALUES ($i, $out)" >/dev/null
	else
		fail "query $i: $out"
	fi
done
answered=$(q "SELECT count(*) FROM answers")
echo "answered $answered, refused $refused of $m queries, one connection each"
[ "$refused" -gt 0 ] || fail "nothing refused"
truth="3,150,333,512,777,901,1200,1492,1750,1999"
# the attacker's decoders (OMP, the LP, binary hard-thresholding pursuit) on the answered queries
for method in omp lp bhtp; do
	got=$(q "SELECT coalesce(string_agg(record::text, ',' ORDER BY record), 'none') FROM tapas.reconstruct_matrix(
		'SELECT r, id FROM (SELECT q, row_number() OVER (ORDER BY q) AS r FROM answers) qq, generate_series(1, 2000) id
		  WHERE tapas.design_member(''bernoulli'', 2000, 10, qq.q, id, 0, 7)',
		(SELECT array_agg(a ORDER BY q) FROM answers), '$method', 10)" 2>&1)
	[ "$got" != "$truth" ] || fail "the attacker's $method recovers the positives from the answered queries"
	echo "ok: the attacker's $method on the $answered answered queries does not recover the 10 positives"
done
all=$(q "SELECT count(*) FROM tapas.alerts WHERE \"table\" = 'bern'::regclass AND action = 'denied'")
[ "$all" -gt 0 ] || fail "no denied alert"
echo "ok: $all denied alerts"
psql -X -q -d postgres -c "DROP DATABASE $db" || fail "dropdb"
