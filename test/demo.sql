-- tapas demo: grows with every feature; run by test/demo.
\pset footer off
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS tapas CASCADE;
CREATE EXTENSION tapas;
RESET client_min_messages;
\echo '== tapas is preloaded; the audit mode is locked for analysts'
SHOW shared_preload_libraries;
SHOW tapas.mode;
