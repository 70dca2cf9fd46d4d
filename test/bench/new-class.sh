#!/usr/bin/env bash
# The first statement of a new class (issue 11: "keep the per-query cost
# within the budgets"): on an n-row protected table, each statement asks
# a 0/1 statistic no statement asked before, count(*) FILTER (WHERE rare
# AND income > t_k) over everyone with a new threshold t_k, so the audit
# builds the class: its truth (one scan), its identity and implications on
# the domain grid, and the relations between the classes (both on the
# grid, whose representatives come from a scan of the table: one scan
# for both since the grid cache of audit/truth_domain_reps.c).  Timed in
# the analyst's backend (clock_timestamp around EXECUTE, deny mode), each
# statement beside the same statement on an unprotected copy (interleaved);
# medians of STMTS statements, and the ratio protected / plain.
#
# Before and after in one run: TAPAS_BEFORE_REF=<commit> builds that
# commit into its own relocated PostgreSQL on a second private instance
# with the same data; the last line gives before / after of the protected
# median.
#
# Usage: bash test/bench/new-class.sh [n-list [stmts]]   default "100000 1000000" 12
# (a few minutes: not in CI).  TAPAS_PGROOT as for test/check.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
ns=${1:-"100000 1000000"}
stmts=${2:-12}
work=$(mktemp -d)
chmod 755 "$work"
inst=""
binst=""
cleanup() {
	[ -n "$inst" ] && instance_destroy "$inst"
	[ -n "$binst" ] && (PGBIN=$work/before/usr/lib/postgresql/15/bin; instance_destroy "$binst")
	rm -rf "$work"
}
trap cleanup EXIT
conf=("shared_buffers = '256MB'")
sides=after
if [ -n "${TAPAS_BEFORE_REF:-}" ]; then
	before_instance "$TAPAS_BEFORE_REF" "$work" "${conf[@]}"
	sides="before after"
fi
bench_instance "${conf[@]}"
bench_unlock
ahost=$PGHOST
aport=$PGPORT
# the before instance's port, from its socket
bport=""
[ -n "$binst" ] && bport=$(ls -a "$binst" | sed -n 's/^\.s\.PGSQL\.\([0-9]*\)$/\1/p' | head -1)
on_side() {
	if [ "$1" = before ]; then export PGHOST=$binst PGPORT=$bport; else export PGHOST=$ahost PGPORT=$aport; fi
}
setup() {
	local n=$1
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DROP TABLE IF EXISTS nc, nc_plain;
DO \$\$BEGIN CREATE ROLE nc_analyst; EXCEPTION WHEN duplicate_object THEN NULL; END\$\$;
CREATE TABLE nc (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL, income int NOT NULL);
INSERT INTO nc SELECT g, 20 + g % 60, g % 997 = 0, 1000 + (g * 37) % 5000 FROM generate_series(1, $n) g;
CREATE TABLE nc_plain AS SELECT * FROM nc;
ANALYZE nc; ANALYZE nc_plain;
SELECT tapas.protect('nc'::regclass, 'id', ARRAY['rare', 'income'], 10);
GRANT SELECT ON nc, nc_plain TO nc_analyst;
CREATE OR REPLACE FUNCTION nc_time(q text) RETURNS float8 LANGUAGE plpgsql AS \$f\$
DECLARE t0 timestamptz; a bigint;
BEGIN
	t0 := clock_timestamp();
	BEGIN
		EXECUTE q INTO a;
	EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN NULL;
	END;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$f\$;
GRANT EXECUTE ON FUNCTION nc_time(text) TO nc_analyst;
SELECT tapas.reset('nc');
SQL
}
# one analyst session: stmts new classes, each beside the plain copy; prints "protected plain" per line
# and "scans S": sequential scans of the protected table per statement beyond those of the
# same query on the plain copy (a parallel scan counts once per process)
run() {
	psql -X -q -At -v ON_ERROR_STOP=1 <<SQL
SET tapas.mode = deny;
SET SESSION AUTHORIZATION nc_analyst;
SELECT count(*) FROM nc;
RESET SESSION AUTHORIZATION;
SELECT pg_stat_force_next_flush();
SELECT (SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'nc'::regclass) AS s0,
	   (SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'nc_plain'::regclass) AS u0 \gset
SET SESSION AUTHORIZATION nc_analyst;
SELECT round(nc_time(format('SELECT count(*) FILTER (WHERE rare AND income > %s) FROM nc', 1000 + 37 * k))::numeric, 2)
	|| ' ' || round(nc_time(format('SELECT count(*) FILTER (WHERE rare AND income > %s) FROM nc_plain', 1000 + 37 * k))::numeric, 2)
  FROM generate_series(1, $stmts) k;
RESET SESSION AUTHORIZATION;
SELECT pg_stat_force_next_flush();
SELECT 'scans ' || round(((SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'nc'::regclass) - :s0
						  - (SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'nc_plain'::regclass) + :u0)::numeric
						 / $stmts, 2);
SQL
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
printf '%-8s %-7s %10s %10s %8s %s\n' build n protected plain ratio "audit scans per statement"
for n in $ns; do
	declare -A prot=()
	for side in $sides; do
		on_side "$side"
		setup "$n" >/dev/null
		all=$(run "$n")
		out=$(echo "$all" | grep '^[0-9.]* [0-9.]*$')
		scans=$(echo "$all" | sed -n 's/^scans //p')
		p=$(echo "$out" | awk '{print $1}' | median)
		q=$(echo "$out" | awk '{print $2}' | median)
		prot[$side]=$p
		printf '%-8s %-7s %8s ms %7s ms %8.1f %s\n' "$side" "$n" "$p" "$q" "$(awk -v a="$p" -v b="$q" 'BEGIN {print a / b}')" "$scans"
	done
	if [ -n "$binst" ]; then
		printf '%-8s %-7s before / after of the protected median: %.2f\n' ratio "$n" \
			"$(awk -v a="${prot[before]}" -v b="${prot[after]}" 'BEGIN {print a / b}')"
	fi
	unset prot
done
