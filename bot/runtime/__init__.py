"""How work runs: the edge (triage, then the durable work queue of admission, before Slack is
acknowledged), the runner's entry points (messages, reactions, slash, github_feedback, alerts)
over what they share (threads: the lease, the queue, the jobs' guard; failures: errors ->
replies), the bounded dispatcher, leases, the reaper of expired sessions, the background
scheduler and each channel's `Services`.

Called by bot.inbound; calls bot.handlers. May import handlers, publish, the adapters, policy,
domain and agent; never bot.inbound.
"""
