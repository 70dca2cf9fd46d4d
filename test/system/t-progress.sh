#!/usr/bin/env bash
# Long functions report progress and honour cancellation: tapas.evaluate
# (through the datasets and through the classifier's fit, Groundhog and
# shadow modelling, the random forest's and the logistic regression's
# fits), tapas.aia_scores (synthetic_predictor_aia's fits), tapas.reconstruct, tapas.reconstruct_matrix and
# tapas.audit (inside one statistic: its row-space sync and its decoders)
# print a NOTICE every tapas.progress_interval and stop at
# statement_timeout (57014) within a second.  Usage: t-progress.sh
# INSTANCE_DIR (a running instance from test/lib.sh).
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

# run SQL with a 100 ms progress interval and a timeout (ms); output to
# $dir/progress.out; fails when the statement (psql's \timing: without the
# connection) outlives the timeout by more than 1 s
run() {
	local timeout=$1 sql=$2 took
	psql -X -q -d "$db" -c "SET tapas.progress_interval = '100ms'" \
		-c "SET statement_timeout = $timeout" -c '\timing on' -c "$sql" >"$dir/progress.out" 2>&1
	took=$(sed -nE 's/^Time: ([0-9]+)\.[0-9]+ ms.*/\1/p' "$dir/progress.out" | tail -n 1)
	[ -n "$took" ] && [ "$took" -le $((timeout + 1000)) ] ||
		{ cat "$dir/progress.out"; fail "took ${took:-?} ms under a $timeout ms statement_timeout"; }
}

# cancel_in_fit SQL NOTICE MIN_MS WHAT [EXPECT]: times SQL's fit (from its
# first NOTICE, which comes within 100 ms of the fit's start, to its end;
# EXPECT: a line its output must hold), then runs it under a
# statement_timeout a third of the way through the fit, which must cancel
# it.  Under load one run can be twice as fast or as slow as the one before:
# a run that finishes before its timeout, or whose timeout falls before the
# fit begins, is timed again, up to five times.
cancel_in_fit() {
	local sql=$1 notice=$2 min=$3 what=$4 expect=${5:-} t0 t1 fit_start line got fit_ms timeout took
	for attempt in 1 2 3 4 5; do
		t0=$EPOCHREALTIME fit_start="" got=""
		while IFS= read -r line; do
			case $line in *"$notice"*) [ -n "$fit_start" ] || fit_start=$EPOCHREALTIME ;; esac
			[ -n "$expect" ] && case $line in *"$expect"*) got=1 ;; esac
		done < <(psql -X -q -d "$db" -c "SET tapas.progress_interval = '100ms'" -c "$sql" 2>&1)
		t1=$EPOCHREALTIME
		[ -n "$fit_start" ] || fail "no NOTICE from $what"
		[ -z "$expect" ] || [ -n "$got" ] || fail "$what: no line '$expect' in its output"
		read -r fit_ms timeout < <(awk -v a="$t0" -v b="$fit_start" -v c="$t1" \
			'BEGIN { printf "%d %d\n", (c - b) * 1000, (b - a + (c - b) * 0.35) * 1000 }')
		[ "$fit_ms" -ge "$min" ] || fail "$what took only $fit_ms ms"
		run "$timeout" "$sql"
		if ! grep -q "NOTICE:  $notice" "$dir/progress.out"; then
			grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
				{ cat "$dir/progress.out"; fail "$what: neither its NOTICE nor a cancel"; }
			echo "the $timeout ms timeout fell before $what (this run was slower): timed again"
			continue
		fi
		took=$(sed -nE 's/^Time: ([0-9]+)\..*/\1/p' "$dir/progress.out" | tail -n 1)
		if grep -q 'canceling statement due to statement timeout' "$dir/progress.out"; then
			echo "$what of $fit_ms ms: cancelled at $timeout ms after $took ms"
			return 0
		fi
		[ -n "$took" ] && [ "$took" -lt "$timeout" ] ||
			{ cat "$dir/progress.out"; fail "$what was not cancelled"; }
		echo "$what finished in $took ms, before its $timeout ms timeout: timed again"
	done
	fail "$what: the timeout missed the fit five times"
}

# 1. the datasets loop: 20,000 datasets take longer than 0.7 s (about 1.5 s)
run 700 "SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 20000, \"num_test_datasets\": 100}')"
grep -q 'NOTICE:  tapas.evaluate: generating and featurising the datasets, [0-9]*% (' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from the datasets loop"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "evaluate not cancelled"; }
echo "evaluate, datasets: $(grep -c NOTICE "$dir/progress.out") NOTICEs, cancelled"

# 2. the fit: a big forest on 4,000 datasets; the timeout falls inside the
# fit, which reports between trees
run 8000 "SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 4000, \"num_test_datasets\": 10,
	  \"n_estimators\": 5000}')"
grep -q 'NOTICE:  tapas.evaluate: training the classifier' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from the classifier's fit"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "the fit was not cancelled"; }
echo "evaluate, fit: $(grep -c 'training the classifier' "$dir/progress.out") NOTICEs, cancelled"

# 2b. shadow modelling (targeted queries, random forest): the same loops
run 1500 "SELECT accuracy FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 80000, \"num_test_datasets\": 10,
	  \"features\": [\"queries\"], \"order\": [1, 2, 3], \"number\": [20, 100, 100]}')"
grep -q 'NOTICE:  tapas.evaluate: generating and featurising the datasets, [0-9]*% (' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from shadow modelling"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "shadow modelling not cancelled"; }
echo "evaluate, shadow modelling: $(grep -c NOTICE "$dir/progress.out") NOTICEs, cancelled"

# 2c. shadow modelling with logistic regression: the fit (attacks/logistic.c)
# reports between its Newton iterations and inside its passes over the
# rows; 4,000 datasets of 404 features take about 0.3 s to fit (a 10 ms
# interval, so that even a fast machine prints several)
psql -X -q -d "$db" -c "SET tapas.progress_interval = '10ms'" \
	-c "SELECT n_features FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 4000, \"num_test_datasets\": 10,
	  \"classifier\": \"logistic_regression\", \"features\": [\"naive\", \"hist\"]}')" >"$dir/progress.out" 2>&1
[ "$(grep -c 'NOTICE:  tapas.evaluate: training the classifier (' "$dir/progress.out")" -ge 2 ] ||
	{ cat "$dir/progress.out"; fail "no progress NOTICEs from the logistic fit"; }
grep -q '^ *404$' "$dir/progress.out" || { cat "$dir/progress.out"; fail "logistic shadow modelling result"; }
echo "evaluate, logistic fit: $(grep -c 'training the classifier (' "$dir/progress.out") NOTICEs"

# 2d. ... and a statement_timeout inside the logistic fit stops it within a
# second (with liblinear, before 0.3, a cancel waited for the whole fit):
# 8,000 datasets of 5,454 features (naive + hist + corr) take 2 to 4 s to
# featurise and 3 to 9 s to fit here, depending on the load.  So a first
# run times both phases on this machine now (the first "training" NOTICE
# comes within 100 ms of the fit's start) and the timeout falls a third
# of the way through the fit (a second run under load can be twice as
# fast as the first).
big="SELECT n_features FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'census', '1',
	'{\"num_training_records\": 100, \"num_training_datasets\": 8000, \"num_test_datasets\": 10,
	  \"classifier\": \"logistic_regression\", \"features\": [\"naive\", \"hist\", \"corr\"]}')"
cancel_in_fit "$big" "tapas.evaluate: training the classifier" 1500 "the big logistic fit"

# 2e. tapas.aia_scores with synthetic_predictor_aia: the logistic fits (one
# per value of the sensitive column, one-vs-rest) report and stop like
# tapas.evaluate's.  400,000 synthetic rows take 1 to 6 s to fit here, so a
# first run times the fit (its first NOTICE comes within 100 ms of its
# start) and the timeout falls a third of the way through it.
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "predictor tables"
CREATE TABLE sp_syn AS SELECT g AS id, (g % 7)::text AS a, ((g / 7) % 11)::text AS b,
	((g * 13) % 17)::text AS c, ((g * 7 + g / 3) % 23)::text AS d,
	(((g % 7) + (g * 31) % 5) % 5)::text AS s FROM generate_series(1, 400000) g;
CREATE TABLE sp_tgt AS SELECT * FROM sp_syn WHERE id <= 3;
CREATE TABLE sp_small AS SELECT * FROM sp_syn WHERE id <= 20000;
SQL
lr="SELECT count(*) FROM tapas.aia_scores('synthetic_predictor_aia', 'sp_syn', 'sp_tgt', 's',
	'{\"key\": \"id\", \"exclude\": [\"id\"]}')"
cancel_in_fit "$lr" "tapas.aia_scores: fitting the logistic regression" 400 "the predictor's logistic fit" " 15"

# 2f. ... and the random forest estimator: 5 forests of 2,000 trees on
# 20,000 rows take far longer than the 1.5 s timeout; the NOTICEs count
# the trees of all the forests
run 1500 "SELECT count(*) FROM tapas.aia_scores('synthetic_predictor_aia', 'sp_small', 'sp_tgt', 's',
	'{\"key\": \"id\", \"exclude\": [\"id\"], \"estimator\": \"random_forest\", \"n_estimators\": 2000}')"
grep -q 'NOTICE:  tapas.aia_scores: fitting the random forest, [0-9]*% (' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from the predictor's forest"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "the predictor's forest was not cancelled"; }
echo "aia_scores, random forest: $(grep -c NOTICE "$dir/progress.out") NOTICEs, cancelled"

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
run 50 "SELECT count(*) FROM tapas.reconstruct('bernoulli', 100000, $zeros, 5)"
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "reconstruct not cancelled"; }
echo "reconstruct: NOTICEs, cancelled"

# 6. reconstruct_matrix: cancelled by the timeout (in the SPI read of the
# matrix or in the LP, which polls every 2,000 simplex iterations or 250 ms)
run 1500 "SELECT count(*) FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 400) q, generate_series(1, 20000) id
	  WHERE (hashint8(q * 1000003 + id) & 1) = 1',
	(SELECT array_agg(0::numeric) FROM generate_series(1, 400)), 'lp', 5)"
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "reconstruct_matrix not cancelled"; }
echo "reconstruct_matrix: cancelled"

# 7. tapas.audit inside one statistic: 2,000 logged cells of one class
# (100 statements of 20 groups, logged with tapas.mode = off) over 20,000
# records take seconds to audit; the NOTICEs come from inside the
# statistic (the row-space sync between its chunks of rows, the decoders
# from their kernel callbacks) and the timeout stops it within a second
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "audit table"
SET client_min_messages = warning;
CREATE TABLE big (id int PRIMARY KEY, grp int NOT NULL, s bool NOT NULL);
INSERT INTO big SELECT g, g % 20, g % 997 = 0 FROM generate_series(1, 20000) g;
SELECT tapas.protect('big', 'id', ARRAY['s'], 100);
DO $$ BEGIN CREATE ROLE tapas_progress_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT SELECT ON big TO tapas_progress_analyst;
SET tapas.mode = off;
SET SESSION AUTHORIZATION tapas_progress_analyst;
DO $d$
BEGIN
	FOR q IN 1..100 LOOP
		PERFORM grp, count(*) FILTER (WHERE s) FROM big
		  WHERE tapas.design_member('bernoulli', 20000, 5, q, id) GROUP BY grp;
	END LOOP;
END $d$;
SQL
[ "$(q "SELECT count(*) FROM tapas.query_log WHERE tbl = 'big'::regclass")" = 2000 ] || fail "audit: logged cells"
run 350 "SELECT count(*) FROM tapas.audit('big')"
grep -q 'NOTICE:  tapas.audit: statistic 1 of 1 (count(\*) filter (where s)), row space, [0-9]*% (' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "no progress NOTICE from inside the audited statistic"; }
grep -q 'canceling statement due to statement timeout' "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "tapas.audit not cancelled"; }
echo "audit: $(grep -c NOTICE "$dir/progress.out") NOTICEs inside one statistic, cancelled"
# the cancel left nothing behind: a later audit of a small table runs
# silently at the default interval and finds what it should
q "SET client_min_messages = warning;
   CREATE TABLE small (id int PRIMARY KEY, s bool NOT NULL);
   INSERT INTO small SELECT g, g = 3 FROM generate_series(1, 40) g;
   SELECT tapas.protect('small', 'id', ARRAY['s'], 5);
   GRANT SELECT ON small TO tapas_progress_analyst" >/dev/null || fail "small table"
psql -X -q -d "$db" -c "SET tapas.mode = off" -c "SET SESSION AUTHORIZATION tapas_progress_analyst" \
	-c "SELECT count(*) FILTER (WHERE s) FROM small" -c "SELECT count(*) FILTER (WHERE s) FROM small WHERE id <> 3" \
	>/dev/null 2>&1
psql -X -qAt -d "$db" -c "SELECT record_key, kind FROM tapas.audit('small')" >"$dir/progress.out" 2>&1
grep -qx '3|determined' "$dir/progress.out" && ! grep -q NOTICE "$dir/progress.out" ||
	{ cat "$dir/progress.out"; fail "audit after a cancelled audit"; }
echo "audit after the cancel: record 3 determined, no NOTICE"

psql -X -q -d postgres -c "DROP DATABASE $db"
psql -X -q -d postgres -c "DROP ROLE IF EXISTS tapas_progress_analyst"
echo "progress ok"
