-- The benign analyst of test/bench/census-workload.sh: one query per line.
SELECT count(*) FROM census
SELECT region, count(*) FROM census GROUP BY region ORDER BY region
SELECT sex, count(*) FROM census GROUP BY sex
SELECT age, count(*) FROM census GROUP BY age ORDER BY age
SELECT health, count(*) FROM census GROUP BY health ORDER BY health
SELECT region, avg(health) FROM census GROUP BY region
SELECT sex, age, avg(health) FROM census GROUP BY sex, age
SELECT region, sex, count(*) FILTER (WHERE health >= 4) FROM census GROUP BY region, sex
SELECT age, count(*) FILTER (WHERE health = 5) FROM census GROUP BY age ORDER BY age
SELECT marital, avg(health), count(*) FROM census GROUP BY marital
SELECT religion, count(*) FROM census GROUP BY religion
SELECT region, religion, count(*) FROM census GROUP BY region, religion ORDER BY 1, 2
SELECT econ, avg(health) FROM census GROUP BY econ
SELECT occupation, count(*) FILTER (WHERE health >= 3) FROM census GROUP BY occupation
SELECT grade, sex, avg(health) FROM census GROUP BY grade, sex
SELECT student, count(*) FILTER (WHERE religion = 2) FROM census GROUP BY student
SELECT hours, avg(health) FROM census GROUP BY hours ORDER BY hours
SELECT region, age, count(*) FROM census GROUP BY region, age HAVING count(*) >= 10
SELECT region, age, avg(health) FROM census GROUP BY region, age HAVING count(*) >= 10
SELECT industry, count(*) FILTER (WHERE health = 1) FROM census GROUP BY industry
SELECT count(*) FILTER (WHERE health >= 4) FROM census WHERE age >= 6
SELECT count(*) FILTER (WHERE health >= 4) FROM census WHERE age < 6
SELECT avg(health) FROM census WHERE region = 'E12000001'
SELECT avg(health) FROM census WHERE region <> 'E12000001'
SELECT ethnic, religion, count(*) FROM census GROUP BY ethnic, religion HAVING count(*) >= 10
SELECT birth, avg(health) FROM census GROUP BY birth
SELECT residence, family, count(*) FILTER (WHERE health = 5) FROM census GROUP BY residence, family
SELECT sex, marital, age, count(*) FILTER (WHERE health >= 4) FROM census GROUP BY sex, marital, age HAVING count(*) >= 10
SELECT region, occupation, avg(health) FROM census GROUP BY region, occupation HAVING count(*) >= 10
SELECT age, religion, count(*) FROM census GROUP BY age, religion HAVING count(*) >= 10
SELECT sex, stddev(health) FROM census GROUP BY sex
SELECT econ, hours, count(*) FILTER (WHERE health >= 3) FROM census GROUP BY econ, hours HAVING count(*) >= 10
SELECT region, grade, avg(health) FROM census GROUP BY region, grade HAVING count(*) >= 10
SELECT popbase, count(*) FROM census GROUP BY popbase
SELECT marital, sex, count(*) FILTER (WHERE religion = 1) FROM census GROUP BY marital, sex
