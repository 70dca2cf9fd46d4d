#!/usr/bin/env bash
# A ledger file written by tapas 0.2 (version 1: a table is its OID, no
# database) still replays: the server puts the version 2 magic on it, its
# table's trail is shared by every database that has a table of that OID
# (answers count in all, the safe side: a difference completed in either
# database is refused), new answers extend that shared trail, and
# tapas.reset in any database removes it, after which each database logs
# the table on its own; all of it survives a restart.  The version 1 file
# is written here by an independent encoder (python3: frame, CRC-32C, a
# CRoaring array container).  Runs its own instance.  Usage:
# t-ledger-v1-file.sh INSTANCE_DIR (unused).
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
dir=$(mktemp -d /tmp/tapas-v1.XXXXXX)
trap 'instance_destroy "$dir"' EXIT

qd() { psql -X -qAt -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
analyst() {
	psql -X -qAt -d "$1" -U sys_v1_analyst -v VERBOSITY=sqlstate \
		-c "SET client_min_messages = error" -c "$2" 2>&1 | sed 's/^ERROR: *//'
}
cells() { qd "$1" "SELECT count(*) FROM tapas.query_log WHERE tbl = 't'::regclass"; }

instance_start "$dir" || fail "start"
qd postgres "CREATE DATABASE v1_tmpl" || fail "createdb"
qd v1_tmpl "SET client_min_messages = warning;
   CREATE EXTENSION tapas;
   CREATE ROLE sys_v1_analyst LOGIN;
   ALTER ROLE sys_v1_analyst SET tapas.mode = deny;
   CREATE TABLE t (id int PRIMARY KEY, x int NOT NULL);
   INSERT INTO t SELECT g, g % 13 FROM generate_series(1, 100) g;
   GRANT SELECT ON t TO sys_v1_analyst;
   SELECT tapas.protect('t', 'id', ARRAY['x'], 10);" >/dev/null || fail "setup"
psql -X -q -d postgres -c "CREATE DATABASE v1_a TEMPLATE v1_tmpl" -c "CREATE DATABASE v1_b TEMPLATE v1_tmpl" ||
	fail "createdb from template"
oid=$(qd v1_a "SELECT 't'::regclass::oid")
role=$(qd v1_a "SELECT oid FROM pg_roles WHERE rolname = 'sys_v1_analyst'")
instance_stop "$dir"

# a 0.2 file: one statement of the analyst, sum(x) over keys 1..50
python3 - "$dir/data/pg_tapas/ledger.log" "$oid" "$role" <<'PY' || fail "write the version 1 file"
import struct, sys
path, relid, role = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
# CRoaring portable format, no run containers: cookie 12346, one container
# (key 0, cardinality 50) at offset 16, its 50 indices 0..49 as u16
cover = struct.pack('<II', 12346, 1) + struct.pack('<HH', 0, 49) + struct.pack('<I', 16) + \
        b''.join(struct.pack('<H', i) for i in range(50))
stat = b'sum(x)'
cell = struct.pack('<II', relid, len(stat)) + stat + struct.pack('<dQQ', 325.0, 50, 50) + \
       b''.join(struct.pack('<q', k) for k in range(1, 51)) + struct.pack('<Q', len(cover)) + cover
stmt = bytes([1, 0, 0, 0]) + struct.pack('<IqqqIiI', 1, 1, 0, 0, role, 4242, 0xFFFFFFFF) + cell
with open(path, 'wb') as f:
    f.write(b'TAPASLF1' + struct.pack('<II', len(stmt), crc32c(stmt)) + stmt)
PY
chown postgres "$dir/data/pg_tapas/ledger.log"
as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -o "-p $PGPORT" -l "$dir/server.log" -w start >/dev/null 9>&- ||
	fail "start on the version 1 file"
grep -q "upgraded to version 2" "$dir/server.log" || fail "no upgrade line in the server log"
[ "$(head -c 8 "$dir/data/pg_tapas/ledger.log")" = TAPASLF2 ] || fail "the file keeps the version 1 magic"
echo "ok: a version 1 file replays and gets the version 2 magic"

# the old trail is the table's in both databases
[ "$(cells v1_a)" = 1 ] && [ "$(cells v1_b)" = 1 ] || fail "shared cell: $(cells v1_a) $(cells v1_b)"
r=$(analyst v1_a "SELECT sum(x) FROM t WHERE id <= 51")
[ "$r" = TP001 ] || fail "difference with the 0.2 answer in v1_a: $r"
r=$(analyst v1_b "SELECT sum(x) FROM t WHERE id <= 51")
[ "$r" = TP001 ] || fail "difference with the 0.2 answer in v1_b: $r"
echo "ok: the 0.2 answer counts in every database"

# a new answer extends the shared trail
r=$(analyst v1_b "SELECT sum(x) FROM t WHERE id <= 70")
[[ "$r" =~ ^[0-9]+$ ]] || fail "answer in v1_b: $r"
[ "$(cells v1_a)" = 2 ] || fail "the shared trail should have 2 cells in v1_a: $(cells v1_a)"
r=$(analyst v1_a "SELECT sum(x) FROM t WHERE id <= 71")
[ "$r" = TP001 ] || fail "difference with v1_b's answer in v1_a: $r"
echo "ok: new answers extend the shared trail"

# a restart keeps it shared; reset in one database removes it, then each logs its own
instance_restart "$dir" || fail "restart"
[ "$(cells v1_a)" = 2 ] && [ "$(cells v1_b)" = 2 ] || fail "after restart: $(cells v1_a) $(cells v1_b)"
[ "$(qd v1_a "SELECT tapas.reset('t')")" = 2 ] || fail "reset of the shared trail"
[ "$(cells v1_a)" = 0 ] && [ "$(cells v1_b)" = 0 ] || fail "after reset: $(cells v1_a) $(cells v1_b)"
r=$(analyst v1_b "SELECT sum(x) FROM t WHERE id <= 50")
[[ "$r" =~ ^[0-9]+$ ]] || fail "answer in v1_b after reset: $r"
r=$(analyst v1_a "SELECT sum(x) FROM t WHERE id <= 51")
[[ "$r" =~ ^[0-9]+$ ]] || fail "v1_b's new answer counted in v1_a: $r"
instance_restart "$dir" || fail "restart"
[ "$(cells v1_a)" = 1 ] && [ "$(cells v1_b)" = 1 ] || fail "own trails after restart: $(cells v1_a) $(cells v1_b)"
echo "ok: after tapas.reset each database logs the table on its own"
echo "4 passed, 0 failed"
