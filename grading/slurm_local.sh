#!/usr/bin/env bash
# grading/slurm_local.sh: a throw-away single-node Slurm cluster on this machine, on loopback
# only, for trying `grade --slurm` without a cluster (and for grading's Slurm test):
#
#   grading/slurm_local.sh start DIR   munged, slurmctld and slurmd with everything (key,
#                                    sockets, state, logs, slurm.conf) under DIR; prints
#                                    the SLURM_CONF to export for sbatch, squeue, ...
#   grading/slurm_local.sh stop DIR    stops the three daemons it started (by their pid files)
#
# Needs Debian's slurm-wlm and munge (./setup.sh installs them). Ports are picked free at
# start. `start` exits 3 with the reason on stderr when the daemons cannot be started here
# (a missing program, slurmd refusing an unprivileged user, a node that never comes up), and
# then stops whatever it had started.
set -uo pipefail

cmd="${1:-}"
dir="${2:-}"
if [[ -z "${cmd}" || -z "${dir}" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 64
fi

# SIGTERM to all three at once (each takes a second or two to end), then up to 5 s for
# them to end before SIGKILL.
stop() {
  local d="$1" f pid pids=()
  for f in "${d}/run/slurmd.pid" "${d}/run/slurmctld.pid" "${d}/munge/munged.pid"; do
    [[ -s "${f}" ]] || continue
    pid="$(cat "${f}")"
    rm -f "${f}"
    [[ "${pid}" =~ ^[0-9]+$ ]] || continue
    kill "${pid}" 2>/dev/null && pids+=("${pid}")
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.1; done
    kill -9 "${pid}" 2>/dev/null
  done
}

cannot() {
  echo "slurm_local: $*" >&2
  stop "${dir}"
  exit 3
}

if [[ "${cmd}" == stop ]]; then
  stop "${dir}"
  exit 0
fi
[[ "${cmd}" == start ]] || { echo "usage: $0 start|stop DIR" >&2; exit 64; }

PATH="${PATH}:/usr/sbin:/sbin" # the daemons
for prog in munged slurmctld slurmd sbatch sinfo; do
  command -v "${prog}" >/dev/null 2>&1 || cannot "${prog} is not installed (apt-get install slurm-wlm munge; ./setup.sh does)"
done

mkdir -p "${dir}"/{munge,state,spool,run,log} || cannot "cannot make ${dir}"
dir="$(cd "${dir}" && pwd)"
chmod 0700 "${dir}/munge"

# A free TCP port on loopback (bash's /dev/tcp: nothing answers on a free one).
free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/${p}") 2>/dev/null; then echo "${p}"; return 0; fi
  done
  return 1
}

# munge: its own key and socket, nothing of the system's.
key="${dir}/munge/munge.key"
dd if=/dev/urandom of="${key}" bs=1 count=1024 status=none || cannot "cannot make a munge key"
chmod 0400 "${key}"
munged --force --key-file="${key}" --socket="${dir}/munge/sock" --pid-file="${dir}/munge/munged.pid" \
  --log-file="${dir}/munge/munged.log" --seed-file="${dir}/munge/seed" >"${dir}/log/munged.out" 2>&1 ||
  cannot "munged did not start: $(tail -n 3 "${dir}/log/munged.out" "${dir}/munge/munged.log" 2>/dev/null | tr '\n' ' ')"

user="$(id -un)"
ctld_port="$(free_port)" || cannot "no free port for slurmctld"
d_port="$(free_port)" || cannot "no free port for slurmd"
while [[ "${d_port}" == "${ctld_port}" ]]; do d_port="$(free_port)"; done
cpus="$(nproc)"
# The node's memory, so that a job's --mem (grade --slurm writes one) can be met.
mem_mb="$(awk '/^MemTotal:/ {print int($2 / 1024) - 512}' /proc/meminfo)"
conf="${dir}/slurm.conf"
cat >"${conf}" <<CONF
# Written by grading/slurm_local.sh: one node, this machine, on loopback.
ClusterName=streamlab
SlurmctldHost=localhost
SlurmUser=${user}
SlurmdUser=${user}
AuthType=auth/munge
AuthInfo=socket=${dir}/munge/sock
CredType=cred/munge
StateSaveLocation=${dir}/state
SlurmdSpoolDir=${dir}/spool
SlurmctldPidFile=${dir}/run/slurmctld.pid
SlurmdPidFile=${dir}/run/slurmd.pid
SlurmctldLogFile=${dir}/log/slurmctld.log
SlurmdLogFile=${dir}/log/slurmd.log
SlurmctldPort=${ctld_port}
SlurmdPort=${d_port}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem_mb} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="${conf}"
slurmctld -c -f "${conf}" >"${dir}/log/slurmctld.out" 2>&1 ||
  cannot "slurmctld did not start: $(tail -n 3 "${dir}/log/slurmctld.out" "${dir}/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
slurmd -f "${conf}" >"${dir}/log/slurmd.out" 2>&1 ||
  cannot "slurmd did not start (it may need root: running as ${user}): $(tail -n 3 "${dir}/log/slurmd.out" "${dir}/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
# The node is up when sinfo says it is idle.
for _ in $(seq 150); do
  state="$(sinfo -h -n localhost -o %t 2>/dev/null)"
  [[ "${state}" == idle ]] && { echo "SLURM_CONF=${conf}"; exit 0; }
  sleep 0.2
done
cannot "the node did not come up in 30 s (sinfo says '${state:-nothing}'): see ${dir}/log/"
