-- tapas.reconstruct: every input error, with its SQLSTATE.
\set VERBOSITY terse
-- wrong number of answers
SELECT * FROM tapas.reconstruct('bch', 100000, ARRAY[0, 1, 0]::numeric[]);
\echo :LAST_ERROR_SQLSTATE
-- NULL element, NULL arguments
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[1, NULL, 0, 0]::numeric[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.reconstruct('hadamard', 4, NULL);
SELECT * FROM tapas.reconstruct(NULL, 4, ARRAY[1, 0, 0, 0]::numeric[]);
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[1, 0, 0, 0]::numeric[], noise => NULL);
-- non-integer exact answers, negative counts, two dimensions
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[1, 0.5, 0, 0]::numeric[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.reconstruct('bch', 15, ARRAY[0, -1, 0, 0]::numeric[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[[1, 0], [0, 0]]::numeric[]);
-- NaN answers, negative noise, noise with bch
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[1, 'NaN', 0, 0]::numeric[], noise => 1);
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[1, 0, 0, 0]::numeric[], noise => -1);
SELECT * FROM tapas.reconstruct('bch', 15, ARRAY[0, 1, 0, 0]::numeric[], noise => 1);
-- bad design arguments
SELECT * FROM tapas.reconstruct('bch', 0, ARRAY[]::numeric[]);
SELECT * FROM tapas.reconstruct('fourier', 4, ARRAY[1, 0, 0, 0]::numeric[]);
-- k = 5 of n = 10 complements queries 1 and 4 and adds the total query 5
SELECT * FROM tapas.design_info('bch', 10, 1, 5);
-- a complemented query counting more than the total is inconsistent
SELECT * FROM tapas.reconstruct('bch', 10, ARRAY[1, 0, 0, 0, 0]::numeric[], 1, 5);
\echo :LAST_ERROR_SQLSTATE
-- a total above s cannot be decoded
SELECT * FROM tapas.reconstruct('bch', 10, ARRAY[0, 0, 0, 0, 2]::numeric[], 1, 5);
\echo :LAST_ERROR_SQLSTATE
-- record 1 (alpha^1 = 0010) through the complements: queries 1, 2, 4 and the total
SELECT * FROM tapas.reconstruct('bch', 10, ARRAY[1, 1, 0, 1, 1]::numeric[], 1, 5);
-- answers that decode: record 1 of 15 (alpha^1 = 0010: only query 2 counts it)
SELECT * FROM tapas.reconstruct('bch', 15, ARRAY[0, 1, 0, 0]::numeric[]);
-- large exact answers stay exact
SELECT * FROM tapas.reconstruct('hadamard', 2, ARRAY[3000000000000, 1000000000000]::numeric[]);
