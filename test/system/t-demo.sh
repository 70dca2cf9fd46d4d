#!/usr/bin/env bash
# The demo's transcript is the one test/demo.expected shows: every act's
# heading and result, no stray line (a NOTICE of the setup, an empty
# result, a bare "Time:", a psql prefix), run in a fresh database of the
# test instance exactly as test/demo runs it (demo_transcript).  The one
# lines that vary, the attack's duration and the picture's path, are
# compared by their shape.  The
# picture it writes must be an SVG with both curves.
# Usage: t-demo.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_demo_sys

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
	-c "CREATE DATABASE $db" || fail "createdb"
svg=$dir/demo.svg
PGDATABASE=$db demo_transcript "$svg" >"$dir/demo.out"
sed -E -e 's/^(-- the 18 audited queries took )[0-9]+\.[0-9]+ s$/\1N s/' \
	-e "s|written to $svg\$|written to SVG|" "$dir/demo.out" >"$dir/demo.norm"
if ! diff -u --label test/demo.expected --label transcript test/demo.expected "$dir/demo.norm"; then
	fail "the demo's transcript differs from test/demo.expected"
fi
grep -qE '^-- the 18 audited queries took [0-9]+\.[0-9]+ s$' "$dir/demo.out" || fail "timing line"
grep -q '<svg' "$svg" && grep -q 'log mode' "$svg" && grep -q 'deny mode' "$svg" || fail "the picture"
if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o "$dir/demo.png" "$svg" || fail "rsvg-convert could not render the demo's picture"
fi
psql -X -q -d postgres -c "DROP DATABASE $db"
echo "demo transcript ok ($(wc -l <"$dir/demo.out") lines)"
