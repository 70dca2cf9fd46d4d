#!/usr/bin/env bash
# What the instruction-set policy costs: tapas.so and the kernel tests are
# built for baseline x86-64 (Makefile, src/README.md "Build"), so that the
# library loads on any x86-64 Debian 12 runs on.  This builds the short
# kernel benchmarks a second time with -march=x86-64-v2 (POPCNT, SSE4.2)
# into test/build-v2 (and once more as shipped into test/build-base) and prints, per benchmark, the best of 3 wall times of
# both builds and their ratio (baseline / v2; above 1: v2 is faster).
# Usage: bash test/bench/march-policy.sh [bench ...]  (default: the
# popcount-heavy sparse search and BCH, the radix sort and the ledger store)
set -uo pipefail
cd "$(dirname "$0")/../.."
benches=${*:-b-sparse_search b-bch b-sort_u32 b-ledger}

# both from scratch: make does not rebuild an object when only flags change
rm -rf test/build-v2 test/build-base
make -s -j2 KBUILD=test/build-base \
	$(for b in $benches; do echo test/build-base/bench/$b; done) >/dev/null || exit 1
make -s -j2 KBUILD=test/build-v2 MARCH=-march=x86-64-v2 \
	$(for b in $benches; do echo test/build-v2/bench/$b; done) >/dev/null || exit 1

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
best() {	# best BINARY: the best of 3 wall times in seconds
	local t best=
	for i in 1 2 3; do
		/usr/bin/time -f %e -o "$tmp" "$1" >/dev/null 2>&1 || { echo "$1 failed" >&2; exit 1; }
		t=$(tail -n 1 "$tmp")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

printf '%-18s %12s %12s %8s\n' benchmark "baseline s" "v2 s" ratio
for b in $benches; do
	base=$(best test/build-base/bench/$b)
	v2=$(best test/build-v2/bench/$b)
	printf '%-18s %12s %12s %8s\n' "$b" "$base" "$v2" "$(echo "scale=2; $base / $v2" | bc)"
done
