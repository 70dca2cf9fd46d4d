#!/usr/bin/env bash
# The false refusals of a benign analyst on the 50,000-row census sample:
# 35 everyday cross-tabulations and averages (test/bench/census-workload.sql)
# as an audited role, health and religion sensitive, k = 10, in deny mode on
# a private instance; prints each refusal with its SQLSTATE and the alert's
# detail (from the server log), then "N queries, R refused".  Every refusal
# here is a cost: none of these queries isolates anybody on its own, and
# the sequence is what a person exploring the table asks.
# Usage (as root): bash test/bench/census-workload.sh   (TAPAS_CENSUS: data path prefix;
# TAPAS_PGROOT as for test/check)
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
data=${TAPAS_CENSUS:-../shared/data/census50k}
[ -r "$data.csv" ] || data=/work/shared/data/census50k
[ -r "$data.csv" ] || { echo "no census sample at $data.csv"; exit 1; }
make -s -j2 >/dev/null 2>&1 || { echo "build failed"; exit 1; }
[ -z "${TAPAS_PGROOT:-}" ] && { exec 9>/tmp/tapas-install.lock; flock 9; }
tapas_install || exit 1
inst=$(mktemp -d /tmp/tapas-census-wl.XXXXXX)
instance_start "$inst" >/dev/null || exit 1
trap 'instance_destroy "$inst"' EXIT
[ -z "${TAPAS_PGROOT:-}" ] && flock -u 9
chmod 644 "$data.csv" 2>/dev/null
psql -X -q -d postgres -c "CREATE DATABASE census_wl" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d census_wl >/dev/null <<SQL || exit 1
SET client_min_messages = warning;
CREATE EXTENSION tapas;
CREATE TABLE census (region text, residence text, family int, popbase int, sex int, age int,
  marital int, student int, birth int, health int, ethnic int, religion int, econ int,
  occupation int, industry int, hours int, grade int);
\copy census FROM '$data.csv' WITH (FORMAT csv)
ALTER TABLE census ADD COLUMN id serial PRIMARY KEY;
SELECT tapas.protect('census', 'id', ARRAY['health', 'religion'], 10);
DO \$\$ BEGIN CREATE ROLE census_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
GRANT SELECT ON census TO census_analyst;
ALTER DATABASE census_wl SET tapas.mode = 'deny';
SQL
n=0; r=0
while IFS= read -r q; do
	case "$q" in ''|--*) continue;; esac
	n=$((n + 1))
	out=$(psql -X -qAt -d census_wl -U census_analyst -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$q" 2>&1)
	if echo "$out" | grep -q ERROR; then
		r=$((r + 1))
		state=$(echo "$out" | grep -oE 'ERROR:  [0-9A-Z]{5}' | head -1 | cut -c9-)
		detail=$(grep 'DETAIL:  tapas alert' "$inst/server.log" | tail -1 | sed 's/.*DETAIL:  //' | cut -c1-160)
		echo "refused $state: $q"
		[ -n "$detail" ] && echo "    $detail"
	fi
done < test/bench/census-workload.sql
echo "$n queries, $r refused"
