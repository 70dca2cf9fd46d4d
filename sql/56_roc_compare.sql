-- Several attacks on one ROC plot: one curve per attack name with its AUC,
-- the epsilon-DP bound, escaping, and the errors.
CREATE TEMP TABLE scored (attack text, score float8, member boolean);
INSERT INTO scored
SELECT 'closest <distance>', CASE WHEN i % 2 = 0 THEN 1 ELSE 0 END + (i % 7) * 0.1, i % 2 = 0
  FROM generate_series(1, 40) i
UNION ALL
SELECT 'chance', (i * 37 % 11)::float8, i % 2 = 0 FROM generate_series(1, 40) i;
CREATE TEMP TABLE svg AS
SELECT tapas.roc_compare_svg(array_agg(score ORDER BY attack, score), array_agg(member ORDER BY attack, score),
                             array_agg(attack ORDER BY attack, score), 'two attacks', ln(3)) AS doc
  FROM scored;
SELECT doc LIKE '<?xml version="1.0"%' AS xml,
       (length(doc) - length(replace(doc, '<polyline', ''))) / length('<polyline') AS polylines,
       doc LIKE '%closest &lt;distance&gt; (AUC = 1.0000)%' AS first_legend,
       doc LIKE '%chance (AUC = %' AS second_legend,
       doc LIKE '%points="70.00,410.00 160.00,140.00 430.00,50.00"%' AS epsilon_bound,
       doc LIKE '%</svg>' || chr(10) AS closed
  FROM svg;
-- the AUCs in the legend are attack_metrics' AUCs
SELECT attack, round(m.auc::numeric, 4) AS auc,
       (SELECT doc FROM svg) LIKE '%' || replace(replace(attack, '<', '&lt;'), '>', '&gt;') ||
           ' (AUC = ' || to_char(m.auc, 'FM0.0000') || ')%' AS in_legend
  FROM (SELECT attack, array_agg(score) s, array_agg(member) l FROM scored GROUP BY attack) g,
       tapas.attack_metrics(s, l) m
 ORDER BY attack;
-- no epsilon, no bound
SELECT tapas.roc_compare_svg(ARRAY[0.1, 0.9], ARRAY[false, true], ARRAY['a', 'a']) NOT LIKE '%epsilon%' AS no_bound;
-- errors
SELECT tapas.roc_compare_svg(ARRAY[0.1, 0.9], ARRAY[false, true], ARRAY['a']);
SELECT tapas.roc_compare_svg(ARRAY[0.1, 0.9], ARRAY[false, true], ARRAY['a', NULL]);
SELECT tapas.roc_compare_svg(ARRAY[0.1, 0.9], ARRAY[false, true], NULL);
SELECT tapas.roc_compare_svg(ARRAY[0.1, 0.9], ARRAY[false, true], ARRAY['a', 'b'], NULL, -1);
