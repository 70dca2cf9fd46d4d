#!/usr/bin/env bash
# Long functions report progress and honour cancellation: tapas.evaluate
# (through the datasets and through the classifier's fit) and
# tapas.reconstruct and tapas.reconstruct_matrix print a NOTICE every
# tapas.progress_interval and stop at statement_timeout (57014).  Usage: t-progress.sh INSTANCE_DIR
# (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_progress_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "census table"
CREATE TABLE census (
	"Region" text, "Residence Type" text, "Family Composition" text,
	"Population Base" text, "Sex" text, "Age" text, "Marital Status" text,
	"Student" text, "Country of Birth" text, "Health" text, "Ethnic Group" text,
	"Religion" text, "Economic Activity" text, "Occupation" text, "Industry" text,
	"Hours worked per week" text, "Approximated Social Grade" text);
\copy census FROM 'test/data/census300.csv' WITH (FORMAT csv)
ALTER TABLE census ADD COLUMN id serial PRIMARY KEY;
SQL

# run SQL with a 100 ms progress interval and a timeout; stderr to $out
run() {
	local timeout=$1 sql=$2
	psql -X -q -d "$db" -c "SET tapas.progress_interval = '100ms'" \
		-c "SET statement_timeout = '$timeout'" -c "$sql" >"$dir/progress.out" 2>&1
	true
}

# 1. the datasets loop: 20,000 datasets take far longer than 1.5 s
run 1500ms "SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 20000, \"num_test_datasets\": 100}')"
grep -q 'NOTICE:  tapas.evaluate: generating and featurising the datasets, [0-9]*% (' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from the datasets loop"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "evaluate not cancelled"; }
echo "evaluate, datasets: $(grep -c NOTICE "$dir/progress.out") NOTICEs, cancelled"

# 2. the fit: a big forest on 4,000 datasets; the timeout falls inside the
# fit, which reports between trees
run 8s "SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 4000, \"num_test_datasets\": 10,
	  \"n_estimators\": 5000}')"
grep -q 'NOTICE:  tapas.evaluate: training the classifier' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from the classifier's fit"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "the fit was not cancelled"; }
echo "evaluate, fit: $(grep -c 'training the classifier' "$dir/progress.out") NOTICEs, cancelled"

# 3. the default interval is 5 s: a 1.5 s run prints nothing
psql -X -q -d "$db" -c "SET statement_timeout = '1500ms'" \
	-c "SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 20000, \"num_test_datasets\": 100}')" \
	>"$dir/progress.out" 2>&1
grep -q NOTICE "$dir/progress.out" && { cat "$dir/progress.out"; fail "a NOTICE before 5 s"; }
grep -q 'statement timeout' "$dir/progress.out" || { cat "$dir/progress.out"; fail "not cancelled"; }
# 4. the default interval
q "SHOW tapas.progress_interval" | grep -qx '5s' || fail "default interval"

# 5. tapas.reconstruct: building and decoding a 400 x 100,000 Bernoulli
# design reports (1 ms interval) and is cancelled by a 50 ms timeout
zeros="(SELECT array_agg(0::numeric) FROM generate_series(1, 400))"
psql -X -q -d "$db" -c "SET tapas.progress_interval = '1ms'" \
	-c "SELECT count(*) FROM tapas.reconstruct('bernoulli', 100000, $zeros, 5)" >"$dir/progress.out" 2>&1
grep -q 'NOTICE:  tapas.reconstruct: decoding, [0-9]*% (' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from tapas.reconstruct"; }
grep -q '^     0$' "$dir/progress.out" || { cat "$dir/progress.out"; fail "reconstruct result"; }
run 50ms "SELECT count(*) FROM tapas.reconstruct('bernoulli', 100000, $zeros, 5)"
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "reconstruct not cancelled"; }
echo "reconstruct: NOTICEs, cancelled"

# 6. reconstruct_matrix: cancelled by the timeout (in the SPI read of the
# matrix or in the LP, which polls every 2,000 simplex iterations)
run 1500ms "SELECT count(*) FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 400) q, generate_series(1, 20000) id
	  WHERE (hashint8(q * 1000003 + id) & 1) = 1',
	(SELECT array_agg(0::numeric) FROM generate_series(1, 400)), 'lp', 5)"
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "reconstruct_matrix not cancelled"; }
echo "reconstruct_matrix: cancelled"

psql -X -q -d postgres -c "DROP DATABASE $db"
echo "progress ok"
