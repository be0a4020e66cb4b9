"""A real redis-server for tests: started on a free 127.0.0.1 port, stopped at the end.

Tests never rely on a system service. ``CTXLAB_REDIS_URL`` points the tests at a server you
run yourself; otherwise a ``redis-server`` binary on PATH is started in a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ping(url: str, timeout: float = 0.5) -> bool:
    """True when a Redis server answers PING at ``url`` (a raw socket: no client needed)."""
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 6379),
                                      timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def answers(url: str, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections at ``url``'s host and port."""
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 5432),
                                      timeout=timeout):
            return True
    except OSError:
        return False


class RedisServer:
    """One redis-server process we own (append-only file on, so a restart keeps the data)."""

    def __init__(self, folder: Path, port: int | None = None):
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise FileNotFoundError("redis-server is not installed")
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [str(self.binary), "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "yes", "--appendfsync", "always",
             "--dir", str(self.folder), "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while not ping(self.url):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """SIGTERM (Redis flushes its append-only file and exits), then wait."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def own_cluster(prefix: str, why: str):
    """A Redis Cluster only the calling test uses (it kills masters or moves slots), for a
    fixture to ``yield from``: started in a temp folder, stopped and removed afterwards;
    skipped (failed in CI) when it cannot start, saying ``why`` it was needed."""
    import tempfile

    from ctxlab.stores.local_servers import LocalRedisCluster, ServerError

    from conftest import server_unavailable

    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        cluster = LocalRedisCluster(folder).start()
    except (ServerError, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        server_unavailable("Redis Cluster", f"{why} ({exc})")
        return
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


def own_server(folder: Path, why: str) -> RedisServer:
    """A started redis-server only the calling test uses (it changes the server's settings:
    memory cap, permissions, replication); skipped (failed in CI) when it cannot start."""
    from conftest import server_unavailable

    try:
        return RedisServer(folder).start()
    except (FileNotFoundError, RuntimeError) as exc:
        server_unavailable("Redis", f"{why} ({exc})")
        raise  # not reached: server_unavailable skips or fails


def refusing_commands() -> dict[str, tuple[list[tuple[str, ...]], tuple[str, ...]]]:
    """Ways to make a server refuse writes, each with the command that undoes it: its memory
    cap reached (OOM), the default user's write permission removed (NOPERM; inside a Lua
    script Redis says "can't run this command"), and the server demoted to the replica of a
    primary that does not exist (READONLY, as during a failover)."""
    return {
        "memory": ([("CONFIG", "SET", "maxmemory-policy", "noeviction"),
                    ("CONFIG", "SET", "maxmemory", "1")], ("CONFIG", "SET", "maxmemory", "0")),
        "permission": ([("ACL", "SETUSER", "default", "-@write")],
                       ("ACL", "SETUSER", "default", "+@all")),
        "replica": ([("REPLICAOF", "127.0.0.1", str(free_port()))], ("REPLICAOF", "NO", "ONE")),
    }


async def run_commands(url: str, *commands: tuple[str, ...]) -> None:
    """Run ``commands`` on the server at ``url`` as its administrator."""
    from redis.asyncio import Redis

    client = Redis.from_url(url)
    try:
        for command in commands:
            await client.execute_command(*command)
    finally:
        await client.aclose()
