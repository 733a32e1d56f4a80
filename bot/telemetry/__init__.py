"""What the service tells its operators: the audit log (writer, files and Redis backends, the
the reading of it for `tanka-bot audit`), Prometheus metrics and JSON logs.

An adapter: may import bot.store (the Redis connection handling) and bot.domain; takes its
settings as values; never a layer above.
"""
