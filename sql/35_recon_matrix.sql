-- tapas.reconstruct_matrix on small matrices: every method, every error.
\set VERBOSITY terse

-- Difference attack: {1,2,3} and {1,2,3,4}; the answers determine record 4 only.
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,1,1,0],[1,1,1,1]], ARRAY[2,3], 'exact');

-- A full-rank system with non-binary values.
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,1,0],[1,0,0],[0,1,1]], ARRAY[5,2,7], 'exact')
 ORDER BY record;

-- Group testing on 8 records with 4 queries: record 6 (weight 1) is unique.
SELECT * FROM tapas.reconstruct_matrix(
	ARRAY[[1,0,1,0,1,0,1,0],[0,1,1,0,0,1,1,0],[0,0,0,1,1,1,1,0],[1,1,1,1,1,1,1,1]],
	ARRAY[0,1,1,1], 'sparse', 1);
-- The total (last query) fixes the weight at 1, so s = 2 changes nothing.
SELECT * FROM tapas.reconstruct_matrix(
	ARRAY[[1,0,1,0,1,0,1,0],[0,1,1,0,0,1,1,0],[0,0,0,1,1,1,1,0],[1,1,1,1,1,1,1,1]],
	ARRAY[0,1,1,1], 'sparse', 2);
-- Without the total, {6}, {2, 4} and {6, 8} all fit: an error naming how many.
SELECT * FROM tapas.reconstruct_matrix(
	ARRAY[[1,0,1,0,1,0,1,0],[0,1,1,0,0,1,1,0],[0,0,0,1,1,1,1,0]],
	ARRAY[0,1,1], 'sparse', 2);
\set VERBOSITY default
SELECT * FROM tapas.reconstruct_matrix(
	ARRAY[[1,0,1,0,1,0,1,0],[0,1,1,0,0,1,1,0],[0,0,0,1,1,1,1,0]],
	ARRAY[0,1,1], 'sparse', 2);
\set VERBOSITY terse
-- Answers no weight-1 vector can give.
SELECT * FROM tapas.reconstruct_matrix(
	ARRAY[[1,0,1,0,1,0,1,0],[0,1,1,0,0,1,1,0],[0,0,0,1,1,1,1,0],[1,1,1,1,1,1,1,1]],
	ARRAY[0,2,1,1], 'sparse', 1);

-- A 24 x 40 random-looking 0/1 design with records 5 and 19 positive.
CREATE TEMP TABLE design AS
SELECT q, r, ((hashint8(q * 1000003 + r) & 1) = 1) AS member
  FROM generate_series(1, 24) q, generate_series(1, 40) r;
CREATE TEMP TABLE design_rows AS
SELECT array_agg(row ORDER BY q) AS rows FROM (
	SELECT q, array_agg(member::int::bigint ORDER BY r) AS row FROM design GROUP BY q) t;
CREATE TEMP TABLE design_answers AS
SELECT array_agg(cnt ORDER BY q) AS answers FROM (
	SELECT q, count(*) FILTER (WHERE member AND r IN (5, 19))::numeric AS cnt
	  FROM design GROUP BY q) t;
SELECT m.method, array_agg(record ORDER BY record) AS records, array_agg(value ORDER BY record) AS vals
  FROM (VALUES ('omp'), ('nnls'), ('lp'), ('sparse')) m(method),
	   LATERAL tapas.reconstruct_matrix((SELECT rows FROM design_rows),
										(SELECT answers FROM design_answers), m.method, 2)
 GROUP BY m.method ORDER BY m.method;
-- The query form, with arbitrary record ids (r * 100).
SELECT * FROM tapas.reconstruct_matrix(
	'SELECT q, r * 100 FROM design WHERE member',
	(SELECT answers FROM design_answers), 'sparse', 2);
SELECT * FROM tapas.reconstruct_matrix(
	'SELECT q, r * 100 FROM design WHERE member',
	(SELECT answers FROM design_answers), 'omp', 2);
-- An answer off by one is detected by every method.
SELECT * FROM tapas.reconstruct_matrix((SELECT rows FROM design_rows),
	(SELECT answers[1:2] || (answers[3] + 1) || answers[4:] FROM design_answers), 'omp', 2);
SELECT * FROM tapas.reconstruct_matrix((SELECT rows FROM design_rows),
	(SELECT answers[1:2] || (answers[3] + 1) || answers[4:] FROM design_answers), 'lp', 2);
SELECT * FROM tapas.reconstruct_matrix((SELECT rows FROM design_rows),
	(SELECT answers[1:2] || (answers[3] + 1) || answers[4:] FROM design_answers), 'nnls', 2);
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,1],[1,0],[0,1]], ARRAY[3,1,1], 'exact');

-- Errors.
SELECT * FROM tapas.reconstruct_matrix(ARRAY[1,0,1], ARRAY[1], 'omp');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1], 'omp');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,2]], ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,NULL]], ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,NULL], 'omp');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1], 'magic');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1], 'omp', 0);
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1], 'sparse', 4);
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1], 'omp', 1, -1);
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1], 'omp', 1, 'NaN');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1.5], 'exact');
SELECT * FROM tapas.reconstruct_matrix(ARRAY[[1,0],[1,1]], ARRAY[1,1], NULL);
SELECT * FROM tapas.reconstruct_matrix(NULL::bigint[], ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix('SELECT 1, 2, 3', ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix('SELECT 1, ''x''', ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix('SELECT 3, 7', ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix('SELECT 1, NULL::int', ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix('SELECT 1, 1 WHERE false', ARRAY[1,1], 'omp');
SELECT * FROM tapas.reconstruct_matrix('SELECT 1, 1', ARRAY[]::numeric[], 'omp');
SELECT * FROM tapas.reconstruct_matrix('DELETE FROM design', ARRAY[1], 'omp');
\echo :LAST_ERROR_SQLSTATE
