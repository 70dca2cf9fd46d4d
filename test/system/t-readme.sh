#!/usr/bin/env bash
# Every SQL example of README.md runs as written.  On a fresh private
# instance (so log and alert ids start at 1), in a fresh database loaded
# with test/fixtures/readme.sql, each ```sql block runs in README order, in
# its own psql session, as the role its first line names (-- as ROLE;
# default postgres, a superuser).  A block followed by a ```text block must
# print exactly that text ("..." matches anything within a line; errors are
# part of the output); any other block must run without error.  A block
# whose first lines hold "-- skip: REASON" is not run.  The conventions are
# stated in README.md, "About the examples".
# Usage: t-readme.sh [INSTANCE_DIR]  (the argument is ignored: the test
# starts its own instance; run it under /tmp/tapas-install.lock, as
# test/check does, after make install).
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
source test/lib.sh

work=$(mktemp -d /tmp/tapas-readme.XXXXXX)
chmod 755 "$work"
dir=$work/instance
# README_KEEP=DIR keeps the blocks and their outputs there (NNN.sql, NNN.out)
trap 'instance_destroy "$dir"; [ -n "${README_KEEP:-}" ] && cp -r "$work/blocks/." "$README_KEEP/"; rm -rf "$work"' EXIT
instance_start "$dir" || { echo "FAIL: could not start an instance"; exit 1; }
db=readme

psql -X -q -d postgres -c "CREATE DATABASE $db" || { echo "FAIL: createdb"; exit 1; }
if ! psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f test/fixtures/readme.sql >"$work/fixture.log" 2>&1; then
	echo "FAIL: test/fixtures/readme.sql"; cat "$work/fixture.log"; exit 1
fi

# the comparison can fail: a changed number, a missing line, "..." within a line only
printf ' n\n---\n 18 | 52929.77...\n' >"$work/want"
printf ' n\n---\n 18 | 52929.7777\n' >"$work/got"
awk -f test/readme-match.awk "$work/want" "$work/got" >/dev/null || { echo "FAIL: matcher rejects a match"; exit 1; }
for got in ' n\n---\n 17 | 52929.7777\n' ' n\n---\n' ' n\n---\n 18 | 52929.7777\n 19\n'; do
	printf "$got" >"$work/got"
	awk -f test/readme-match.awk "$work/want" "$work/got" >/dev/null &&
		{ echo "FAIL: matcher accepts a difference"; exit 1; }
done

mkdir -p "$work/blocks" "$work/cwd"
chmod 777 "$work/cwd"
awk -v out="$work/blocks" -f test/readme-blocks.awk README.md

passed=0 failed=0 skipped=0
for sql in "$work"/blocks/*.sql; do
	[ -e "$sql" ] || continue
	b=${sql%.sql}
	IFS=$'\t' read -r line role skip <"$b.meta"
	where="README.md:$line (as $role)"
	if [ -n "$skip" ]; then
		echo "skip - $where: $skip"
		skipped=$((skipped + 1))
		continue
	fi
	# run from a scratch directory (examples may write files, e.g. \o roc.svg);
	# psql's "psql:<stdin>:N: " prefix is dropped so that errors read as in psql
	# a block that shows its output may show errors, and go on after them
	stop=1
	[ -f "$b.expected" ] && stop=0
	(cd "$work/cwd" && psql -X -q -v ON_ERROR_STOP=$stop -P footer=off -U "$role" -d "$db" <"$sql" 2>&1) |
		sed -E 's/^psql:<stdin>:[0-9]+: //' >"$b.out"
	rc=${PIPESTATUS[0]}
	if [ -f "$b.expected" ]; then
		if msg=$(awk -f test/readme-match.awk "$b.expected" "$b.out"); then
			echo "ok - $where"; passed=$((passed + 1))
		else
			echo "not ok - $where: the output differs from the README"
			echo "$msg"
			diff -u --label README --label psql "$b.expected" "$b.out" | sed 's/^/     /' | head -n 60
			failed=$((failed + 1))
		fi
	elif [ "$rc" -ne 0 ] || grep -q '^ERROR:' "$b.out"; then
		echo "not ok - $where: the example fails"
		sed 's/^/     /' "$b.out" | head -n 30
		failed=$((failed + 1))
	else
		echo "ok - $where"; passed=$((passed + 1))
	fi
done

echo "README examples: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
