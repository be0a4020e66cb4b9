"""An async chat service with one ctxlab session per user, on PostgreSQL or a Redis Cluster.

    python examples/chat_service/serve.py --store postgres --workers 4

See ``app.py`` for the endpoints and ``serve.py`` for the one command that starts it.
"""
