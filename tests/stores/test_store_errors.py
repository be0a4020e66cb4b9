"""Store errors tell the truth about where they happened: a Redis Cluster error names the
node that serves the session's slot (where the call went), not the seed node the client
was started from (before: "redis cluster at 127.0.0.1:<seed port>" whatever node failed)."""

from __future__ import annotations

import pytest

from ctxlab import TrimmingSession
from ctxlab.stores import StoreError

from conftest import arun, user
from store_backends import make_backend

pytestmark = pytest.mark.redis


def test_a_cluster_error_names_the_slots_node_not_the_seed(request, tmp_path):
    backend = make_backend("redis-cluster", request, tmp_path)

    async def go() -> None:
        try:
            client = backend.client
            await client.initialize()
            seed = next(iter(client.nodes_manager.startup_nodes))
            kind = backend.spec_of_kind
            for k in range(64):  # a session whose slot another node serves than the seed
                sid = f"node-{k}"
                node = client.get_node_from_key(kind.keys(backend, sid)[0])
                if f"{node.host}:{node.port}" != seed:
                    break
            else:
                raise AssertionError("every session id hashed to the seed node's slots")
            session = TrimmingSession(store=backend.store_arg(sid))
            await session.add_items([user("before")])
            assert await backend.refuse_appends(sid), "the cluster did not refuse the append"
            with pytest.raises(StoreError) as caught:
                await session.add_items([user("refused")])
            message = str(caught.value)
            slot = client.keyslot(kind.keys(backend, sid)[0])
            assert f"redis cluster node {node.host}:{node.port} (slot {slot})" in message, (
                f"the error does not name the slot's node {node.host}:{node.port}: {message}")
            assert seed not in message, f"the error names the seed node {seed}: {message}"
        finally:
            await backend.aclose()

    arun(go())
