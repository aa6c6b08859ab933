#!/usr/bin/env bash
# Stop the single-node SLURM test cluster that scripts/slurm/start.sh started: slurmd,
# slurmctld and munged, each by the pid start.sh recorded. Idempotent: a daemon that is not
# running is skipped. Keeps the logs and the job completion log under $STATE.
set -euo pipefail

STATE=${CLINEVAL_SLURM_STATE:-/var/lib/clineval-slurm}

die() { echo "slurm/stop.sh: error: $*" >&2; exit 1; }
say() { echo "slurm/stop.sh: $*"; }

[[ $(id -u) -eq 0 ]] || die "run as root (the test cluster's daemons run as root)"

stop_daemon() {
    local name=$1 pidfile=$STATE/pids/$1 pid
    if [[ ! -f $pidfile ]]; then
        say "$name not running (no pid file)"
        return
    fi
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        say "stopping $name (pid $pid)"
        kill -TERM "$pid"
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            say "$name did not stop within 10 s; killing it"
            kill -KILL "$pid"
        fi
    else
        say "$name not running (stale pid $pid)"
    fi
    rm -f "$pidfile"
}

if [[ -f $STATE/pids/slurmctld ]] && kill -0 "$(cat "$STATE/pids/slurmctld")" 2>/dev/null; then
    say "cancelling the test cluster's remaining jobs"
    scancel --state=PENDING,RUNNING,SUSPENDED 2>/dev/null || true
    sleep 1
fi
stop_daemon slurmd
stop_daemon slurmctld
stop_daemon munged

# With no controller, every SLURM client call waits MessageTimeout (10 s by default) for it, and
# Snakemake's SLURM executor plugin runs `scontrol show config` whenever Snakemake starts, SLURM
# or not: every later run waited ~9 s. The stopped cluster's config fails such calls at once;
# start.sh writes the running config again.
CONF=/etc/slurm/slurm.conf
MARKER="# written by clineval scripts/slurm/start.sh"
if [[ -f $CONF ]] && grep -qxF "$MARKER" "$CONF" && ! grep -qx 'MessageTimeout=1' "$CONF"; then
    printf '%s\n' "# the cluster is stopped (scripts/slurm/stop.sh): client calls fail at once" \
        "MessageTimeout=1" >>"$CONF"
fi
say "stopped; logs are in $STATE/log"
