"""git for the service: session checkouts, commit and push with askpass tokens, rebases.

The repo cache the checkouts come from is bot.workspace's. An adapter: imports nothing of bot.
"""
