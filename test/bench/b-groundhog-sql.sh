#!/usr/bin/env bash
# The census Groundhog benchmark through SQL on a real instance: loads
# census50k into a table (id = 0-based line number, as the reference's
# record numbers), then runs tapas.evaluate with the reference example's
# settings (target record 1, 5,000-record datasets, raw generator, 1,000
# training and 100 test datasets) and prints wall time, accuracy, AUC and
# the speed ratio against the reference's 191 s measured on this machine.
# Needs tapas installed (make install).  Usage: bash test/bench/b-groundhog-sql.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/bench/lib-sql.sh
PGBIN=${TAPAS_PGBIN:-$PGBIN}	# another installation (e.g. a relocated copy)
data=${TAPAS_CENSUS:-../shared/data/census50k}
census_instance b-groundhog-sql "$data" "(MINVALUE 0 START 0)"
for attack in groundhog queries; do
	if [ $attack = groundhog ]; then
		call="'groundhog'"; extra=""
	else
		call="'shadow_modelling'"
		extra=', "features": ["queries"], "order": [1, 2, 3], "number": [20, 500, 500]'
	fi
	psql -X -A -t -F ' ' -v ON_ERROR_STOP=1 <<SQL | while read -r acc auc secs nf; do
SELECT round(accuracy::numeric, 3), round(auc::numeric, 3), round(seconds::numeric, 2), n_features
  FROM tapas.evaluate('targeted_mia', $call, 'census', '1',
       '{"num_training_records": 5000, "num_synthetic_records": 5000,
         "num_training_datasets": 1000, "num_test_datasets": 100, "seed": 0$extra}');
SQL
		echo "census $attack through SQL (1000 x 100 datasets of 5000, raw): $nf features"
		echo "  tapas.evaluate wall time $secs s, accuracy $acc, AUC $auc"
		if [ $attack = groundhog ]; then
			echo "  reference (TAPAS, same machine): 191 s, accuracy 0.54, AUC 0.573"
			python3 -c "print('  speed ratio vs reference: %.1fx' % (191.0 / $secs))"
		fi
	done
done
