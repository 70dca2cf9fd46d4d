#!/usr/bin/env bash
# Production-scale overhead (issue 12): the same aggregate queries on a
# protected table, run by an audited role in deny mode (validation, capture,
# gate, k check, row-space audit, ledger append), and on an unprotected copy
# of it, with the same (default) parallel settings, at n rows:
#   half    SELECT count(*) FROM t WHERE id <= n/2
#   g20     SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM t GROUP BY g20
#   g1000   SELECT g1000, count(*) FILTER (WHERE rare), sum(income) FROM t GROUP BY g1000
# Each round runs every query REPS times unprotected, then REPS times
# audited (pgbench -t REPS, one client, average latency); rounds interleave,
# and the table shows the median over rounds of each side and the ratio
# audited / unprotected, beside the ratio the issue measured before this
# work ("today", where it gave one).  RESET=run (the default) resets the
# protected table's ledger before each audited run, so every run starts
# from an empty ledger (its first statement meets only new keys);
# RESET=once resets it once per n, so the ledger grows over the rounds with
# the same answers logged again (the steady state of a repeated report).
#
# Before and after in one run: TAPAS_BEFORE_REF=<commit> (built from
# `git archive` in a temporary directory) or TAPAS_BEFORE_SRC=<a built
# source tree> installs that build into its own relocated copy of
# PostgreSQL and runs it on a second private instance with the same data;
# each round then runs unprotected, audited before, audited after, and the
# table adds the before column, its ratio and before / after.
#
# Usage: bash test/bench/scale.sh [n ...]   (default: 100000 1000000;
#        10000000 works too, about 2 GB of disk and a few minutes, not in CI)
# Environment: ROUNDS (default 5), REPS (default 5).  Starts a private
# instance (tapas installed from this checkout: into TAPAS_PGROOT's copy of
# PostgreSQL if set, else under the machine-wide install lock) unless PGHOST
# is set (then TAPAS_BEFORE_* is ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
rounds=${ROUNDS:-5}
reps=${REPS:-5}
reset=${RESET:-run}
sizes=${*:-100000 1000000}
PGBENCH=${PGBENCH:-$PGBIN/pgbench}
maxn=0
for n in $sizes; do [ "$n" -gt "$maxn" ] && maxn=$n; done
db=tapas_bench_scale
setup_db() {	# a fresh database with the extension and the analyst role
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 -d $db <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_scale_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE bench_scale_analyst SET tapas.mode = deny;
SQL
}
work=$(mktemp -d)
chmod 755 "$work"
inst=""
binst=""
before_src=${TAPAS_BEFORE_SRC:-}
cleanup() {
	[ -n "$inst" ] && instance_destroy "$inst"
	[ -n "$binst" ] && (PGBIN=$work/before/usr/lib/postgresql/15/bin; instance_destroy "$binst")
	rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${PGHOST:-}" ] && { [ -n "${TAPAS_BEFORE_REF:-}" ] || [ -n "$before_src" ]; }; then
	if [ -z "$before_src" ]; then
		before_src=$work/before-src
		mkdir -p "$before_src"
		git archive "$TAPAS_BEFORE_REF" | tar -x -C "$before_src"
		make -s -j2 -C "$before_src" >/dev/null
	fi
	# the before build in its own relocated PostgreSQL, on its own instance
	mkdir -p "$work/before/usr/lib/postgresql" "$work/before/usr/share/postgresql"
	cp -a /usr/lib/postgresql/15 "$work/before/usr/lib/postgresql/"
	cp -a /usr/share/postgresql/15 "$work/before/usr/share/postgresql/"
	make -s -C "$before_src" install DESTDIR="$work/before" >/dev/null
	binst=$work/before-inst
	(
		PGBIN=$work/before/usr/lib/postgresql/15/bin
		instance_start "$binst" "tapas.ledger_memory = '256MB'" "shared_buffers = '256MB'" >/dev/null
		setup_db
	)
fi
# psql_before ARGS: psql against the before instance
psql_before() { PGHOST=$binst PGPORT=$(cat "$binst/port") psql "$@"; }
if [ -z "${PGHOST:-}" ]; then
	make -s -j2 >/dev/null
	inst=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	# the extension's files must not change between install and CREATE
	# EXTENSION: a shared installation is locked, TAPAS_PGROOT's is private
	exec 9>/tmp/tapas-install.lock
	[ -n "${TAPAS_PGROOT:-}" ] || flock 9
	tapas_install
	instance_start "$inst" "tapas.ledger_memory = '256MB'" \
		"shared_buffers = '256MB'" >/dev/null
	setup_db
	flock -u 9
	exec 9>&-
else
	setup_db
fi
export PGDATABASE=$db

latency() {	# latency FILE [HOST PORT]: average latency in ms of REPS runs as the analyst
	"$PGBENCH" -n -t "$reps" -c 1 -U bench_scale_analyst ${2:+-h "$2" -p "$3"} -f "$1" 2>"$work/err" |
		awk '/latency average/ {print $4}'
	if grep -q 'ERROR' "$work/err"; then
		cat "$work/err" >&2
		exit 1
	fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

today() {	# the issue's ratio before this work, or -
	case "$1 $2" in
	"100000 half") echo 1.37 ;;
	"100000 g1000") echo 2.08 ;;
	"1000000 g20") echo 2.67 ;;
	"10000000 half") echo 2.29 ;;
	"10000000 g20") echo 3.25 ;;
	*) echo - ;;
	esac
}

if [ -n "$binst" ]; then
	printf "%-9s %-6s %12s %12s %12s %7s %7s %7s %7s\n" n query unprotected before after \
		"r.before" "r.after" "b/a" today
else
	printf "%-9s %-6s %12s %12s %7s %7s\n" n query unprotected audited ratio today
fi
for n in $sizes; do
	for side in after before; do
	[ "$side" = before ] && [ -z "$binst" ] && continue
	if [ "$side" = before ]; then run_psql=psql_before; else run_psql=psql; fi
	$run_psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS t_p, t_u;
CREATE TABLE t_p (id int PRIMARY KEY, g20 int NOT NULL, g1000 int NOT NULL,
				  rare bool NOT NULL, income int NOT NULL);
INSERT INTO t_p SELECT i, i % 20, (i / 7) % 1000, i % 97 = 0, (i::int8 * 7919 % 100000)::int
  FROM generate_series(1, $n) i;
CREATE TABLE t_u AS SELECT * FROM t_p;
ALTER TABLE t_u ADD PRIMARY KEY (id);
VACUUM ANALYZE t_p, t_u;
SELECT tapas.protect('t_p', 'id', ARRAY['rare', 'income'], 10) IS NULL AS protected \\gset
GRANT SELECT ON t_p, t_u TO bench_scale_analyst;
SQL
	done
	for q in half g20 g1000; do
		case $q in
		half) sql="SELECT count(*) FROM %s WHERE id <= $((n / 2));" ;;
		g20) sql='SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM %s GROUP BY g20;' ;;
		g1000) sql='SELECT g1000, count(*) FILTER (WHERE rare), sum(income) FROM %s GROUP BY g1000;' ;;
		esac
		printf "$sql\n" t_u >"$work/$q.u.sql"
		printf "$sql\n" t_p >"$work/$q.p.sql"
		: >"$work/$q.u"
		: >"$work/$q.p"
		: >"$work/$q.b"
	done
	for r in $(seq "$rounds"); do
		for q in half g20 g1000; do
			latency "$work/$q.u.sql" >>"$work/$q.u"
			if [ -n "$binst" ]; then
				[ "$reset" = run ] && psql_before -X -q -c "SELECT tapas.reset('t_p')" >/dev/null
				latency "$work/$q.p.sql" "$binst" "$(cat "$binst/port")" >>"$work/$q.b"
			fi
			[ "$reset" = run ] && psql -X -q -c "SELECT tapas.reset('t_p')" >/dev/null
			latency "$work/$q.p.sql" >>"$work/$q.p"
		done
	done
	for q in half g20 g1000; do
		u=$(median <"$work/$q.u")
		p=$(median <"$work/$q.p")
		if [ -n "$binst" ]; then
			b=$(median <"$work/$q.b")
			awk -v n="$n" -v q="$q" -v u="$u" -v p="$p" -v b="$b" -v t="$(today "$n" "$q")" 'BEGIN {
				printf "%-9s %-6s %9.2f ms %9.2f ms %9.2f ms %7.2f %7.2f %7.2f %7s\n",
					n, q, u, b, p, b / u, p / u, b / p, t }'
		else
			awk -v n="$n" -v q="$q" -v u="$u" -v p="$p" -v t="$(today "$n" "$q")" 'BEGIN {
				printf "%-9s %-6s %9.2f ms %9.2f ms %7.2f %7s\n", n, q, u, p, p / u, t }'
		fi
	done
	psql -X -q -c "SELECT tapas.reset('t_p')" -c "DROP TABLE t_p, t_u" >/dev/null
	if [ -n "$binst" ]; then
		psql_before -X -q -c "SELECT tapas.reset('t_p')" -c "DROP TABLE t_p, t_u" >/dev/null
	fi
done
echo "(medians of $rounds interleaved rounds of $reps runs each, ledger reset per $reset; ratio = audited / unprotected, same parallel settings)"
