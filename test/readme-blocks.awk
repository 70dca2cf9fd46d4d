# Splits README.md into the SQL examples test/system/t-readme.sh runs.
# For each ```sql block it writes OUT/NNN.sql (the block), OUT/NNN.meta
# (line, role, skip reason) and, when the block is followed (blank lines
# apart) by a ```text block, OUT/NNN.expected (the output the README shows).
# Usage: awk -v out=DIR -f test/readme-blocks.awk README.md
{ line[NR] = $0 }
END {
	n = 0
	for (i = 1; i <= NR; i++) {
		if (line[i] !~ /^```sql[ \t]*$/)
			continue
		n++
		id = sprintf("%s/%03d", out, n)
		start = i
		role = "postgres"
		skip = ""
		head = 1
		for (i++; i <= NR && line[i] !~ /^```[ \t]*$/; i++) {
			# directives: leading comment lines "-- as ROLE", "-- skip: REASON"
			if (head && line[i] ~ /^-- as [A-Za-z_][A-Za-z0-9_]*[ \t]*$/) {
				role = line[i]; sub(/^-- as /, "", role); sub(/[ \t]*$/, "", role)
			} else if (head && line[i] ~ /^-- skip:/) {
				skip = line[i]; sub(/^-- skip:[ \t]*/, "", skip)
			} else
				head = 0
			print line[i] > (id ".sql")
		}
		close(id ".sql")
		printf "%d\t%s\t%s\n", start, role, skip > (id ".meta")
		close(id ".meta")
		# an output block right after the SQL block
		j = i + 1
		while (j <= NR && line[j] ~ /^[ \t]*$/)
			j++
		if (j <= NR && line[j] ~ /^```text[ \t]*$/) {
			printf "" > (id ".expected")
			for (j++; j <= NR && line[j] !~ /^```[ \t]*$/; j++)
				print line[j] > (id ".expected")
			close(id ".expected")
			i = j
		}
	}
}
