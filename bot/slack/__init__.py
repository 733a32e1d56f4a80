"""Slack as an outbound adapter: the Web API client (`ChatClient`), message rendering (pure)
and the client that masks secrets in everything it posts.

Receiving from Slack is bot.inbound's. May import only bot.domain; the only package (with
bot.inbound's gates and bot.app) that imports slack_sdk.
"""
