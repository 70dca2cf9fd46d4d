#!/usr/bin/env bash
# The first audited statement of a new backend (issue 12 item 4): after
# CELLS cells logged by earlier backends on an n-row protected table, a new
# analyst backend's first statement builds its audit state (the truth of
# each class, the row space of each class from the ledger's rows); the
# target is under 1 s at 10^4 cells.  For each n and number of cells, two
# ledgers:
#   benign  GROUP BY statements over quasi-identifiers (about 16 groups, a
#           random range of another column) with count(*) FILTER (WHERE
#           sick) and sum(income): two classes;
#   attack  random halves (a Bernoulli design, grouped by 100 buckets of the
#           key) of count(*) FILTER (WHERE sick): one class.
# The cells are logged with tapas.mode = off (set by a superuser) by the
# analyst role; then, in deny mode, one statement ("probe": a GROUP BY over
# both classes) is timed (connection excluded), in one run:
#   replay  the first statement of a new backend without shared copies
#           (tapas.audit_shared_memory = 0: the baseline, a full replay),
#   publish the first statement of the first new backend with copies on
#           (a replay, then its state is published),
#   copy    the first statement of a later new backend (it copies the
#           state: audit/state_shared.c),
#   warm    the same statement again in that backend,
#   plain   the same statement on an unprotected copy of the table,
# medians of REPS backends each, and the ratios replay / copy, copy / warm
# and copy / plain.  The probe may be refused (TP001/TP004 on the attack
# ledger, where 10^4 random halves exceed the rank limit of 8,192): the
# time to decide is what is measured; the status is printed.
#
# The analyst backend's memory after the two probes is printed too (from
# /proc: RssAnon, its private memory, and RssShmem, the shared memory it
# touched, in MB; medians of the copy backends).
#
# Before and after in one run: TAPAS_BEFORE_REF=<commit> builds that commit
# (git archive) into its own relocated copy of PostgreSQL on a second
# private instance with the same data and ledgers; every measurement
# alternates before, after, and a last line per ledger gives the ratios
# before / after of the copy's time and RssAnon.
#
# Usage: bash test/bench/first-statement.sh [n-list [cells-list [reps]]]
#        default "100000 1000000" "1000 10000" 3 (about 15 minutes: not in CI)
# Starts a private instance (tapas installed from this checkout into
# TAPAS_PGROOT's copy of PostgreSQL if set) unless PGHOST is set (then the
# role running it must be allowed ALTER SYSTEM).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
ns=${1:-"100000 1000000"}
cellss=${2:-"1000 10000"}
reps=${3:-3}
db=tapas_bench_first
work=$(mktemp -d)
chmod 755 "$work"
inst=""
binst=""
cleanup() {
	[ -n "$inst" ] && instance_destroy "$inst"
	[ -n "$binst" ] && (PGBIN=$work/before/usr/lib/postgresql/15/bin; instance_destroy "$binst")
	[ -z "$inst" ] && shared_copies_reset
	rm -rf "$work"
}
trap cleanup EXIT
shared_copies_reset() { psql -X -q -c "ALTER SYSTEM RESET tapas.audit_shared_memory" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true; }
conf=("tapas.ledger_memory = '2GB'" "tapas.ledger_max_cells = 1000000"
	"tapas.ledger_memory_per_role = 0" "tapas.ledger_max_cells_per_role = 0" "shared_buffers = '256MB'")
sides=after
if [ -z "${PGHOST:-}" ] && [ -n "${TAPAS_BEFORE_REF:-}" ]; then
	# the before build in its own relocated PostgreSQL, on its own instance
	before_instance "$TAPAS_BEFORE_REF" "$work" "${conf[@]}"
	sides="before after"
fi
bench_instance "${conf[@]}"
ahost=${PGHOST:-}
aport=${PGPORT:-}
bench_unlock
export PGDATABASE=$db
# on SIDE CMD...: CMD against the before or the after instance
on() {
	local side=$1
	shift
	if [ "$side" = before ]; then PGHOST=$binst PGPORT=$(cat "$binst/port") "$@"
	else PGHOST=$ahost PGPORT=$aport "$@"; fi
}
setup_db() {
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_first_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE bench_first_analyst SET tapas.mode = deny;
SQL
}
for side in $sides; do on "$side" setup_db; done
probe_sql="SELECT region, count(*) FILTER (WHERE sick), sum(income) FROM %s WHERE age BETWEEN 30 AND 60 GROUP BY region"

# ms1 ms2 RssAnon RssShmem (MB) STATUS of the first and second run of the probe in a new backend
new_backend() {
	local out
	out=$(psql -X -q -U bench_first_analyst 2>&1 <<SQL || true
\\set VERBOSITY sqlstate
\\timing on
${probe_sql//%s/b_p};
${probe_sql//%s/b_p};
\\timing off
SELECT pg_backend_pid() AS pid \\gset
\\setenv BENCH_PID :pid
\\! grep -E '^(RssAnon|RssShmem):' /proc/\$BENCH_PID/status
SQL
)
	local t s m
	t=$(echo "$out" | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tr '\n' ' ')
	m=$(echo "$out" | awk '/^RssAnon:/ { a = $2 / 1024 } /^RssShmem:/ { h = $2 / 1024 } END { printf "%.0f %.0f", a, h }')
	s=$(echo "$out" | grep -oE 'TP00[0-9]|ERROR.*' | head -n 1 || true)
	echo "$t $m ${s:-answered}"
}
plain() {
	psql -X -q -U bench_first_analyst -c '\timing on' -c "${probe_sql//%s/b_u}" 2>&1 |
		sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n 1
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

shared_copies() {
	psql -X -q -c "ALTER SYSTEM SET tapas.audit_shared_memory = '$1'" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 0.3
}
make_table() {
	psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS b_p, b_u;
SELECT setseed(0.21);
CREATE TABLE b_p (id int PRIMARY KEY, age int NOT NULL, sex int NOT NULL, region int NOT NULL,
				  edu int NOT NULL, income int NOT NULL, sick bool NOT NULL);
INSERT INTO b_p SELECT i, 18 + floor(random() * 72)::int, floor(random() * 2)::int,
	   floor(random() * 8)::int, floor(random() * 4)::int,
	   20000 + floor(random() * 80000)::int, random() < 0.1
  FROM generate_series(1, $1) i;
CREATE TABLE b_u AS SELECT * FROM b_p;
VACUUM ANALYZE b_p, b_u;
SELECT tapas.protect('b_p', 'id', ARRAY['income', 'sick'], 10) IS NULL AS protected;
GRANT SELECT ON b_p, b_u TO bench_first_analyst;
SQL
}
make_ledger() {	# the ledger of file $1: statements logged in mode off (no audit), by the analyst
	psql -X -q -c "SELECT tapas.reset('b_p')" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 -f "$1" >/dev/null
	psql -X -qAt -c "SELECT count(*) FROM tapas.query_log WHERE tbl = 'b_p'::regclass"
}
printf "%-6s %-8s %-6s %5s | %8s %8s %8s %6s %6s | %7s %7s %7s | %6s %6s | %s\n" side n ledger cells "replay" "publish" "copy" \
	"warm" "plain" "rep/cp" "cp/warm" "cp/pl" "anonMB" "shmMB" "probe (ms; ratios; MB)"
for n in $ns; do
	for side in $sides; do on "$side" make_table "$n"; done
	for cells in $cellss; do
		for kind in benign attack; do
			python3 - "$kind" "$cells" "$n" >"$work/log.sql" <<'PY'
import random, sys
kind, cells, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(7)
print("SET tapas.mode = off;")
print("SET SESSION AUTHORIZATION bench_first_analyst;")
if kind == "benign":
    groups = ['age / 4', 'sex, edu, region / 4', 'region, edu / 2', 'edu, age / 20']
    ranges = [('age', 18, 89), ('region', 0, 7), ('edu', 0, 3)]
    made = 0
    while made < cells:
        g = random.choice(groups)
        col, lo, hi = random.choice(ranges)
        a = random.randint(lo, hi)
        b = random.randint(a, hi)
        print(f"SELECT {g}, count(*) FILTER (WHERE sick), sum(income) FROM b_p "
              f"WHERE {col} BETWEEN {a} AND {b} GROUP BY {g};")
        made += 2 * 16		# about 16 groups, two statistics
else:
    for q in range(1, cells // 100 + 1):
        print(f"SELECT id % 100, count(*) FILTER (WHERE sick) FROM b_p "
              f"WHERE tapas.design_member('bernoulli', {n}, 5, {q}, id) GROUP BY id % 100;")
PY
			declare -A logged replays news warms status publish plains anons shms
			for side in $sides; do
				logged[$side]=$(on "$side" make_ledger "$work/log.sql")
				on "$side" shared_copies 0
				replays[$side]="" news[$side]="" warms[$side]="" plains[$side]="" anons[$side]="" shms[$side]=""
			done
			for r in $(seq 1 "$reps"); do
				for side in $sides; do
					read -r t1 t2 a h st <<<"$(on "$side" new_backend)"
					replays[$side]="${replays[$side]} $t1"
				done
			done
			for side in $sides; do
				on "$side" shared_copies 1GB
				read -r p t2 a h st <<<"$(on "$side" new_backend)"
				publish[$side]=$p
			done
			for r in $(seq 1 "$reps"); do
				for side in $sides; do
					read -r t1 t2 a h st <<<"$(on "$side" new_backend)"
					news[$side]="${news[$side]} $t1"
					warms[$side]="${warms[$side]} $t2"
					anons[$side]="${anons[$side]} $a"
					shms[$side]="${shms[$side]} $h"
					status[$side]=$st
				done
			done
			for r in $(seq 1 "$reps"); do
				for side in $sides; do plains[$side]="${plains[$side]} $(on "$side" plain)"; done
			done
			for side in $sides; do
				awk -v side="$side" -v n="$n" -v k="$kind" -v c="${logged[$side]}" \
					-v r="$(echo "${replays[$side]}" | median)" -v pb="${publish[$side]}" \
					-v a="$(echo "${news[$side]}" | median)" -v w="$(echo "${warms[$side]}" | median)" \
					-v p="$(echo "${plains[$side]}" | median)" -v ma="$(echo "${anons[$side]}" | median)" \
					-v mh="$(echo "${shms[$side]}" | median)" -v s="${status[$side]}" 'BEGIN {
					printf "%-6s %-8d %-6s %5d | %8.0f %8.0f %8.0f %6.0f %6.0f | %7.1f %7.1f %7.1f | %6.0f %6.0f | %s\n",
						side, n, k, c, r, pb, a, w, p, r / a, a / w, a / p, ma, mh, s }'
			done
			if [ "$sides" = "before after" ]; then
				awk -v ab="$(echo "${news[before]}" | median)" -v aa="$(echo "${news[after]}" | median)" \
					-v mb="$(echo "${anons[before]}" | median)" -v ma="$(echo "${anons[after]}" | median)" \
					-v n="$n" -v k="$kind" 'BEGIN {
					printf "ratio  %-8d %-6s before/after: copy %.2fx (%.0f -> %.0f ms), RssAnon %.2fx (%.0f -> %.0f MB)\n",
						n, k, ab / aa, ab, aa, mb / (ma > 0 ? ma : 1), mb, ma }'
			fi
			unset logged replays news warms status publish plains anons shms
		done
	done
done
for side in $sides; do on "$side" psql -X -q -d postgres -c "DROP DATABASE $db"; done
