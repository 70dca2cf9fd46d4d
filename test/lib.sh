# Shell helpers shared by test/check, test/demo and the system tests.
# Source it; it defines functions and sets PG_CONFIG and PGBIN.
#
# A tapas test instance is a private cluster in a directory owned by the
# postgres OS user (PostgreSQL refuses to run as root), listening on a unix
# socket in that directory and on a free local port, with tapas preloaded.

export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PGBIN=/usr/lib/postgresql/15/bin

# TAPAS_PGROOT=DIR: test against a relocated copy of the PostgreSQL
# installation under DIR instead of the system one (PostgreSQL finds its
# share and lib directories relative to its binaries), so that several
# checkouts on one machine test at once without sharing an installation.
if [ -n "${TAPAS_PGROOT:-}" ]; then
	PGBIN=$TAPAS_PGROOT/usr/lib/postgresql/15/bin
fi

# tapas_install: make install into the system directories, or into the
# copy under TAPAS_PGROOT (made on first use)
tapas_install() {
	if [ -z "${TAPAS_PGROOT:-}" ]; then
		make -s install >/dev/null
		return
	fi
	if [ ! -x "$PGBIN/postgres" ]; then
		mkdir -p "$TAPAS_PGROOT/usr/lib/postgresql" "$TAPAS_PGROOT/usr/share/postgresql" || return 1
		cp -a /usr/lib/postgresql/15 "$TAPAS_PGROOT/usr/lib/postgresql/" &&
			cp -a /usr/share/postgresql/15 "$TAPAS_PGROOT/usr/share/postgresql/" || return 1
		# the postgres user runs the server from here
		chmod 755 "$TAPAS_PGROOT"
	fi
	make -s install DESTDIR="$TAPAS_PGROOT" >/dev/null
}

as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# free_port START: first TCP port from START that nothing listens on
free_port() {
	local p=$1
	while (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; do
		p=$((p + 1))
	done
	echo "$p"
}

# instance_start DIR [extra postgres -c options...]
# initdb DIR/data if needed, start the server, export PGHOST/PGPORT/PGUSER.
# The server never inherits fd 9, the install lock of test/check.
instance_start() {
	local dir=$1
	shift
	mkdir -p "$dir"
	chown postgres: "$dir" 2>/dev/null || true
	chmod 755 "$dir"
	if [ ! -f "$dir/data/PG_VERSION" ]; then
		as_postgres "$PGBIN/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log"; return 1; }
		{
			echo "shared_preload_libraries = 'tapas'"
			echo "unix_socket_directories = '$dir'"
			echo "listen_addresses = ''"
			echo "fsync = off"
			echo "max_connections = 40"
			for opt in "$@"; do echo "$opt"; done
		} >>"$dir/data/postgresql.conf"
	fi
	if [ ! -f "$dir/port" ]; then
		free_port 5480 >"$dir/port"
	fi
	export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres PGDATABASE=postgres
	# -c: a crashed backend leaves a core file, which instance_destroy turns into a backtrace
	as_postgres "$PGBIN/pg_ctl" -c -D "$dir/data" -o "-p $PGPORT" -l "$dir/server.log" -w start >/dev/null 9>&- ||
		{ tail -n 30 "$dir/server.log"; return 1; }
}

instance_stop() {
	as_postgres "$PGBIN/pg_ctl" -D "$1/data" -m fast -w stop >/dev/null
}

instance_restart() {
	as_postgres "$PGBIN/pg_ctl" -c -D "$1/data" -o "-p $PGPORT" -l "$1/server.log" -m fast -w restart >/dev/null 9>&-
}

# instance_backtraces DIR: the backtrace of every core file a crashed server
# process left in the cluster (on stderr; needs gdb), with the log lines of
# the crash, so that a crash seen once under load can be diagnosed
instance_backtraces() {
	local core
	for core in "$1"/data/core*; do
		[ -f "$core" ] || continue
		{
			echo "== core file $core"
			grep -B2 -A2 "terminated by signal" "$1/server.log" | head -n 20
			if command -v gdb >/dev/null; then
				gdb -batch -nx -ex "bt full" -ex "info sharedlibrary" "$PGBIN/postgres" "$core" 2>&1 | head -n 200
			else
				echo "(gdb is not installed: no backtrace)"
			fi
		} >&2
	done
}

# instance_destroy DIR: stop if running and remove the cluster
instance_destroy() {
	[ -f "$1/data/postmaster.pid" ] && instance_stop "$1" || true
	instance_backtraces "$1"
	rm -rf "$1"
}

# demo_transcript SVG: run test/demo.sql (from the repository root) against
# $PGHOST/$PGPORT, database $PGDATABASE, writing its picture to SVG, and
# print what test/demo shows: psql's "psql:test/demo.sql:N: " prefix of
# notices and errors is noise in a transcript
demo_transcript() {
	psql -X -q -v ON_ERROR_STOP=0 -v svg="$1" -f test/demo.sql 2>&1 |
		sed -E 's/^psql:test\/demo\.sql:[0-9]+: //'
}

# ---- helpers of the system tests (test/system/t-*.sh set $dir and $db) ----

# fail MESSAGE: report, show the end of the server log, and stop the test
fail() { echo "FAIL: $*"; tail -n 20 "$dir/server.log"; exit 1; }

# q SQL: run one statement in $db, unaligned tuples only
q() { psql -X -qAt -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }

# wait_ready: wait up to 30 s until $db accepts connections (after a crash)
wait_ready() {
	local i
	for i in $(seq 1 120); do
		psql -X -qAt -d "$db" -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.25
	done
	return 1
}

# crash_backend [SQL...]: run the SQL statements, then pg_sleep(60), in a
# background session of $db, kill -9 that backend, and wait for the crash
# restart of all backends
crash_backend() {
	local pid="" i args=()
	for i in "$@"; do args+=(-c "$i"); done
	psql -X -qAt -d "$db" "${args[@]}" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
	for i in $(seq 1 80); do
		pid=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%'")
		[ -n "$pid" ] && break
		sleep 0.25
	done
	[ -n "$pid" ] || fail "no sleeping backend"
	kill -9 "$pid"
	wait
	wait_ready || fail "no crash restart"
}

# bench_instance [SETTING ...]: for a benchmark, unless PGHOST is set: build,
# install tapas (into TAPAS_PGROOT's private copy if set, else under the
# machine-wide install lock, held until bench_unlock: the extension's files
# must not change before CREATE EXTENSION) and start a private instance in
# $inst with the settings (the caller's trap destroys it)
bench_instance() {
	[ -n "${PGHOST:-}" ] && return 0
	make -s -j2 >/dev/null
	inst=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	exec 9>/tmp/tapas-install.lock
	[ -n "${TAPAS_PGROOT:-}" ] || flock 9
	tapas_install
	instance_start "$inst" "$@" >/dev/null
}
# before_instance REF WORK [CONF...]: builds commit REF (git archive) into its
# own relocated copy of PostgreSQL under WORK/before and starts a private
# instance WORK/before-inst with the settings CONF (the "before" side of a
# benchmark that compares two builds in one run); sets binst to it.
before_instance() {
	local ref=$1 work=$2
	shift 2
	mkdir -p "$work/before-src" "$work/before/usr/lib/postgresql" "$work/before/usr/share/postgresql"
	git archive "$ref" | tar -x -C "$work/before-src"
	make -s -j2 -C "$work/before-src" >/dev/null
	cp -a /usr/lib/postgresql/15 "$work/before/usr/lib/postgresql/"
	cp -a /usr/share/postgresql/15 "$work/before/usr/share/postgresql/"
	make -s -C "$work/before-src" install DESTDIR="$work/before" >/dev/null
	binst=$work/before-inst
	(PGBIN=$work/before/usr/lib/postgresql/15/bin; instance_start "$binst" "$@" >/dev/null)
}
bench_unlock() { { flock -u 9; exec 9>&-; } 2>/dev/null || true; }
