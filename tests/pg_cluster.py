# pg_cluster.py: a private PostgreSQL server on loopback for the tests
#
# Copyright 2026 The Chokepoint authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Debian's initdb and pg_ctl (/usr/lib/postgresql/*/bin) make a cluster in a
# temporary folder, listening on a free 127.0.0.1 port and a socket in that
# folder only, with trust authentication for the local user. PostgreSQL
# refuses to run as root: as root the server runs as the "postgres" user
# that Debian's package makes. stop() ends the server and removes the folder.

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile


def find_bin():
    """The folder with initdb and pg_ctl, or None."""
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(d, "initdb"), os.X_OK) and os.access(os.path.join(d, "pg_ctl"), os.X_OK):
            return d
    return None


def why_not():
    """Why a cluster cannot be started here, or None."""
    if find_bin() is None:
        return "PostgreSQL's server is not installed (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres user to run the server as"
    return None


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, prefix="chokepoint-pg-"):
        self.bin = find_bin()
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.started = False
        self.user = pwd.getpwuid(os.geteuid()).pw_name
        self.demote = None
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            os.chmod(self.dir, 0o755)
            self.user = "postgres"
            self.demote = (pw.pw_uid, pw.pw_gid)

    def _as_server(self):
        if self.demote is not None:
            os.setgid(self.demote[1])
            os.setuid(self.demote[0])

    def _run(self, args):
        return subprocess.run(args, preexec_fn=self._as_server, capture_output=True, text=True,
                              cwd=self.dir, timeout=120)

    def start(self):
        r = self._run([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", self.user,
                       "--auth=trust", "--encoding=UTF8", "--locale=C", "-N"])
        if r.returncode != 0:
            raise RuntimeError("initdb failed: " + r.stderr[-2000:])
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{self.dir}'\nfsync = off\n"
                    "synchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
                    "shared_buffers = 128MB\n")
        r = self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l",
                       os.path.join(self.dir, "server.log"), "-w", "-t", "60", "start"])
        if r.returncode != 0:
            log = ""
            try:
                with open(os.path.join(self.dir, "server.log")) as f:
                    log = f.read()[-2000:]
            except OSError:
                pass
            raise RuntimeError("pg_ctl start failed: " + r.stderr[-1000:] + log)
        self.started = True

    def uri(self, db="postgres"):
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{db}"

    def psql(self, sql, db="postgres", timeout=120):
        """Rows of a query as lists of strings (psql -A, unaligned)."""
        r = subprocess.run([os.path.join(self.bin, "psql") if os.path.exists(os.path.join(self.bin, "psql"))
                            else "psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1",
                            "-d", self.uri(db), "-c", sql], capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"psql {sql!r}: {r.stderr}")
        return [line.split("\x1f") for line in r.stdout.splitlines() if line != ""]

    def createdb(self, name):
        self.psql(f'CREATE DATABASE "{name}"')

    def stop(self):
        if self.started:
            self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop"])
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)
