"""How work runs: the runner (per-thread queue, leases, the entry points), the bounded
dispatcher, leases, the reaper of expired sessions, the background scheduler and each
channel's `Services`.

Called by bot.inbound; calls bot.handlers. May import handlers, publish, the adapters, policy,
domain and agent; never bot.inbound.
"""
