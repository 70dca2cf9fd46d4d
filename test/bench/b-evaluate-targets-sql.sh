#!/usr/bin/env bash
# Several targets sharing one set of datasets: tapas.evaluate_targets with
# 8 targets against 8 calls of tapas.evaluate (the baseline, each target
# with its own datasets), in the same run, on the census50k table: the
# closest-distance MIA, 500-record datasets, 100 training and 100 test
# datasets, with the built-in marginals and raw generators, end to end
# (each tapas.evaluate reads the 50,000-row table and generates its own
# datasets; evaluate_targets does both once).  Prints both wall times and
# their ratio.  Needs tapas installed (make
# install).  Usage: bash test/bench/b-evaluate-targets-sql.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/bench/lib-sql.sh
PGBIN=${TAPAS_PGBIN:-$PGBIN}
data=${TAPAS_CENSUS:-../shared/data/census50k}
census_instance b-evaluate-targets-sql "$data"
keys="ARRAY['1', '2', '3', '4', '5', '6', '7', '8']"
for gen in marginals raw; do
	params="{\"num_training_records\": 500, \"num_training_datasets\": 100, \"num_test_datasets\": 100, \"generator\": \"$gen\", \"bootstrap\": 0}"
	psql -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 <<SQL | while read -r shared separate; do
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
SELECT count(*) FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'census', $keys, '$params') \g /dev/null
CREATE TEMP TABLE t1 AS SELECT clock_timestamp() AS t;
SELECT count(*) FROM unnest($keys) k, tapas.evaluate('targeted_mia', 'closest_distance_mia', 'census', k, '$params') \g /dev/null
CREATE TEMP TABLE t2 AS SELECT clock_timestamp() AS t;
SELECT round(extract(epoch FROM t1.t - t0.t)::numeric, 2), round(extract(epoch FROM t2.t - t1.t)::numeric, 2)
  FROM t0, t1, t2;
SQL
		echo "8 targets, generator $gen (100 + 100 datasets of 500 records, closest distance):"
		echo "  tapas.evaluate_targets (one set of datasets): $shared s"
		echo "  8 x tapas.evaluate (baseline, datasets per target): $separate s"
		python3 -c "print('  ratio: %.1fx' % ($separate / max($shared, 0.001)))"
	done
done
