-- Query designs: sizes, membership and coverage of the hadamard, bch and
-- bernoulli designs, and every error of their constructors.
\set VERBOSITY terse

-- Hadamard: N = 2^ceil(log2 n) queries; k never adds a query (row 1 is the total)
SELECT n, tapas.design_size('hadamard', n) AS queries
  FROM unnest(ARRAY[1, 2, 3, 1000, 1024, 1025]::bigint[]) n;
-- BCH: s * ceil(log2(n + 1)) queries, plus one total query when k forces complements
SELECT n, s, tapas.design_size('bch', n, s) AS queries,
       tapas.design_size('bch', n, s, n / 2) AS queries_k_half
  FROM (VALUES (100000::bigint, 1), (100000, 5), (1000, 20), (1048575, 64)) v(n, s);
-- Bernoulli: ceil(2 s log2(n / s)) queries
SELECT tapas.design_size('bernoulli', 10000, 5), tapas.design_size('bernoulli', 1000000, 20);

-- design_info: number of queries, min and mean coverage
SELECT * FROM tapas.design_info('hadamard', 1024);
SELECT * FROM tapas.design_info('hadamard', 1000, 1, 500);
SELECT * FROM tapas.design_info('bch', 100000, 1);
SELECT * FROM tapas.design_info('bch', 100000, 1, 50000);
SELECT * FROM tapas.design_info('bernoulli', 10000, 5, 0, 42);

-- membership agrees with the coverage; every query covers at least k records
SELECT q, count(*) AS covered
  FROM generate_series(1, 100000) j, generate_series(1, 18) q
 WHERE tapas.design_member('bch', 100000, 1, q, j, 50000)
 GROUP BY q ORDER BY q;
-- Hadamard rows of n = 8, records 1..8: row 1 is everyone, the others half
SELECT q, string_agg(CASE WHEN tapas.design_member('hadamard', 8, 1, q, j) THEN '1' ELSE '0' END, '' ORDER BY j)
  FROM generate_series(1, 8) q, generate_series(1, 8) j GROUP BY q ORDER BY q;
-- the Bernoulli design depends on the seed, and only on it
SELECT count(*) FILTER (WHERE tapas.design_member('bernoulli', 1000, 2, 1, j, 0, 1)) AS seed1,
       count(*) FILTER (WHERE tapas.design_member('bernoulli', 1000, 2, 1, j, 0, 2)) AS seed2,
       count(*) FILTER (WHERE tapas.design_member('bernoulli', 1000, 2, 1, j, 0, 1)
                        <> tapas.design_member('bernoulli', 1000, 2, 1, j, 0, 2)) AS differ
  FROM generate_series(1, 1000) j;

-- records outside 1..n are in no query, and NULL gives NULL: never an error
SELECT tapas.design_member('bch', 100, 1, 1, 0), tapas.design_member('bch', 100, 1, 1, -5),
       tapas.design_member('bch', 100, 1, 1, 101), tapas.design_member('bch', 100, 1, 1, NULL),
       tapas.design_member('hadamard', 100, 1, 1, 9223372036854775807);
SELECT tapas.design_size(NULL, 10) IS NULL AS null_method;

-- the function properties the auditor relies on
SELECT proname, provolatile, proleakproof, proparallel, proisstrict
  FROM pg_proc WHERE pronamespace = 'tapas'::regnamespace
   AND proname IN ('design_size', 'design_member', 'design_info', 'reconstruct')
 ORDER BY proname;

-- errors: only the design arguments can raise
SELECT tapas.design_size('fourier', 10);
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.design_size('bch', 0);
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.design_size('hadamard', 16777217);
SELECT tapas.design_size('bch', 16777216);
SELECT tapas.design_size('bch', 100, 0);
SELECT tapas.design_size('bch', 100, 4097);
SELECT tapas.design_size('bch', 3, 2);
SELECT tapas.design_size('bch', 100, 1, -1);
SELECT tapas.design_size('bch', 100, 1, 101);
SELECT tapas.design_size('bch', 100000, 1, 90000);
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.design_member('bch', 100, 1, 0, 1);
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.design_member('bch', 100, 1, 8, 1);
SELECT tapas.design_member('hadamard', 100, 1, 129, 1);
SELECT * FROM tapas.design_info('bernoulli', 16777216, 100);
\echo :LAST_ERROR_SQLSTATE

-- long constructions honour cancellation (coverage of 200 x 24 rows over 2^24 records)
SET statement_timeout = '300ms';
SELECT * FROM tapas.design_info('bch', 16777215, 200);
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
