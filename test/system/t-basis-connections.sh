#!/usr/bin/env bash
# Basis identity across connections (issue 10): a statistic one connection
# logged is unified by value with another spelling in a second connection,
# because the ledger keeps the basis tree tapas built for it, so any
# backend can evaluate its truth.  Three difference attacks whose two
# halves algebra does not unify by text, each half in its own connection,
# are refused (TP001) in deny mode.  A logged statistic whose truth cannot
# be read (logged without a tree, as by tapas.ledger_record) fails closed:
# TP004 in deny mode, an 'incomplete' alert in log mode.
# Usage: t-basis-connections.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_basis_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
psql -X -q -d "$db" -c "DO \$\$ BEGIN CREATE ROLE regress_tapas_bc LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" || fail "role"
# one patient of age 91; income has NULLs, so coalesce(income, 0) is another spelling
setup() {
	q "DROP TABLE IF EXISTS $1;
	   CREATE TABLE $1 (id int PRIMARY KEY, age int NOT NULL, income int, rare boolean NOT NULL);
	   INSERT INTO $1 SELECT g, CASE WHEN g = 37 THEN 91 ELSE 20 + g % 50 END,
	          CASE WHEN g % 11 = 0 THEN NULL ELSE 1000 + 17 * g END, g % 9 = 0
	     FROM generate_series(1, 400) g;
	   SELECT tapas.protect('$1', 'id', ARRAY['income', 'rare'], 5);
	   GRANT SELECT ON $1 TO regress_tapas_bc" >/dev/null || fail "setup $1"
}

# analyst MODE SQL: one statement in a connection of its own; prints the
# answer, or the SQLSTATE of the error
analyst() {
	psql -X -qAt -d "$db" -v VERBOSITY=verbose -c "SET tapas.mode = $1" \
		-c "SET SESSION AUTHORIZATION regress_tapas_bc" -c "$2" 2>&1 |
		sed -nE 's/^ERROR:  ([A-Z0-9]{5}):.*/\1/p; /^[-0-9.e+]+$/p'
}

# attack NAME FIRST SECOND: FIRST answered in one connection, SECOND refused in another
attack() {
	local t=bc_$1 a b
	setup "$t"
	a=$(analyst deny "${2//TBL/$t}")
	[[ "$a" =~ ^[-0-9.e+]+$ ]] || fail "$1: the first half was not answered: $a"
	b=$(analyst deny "${3//TBL/$t}")
	[ "$b" = "TP001" ] || fail "$1: the second half, in another connection, gave '$b', not TP001"
	echo "ok - $1: answered $a, then refused (TP001) from another connection"
}

attack coalesce "SELECT sum(income) FROM TBL" \
	"SELECT sum(coalesce(income, 0)) FROM TBL WHERE age <> 91"
attack case_null "SELECT sum(CASE WHEN income IS NULL THEN 0 ELSE income END) FROM TBL" \
	"SELECT sum(income) FROM TBL WHERE age < 91 OR age > 91"
attack threshold "SELECT count(*) FILTER (WHERE income > 4000) FROM TBL" \
	"SELECT count(*) FILTER (WHERE income >= 4001) FROM TBL WHERE NOT age = 91"

# the same pair in one table, both halves in log mode: the second is
# alerted (determined), which it can only be with the first's truth
setup bc_log
analyst log "SELECT sum(income) FROM bc_log" >/dev/null
analyst log "SELECT sum(coalesce(income, 0)) FROM bc_log WHERE age <> 91" >/dev/null
n=$(q "SELECT count(*) FROM tapas.alerts WHERE \"table\" = 'bc_log'::regclass AND record_key = 37")
[ "$n" -ge 1 ] || fail "log mode: no alert on record 37"
echo "ok - log mode: the record is alerted across connections"

# fail closed: a sensitive statistic logged without a tree
setup bc_closed
q "SELECT tapas.ledger_record('bc_closed', 'sum(COALESCE(income, 0))', 1, ARRAY[1, 2, 3]::bigint[], NULL)" >/dev/null ||
	fail "ledger_record"
a=$(analyst deny "SELECT sum(income) FROM bc_closed WHERE age < 50")
[ "$a" = "TP004" ] || fail "deny mode with an unreadable truth gave '$a', not TP004"
echo "ok - a logged statistic without a tree: TP004 in deny mode"
a=$(analyst log "SELECT sum(income) FROM bc_closed WHERE age < 50")
[[ "$a" =~ ^[-0-9.e+]+$ ]] || fail "log mode with an unreadable truth gave '$a'"
n=$(q "SELECT count(*) FROM tapas.alerts WHERE \"table\" = 'bc_closed'::regclass AND kind = 'incomplete' AND action <> 'denied'")
[ "$n" -ge 1 ] || fail "log mode: no incomplete alert"
echo "ok - and an 'incomplete' alert in log mode"
# reset clears it
q "SELECT tapas.reset('bc_closed')" >/dev/null || fail "reset"
a=$(analyst deny "SELECT sum(income) FROM bc_closed WHERE age < 50")
[[ "$a" =~ ^[-0-9.e+]+$ ]] || fail "after tapas.reset: '$a'"
echo "ok - answered again after tapas.reset"
psql -X -q -d postgres -c "DROP DATABASE $db" || fail "dropdb"
