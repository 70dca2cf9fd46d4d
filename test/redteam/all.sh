#!/usr/bin/env bash
# The lead's red-team corpus: single-query attacks (attacks.txt, one per line: class|expect|sql) and the
# multi-query attacks of multi.sh, run as an audited role in deny mode (MODE=log: log mode) against a
# private instance.
# Not part of test/check: it reports leaks that are still open (see the issues).
# Usage (as root, from the repository root): [MODE=log] bash test/redteam/all.sh
set -u
cd "$(dirname "$0")/../.."
source test/lib.sh
make -s -j2 >/dev/null 2>&1 || { echo "build failed"; exit 1; }
[ -z "${TAPAS_PGROOT:-}" ] && { exec 9>/tmp/tapas-install.lock; flock 9; }
tapas_install || exit 1
inst=$(mktemp -d /tmp/tapas-redteam.XXXXXX)
instance_start "$inst" >/dev/null || exit 1
trap 'instance_destroy "$inst"' EXIT
psql -X -q -d postgres -c "CREATE DATABASE rt" >/dev/null
psql -X -q -d rt -f test/redteam/setup.sql >/dev/null 2>&1
# MODE=log (or warn): the audit answers and alerts; a leak is then an answer without an alert
export MODE=${MODE:-deny}
psql -X -q -d postgres -c "ALTER DATABASE rt SET tapas.mode = '$MODE'" >/dev/null || exit 1
[ -z "${TAPAS_PGROOT:-}" ] && flock -u 9
export PGUSER=postgres
bash test/redteam/multi.sh
psql -X -q -d rt -f test/redteam/data.sql >/dev/null 2>&1
bash test/redteam/run.sh
