#!/usr/bin/env bash
# Closest-distance MIA through SQL on a real instance: tapas.mia_scores of
# one target (and of 1,000 targets) against a 5,000-row synthetic table of
# census50k, end to end (reading and encoding both tables, building the
# category dictionaries, scoring).  Prints the median of 20 calls and the
# ratio to the reference toolbox's 6.6 ms, which covers the scoring of an
# already-loaded dataset only (the kernel figure is in b-closest_distance).
# Needs tapas installed (make install).  Usage: bash test/bench/b-attacks-score-sql.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
source test/bench/lib-sql.sh
data=${TAPAS_CENSUS:-../shared/data/census50k}
[ -r "$data.csv" ] || data=/work/shared/data/census50k
census_instance b-attacks-score-sql "$data"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
-- a seeded sample of 5,000 rows as the synthetic table, targets outside it
CREATE TABLE syn AS SELECT * FROM census ORDER BY md5(id::text) LIMIT 5000;
CREATE TABLE tgt1 AS SELECT * FROM census WHERE id NOT IN (SELECT id FROM syn) ORDER BY id LIMIT 1;
CREATE TABLE tgt1000 AS SELECT * FROM census WHERE id NOT IN (SELECT id FROM syn) ORDER BY id LIMIT 1000;
ALTER TABLE syn DROP COLUMN id;
ALTER TABLE tgt1 ADD PRIMARY KEY (id);
ALTER TABLE tgt1000 ADD PRIMARY KEY (id);
VACUUM ANALYZE syn, tgt1, tgt1000;
CREATE FUNCTION pg_temp.median_ms(q text, reps int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; ts float8[] := '{}';
BEGIN
	FOR i IN 1..reps LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		ts := ts || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ts) x);
END \$\$;
\pset tuples_only on
\pset format unaligned
SELECT format('mia_scores closest_distance_mia hamming, 5000 x 17 synthetic table, 1 target:    %s ms (%sx the reference''s 6.6 ms kernel-only figure)',
			  round(m::numeric, 2), round((6.6 / m)::numeric, 2))
  FROM pg_temp.median_ms('SELECT count(*) FROM tapas.mia_scores(''closest_distance_mia'', ''syn'', ''tgt1'')', 20) m;
SELECT format('mia_scores closest_distance_mia hamming, 5000 x 17 synthetic table, 1000 targets: %s ms (%s ms per target; reference 6.6 ms per target)',
			  round(m::numeric, 2), round((m / 1000)::numeric, 3))
  FROM pg_temp.median_ms('SELECT count(*) FROM tapas.mia_scores(''closest_distance_mia'', ''syn'', ''tgt1000'')', 5) m;
SELECT format('mia_scores closest_distance_mia l2, 1000 targets:                                %s ms (reference L2: 27 ms per target)',
			  round(m::numeric, 2))
  FROM pg_temp.median_ms('SELECT count(*) FROM tapas.mia_scores(''closest_distance_mia'', ''syn'', ''tgt1000'', ''{"distance": "l2"}'')', 5) m;
SQL
