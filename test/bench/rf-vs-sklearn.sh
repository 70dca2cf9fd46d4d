#!/usr/bin/env bash
# Checks that the CART random forest of src/attacks/random_forest.c matches
# scikit-learn's RandomForestClassifier (the reference toolbox's classifier)
# within sampling noise, on the very feature vectors of the census
# Groundhog benchmark: for each threat-model seed, b-groundhog dumps the
# 1,100 feature vectors (6,099 features) and prints tapas's accuracy/AUC;
# sklearn (n_estimators=100, 3 random states) is trained on the same 1,000
# training vectors and scored on the same 100 test vectors.
# Needs /usr/bin/python3 with sklearn (Debian: apt-get install python3-sklearn).
# Usage: bash test/bench/rf-vs-sklearn.sh [seeds...]   (default 0 1 2)
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! /usr/bin/python3 -c "import sklearn" 2>/dev/null; then
	echo "rf-vs-sklearn: python3-sklearn is not installed, skipped"
	exit 0
fi
make -s test/build/bench/b-groundhog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in "${@:-0 1 2}"; do
	for seed in $s; do
		line=$(BENCH_SEED=$seed BENCH_DUMP=$tmp/F$seed.bin ./test/build/bench/b-groundhog | sed -n 2p)
		echo "seed $seed tapas:  $line"
		/usr/bin/python3 - "$tmp/F$seed.bin" <<'PY'
import sys
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
a = np.fromfile(sys.argv[1])
a = a.reshape(1100, a.size // 1100)
X, y = a[:, :-1], a[:, -1]
for rs in range(3):
    p = RandomForestClassifier(n_estimators=100, random_state=rs).fit(X[:1000], y[:1000]).predict_proba(X[1000:])[:, 1]
    print("       sklearn (random_state %d): accuracy %.3f, AUC %.3f"
          % (rs, ((p > 0.5) == (y[1000:] == 1)).mean(), roc_auc_score(y[1000:], p)))
PY
	done
done
