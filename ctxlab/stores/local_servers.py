"""Throwaway PostgreSQL, Redis and Redis Cluster servers on loopback, for development, tests,
benchmarks and the example chat service (never for production).

Each server runs from the system's own binaries (Debian: ``apt-get install postgresql
redis-server``) on free ``127.0.0.1`` ports, with every file in one folder, and is stopped
by :meth:`LocalServer.stop` (or ``python local_servers.py stop FOLDER``). As root, PostgreSQL
runs as the ``postgres`` user (it refuses to run as root).

This file uses the standard library only, so CI can run it before any virtualenv exists::

    python3 ctxlab/stores/local_servers.py start DIR postgres redis-cluster
    # prints CTXLAB_POSTGRES_URL=... and CTXLAB_REDIS_CLUSTER_URL=... (for eval)
    python3 ctxlab/stores/local_servers.py stop DIR
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Environment variables the tests and benchmarks read.
ENV = {"redis": "CTXLAB_REDIS_URL", "postgres": "CTXLAB_POSTGRES_URL",
       "redis-cluster": "CTXLAB_REDIS_CLUSTER_URL"}


class ServerError(RuntimeError):
    """A local server could not be started (the message says what was missing)."""


def free_port(*, avoid: set[int] | None = None) -> int:
    """A TCP port free on 127.0.0.1 right now (not in ``avoid``)."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if not avoid or port not in avoid:
            return port


def _answers(port: int, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def _wait(check: Any, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise ServerError(f"{what} did not come up within {timeout:.0f}s")
        time.sleep(0.05)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class LocalServer:
    """A server started by this module; :meth:`stop` ends it and keeps nothing running."""

    kind = "server"
    url = ""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    def stop(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


# ---------------------------------------------------------------------------- PostgreSQL


def postgres_bin(name: str) -> str:
    """The path of a PostgreSQL server program (``initdb``, ``pg_ctl``): PATH first, then
    Debian's ``/usr/lib/postgresql/<version>/bin``."""
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True):
        return candidate
    raise ServerError(f"PostgreSQL's {name} was not found: install the server "
                      "(apt-get install -y postgresql)")


class LocalPostgres(LocalServer):
    """A PostgreSQL cluster in ``folder`` (``initdb``, trust auth for loopback), listening
    on ``port``; database ``postgres``, user ``postgres``. Without a folder, a new one in
    the system's temp dir (as root, the ``postgres`` user must be able to reach the folder:
    a pytest or ``mktemp -d`` folder, private to root, does not do).

    ``fast`` turns fsync off (tests: a crash of the machine may lose the database, which is
    thrown away anyway); benchmarks that measure commit costs pass ``fast=False``."""

    kind = "postgres"

    def __init__(self, folder: str | Path | None = None, port: int | None = None, *,
                 fast: bool = True):
        super().__init__(folder or tempfile.mkdtemp(prefix="ctxlab-postgres-"))
        self.port = port or free_port()
        self.data = self.folder / "data"
        self.fast = fast

    @property
    def url(self) -> str:  # type: ignore[override]
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, args: list[str], *, check: bool = True) -> None:
        if _is_root():
            command = " ".join(_quote(a) for a in args)
            args = ["su", "postgres", "-s", "/bin/sh", "-c", command]
        if check:
            _checked(args)
        else:
            subprocess.run(args, capture_output=True, text=True, check=False, timeout=120)

    def start(self, timeout: float = 60.0) -> LocalPostgres:
        initdb, pg_ctl = postgres_bin("initdb"), postgres_bin("pg_ctl")
        self.folder.mkdir(parents=True, exist_ok=True)
        if _is_root():
            shutil.chown(self.folder, "postgres", "postgres")
        if not (self.data / "PG_VERSION").exists():
            self._run([initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres",
                       "--no-sync", "-E", "UTF8", "--locale", "C"])
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c max_connections=200 -c shared_buffers=64MB")
        if self.fast:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run([pg_ctl, "-D", str(self.data), "-l", str(self.folder / "postgres.log"),
                   "-o", options, "-w", "-t", str(int(timeout)), "start"])
        _wait(lambda: _answers(self.port), f"PostgreSQL on port {self.port}", timeout)
        (self.folder / "server.json").write_text(json.dumps(
            {"kind": self.kind, "port": self.port, "url": self.url}))
        return self

    def stop(self, *, remove: bool = True) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run([postgres_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate",
                       "-w", "stop"], check=False)
        if remove:
            shutil.rmtree(self.folder, ignore_errors=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


def _checked(args: list[str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        raise ServerError(f"{Path(args[0]).name} failed ({done.returncode}): "
                          f"{(done.stderr or done.stdout)[-2000:]}")
    return done


# --------------------------------------------------------------------------------- Redis


def redis_bin(name: str = "redis-server") -> str:
    found = shutil.which(name)
    if found is None:
        raise ServerError(f"{name} was not found: install it (apt-get install -y redis-server)")
    return found


def redis_command(port: int, *args: str, timeout: float = 1.0) -> str:
    """One command over a raw socket (inline protocol); the reply's text."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall((" ".join(args) + "\r\n").encode())
        data = b""
        sock.settimeout(timeout)
        while True:
            chunk = sock.recv(65536)
            data += chunk
            if not chunk or _complete(data):
                break
    return data.decode(errors="replace")


def _complete(data: bytes) -> bool:
    if data[:1] in (b"+", b"-", b":"):
        return data.endswith(b"\r\n")
    if data[:1] == b"$":
        head, _, rest = data.partition(b"\r\n")
        size = int(head[1:])
        return size < 0 or len(rest) >= size + 2
    return False


class LocalRedis(LocalServer):
    """One redis-server in ``folder`` (``cluster``: a cluster-enabled node)."""

    kind = "redis"

    def __init__(self, folder: str | Path, port: int | None = None, *, cluster: bool = False,
                 bus_port: int | None = None, node_timeout_ms: int = 1000,
                 appendonly: bool = False):
        super().__init__(folder)
        self.port = port or free_port()
        self.cluster = cluster
        self.bus_port = bus_port
        self.node_timeout_ms = node_timeout_ms
        self.appendonly = appendonly

    @property
    def url(self) -> str:  # type: ignore[override]
        return f"redis://127.0.0.1:{self.port}/0" if not self.cluster else \
            f"redis://127.0.0.1:{self.port}"

    @property
    def pidfile(self) -> Path:
        return self.folder / "redis.pid"

    def start(self, timeout: float = 20.0) -> LocalRedis:
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [redis_bin(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "yes" if self.appendonly else "no",
                "--dir", str(self.folder), "--daemonize", "yes",
                "--pidfile", str(self.pidfile), "--logfile", str(self.folder / "redis.log")]
        if self.cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                     "--cluster-node-timeout", str(self.node_timeout_ms)]
            if self.bus_port:
                args += ["--cluster-port", str(self.bus_port)]
        _checked(args)
        _wait(lambda: self.ping(), f"redis-server on port {self.port}", timeout)
        return self

    def ping(self) -> bool:
        try:
            return redis_command(self.port, "PING").startswith("+PONG")
        except OSError:
            return False

    @property
    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def kill(self) -> None:
        """SIGKILL (a crash: nothing is flushed, replicas are not told)."""
        pid = self.pid
        if pid is not None:
            _signal(pid, signal.SIGKILL)
            _wait(lambda: not _alive(pid), f"redis-server {pid} to die", 10)

    def stop(self) -> None:
        pid = self.pid
        if pid is not None and _alive(pid):
            _signal(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(pid):
                _signal(pid, signal.SIGKILL)


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (killed, not yet reaped) is dead for our purposes
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class LocalRedisCluster(LocalServer):
    """A Redis Cluster of ``masters`` masters with ``replicas`` replicas each, on loopback.

    ``node_timeout_ms`` is how long a silent master takes to be declared failed (its replica
    is promoted shortly after): 1 s here, so a failover test takes seconds, not minutes."""

    kind = "redis-cluster"

    def __init__(self, folder: str | Path, *, masters: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 1000):
        super().__init__(folder)
        used: set[int] = set()
        self.nodes: list[LocalRedis] = []
        for k in range(masters * (1 + replicas)):
            port = free_port(avoid=used)
            used.add(port)
            bus = free_port(avoid=used)
            used.add(bus)
            self.nodes.append(LocalRedis(self.folder / f"node-{k}", port, cluster=True,
                                         bus_port=bus, node_timeout_ms=node_timeout_ms))
        self.masters = masters
        self.replicas = replicas

    @property
    def url(self) -> str:  # type: ignore[override]
        return f"redis://127.0.0.1:{self.nodes[0].port}"

    @property
    def urls(self) -> str:
        """Every node, comma-separated (a client needs one that answers)."""
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def start(self, timeout: float = 60.0) -> LocalRedisCluster:
        for node in self.nodes:
            node.start()
        _checked([redis_bin("redis-cli"), "--cluster", "create",
                  *(f"127.0.0.1:{n.port}" for n in self.nodes),
                  "--cluster-replicas", str(self.replicas), "--cluster-yes"])
        self.wait_ok(timeout)
        self.wait_replicated(timeout)
        (self.folder / "server.json").write_text(json.dumps(
            {"kind": self.kind, "url": self.url, "ports": [n.port for n in self.nodes]}))
        return self

    def info(self, node: LocalRedis) -> dict[str, str]:
        text = redis_command(node.port, "CLUSTER", "INFO")
        return dict(line.split(":", 1) for line in text.splitlines()[1:] if ":" in line)

    def wait_ok(self, timeout: float = 60.0) -> None:
        """Until every live node reports ``cluster_state:ok`` and knows every node."""
        def ok() -> bool:
            try:
                live = [n for n in self.nodes if n.pid and _alive(n.pid)]
                return all(self.info(n).get("cluster_state", "").strip() == "ok"
                           for n in live)
            except OSError:
                return False

        _wait(ok, "the Redis Cluster", timeout)

    def wait_replicated(self, timeout: float = 60.0) -> None:
        """Until every live replica has its link to its master up (initial sync done)."""
        def synced() -> bool:
            for node in self.nodes:
                if not (node.pid and _alive(node.pid)):
                    continue
                try:
                    info = redis_command(node.port, "INFO", "replication")
                except OSError:
                    return False
                if "role:slave" in info and "master_link_status:up" not in info:
                    return False
            return True

        _wait(synced, "the Redis Cluster's replicas", timeout)

    def roles(self) -> dict[int, str]:
        """port -> 'master' / 'slave' of every live node (from its own ``INFO``)."""
        found = {}
        for node in self.nodes:
            try:
                reply = redis_command(node.port, "INFO", "replication")
            except OSError:
                continue
            for line in reply.splitlines():
                if line.startswith("role:"):
                    found[node.port] = line.split(":", 1)[1].strip()
        return found

    def topology(self) -> list[dict[str, Any]]:
        """Every node as a live node sees it (``CLUSTER NODES``): port, id, role ('master'
        or 'slave'), its master's id, whether it is marked failed, and its slot ranges."""
        live = [n for n in self.nodes if n.pid and _alive(n.pid)]
        text = redis_command(live[0].port, "CLUSTER", "NODES")
        found = []
        for line in text.splitlines()[1:]:
            parts = line.split()
            if len(parts) < 8:
                continue
            flags = parts[2].split(",")
            ranges = []
            for spec in parts[8:]:
                low, _, high = spec.partition("-")
                if low.isdigit():
                    ranges.append((int(low), int(high or low)))
            found.append({"port": int(parts[1].split("@")[0].rsplit(":", 1)[1]),
                          "id": parts[0], "role": "master" if "master" in flags else "slave",
                          "master": None if parts[3] == "-" else parts[3],
                          "failed": "fail" in flags or "fail?" in flags, "slots": ranges})
        return found

    def node(self, port: int) -> LocalRedis:
        return next(n for n in self.nodes if n.port == port)

    def master_of_slot(self, slot: int) -> LocalRedis:
        """The node serving ``slot`` now."""
        for info in self.topology():
            if info["role"] == "master" and not info["failed"] and any(
                    low <= slot <= high for low, high in info["slots"]):
                return self.node(info["port"])
        raise ServerError(f"no master serves slot {slot}")

    def replica_of(self, master: LocalRedis) -> LocalRedis:
        """A replica of ``master``."""
        nodes = self.topology()
        master_id = next(i["id"] for i in nodes if i["port"] == master.port)
        return self.node(next(i["port"] for i in nodes
                              if i["role"] == "slave" and i["master"] == master_id))

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


# ----------------------------------------------------------------------------- the CLI


def start(folder: Path, kinds: list[str]) -> dict[str, str]:
    """Start each kind in its own subfolder of ``folder``; the env variables to export."""
    env: dict[str, str] = {}
    for kind in kinds:
        where = folder / kind
        server: LocalServer
        if kind == "postgres":
            server = LocalPostgres()  # in a temp dir the postgres user can reach
            (folder / "postgres.path").write_text(str(server.folder))
            server.start()
        elif kind == "redis":
            server = LocalRedis(where).start()
        elif kind == "redis-cluster":
            server = LocalRedisCluster(where).start()
        else:
            raise ServerError(f"unknown server kind {kind!r} (known: {', '.join(ENV)})")
        env[ENV[kind]] = server.url
    return env


def stop(folder: Path) -> None:
    """Stop every server started under ``folder`` (PostgreSQL and Redis nodes)."""
    pointer = folder / "postgres.path"
    if pointer.exists():
        LocalPostgres(pointer.read_text().strip()).stop()
    for pidfile in folder.glob("**/redis.pid"):
        LocalRedis(pidfile.parent).stop()


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("start", "stop"):
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(argv[1])
    if argv[0] == "stop":
        stop(folder)
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    try:
        env = start(folder, argv[2:])
    except ServerError as exc:
        stop(folder)
        print(f"local_servers: {exc}", file=sys.stderr)
        return 1
    for name, value in env.items():
        print(f"{name}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
