#!/bin/bash
# A Slurm cluster on this machine, on loopback: munged, slurmctld and one
# slurmd (all the CPUs), configured in DIR. Installs Debian's slurm-wlm
# and munge when missing. Usage:
#   scripts/scale_slurm_cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   scripts/scale_slurm_cluster.sh stop DIR
set -euo pipefail
cmd=${1:?start or stop} dir=$(mkdir -p "${2:?DIR}" && cd "$2" && pwd)
conf=$dir/slurm.conf

stop() {
	for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
		[[ -s $pid ]] && kill "$(cat "$pid")" 2>/dev/null || true
		rm -f "$pid"
	done
}

install() {
	command -v slurmctld >/dev/null && command -v munged >/dev/null && return
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd slurm-client munge
}

# munge: its own key and socket under DIR, run as the munge user.
start_munge() {
	mkdir -p "$dir/munge"
	[[ -s $dir/munge/munge.key ]] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
	chown -R munge:munge "$dir/munge"
	chmod 700 "$dir/munge"
	chmod 400 "$dir/munge/munge.key"
	runuser -u munge -- munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
		--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" --force
	cp "$dir/munge/munged.pid" "$dir/munged.pid"
}

write_conf() {
	local host cpus mem
	host=$(hostname -s) cpus=$(nproc) mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
	mkdir -p "$dir/state" "$dir/spool"
	cat >"$conf" <<CONF
ClusterName=goeval
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

case $cmd in
start)
	install
	stop
	start_munge
	write_conf
	slurmctld -f "$conf"
	slurmd -f "$conf"
	for _ in $(seq 60); do
		if SLURM_CONF=$conf sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
			SLURM_CONF=$conf sinfo
			exit 0
		fi
		sleep 1
	done
	echo "slurm did not come up; see $dir/*.log" >&2
	stop
	exit 1
	;;
stop) stop ;;
*) echo "usage: $0 start|stop DIR" >&2 && exit 2 ;;
esac
