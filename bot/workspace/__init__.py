"""Checkouts on local disk: the repo cache (a mirror of the repository plus spare checkouts)
and each session's workspace, rebuilt from the stored patch when this replica lacks it.

An adapter: may import bot.git, bot.store and bot.domain; never a layer above.
"""
