#!/usr/bin/env bash
# run.sh: every attack of attacks.txt as rt_analyst against database rt of $PGHOST/$PGPORT (see all.sh)
set -u
cd "$(dirname "$0")"
mode=${MODE:-deny}
leaks=0; falses=0; n=0
while IFS='|' read -r cls exp sql; do
	[ -z "$cls" ] && continue; case "$cls" in \#*) continue;; esac
	n=$((n+1))
	# each attack alone: an empty ledger (a line must not be judged by the answers of the lines before it)
	psql -X -qAt -d rt -c "SELECT tapas.reset(table_name) FROM tapas.protected_tables" >/dev/null 2>&1
	before=$(psql -X -qAt -d rt -c "SELECT coalesce(max(alert_id), 0) FROM tapas.alerts")
	out=$(psql -X -qAt -d rt -U rt_analyst -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
		-c "SET client_min_messages = debug5" -c "$sql" 2>&1)
	rc=$?
	state=$(echo "$out" | grep -oE 'ERROR:  [0-9A-Z]{5}' | head -1 | cut -c9-)
	if echo "$out" | grep -q 'server closed the connection\|terminated abnormally'; then verdict=CRASH
	elif [ $rc -ne 0 ]; then verdict="refused $state"
	else verdict=answered; fi
	flag=""
	# in log or warn mode the audit answers and alerts: an answer with a new alert is no leak
	[ "$mode" != deny ] && [ "$verdict" = answered ] &&
		[ "$(psql -X -qAt -d rt -c "SELECT coalesce(max(alert_id), 0) FROM tapas.alerts")" -gt "$before" ] &&
		verdict="answered+alert"
	[ "$exp" = refuse ] && [ "$verdict" = answered ] && { flag="  <== LEAK"; leaks=$((leaks+1)); }
	case "$state" in 42501|0A000|TP00*|54000|22023|42P10|22004|"") ;; *)
		[ "$exp" = refuse ] && [ "$verdict" != CRASH ] && { flag="  <== RAN ANALYST CODE (row-dependent error)"; leaks=$((leaks+1)); };; esac
	[ "$exp" = refuse ] && [ "$verdict" = "refused " ] && { flag="  <== refused without SQLSTATE?"; }
	[ "$exp" = answer ] && [ "${verdict%+alert}" != answered -o "$verdict" = answered+alert ] && { flag="  <== FALSE REFUSAL: $(echo "$out" | grep ERROR | head -1)"; falses=$((falses+1)); }
	[ "$verdict" = CRASH ] && flag="  <== CRASH"
	echo "$out" | grep -qiE 'LOG: .*(key|record)' && flag="$flag  <== LOG LINE TO CLIENT"
	printf '%-3s %-16s %s%s\n' "$cls" "$verdict" "$(echo "$sql" | cut -c1-90)" "$flag"
done < attacks.txt
echo "== $n attacks, $leaks leaks, $falses false refusals (mode $mode)"
