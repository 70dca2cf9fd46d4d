-- Kernel statuses reach SQL through one mapper (src/policy/status_error.c,
-- table in src/util/status.c): a status has the same SQLSTATE whichever
-- function's kernel returned it.  Each call below passes the wrapper's own
-- argument checks and fails in the kernel.
\set VERBOSITY terse

-- TAPAS_EINVAL -> 22023 (invalid_parameter_value)
SELECT tapas.design_size('bch', 100, 4097);
\echo :LAST_ERROR_SQLSTATE

-- TAPAS_EDECODE and TAPAS_EINCONSISTENT -> 22000 (data_exception)
SELECT * FROM tapas.reconstruct('bch', 10, ARRAY[0, 0, 0, 0, 2]::numeric[], 1, 5);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.reconstruct('hadamard', 4, ARRAY[1, 0, 0, 0]::numeric[]);
\echo :LAST_ERROR_SQLSTATE

-- TAPAS_ELIMIT -> 54000 (program_limit_exceeded)
SELECT * FROM tapas.design_info('bernoulli', 16777216, 100);
\echo :LAST_ERROR_SQLSTATE
