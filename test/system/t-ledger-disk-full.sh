#!/usr/bin/env bash
# A full disk under the ledger file: the statement whose record does not
# fit fails with SQLSTATE 53100 and logs nothing (records still fill the
# last space once a 1 MB preallocation no longer fits), the file stays
# valid (a restart replays every earlier record, with no torn tail), a
# tapas.reset on the full disk fails cleanly and keeps the ledger, and once
# space is freed the reset and new records succeed.  The ledger directory
# is put on a 1.2 MB tmpfs, with a 150 kB file standing for the rest of a
# full disk.  Runs its own instance.
# Usage: t-ledger-disk-full.sh INSTANCE_DIR (unused)
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
dir=$(mktemp -d /tmp/tapas-full.XXXXXX)
cleanup() {
	[ -f "$dir/data/postmaster.pid" ] && instance_stop "$dir"
	umount "$dir/full" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

q() { psql -X -qAt -v ON_ERROR_STOP=1 -c "$1"; }
cells() { q "SELECT cells FROM tapas.ledger_usage()"; }
# record N: one cell over 2,000 new keys (about 20 kB of file)
record() {
	psql -X -qAt -v VERBOSITY=verbose -c \
		"SELECT tapas.ledger_record('t', 'count(*)', 1,
		        ARRAY(SELECT ($1::bigint * 2000 + g) * 7919 FROM generate_series(1, 2000) g))" 2>&1
}

instance_start "$dir" || fail "start"
instance_stop "$dir" || fail "stop"
mkdir "$dir/full"
if ! mount -t tmpfs -o size=1200k tmpfs "$dir/full" 2>/dev/null; then
	echo "skip: cannot mount a tmpfs here (needs root)"
	exit 0
fi
chown postgres: "$dir/full"
chmod 700 "$dir/full"
head -c 150000 /dev/zero >"$dir/full/filler"
mv "$dir/data/pg_tapas"/* "$dir/full/"
rmdir "$dir/data/pg_tapas"
ln -s "$dir/full" "$dir/data/pg_tapas"
as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -o "-p $PGPORT" -l "$dir/server.log" -w start >/dev/null ||
	fail "start on the tmpfs"
q "CREATE EXTENSION tapas; CREATE TABLE t (id bigint PRIMARY KEY)" >/dev/null || fail "setup"

# fill until a record does not fit
err=""
for i in $(seq 1 200); do
	out=$(record "$i")
	case $out in
	*ERROR*) err=$out; break ;;
	esac
done
[ -n "$err" ] || fail "200 records of 2,000 keys fit in 1.2 MB"
echo "$err" | grep -q '53100' || fail "not a disk-full error: $err"
echo "$err" | grep -q 'could not write tapas ledger file' || fail "unexpected message: $err"
logged=$(cells)
[ "$logged" = $((i - 1)) ] || fail "cells after the failure: $logged, expected $((i - 1))"
[ "$(q "SELECT file_bytes > 1048576 FROM tapas.ledger_usage()")" = t ] ||
	fail "no record was written past the last whole 1 MB preallocation"
echo "ok: record $i does not fit: SQLSTATE 53100, nothing logged of it ($logged cells, the last ones without preallocation)"

# the failed statement left no partial record: a restart replays every cell
instance_restart "$dir" || fail "restart"
[ "$(cells)" = "$logged" ] || fail "after restart: $(cells) cells, expected $logged"
! grep -q 'is cut at byte' "$dir/server.log" || fail "torn tail after a disk-full error"
[ ! -f "$dir/full/ledger.log.damaged" ] || fail "damaged copy after a disk-full error"
echo "ok: the file stays valid; a restart replays all $logged cells"

# reset on a disk with no page left (fill it up): a clean error, the ledger kept
head -c 2000000 /dev/zero >"$dir/full/filler2" 2>/dev/null
out=$(psql -X -qAt -v VERBOSITY=verbose -c "SELECT tapas.reset('t')" 2>&1)
echo "$out" | grep -q '53100' || fail "reset on a full disk: $out"
[ "$(cells)" = "$logged" ] || fail "a failed reset changed the ledger: $(cells) cells"
[ ! -e "$dir/full/ledger.log.tmp" ] || fail "a failed reset left its temporary file"
echo "ok: reset on the full disk fails with 53100 and keeps the ledger"

# freeing space: reset rewrites the file, and records fit again
rm -f "$dir/full/filler" "$dir/full/filler2"
q "SELECT tapas.reset('t')" >/dev/null || fail "reset"
out=$(record 1000)
case $out in *ERROR*) fail "record after reset: $out" ;; esac
[ "$(cells)" = 1 ] || fail "cells after reset and a record: $(cells)"
instance_restart "$dir" || fail "restart after reset"
[ "$(cells)" = 1 ] || fail "after the last restart: $(cells) cells"
echo "ok: after a reset frees the space, records are written again"
