#!/usr/bin/env bash
# The dataset-only release audit end to end through SQL: tapas.release_risk
# of the 50,000-row census50k (the training table) against a 50,000-row
# synthetic table (25,000 copied census rows and 25,000 rows whose columns
# are independent permutations of the census columns, i.e. draws from the
# marginals) and a 10,000-row holdout drawn from the marginals, with the
# default parameters (1,000 targets per side, 1,000 predicates, 200
# bootstrap resamples, Hamming).  Prints the median of 3 calls and its
# ratio to the 10 s budget of issue 14, then the same for L2.
# Needs tapas installed (make install).  Usage: bash test/bench/b-release-risk-sql.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/bench/lib-sql.sh
data=${TAPAS_CENSUS:-../shared/data/census50k}
[ -r "$data.csv" ] || data=/work/shared/data/census50k
census_instance b-release-risk-sql "$data"
cols=$(python3 -c "import json;print(','.join('\"%s\"' % c['name'] for c in json.load(open('$data.json'))))")
# column j of row i of a marginal table: census row (i * prime_j + offset) mod n
perm=$(python3 -c "
import json
cs=[c['name'] for c in json.load(open('$data.json'))]
ps=[7919,104729,1299709,15485863,32452843,49979687,67867967,86028121,104395301,122949823,141650939,160481183,179424673,198491317,217645177,236887691,256203161,275604541,295075147,314606869]
print(', '.join('(a%d)[((i::bigint * %d + OFF) %% n) + 1] AS \"%s\"' % (j, ps[j], c) for j, c in enumerate(cs)))
")
aggs=$(python3 -c "
import json
cs=[c['name'] for c in json.load(open('$data.json'))]
print(', '.join('array_agg(\"%s\" ORDER BY id) AS a%d' % (c, j) for j, c in enumerate(cs)))
")
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE arrays AS SELECT count(*)::int AS n, $aggs FROM census;
CREATE TABLE syn AS
SELECT $cols FROM census ORDER BY md5(id::text) LIMIT 25000;
INSERT INTO syn SELECT ${perm//OFF/11} FROM arrays, generate_series(1, 25000) i;
CREATE TABLE holdout (id bigint PRIMARY KEY, LIKE syn);
INSERT INTO holdout SELECT i, ${perm//OFF/29} FROM arrays, generate_series(1, 10000) i;
VACUUM ANALYZE census, syn, holdout;
CREATE FUNCTION pg_temp.median_s(q text, reps int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; ts float8[] := '{}';
BEGIN
	FOR i IN 1..reps LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		ts := ts || extract(epoch FROM clock_timestamp() - t0);
	END LOOP;
	RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ts) x);
END \$\$;
SELECT risk, round(success_real::numeric, 3) AS real_rate, round(success_holdout::numeric, 3) AS holdout,
       round(baseline::numeric, 3) AS baseline, round(residual::numeric, 3) AS residual,
       round(residual_low::numeric, 3) AS low, round(residual_high::numeric, 3) AS high
  FROM tapas.release_risk('census', 'syn', 'holdout', '{"sensitive": "Sex"}');
\pset tuples_only on
\pset format unaligned
SELECT format('release_risk hamming, 50000-row training x 50000-row synthetic x 10000-row holdout, 17 columns: %s s (%sx within the 10 s budget)',
			  round(m::numeric, 2), round((10 / m)::numeric, 2))
  FROM pg_temp.median_s('SELECT count(*) FROM tapas.release_risk(''census'', ''syn'', ''holdout'', ''{"sensitive": "Sex"}'')', 3) m;
SELECT format('release_risk l2, same tables: %s s (%sx within the 10 s budget)',
			  round(m::numeric, 2), round((10 / m)::numeric, 2))
  FROM pg_temp.median_s('SELECT count(*) FROM tapas.release_risk(''census'', ''syn'', ''holdout'', ''{"sensitive": "Sex", "distance": "l2"}'')', 1) m;
SQL
