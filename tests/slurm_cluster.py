# slurm_cluster.py: a one-node Slurm cluster for the tests and benchmarks
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# munged with a fresh key and socket, slurmctld and slurmd from a generated
# slurm.conf (one node: this machine, its CPUs, free loopback ports), all in
# the folder given. Pass env with SLURM_CONF=<folder>/slurm.conf to start()
# and to every Slurm command; stop() ends the daemons. Needs root.

import os
import shutil
import socket
import subprocess
import time

COMMANDS = ("munged", "munge", "slurmctld", "slurmd", "sbatch", "sinfo")


def missing():
    """The commands this needs that are not installed."""
    return [p for p in COMMANDS if shutil.which(p) is None]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp, env):
    key = os.path.join(tmp, "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    sock = os.path.join(tmp, "munge.sock")
    procs = [subprocess.Popen(["munged", "-F", "-f", f"--key-file={key}", "-S", sock,
                               f"--log-file={tmp}/munged.log", f"--pid-file={tmp}/munged.pid",
                               f"--seed-file={tmp}/munged.seed"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    host = socket.gethostname().split(".")[0]
    cpus = os.cpu_count() or 1
    for d in ("state", "spool"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    with open(os.path.join(tmp, "slurm.conf"), "w") as f:
        f.write(f"""ClusterName=cptest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=2000 State=UNKNOWN
PartitionName=fleet Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
    for _ in range(50):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    procs.append(subprocess.Popen(["slurmctld", "-D", "-i"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    procs.append(subprocess.Popen(["slurmd", "-D"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    deadline = time.monotonic() + 40
    state = ""
    while time.monotonic() < deadline:
        r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True)
        state = r.stdout.strip()
        if state == "idle":
            break
        time.sleep(0.5)
    return procs, state


def stop(procs):
    for p in reversed(procs):
        if p.poll() is None:
            p.terminate()
    for p in reversed(procs):
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


