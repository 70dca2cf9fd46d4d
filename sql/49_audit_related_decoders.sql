-- Related classes feed the candidates test and the decoders
-- (src/audit/combined.c, issue 11 item 1).  A Bernoulli(1/2) design over
-- n = 2,000 records with 40 positives, each design row Q_q asked as the
-- parts of a split that changes from row to row: count(*) FILTER (WHERE
-- pos AND income > t_q) and count(*) FILTER (WHERE pos AND NOT income >
-- t_q) over Q_q, 32 thresholds t_q.  The attacker adds the parts: one row
-- of pos per design row, and its own BHTP decodes the 40 positives from
-- 220 of them.  No class has more than a few rows of its own (64 classes,
-- one related group), so on main before this change deny mode answered
-- all 300 design rows (600 queries) and only the row-space test, which
-- needs about n rows, combined them.  Now the rows that identical covers
-- give the group's base (pos) are one 0/1 system for the decoders:
-- refused long before the attacker's need.  Variants: a three-way split,
-- sum(pos::int) FILTER, a split on another sensitive column, halves mixed
-- with whole rows, and log mode (the decoders on the true combined
-- answers alert).
SET tapas.audit_scope = role;
-- the decoders on groups of up to 96 classes of one role, not the quota
-- of classes per role (sql/49_audit_domain section 6)
SET tapas.audit_classes_per_role = 0;
SET client_min_messages = warning;
-- one table per variant (a backend keeps a table's classes after
-- tapas.reset, and the variants' classes together would be one group of
-- more than 256 classes: TP003)
CREATE FUNCTION rdec_mk(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, pos boolean NOT NULL, income int NOT NULL,
										dx int NOT NULL)', tbl);
	-- positives 17, 67, ..., 1967, incomes 1050, 1150, ..., 4950 (one
	-- between two thresholds: every split is its own class)
	EXECUTE format('INSERT INTO %I SELECT g, g %% 50 = 17,
						   CASE WHEN g %% 50 = 17 THEN 1050 + 100 * (g / 50) ELSE 1000 + (g * 37) %% 5000 END,
						   (g * 7) %% 5
					  FROM generate_series(1, 2000) g', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['pos', 'income', 'dx'], 900);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
CREATE TABLE rdec_answers (v text, q int, part int, a numeric, outcome text);
GRANT ALL ON rdec_answers TO PUBLIC;
-- design row q asked as the parts (%1$s: q, %2$s: the row's threshold,
-- %3$s: q % 5), each its own statement, until the first refusal
CREATE FUNCTION rdec_attack(v text, m int, agg text, parts text[]) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE a numeric;
	t int;
BEGIN
	FOR q IN 1..m LOOP
		-- 32 thresholds; 70 for the variant of more than 64 regions
		t := CASE WHEN v = 'wide' THEN 1030 + 55 * (q % 70) ELSE 1525 + 100 * (q % 32) END;
		FOR p IN 1..array_length(parts, 1) LOOP
			CONTINUE WHEN parts[p] IS NULL OR (parts[p] LIKE 'even:%' AND q % 2 = 1)
				OR (parts[p] LIKE 'odd:%' AND q % 2 = 0);
			BEGIN
				EXECUTE format('SELECT ' || agg || ' FROM rdec_' || v || ' WHERE tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)',
							   format(regexp_replace(parts[p], '^(even|odd):', ''), q, t, q % 5), q) INTO a;
				INSERT INTO rdec_answers VALUES (v, q, p, a, 'answered');
			EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
				INSERT INTO rdec_answers VALUES (v, q, p, NULL, SQLSTATE);
				RETURN q;
			END;
		END LOOP;
	END LOOP;
	RETURN NULL;
END $$;
-- the attacker's BHTP on the summed parts of the first m design rows:
-- does it return exactly the positives?
CREATE FUNCTION rdec_decodes(v text, m int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT array_agg(r.record ORDER BY r.record) FROM tapas.reconstruct_matrix(
			 format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, 2000) id
					  WHERE tapas.design_member(''bernoulli'', 2000, 10, q, id, 0, 42)', m),
			 (SELECT array_agg(a ORDER BY q) FROM (SELECT q, sum(a) AS a FROM rdec_answers
					WHERE rdec_answers.v = rdec_decodes.v AND q <= m GROUP BY q) x), 'bhtp', 40) r)
		   = (SELECT array_agg(g::bigint ORDER BY g) FROM generate_series(17, 2000, 50) g);
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
CREATE FUNCTION rdec_run(v text, m int, agg text, parts text[]) RETURNS TABLE (
	first_refused int, outcome text, before_the_attackers_need boolean, method text)
LANGUAGE plpgsql AS $$
DECLARE r int;
	a0 bigint;
BEGIN
	SELECT coalesce(max(alert_id), 0) INTO a0 FROM tapas.alerts;
	IF to_regclass('rdec_' || v) IS NULL THEN
		PERFORM rdec_mk('rdec_' || v);
	END IF;
	EXECUTE 'SET SESSION AUTHORIZATION regress_tapas_analyst';
	r := rdec_attack(v, m, agg, parts);
	RESET SESSION AUTHORIZATION;
	RETURN QUERY SELECT r, (SELECT min(x.outcome) FROM rdec_answers x WHERE x.v = rdec_run.v AND x.q = r
							 AND x.outcome <> 'answered'),
		   r < 220,
		   (SELECT string_agg(DISTINCT CASE WHEN al.statistic LIKE 'count(*) combined %' THEN 'combined: ' ELSE '' END
								|| al.method, ', ')
			  FROM tapas.alerts al WHERE al.alert_id > a0 AND al."table" = ('rdec_' || v)::regclass);
END $$;
RESET client_min_messages;
-- the one-positive candidates test steps back to its floor, so that the
-- decoders decide; time enough for every check
SET tapas.min_candidates = 2;
SET tapas.audit_budget_ms = 600000;

-- 1. Log mode: every part answered; the decoders on the combined answers
-- alert no later than the attacker's BHTP, which recovers all 40
-- positives from the 220 summed rows (so a deny run must refuse before
-- design row 220)
SET tapas.mode = log;
SELECT * FROM rdec_run('log', 230, 'count(*) FILTER (WHERE %s)',
					   ARRAY['pos AND income > %2$s', 'pos AND NOT income > %2$s']);
SELECT count(*) FILTER (WHERE outcome = 'answered') AS answered FROM rdec_answers WHERE v = 'log';
SELECT rdec_decodes('log', 220) AS attacker_decodes_220_rows;
SELECT count(DISTINCT record_key) AS positives_alerted
  FROM tapas.alert_records WHERE "table" = 'rdec_log'::regclass AND statistic LIKE 'count(*) combined %';
-- the design row of the first alert (its newest cell's query)
SELECT min((regexp_match(l.query, 'bernoulli'', 2000, 10, (\d+)'))[1]::int) <= 220 AS alerted_by_row_220
  FROM tapas.alerts a JOIN tapas.query_log l ON l.log_id = (SELECT max(x) FROM unnest(a.log_ids) x)
 WHERE a."table" = 'rdec_log'::regclass;

-- 2. Deny mode: the same attack is refused (TP001) before the attacker's
-- need, by a decoder on the combined rows; the answered prefix does not
-- decode
SET tapas.mode = deny;
SELECT * FROM rdec_run('halves', 300, 'count(*) FILTER (WHERE %s)',
					   ARRAY['pos AND income > %2$s', 'pos AND NOT income > %2$s']);
SELECT rdec_decodes('halves', (SELECT max(q) - 1 FROM rdec_answers WHERE v = 'halves')) AS attacker_decodes_answered;

-- 3. Three-way splits (96 classes in one group: before region sets,
-- recon/regset.h, more than 64 members had no coordinates, and the
-- attack was refused TP004, audit incomplete; then the combined rows'
-- BHTP refused at row 133; now a part's candidates, narrowed by the rows
-- answered 1 of the parts that imply it, refuse first: implied.c)
SELECT * FROM rdec_run('three', 300, 'count(*) FILTER (WHERE %s)',
					   ARRAY['pos AND income <= %2$s - 400', 'pos AND income > %2$s - 400 AND income <= %2$s',
							 'pos AND income > %2$s']);
-- 4. sum(pos::int) FILTER: the same classes, another spelling
SELECT * FROM rdec_run('sum', 300, 'sum(pos::int) FILTER (WHERE %s)',
					   ARRAY['income > %2$s', 'NOT income > %2$s']);
-- 5. A split on another sensitive column (dx), changing with the row
SELECT * FROM rdec_run('dx', 300, 'count(*) FILTER (WHERE %s)',
					   ARRAY['pos AND dx = %3$s', 'pos AND dx <> %3$s']);
-- 6. Halves on odd rows, the whole (pos) on even rows: the sum class's
-- cells and the generators' cells together
SELECT * FROM rdec_run('mixed', 300, 'count(*) FILTER (WHERE %s)',
					   ARRAY['odd:pos AND income > %2$s', 'odd:pos AND NOT income > %2$s', 'even:pos']);
-- 7. More than 64 regions: 70 thresholds, 140 classes in one group of
-- 71 regions (the income intervals of the positives).  Before region sets
-- (recon/regset.h) such a group had no coordinates and every statement
-- over it was refused TP004 (audit incomplete).  Benign first: each
-- threshold's halves over everyone, in one statement, all answered; then
-- the design attack over the same group, refused TP001 before the
-- attacker's need
SELECT rdec_mk('rdec_wide');
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE a numeric;
	b numeric;
BEGIN
	FOR k IN 0..69 LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos AND income > %1$s),
								   count(*) FILTER (WHERE pos AND NOT income > %1$s) FROM rdec_wide',
						   1030 + 55 * k) INTO a, b;
			INSERT INTO rdec_answers VALUES ('wide_benign', k, 1, a + b, 'answered');
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO rdec_answers VALUES ('wide_benign', k, 1, NULL, SQLSTATE);
		END;
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT outcome, count(*), min(a), max(a) FROM rdec_answers WHERE v = 'wide_benign' GROUP BY 1;
SELECT count(*) AS incomplete_alerts FROM tapas.alerts
 WHERE "table" = 'rdec_wide'::regclass AND kind = 'incomplete';
SELECT * FROM rdec_run('wide', 300, 'count(*) FILTER (WHERE %s)',
					   ARRAY['pos AND income > %2$s', 'pos AND NOT income > %2$s']);
SELECT count(*) AS incomplete_alerts FROM tapas.alerts
 WHERE "table" = 'rdec_wide'::regclass AND kind = 'incomplete';
RESET tapas.mode;
RESET tapas.min_candidates;
RESET tapas.audit_budget_ms;
RESET tapas.audit_classes_per_role;
\i sql/fixtures/release_ledger.sql
