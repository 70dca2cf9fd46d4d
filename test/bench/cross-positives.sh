#!/usr/bin/env bash
# Statements whose crossings imply more than 256 positives (issue 11 item
# 6): the --cross workload of test/bench/benign-workload.sh (GROUP BY zip,
# then STATEMENTS GROUP BYs over quasi-identifiers on an n-row table) run
# by an audited role in deny mode, ROUNDS times on fresh protected copies,
# alternating the baseline (main before this change:
# tapas.audit_max_positives = 256, above which the simulated decoder check
# fails closed, and tapas.audit_row_families = off, the greedy trial's
# products over the column patterns) and the default (no cap but
# tapas.audit_budget_ms; products from the runs of disjoint rows).  Prints per
# run the TP004 and TP001 counts and the audited statements' time (mean
# and max per statement, psql's \timing) next to the same statements on
# an unprotected copy, the TP004 reasons (tapas.alerts), then the means per
# side and the ratio new / baseline of the mean audited statement time.
#
# Usage: bash test/bench/cross-positives.sh [n [statements [rounds]]]
#        (default 100000 40 2: about a minute)
# Environment: MODE (deny, or log: the reconstruction checks' BHTP then
# also takes its products from the runs), BASE_MAX_POSITIVES (the
# baseline's cap, 256; 0 = none, so that only the products differ).
# Starts a private instance (tapas installed from this checkout, into
# TAPAS_PGROOT's copy of PostgreSQL if set) unless PGHOST is set.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
n=${1:-100000}
stmts=${2:-40}
rounds=${3:-2}
db=tapas_bench_cross
role=bench_cross_analyst
work=$(mktemp -d)
inst=""
trap 'rm -rf "$work"; [ -n "$inst" ] && instance_destroy "$inst"' EXIT
if [ -z "${PGHOST:-}" ]; then
	make -s -j2 >/dev/null
	inst=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	exec 9>/tmp/tapas-install.lock
	[ -n "${TAPAS_PGROOT:-}" ] || flock 9
	tapas_install
	instance_start "$inst" "tapas.ledger_memory = '1GB'" "tapas.ledger_max_cells = 1000000" \
		"shared_buffers = '256MB'" >/dev/null
	flock -u 9
	exec 9>&-
fi
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null
export PGDATABASE=$db
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO \$\$ BEGIN CREATE ROLE $role LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
ALTER ROLE $role SET tapas.mode = ${MODE:-deny};
SELECT setseed(0.12);
-- the table of benign-workload.sh
CREATE TABLE b_u (id int PRIMARY KEY, age int NOT NULL, sex int NOT NULL, region int NOT NULL,
				  edu int NOT NULL, income int NOT NULL, sick bool NOT NULL, zip int NOT NULL);
INSERT INTO b_u SELECT i, 18 + floor(random() * 72)::int, floor(random() * 2)::int,
	   floor(random() * 8)::int, floor(random() * 4)::int,
	   20000 + floor(random() * 80000)::int, random() < 0.1,
	   (i::bigint * 7919) % greatest($n / 100, 1)
  FROM generate_series(1, $n) i;
GRANT SELECT ON b_u TO $role;
SQL
for r in $(seq 1 "$rounds"); do
	for side in base new; do
		psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE TABLE b_${side}_$r AS SELECT * FROM b_u;
ALTER TABLE b_${side}_$r ADD PRIMARY KEY (id);
VACUUM ANALYZE b_${side}_$r;
SELECT tapas.protect('b_${side}_$r', 'id', ARRAY['income', 'sick'], 10) IS NULL AS protected \\gset
GRANT SELECT ON b_${side}_$r TO $role;
SQL
	done
done
python3 - "$stmts" >"$work/w.txt" <<'PY'
import random, sys
random.seed(12)
print("SELECT zip, count(*) FILTER (WHERE sick), sum(income) FROM %s GROUP BY zip;")
groups = ['age / 10', 'sex', 'region', 'edu', 'sex, edu', 'region, sex', 'edu, age / 10', 'region, edu']
ranges = [('age', 18, 89), ('region', 0, 7), ('edu', 0, 3)]
for _ in range(int(sys.argv[1])):
    g = random.choice(groups)
    col, lo, hi = random.choice(ranges)
    a = random.randint(lo, hi)
    b = random.randint(a, hi)
    print(f"SELECT {g}, count(*) FILTER (WHERE sick), sum(income) FROM %s WHERE {col} BETWEEN {a} AND {b} GROUP BY {g};")
PY
script() {	# script TABLE: the workload on TABLE, with per-statement times
	echo '\set ON_ERROR_STOP off'
	echo '\set VERBOSITY sqlstate'
	echo '\timing on'
	sed "s/%s/$1/" "$work/w.txt"
}
# per-statement times: psql prints "Time: X ms" after each statement, also a refused one
times() { grep -o '^Time: [0-9.]*' "$1" | awk '{ t += $2; if ($2 > mx) mx = $2; c++ } END { printf "%.1f %.1f %d", c ? t / c : 0, mx, c }'; }
summary=$work/summary
: >"$summary"
for r in $(seq 1 "$rounds"); do
	script b_u >"$work/u.sql"
	psql -X -U $role -f "$work/u.sql" >"$work/u.out" 2>&1 || true
	read -r umean umax _ <<<"$(times "$work/u.out")"
	for side in base new; do
		if [ $side = base ]; then
			psql -X -q -c "ALTER ROLE $role SET tapas.audit_max_positives = ${BASE_MAX_POSITIVES:-256}" \
				-c "ALTER ROLE $role SET tapas.audit_row_families = off"
		else
			psql -X -q -c "ALTER ROLE $role RESET tapas.audit_max_positives" \
				-c "ALTER ROLE $role RESET tapas.audit_row_families"
		fi
		script "b_${side}_$r" >"$work/p.sql"
		psql -X -U $role -f "$work/p.sql" >"$work/p.out" 2>&1 || true
		read -r pmean pmax cnt <<<"$(times "$work/p.out")"
		tp004=$(grep -c 'TP004' "$work/p.out" || true)
		tp001=$(grep -c 'TP001' "$work/p.out" || true)
		other=$(grep 'ERROR' "$work/p.out" | grep -v -c 'TP00[14]' || true)
		printf 'round %d %-4s: TP004 %d, TP001 %d, other errors %d; per statement audited %.1f ms (max %.1f), unprotected %.1f ms (max %.1f), %d timed\n' \
			"$r" "$side" "$tp004" "$tp001" "$other" "$pmean" "$pmax" "$umean" "$umax" "$cnt"
		psql -X -qAt -F ': ' -c "SELECT count(*), detail FROM tapas.alerts WHERE \"table\" = 'b_${side}_$r'::regclass AND kind = 'incomplete' GROUP BY 2 ORDER BY 2" | sed 's/^/    TP004 /'
		echo "$side $tp004 $pmean $umean" >>"$summary"
	done
done
awk '{ t4[$1] += $2; pm[$1] += $3; um[$1] += $4; c[$1]++ }
END {
	printf "mean over %d rounds: TP004 baseline %.1f, new %.1f; audited ms per statement baseline %.1f, new %.1f, ratio new / baseline %.2f (unprotected %.1f)\n",
		c["new"], t4["base"] / c["base"], t4["new"] / c["new"], pm["base"] / c["base"], pm["new"] / c["new"],
		pm["base"] ? pm["new"] / pm["base"] : 0, (um["base"] + um["new"]) / (c["base"] + c["new"])
}' "$summary"
