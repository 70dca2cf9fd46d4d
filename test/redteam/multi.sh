#!/usr/bin/env bash
# multi.sh: multi-query attacks of issue 11: prints whether the final query was answered; in deny
# mode an answer is a leak, in log or warn mode (MODE) an answer without a new alert is
set -u
cd "$(dirname "$0")"
mode=${MODE:-deny}
last_alert() { psql -X -qAt -d rt -c "SELECT coalesce(max(alert_id), 0) FROM tapas.alerts" 2>/dev/null; }
# verdict OUTPUT ALERT_BEFORE: refused STATE, answered + alert, or a leak
verdict() {
	if echo "$1" | grep -q ERROR; then
		echo "refused $(echo "$1" | grep -oE 'ERROR:  [0-9A-Z]{5}' | head -1 | cut -c9-)"
	elif [ "$mode" != deny ] && [ "$(last_alert)" -gt "$2" ]; then
		echo "answered, alert $(psql -X -qAt -d rt -c "SELECT string_agg(DISTINCT kind, ',') FROM tapas.alerts WHERE alert_id > $2")"
	else
		echo "answered  <== LEAK"
	fi
}
q() { psql -X -qAt -d rt -U "${2:-rt_analyst}" -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$1" 2>&1; }
reset() { psql -X -qAt -d rt -c "SELECT tapas.reset('pt')" >/dev/null 2>&1; }
attack() {	# attack NAME Q1 Q2 [ROLE2]: Q1 then Q2; Q2 answered = leak (the difference isolates id 77)
	reset
	local before=$(last_alert)
	a=$(q "$2"); b=$(q "$3" "${4:-rt_analyst}")
	v=$(verdict "$b" "$before")
	printf '%-28s %s\n' "$1" "$v"
}
attack "difference same text" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "difference 2 spellings" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT sum(CASE WHEN rare THEN 1 ELSE 0 END) FROM pt WHERE age <> 91"
attack "difference sum(rare::int)" "SELECT sum(rare::int) FROM pt" "SELECT count(*) FROM pt WHERE rare AND age <> 91"
attack "difference IS TRUE" "SELECT count(*) FROM pt WHERE rare IS TRUE" "SELECT count(*) FILTER (WHERE rare = true) FROM pt WHERE age <> 91"
attack "difference income sum" "SELECT sum(income) FROM pt" "SELECT sum(income) FROM pt WHERE age <> 91"
attack "difference income spell" "SELECT sum(income) FROM pt" "SELECT sum(coalesce(income, 0)) FROM pt WHERE age <> 91"
attack "difference avg" "SELECT avg(income), count(income) FROM pt" "SELECT sum(income) FROM pt WHERE age < 91"
attack "collusion 2 roles" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91" rt_analyst2
attack3() {	# attack3 NAME Q0 Q1 Q2: Q0, Q1 answered, then Q2; Q2 answered = leak
	reset
	local before=$(last_alert)
	q "$2" >/dev/null; a=$(q "$3"); b=$(q "$4")
	v=$(verdict "$b" "$before")
	printf '%-28s %s\n' "$1" "$v"
}
# rare over everyone minus (rare AND hi) and (rare AND NOT hi) over everyone but 91 = rare of the 91-year-old
attack3 "complement filters" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM pt WHERE age <> 91" "SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM pt WHERE age <> 91"
attack3 "complement sums" "SELECT sum(income) FROM pt" "SELECT sum(income) FILTER (WHERE rare) FROM pt WHERE age <> 91" "SELECT sum(income) FILTER (WHERE NOT rare) FROM pt WHERE age <> 91"
attack3 "scaled class" "SELECT sum(rare::int::numeric * 2) FROM pt" "SELECT 1" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
# session 4: more spellings of the difference
attack "groups sum to the rest" "SELECT sum(income) FROM pt" "SELECT sex, sum(income) FROM pt WHERE age <> 91 GROUP BY sex"
attack "rollup" "SELECT sum(income) FROM pt" "SELECT zip, sum(income) FROM pt WHERE age <> 91 GROUP BY ROLLUP (zip)"
attack "stddev difference" "SELECT stddev(income) FROM pt" "SELECT stddev(income) FROM pt WHERE age <> 91"
attack "arithmetic spelling" "SELECT sum(income) FROM pt" "SELECT sum(income) FROM pt WHERE age + 0 <> 91"
attack "sub-query" "SELECT sum(income) FROM pt" "SELECT s FROM (SELECT sum(income) AS s FROM pt WHERE age <> 91) x"
attack "CTE" "SELECT sum(income) FROM pt" "WITH c AS (SELECT sum(income) AS s FROM pt WHERE age <> 91) SELECT s FROM c"
attack "HAVING hides nothing" "SELECT sum(income) FROM pt" "SELECT sex, sum(income) FROM pt WHERE age <> 91 GROUP BY sex HAVING sum(income) > 0"
attack "tracker on zip" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE zip = 7" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE zip = 7 AND age <> 91"
attack "avg and count" "SELECT avg(income) FROM pt" "SELECT sum(income) FROM pt WHERE age <> 91"
attack "count(x) with nulls" "SELECT count(diagnosis) FILTER (WHERE diagnosis = 'hiv') FROM pt" "SELECT count(*) FROM pt WHERE diagnosis = 'hiv' AND age <> 91"
attack "IN-list spelling" "SELECT count(*) FILTER (WHERE diagnosis IN ('hiv')) FROM pt" "SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt WHERE age <> 91"
attack "prepared" "SELECT sum(income) FROM pt" "PREPARE p(int) AS SELECT sum(income) FROM pt WHERE age <> \$1; EXECUTE p(91)"

# issue 12: partitions, uuid and composite keys (the difference isolates id 77)
reset() { psql -X -qAt -d rt -c "SELECT tapas.reset(t) FROM unnest(ARRAY['pt', 'ppt', 'upt', 'cpt']::regclass[]) t" >/dev/null 2>&1; }
attack "partition vs parent" "SELECT count(*) FILTER (WHERE rare) FROM ppt_1" "SELECT count(*) FILTER (WHERE rare) FROM ppt WHERE id <= 200 AND age <> 91"
attack "partition vs partition" "SELECT sum(income) FROM ppt_1" "SELECT sum(income) FROM ppt_1 WHERE age <> 91"
attack "parent vs partitions" "SELECT sum(income) FROM ppt" "SELECT (SELECT sum(income) FROM ppt_1 WHERE age <> 91) + (SELECT sum(income) FROM ppt_2)"
attack "partition, pruned parent" "SELECT count(*) FILTER (WHERE rare) FROM ppt WHERE id < 150" "SELECT count(*) FILTER (WHERE rare) FROM ppt_1 WHERE id < 150 AND id <> 77"
attack "uuid key" "SELECT count(*) FILTER (WHERE rare) FROM upt" "SELECT count(*) FILTER (WHERE rare) FROM upt WHERE uid <> md5('p77')::uuid"
attack "uuid key, quasi-id" "SELECT sum(income) FROM upt" "SELECT sum(income) FROM upt WHERE age <> 91"
attack "composite key" "SELECT count(*) FILTER (WHERE rare) FROM cpt" "SELECT count(*) FILTER (WHERE rare) FROM cpt WHERE (z, name) <> (7, 'p77')"
attack "composite, one column" "SELECT sum(income) FROM cpt WHERE z = 7" "SELECT sum(income) FROM cpt WHERE z = 7 AND name <> 'p77'"
reset
# more relations between classes (issue 11 item 1), each over separate connections
attack3 "complement filters, sum" "SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM pt" "SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack3 "income split, avg" "SELECT avg(income) FILTER (WHERE rare) FROM pt" "SELECT avg(income) FILTER (WHERE NOT rare) FROM pt" "SELECT avg(income) FROM pt WHERE age <> 91"
attack3 "split in three" "SELECT count(*) FILTER (WHERE rare AND income < 2000) FROM pt" "SELECT count(*) FILTER (WHERE rare AND income >= 2000) FROM pt WHERE age <> 91" "SELECT count(*) FILTER (WHERE rare) FROM pt"
reset
# session 5: complements with the public count (count(*) over the same rows is known):
# NOT rare over everyone, rare over everyone but the target, and other spellings
attack "complement, public base" "SELECT count(*) FILTER (WHERE NOT rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "complement, reversed" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE NOT rare) FROM pt WHERE age <> 91"
attack "complement, CASE 0 1" "SELECT sum(CASE WHEN rare THEN 0 ELSE 1 END) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "complement, IS NOT TRUE" "SELECT count(*) FILTER (WHERE rare IS NOT TRUE) FROM pt WHERE age <> 91" "SELECT count(*) FILTER (WHERE rare) FROM pt"
attack "complement, difference" "SELECT count(*) - count(*) FILTER (WHERE rare) FROM pt" "SELECT sum(rare::int) FROM pt WHERE age <> 91"
attack "complement, group false" "SELECT rare, count(*) FROM pt GROUP BY rare" "SELECT count(*) FILTER (WHERE NOT rare) FROM pt WHERE age <> 91"
attack "complement, nullable" "SELECT count(*) FILTER (WHERE diagnosis <> 'hiv' OR diagnosis IS NULL) FROM pt" "SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt WHERE age <> 91"
attack "complement, count(x)" "SELECT count(NULLIF(rare, true)) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
reset
attackn() {	# attackn NAME Q1 ... QN: Q1 .. QN-1 answered, then QN; QN answered = leak
	reset
	local before=$(last_alert) name=$1 b
	shift
	while [ $# -gt 1 ]; do q "$1" >/dev/null; shift; done
	b=$(q "$1")
	printf '%-28s %s\n' "$name" "$(verdict "$b" "$before")"
}
# session 6: the values of a column sum to the public count(*) of the same rows (the all-ones
# vector): hiv over everyone, then every other diagnosis over everyone but the target
attackn "values sum to count(*)" "SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt" \
	"SELECT count(*) FILTER (WHERE diagnosis = 'flu'), count(*) FILTER (WHERE diagnosis = 'cold'), count(*) FILTER (WHERE diagnosis = 'asthma') FROM pt WHERE age <> 91" \
	"SELECT count(*) FILTER (WHERE diagnosis = 'gout') FROM pt WHERE age <> 91"
attackn "values sum, IN lists" "SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt" \
	"SELECT count(*) FILTER (WHERE diagnosis IN ('flu', 'cold')) FROM pt WHERE age <> 91" \
	"SELECT count(*) FILTER (WHERE diagnosis IN ('asthma', 'gout')) FROM pt WHERE age <> 91"
attackn "values sum, complement union" "SELECT count(*) FILTER (WHERE diagnosis IN ('flu', 'cold', 'asthma', 'gout')) FROM pt" \
	"SELECT count(*) FILTER (WHERE diagnosis IN ('flu', 'cold')) FROM pt WHERE age <> 91" \
	"SELECT count(*) FILTER (WHERE diagnosis = 'asthma') FROM pt WHERE age <> 91" \
	"SELECT count(*) FILTER (WHERE diagnosis = 'gout') FROM pt WHERE age <> 91"
# a constant on every row: sum(CASE WHEN rare THEN 2 ELSE 1 END) is count(*) + count(rare)
attackn "CASE 2 else 1" "SELECT sum(CASE WHEN rare THEN 2 ELSE 1 END) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attackn "CASE 5 else 7 on income" "SELECT sum(CASE WHEN income > 3000 THEN 5 ELSE 7 END) FROM pt" "SELECT count(*) FILTER (WHERE income > 3000) FROM pt WHERE age <> 91"
attackn "income + 1000" "SELECT sum(income + 1000) FROM pt" "SELECT sum(income) FROM pt WHERE age <> 91"
attackn "income - 1000, avg" "SELECT avg(income - 1000) FROM pt" "SELECT sum(income) FROM pt WHERE age <> 91"
# session 6: through the public count(*) (ONE): the values of diagnosis (never NULL here) add
# up to |Q|, so two classes over Q give the third, with no relation among the classes themselves
attack3 "ONE: values sum to count" "SELECT count(*) FILTER (WHERE diagnosis = 'flu') FROM pt" "SELECT count(*) FILTER (WHERE diagnosis IN ('cold', 'asthma')) FROM pt" "SELECT count(*) FILTER (WHERE diagnosis IN ('gout', 'hiv')) FROM pt WHERE age <> 91"
attack3 "ONE: the rest over Q'" "SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt" "SELECT count(*) FILTER (WHERE diagnosis IN ('flu', 'cold')) FROM pt WHERE age <> 91" "SELECT sum(CASE WHEN diagnosis IN ('asthma', 'gout') THEN 1 ELSE 0 END) FROM pt WHERE age <> 91"
attack3 "ONE: avg of an indicator" "SELECT avg(CASE WHEN diagnosis = 'hiv' THEN 1 ELSE 0 END) FROM pt" "SELECT count(*) FILTER (WHERE diagnosis IN ('flu', 'cold')) FROM pt WHERE age <> 91" "SELECT count(*) FILTER (WHERE diagnosis IN ('asthma', 'gout')) FROM pt WHERE age <> 91"
attack3 "ONE: grouped, the rest" "SELECT diagnosis, count(*) FROM pt WHERE age <> 91 GROUP BY diagnosis" "SELECT count(*) FILTER (WHERE diagnosis = 'flu') FROM pt" "SELECT count(*) FILTER (WHERE diagnosis IN ('cold', 'asthma', 'gout')) FROM pt"
attack3 "ONE: two sensitive columns" "SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt" "SELECT rare, count(*) FROM pt WHERE age <> 91 GROUP BY rare" "SELECT count(*) FILTER (WHERE diagnosis IN ('flu', 'cold', 'asthma', 'gout')) FROM pt WHERE age <> 91"
reset
# session 6 (firststmt): new backends start from a row-space state another backend published in
# shared memory (audit/state_shared.c); one backend answers 30 statements over residues of the key
# first (their cells partition the table twice; its state is published), then the difference comes
# from new backends, which copy it and add the rest
attack_copied() {	# attack_copied NAME Q1 Q2: the prefix in one backend, Q1 and Q2 in new ones
	reset
	local before=$(last_alert) b
	{
		for z in $(seq 0 9); do echo "SELECT count(*) FILTER (WHERE rare), sum(income) FROM pt WHERE id % 10 = $z;"; done
		for z in $(seq 0 19); do echo "SELECT count(*) FILTER (WHERE rare), sum(income) FROM pt WHERE id % 20 = $z;"; done
	} | psql -X -q -d rt -U rt_analyst >/dev/null 2>&1
	q "$2" >/dev/null; b=$(q "$3")
	printf '%-28s %s\n' "$1" "$(verdict "$b" "$before")"
}
attack_copied "copied state, difference" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack_copied "copied state, sum" "SELECT sum(income) FROM pt WHERE zip = 7" "SELECT sum(income) FROM pt WHERE zip = 7 AND age <> 91"
attack_copied "copied state, 2 spellings" "SELECT sum(rare::int) FROM pt" "SELECT count(*) FROM pt WHERE rare AND age IS DISTINCT FROM 91"
reset
# session 7 (reldec): a Bernoulli design over 2,000 records with 40 positives, each design row asked as the
# two halves of a split that changes from row to row (pos AND income > t_q, pos AND NOT income > t_q); the
# attacker adds the halves and its BHTP decodes the 40 positives from 220 summed rows
# (sql/49_audit_related_decoders); leak: 220 rows answered (deny) or no alert by then (log, warn)
attack_split() {	# attack_split NAME AGG PART1 PART2 ...: %1$s the row's threshold, %2$s q % 5
	local name=$1 agg=$2 before
	shift 2
	local parts=$(printf "'%s'," "$@" | sed "s/,$//")
	psql -X -q -d rt >/dev/null 2>&1 <<SQL
DROP TABLE IF EXISTS cs_split CASCADE;
CREATE TABLE cs_split (id int PRIMARY KEY, pos boolean NOT NULL, income int NOT NULL, dx int NOT NULL);
INSERT INTO cs_split SELECT g, g % 50 = 17,
	   CASE WHEN g % 50 = 17 THEN 1050 + 100 * (g / 50) ELSE 1000 + (g * 37) % 5000 END, (g * 7) % 5
  FROM generate_series(1, 2000) g;
SELECT tapas.protect('cs_split', 'id', ARRAY['pos', 'income', 'dx'], 900);
GRANT SELECT ON cs_split TO rt_analyst;
CREATE OR REPLACE FUNCTION cs_split_attack(agg text, parts text[], m int) RETURNS int LANGUAGE plpgsql AS \$\$
DECLARE a numeric;
	p text;
BEGIN
	FOR q IN 1..m LOOP
		FOREACH p IN ARRAY parts LOOP
			BEGIN
				EXECUTE format('SELECT ' || agg || ' FROM cs_split WHERE tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)',
							   format(p, 1525 + 100 * (q % 32), q % 5), q) INTO a;
			EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
				RETURN q - 1;
			END;
		END LOOP;
	END LOOP;
	RETURN m;
END \$\$;
SQL
	before=$(last_alert)
	local rows=$(psql -X -qAt -d rt -U rt_analyst -c "SELECT cs_split_attack('$agg', ARRAY[$parts], 220)" 2>&1)
	local v
	if [ "$rows" != 220 ]; then
		v="refused after $rows of the attacker's 220 rows"
	elif [ "$mode" != deny ] && [ "$(last_alert)" -gt "$before" ]; then
		v="answered, alert $(psql -X -qAt -d rt -c "SELECT string_agg(DISTINCT kind, ',') FROM tapas.alerts WHERE alert_id > $before")"
	else
		v="answered 220 rows  <== LEAK"
	fi
	printf '%-28s %s\n' "$name" "$v"
	psql -X -q -d rt -c "DROP TABLE cs_split CASCADE" >/dev/null 2>&1
}
attack_split "CS split halves" 'count(*) FILTER (WHERE %s)' 'pos AND income > %1$s' 'pos AND NOT income > %1$s'
attack_split "CS split, sum(pos::int)" 'sum(pos::int) FILTER (WHERE %s)' 'income > %1$s' 'NOT income > %1$s'
attack_split "CS split in three" 'count(*) FILTER (WHERE %s)' 'pos AND income <= %1$s - 400' 'pos AND income > %1$s - 400 AND income <= %1$s' 'pos AND income > %1$s'
attack_split "CS split on dx" 'count(*) FILTER (WHERE %s)' 'pos AND dx = %2$s' 'pos AND dx <> %2$s'
attack_split "CS split, one statement" 'count(*) FILTER (WHERE pos AND %1$s), count(*) FILTER (WHERE pos AND NOT %1$s)' 'income > %1$s'

# session 8 (the lead): transactions that roll back, cursors, analyst tables, views and functions, plpgsql,
# and more spellings of the difference (the all-ones count(income) = count(*) is public: not an attack)
reset() { psql -X -qAt -d rt -c "SELECT tapas.reset(t) FROM unnest(ARRAY['pt', 'ppt', 'upt', 'cpt']::regclass[]) t" >/dev/null 2>&1; }
psql -X -q -d rt -c "CREATE TABLE IF NOT EXISTS mal.ids (x int); GRANT ALL ON mal.ids TO PUBLIC; ALTER TABLE mal.ids OWNER TO rt_analyst" >/dev/null 2>&1
q "TRUNCATE mal.ids; INSERT INTO mal.ids SELECT g FROM generate_series(1, 400) g WHERE g <> 77" >/dev/null
attack "rolled-back first half" "BEGIN; SELECT count(*) FILTER (WHERE rare) FROM pt; ROLLBACK" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "aborted implicit block" "SELECT count(*) FILTER (WHERE rare) FROM pt; SELECT 1/0" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "savepoint rolled back" "BEGIN; SAVEPOINT a; SELECT count(*) FILTER (WHERE rare) FROM pt; ROLLBACK TO a; COMMIT" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "both in one rolled-back xact" "SELECT 1" "BEGIN; SELECT count(*) FILTER (WHERE rare) FROM pt; SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91; ROLLBACK"
attack "cursor" "SELECT count(*) FILTER (WHERE rare) FROM pt" "BEGIN; DECLARE c CURSOR FOR SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91; FETCH ALL FROM c; COMMIT"
attack "cursor first half" "BEGIN; DECLARE c CURSOR FOR SELECT count(*) FILTER (WHERE rare) FROM pt; FETCH ALL FROM c; ROLLBACK" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91"
attack "semi-join analyst table" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE id IN (SELECT x FROM mal.ids)"
attack "join analyst table" "SELECT sum(income) FROM pt" "SELECT sum(p.income) FROM pt p JOIN mal.ids i ON i.x = p.id"
attack "NOT IN key" "SELECT sum(income) FROM pt" "SELECT sum(income) FROM pt WHERE id NOT IN (77)"
attack "<> ALL key" "SELECT sum(income) FROM pt" "SELECT sum(income) FROM pt WHERE id <> ALL (ARRAY[77, 77])"
attack "analyst view" "SELECT count(*) FILTER (WHERE rare) FROM pt" "CREATE OR REPLACE VIEW mal.v AS SELECT * FROM pt WHERE age <> 91; SELECT count(*) FILTER (WHERE rare) FROM mal.v"
attack "analyst sql function" "SELECT count(*) FILTER (WHERE rare) FROM pt" "CREATE OR REPLACE FUNCTION mal.f() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91'; SELECT mal.f()"
attack "plpgsql dynamic" "SELECT count(*) FILTER (WHERE rare) FROM pt" "DO \$\$ DECLARE x bigint; BEGIN EXECUTE 'SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91' INTO x; RAISE NOTICE 'x=%', x; END \$\$"
attack "plpgsql error channel" "SELECT count(*) FILTER (WHERE rare) FROM pt" "DO \$\$ DECLARE x bigint; BEGIN SELECT count(*) FILTER (WHERE rare) INTO x FROM pt WHERE age <> 91; IF x = 0 THEN RAISE EXCEPTION 'zero'; END IF; END \$\$"
attack "tracker via zip pad" "SELECT sum(income) FROM pt WHERE zip = 7 OR age = 91" "SELECT sum(income) FROM pt WHERE zip = 7 AND age <> 91"
attack "interval spelling" "SELECT sum(income) FROM pt" "SELECT sum(income) FROM pt WHERE age < 91 OR age > 91"
attack "born difference" "SELECT sum(income) FROM pt" "SELECT sum(income) FROM pt WHERE born <> date '1950-01-01' + (77 * 37) % 20000"
attack "id arithmetic" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE id * 2 <> 154"
attack "avg via two roles" "SELECT avg(income) FROM pt" "SELECT avg(income) FROM pt WHERE age <> 91" rt_analyst2
attack "scaled numerics" "SELECT sum(income * 2) FROM pt" "SELECT sum(income / 2) FROM pt WHERE age <> 91"
attack "group by key bucket" "SELECT sum(income) FROM pt" "SELECT id / 100 AS b, sum(income) FROM pt WHERE age <> 91 GROUP BY 1"
attack "grouping sets total" "SELECT zip, sum(income) FROM pt GROUP BY zip" "SELECT zip, sum(income) FROM pt WHERE NOT (zip = 7 AND age = 91) GROUP BY zip"
attack "lateral" "SELECT sum(income) FROM pt" "SELECT s.v FROM (SELECT 1) o, LATERAL (SELECT sum(income) AS v FROM pt WHERE age <> 91) s"
attack "window over aggregate" "SELECT sum(income) FROM pt" "SELECT sum(sum(income)) OVER () FROM pt WHERE age <> 91 GROUP BY zip LIMIT 1"
attack "distinct sum" "SELECT sum(income) FROM pt" "SELECT sum(DISTINCT income) FROM pt WHERE age <> 91"
attack3 "three halves, two roles" "SELECT count(*) FILTER (WHERE rare) FROM pt" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age < 91" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age > 91"
attackn "trackers padding" "SELECT sum(income) FROM pt WHERE zip = 7 OR zip = 3" "SELECT sum(income) FROM pt WHERE zip = 3" "SELECT sum(income) FROM pt WHERE zip = 7 AND age <> 91"
# session 9 (the lead): zero answers that overlap, then the total (no row answered 1 before it)
attack3 "zeros overlap" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age < 60" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age >= 50 AND age < 91" "SELECT count(*) FILTER (WHERE rare) FROM pt"
attack3 "zeros overlap, key ranges" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE id <= 250 AND id <> 77" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE id >= 200 AND id <> 77" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE zip = 7"
# session 9, closed in session 10: a sub-class of a class with zero answers. rare AND income > 3000 implies rare
# (on the domain grid, audit/truth_domain.c), whose zeros over everyone but the target make the new cell name it
# (audit/implied.c); refused whatever the target's income
attack "implied class" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91" "SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM pt"
attack "implied class, income <= t" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91" "SELECT count(*) FILTER (WHERE rare AND income > 1500) FROM pt"
attack "implied class, CASE" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91" "SELECT sum(CASE WHEN rare AND diagnosis = 'hiv' THEN 1 ELSE 0 END) FROM pt"
# session 9 (the lead): one statement whose two cells overlap (answered 1 and 0 they leave the 7 oldest)
attack "one statement 1 and 0" "SELECT 1" "SELECT count(*) FILTER (WHERE rare), count(*) FILTER (WHERE rare AND age < 79) FROM pt"
# session 9, closed in session 10: classes merged by value made the refusal an oracle. After rare's zeros over
# everyone but the target, diagnosis = 'hiv' was refused (its truth equals rare's) and 'flu' answered. Classes are
# now one only as functions (audit/truth_domain.c): hiv and flu get the same decision, and either answer (a count
# over everyone) isolates no one. Prints "same" or the two decisions.
same_decision() {	# same_decision NAME Q1 Q2a Q2b: Q2a and Q2b after Q1 each on a fresh ledger get one decision
	local a b
	reset; q "$2" >/dev/null; a=$(verdict "$(q "$3")" 0)
	reset; q "$2" >/dev/null; b=$(verdict "$(q "$4")" 0)
	if [ "$a" = "$b" ]; then printf '%-28s same (%s)\n' "$1" "${a%%  <==*}"; else printf '%-28s %s / %s  <== ORACLE\n' "$1" "$a" "$b"; fi
}
same_decision "by-value class" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91" \
	"SELECT count(*) FILTER (WHERE diagnosis = 'hiv') FROM pt" "SELECT count(*) FILTER (WHERE diagnosis = 'flu') FROM pt"
same_decision "implied, either income" "SELECT count(*) FILTER (WHERE rare) FROM pt WHERE age <> 91" \
	"SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM pt" "SELECT count(*) FILTER (WHERE rare AND income > 1500) FROM pt"
