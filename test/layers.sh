#!/usr/bin/env bash
# Dependencies point one way (src/README.md, "What may include what"):
# each folder of src/ may include only the tapas folders listed for it, and
# the pure-C kernels (util, lstore, recon, attacks) no PostgreSQL header at
# all.  One check per folder; prints "N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/.."

declare -A allowed=(
	[util]="util"
	[lstore]="lstore util"
	[recon]="recon util"
	[attacks]="attacks util"
	[policy]="policy util"
	[ledger]="ledger lstore policy util"
	[audit]="audit ledger lstore recon policy util"
	[capture]="capture audit ledger lstore policy util"
	[api]="api recon attacks policy util"
)
kernels=" util lstore recon attacks "
folders=" ${!allowed[*]} "
passed=0
failed=0

for dir in src/*/; do
	d=$(basename "$dir")
	[ "$d" = sql ] && continue
	bad=""
	if [ -z "${allowed[$d]+set}" ]; then
		bad="folder not in the table of test/layers.sh"
	fi
	# every quoted include, as "file:folder/header" (no folder: "file:header")
	while IFS= read -r hit; do
		file=${hit%%:*}
		inc=${hit#*:}
		top=${inc%%/*}
		[ "$top" = "$inc" ] && top=""
		if [[ "$folders" == *" $top "* ]]; then
			[[ " ${allowed[$d]:-} " == *" $top "* ]] || bad="$bad $file includes $inc;"
		elif [[ "$kernels" == *" $d "* ]]; then
			bad="$bad $file (a kernel) includes PostgreSQL's $inc;"
		fi
	done < <(grep -HoE '^#include "[^"]+"' "$dir"*.[ch] 2>/dev/null |
			 sed -E 's/:#include "([^"]+)"/:\1/')
	if [ -z "$bad" ]; then
		echo "ok - $d includes only: ${allowed[$d]}"
		passed=$((passed + 1))
	else
		echo "not ok - $d:$bad"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
