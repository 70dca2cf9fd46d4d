#!/usr/bin/env bash
# Several targets sharing one set of datasets: tapas.evaluate_targets with
# several targets against one tapas.evaluate call per target (the
# baseline, each target with its own datasets), in the same run, on the
# census50k table, end to end (each tapas.evaluate reads the 50,000-row
# table and generates its own datasets; evaluate_targets does both once):
#	the closest-distance MIA, 8 targets, 500-record datasets, 100
#	training and 100 test datasets, marginals and raw generators;
#	Groundhog (naive + hist + corr, random forest), 4 targets,
#	1,000-record datasets, 300 training and 100 test datasets (the
#	Groundhog benchmark's setting), raw generator: the datasets and their
#	features are shared, each target still fits its own forest.
# Prints both wall times and their ratio.  Needs tapas installed (make
# install, or TAPAS_PGROOT as test/lib.sh).
# Usage: bash test/bench/b-evaluate-targets-sql.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/bench/lib-sql.sh
PGBIN=${TAPAS_PGBIN:-$PGBIN}
data=${TAPAS_CENSUS:-../shared/data/census50k}
census_instance b-evaluate-targets-sql "$data"

# compare ATTACK GEN RECORDS TRAIN TEST KEY...: both timings and the ratio
compare() {
	local attack=$1 gen=$2 records=$3 train=$4 test=$5
	shift 5
	local keys="ARRAY['$(echo "$@" | sed "s/ /', '/g")']" n=$#
	local params="{\"num_training_records\": $records, \"num_training_datasets\": $train, \"num_test_datasets\": $test, \"generator\": \"$gen\", \"bootstrap\": 0}"
	psql -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 <<SQL | while read -r shared separate; do
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
SELECT count(*) FROM tapas.evaluate_targets('targeted_mia', '$attack', 'census', $keys, '$params') \g /dev/null
CREATE TEMP TABLE t1 AS SELECT clock_timestamp() AS t;
SELECT count(*) FROM unnest($keys) k, tapas.evaluate('targeted_mia', '$attack', 'census', k, '$params') \g /dev/null
CREATE TEMP TABLE t2 AS SELECT clock_timestamp() AS t;
SELECT round(extract(epoch FROM t1.t - t0.t)::numeric, 2), round(extract(epoch FROM t2.t - t1.t)::numeric, 2)
  FROM t0, t1, t2;
SQL
		echo "$n targets, $attack, generator $gen ($train + $test datasets of $records records):"
		echo "  tapas.evaluate_targets (one set of datasets): $shared s"
		echo "  $n x tapas.evaluate (baseline, datasets per target): $separate s"
		python3 -c "print('  ratio: %.1fx' % ($separate / max($shared, 0.001)))"
	done
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for gen in marginals raw; do
	compare closest_distance_mia $gen 500 100 100 1 2 3 4 5 6 7 8
done
compare groundhog raw 1000 300 100 1 2 3 4
