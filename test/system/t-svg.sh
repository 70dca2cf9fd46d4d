#!/usr/bin/env bash
# The SVG reports render: tapas.step_svg (the demo's disclosure picture:
# the same attack in log and deny mode) and tapas.roc_svg are converted to
# PNG by rsvg-convert (librsvg, test/deps), which fails on malformed SVG;
# the PNGs have the documents' sizes, the step plot draws steps (H/V
# segments), ticks and a refused-query cross on an opaque background.
# Usage: t-svg.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_svg_sys
out=$(mktemp -d /tmp/tapas-svg.XXXXXX)
trap 'rm -rf "$out"' EXIT
command -v rsvg-convert >/dev/null || fail "rsvg-convert missing (bash test/deps installs librsvg2-bin)"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"

# width and height of a PNG, from its IHDR chunk (bytes 16..23, big-endian)
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}'; }

# the demo's picture: log mode isolates the patient at query 16; deny mode
# refuses query 16 and isolates nobody
q "SELECT tapas.step_svg(array_agg(s ORDER BY o, t), array_agg(t::float8 ORDER BY o, t),
		array_agg(y::float8 ORDER BY o, t), array_agg(m ORDER BY o, t),
		'BCH attack & its refusal', 'COUNT queries asked', 'patients isolated')
	 FROM (SELECT 1 AS o, 'log mode' AS s, t, (t >= 16)::int AS y, false AS m FROM generate_series(0, 18) t
		   UNION ALL
		   SELECT 2, 'deny mode', t, 0, t = 16 FROM generate_series(0, 18) t) p" >"$out/steps.svg" ||
	fail "step_svg"
rsvg-convert -o "$out/steps.png" "$out/steps.svg" || fail "rsvg-convert could not render the step plot"
[ "$(png_size "$out/steps.png")" = 760x420 ] || fail "step plot PNG is $(png_size "$out/steps.png")"
grep -q '<rect width="760" height="420" fill="white"/>' "$out/steps.svg" || fail "no opaque background"
grep -q ' H[0-9.]* V[0-9.]*' "$out/steps.svg" || fail "no step segments"
grep -q '>18<\|>20<' "$out/steps.svg" || fail "no x tick labels"
grep -q 'refused query' "$out/steps.svg" || fail "no refused-query legend"
grep -q 'BCH attack &amp; its refusal' "$out/steps.svg" || fail "title not escaped"
[ "$(stat -c %s "$out/steps.png")" -gt 5000 ] || fail "step plot PNG suspiciously small"
echo "step plot: $(png_size "$out/steps.png") PNG, $(stat -c %s "$out/steps.png") bytes"

# bad input is an error, not a broken document
q "SELECT tapas.step_svg(ARRAY['a','a'], ARRAY[2,1]::float8[], ARRAY[0,1]::float8[])" 2>"$out/err" &&
	fail "decreasing x accepted"
grep -q 'x ascending' "$out/err" || fail "message: $(cat "$out/err")"

q "SELECT tapas.roc_svg(ARRAY[0.9, 0.8, 0.3, 0.1], ARRAY[true, false, true, false], 'ROC')" >"$out/roc.svg" ||
	fail "roc_svg"
rsvg-convert -o "$out/roc.png" "$out/roc.svg" || fail "rsvg-convert could not render the ROC curve"
[ "$(png_size "$out/roc.png")" = 480x480 ] || fail "ROC PNG is $(png_size "$out/roc.png")"
echo "ROC: $(png_size "$out/roc.png") PNG"

psql -X -q -d postgres -c "DROP DATABASE $db"
echo "svg ok"
