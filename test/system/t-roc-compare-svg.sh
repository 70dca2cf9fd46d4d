#!/usr/bin/env bash
# The comparison ROC plot renders: tapas.roc_compare_svg of two attacks
# with an epsilon bound, written to a file and converted to PNG by
# rsvg-convert (librsvg, a strict SVG parser), which must succeed and give
# a 480 x 480 PNG.  Usage: t-roc-compare-svg.sh INSTANCE_DIR (a running
# instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_roc_sys
command -v rsvg-convert >/dev/null || fail "rsvg-convert missing (test/deps installs librsvg2-bin)"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
out=$(mktemp -d)
q "SELECT tapas.roc_compare_svg(array_agg(s), array_agg(m), array_agg(a), 'census & co', 1.0)
     FROM (SELECT 'closest distance' a, (i % 5) + (i % 2) * 2.5 s, i % 2 = 0 m FROM generate_series(1, 200) i
           UNION ALL SELECT 'groundhog', (i * 7919 % 101)::float8, i % 3 = 0 FROM generate_series(1, 200) i) x" \
	>"$out/roc.svg" || fail "roc_compare_svg"
rsvg-convert -o "$out/roc.png" "$out/roc.svg" || fail "rsvg-convert rejected the SVG"
# PNG signature and the IHDR width and height (bytes 16..23, big-endian)
sig=$(head -c 8 "$out/roc.png" | od -An -tx1 | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || fail "not a PNG: $sig"
size=$(od -An -tu1 -j16 -N8 "$out/roc.png" | awk '{print $3*256+$4 "x" $7*256+$8}')
[ "$size" = 480x480 ] || fail "PNG is $size, expected 480x480"
rm -rf "$out"
psql -X -q -d postgres -c "DROP DATABASE $db" || true
echo "roc_compare_svg renders to a 480x480 PNG"
