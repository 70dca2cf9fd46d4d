# Compares the output of a README example with the output the README shows.
# Lines are compared without trailing blanks; "..." in an expected line
# matches any text (within that line).  Exit 0 on a match; otherwise print
# the first differing line and exit 1.
# Usage: awk -f test/readme-match.awk EXPECTED ACTUAL
function rtrim(s) { sub(/[ \t\r]+$/, "", s); return s }
# does s match pattern p, where "..." in p matches anything?
function matches(p, s,    parts, k, n, pos, at) {
	n = split(p, parts, /\.\.\./)
	if (n == 1)
		return p == s
	if (substr(s, 1, length(parts[1])) != parts[1])
		return 0
	pos = length(parts[1]) + 1
	for (k = 2; k < n; k++) {
		at = index(substr(s, pos), parts[k])
		if (at == 0)
			return 0
		pos += at - 1 + length(parts[k])
	}
	return length(s) - pos + 1 >= length(parts[n]) &&
		substr(s, length(s) - length(parts[n]) + 1) == parts[n]
}
FNR == NR { want[++nw] = rtrim($0); next }
{ got[++ng] = rtrim($0) }
END {
	while (nw > 0 && want[nw] == "") nw--
	while (ng > 0 && got[ng] == "") ng--
	for (k = 1; k <= nw || k <= ng; k++) {
		if (k > nw || k > ng || !matches(want[k], got[k])) {
			printf "     first difference at output line %d:\n", k
			printf "     README shows: %s\n", (k <= nw ? want[k] : "(no more lines)")
			printf "     psql printed: %s\n", (k <= ng ? got[k] : "(no more lines)")
			exit 1
		}
	}
	exit 0
}
