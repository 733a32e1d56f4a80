"""What the service tells its operators: the audit log (writer, files and Redis backends, the
`tanka-bot audit` command), Prometheus metrics and JSON logs.

An adapter: may import bot.store (the Redis connection handling), bot.config and bot.domain;
never a layer above.
"""
