# Shared by the SQL benchmarks (test/bench/b-*-sql.sh): source after
# test/lib.sh.  census_instance NAME DATA [IDENTITY_OPTIONS] starts a
# private instance (destroyed on exit), creates the extension and loads
# DATA.csv (columns and their order from DATA.json, all text) into table
# census with a generated bigint primary key id; IDENTITY_OPTIONS, e.g.
# "(MINVALUE 0 START 0)", set where the ids start.  If DATA.csv is not
# readable it prints that NAME is skipped and exits 0, so a machine
# without the data set still passes.

census_instance() {
	local name=$1 data=$2 identity=${3:-} cols names
	if [ ! -r "$data.csv" ]; then
		echo "$name: $data.csv not readable, skipped"
		exit 0
	fi
	inst=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	trap 'instance_destroy "$inst"' EXIT
	instance_start "$inst" >/dev/null
	cols=$(python3 -c "import json;print(', '.join('\"%s\" text' % c['name'] for c in json.load(open('$data.json'))))")
	names=$(python3 -c "import json;print(', '.join('\"%s\"' % c['name'] for c in json.load(open('$data.json'))))")
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION tapas;
CREATE TABLE census (id bigint GENERATED ALWAYS AS IDENTITY $identity PRIMARY KEY, $cols);
\copy census ($names) FROM '$data.csv' WITH (FORMAT csv)
SQL
}
