"""What the service does for each kind of request: a turn, an approval, the admin commands.

Handlers run inside the runner's per-thread lease and raise; the runner turns errors into replies.
They talk to Slack only through `bot.domain.ports.ChatClient` and never import an SDK.

A layer between bot.runtime (which calls them) and bot.publish, the adapters, policy and
domain (which they call); never bot.runtime or bot.inbound.
"""
