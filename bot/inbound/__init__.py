"""Where requests come in: the HTTP app and health routes, Slack's signature gate, payload
parsing and Bolt listeners, GitHub's webhook receiver and parser.

Validates, parses into bot.domain values, deduplicates and hands off to bot.runtime; nothing
slow. The top layer: may import every layer below (runtime, handlers, adapters, domain); nothing
but the wiring (bot.app) imports it. The only package besides bot.slack and bot.app that
imports the Slack SDKs (bolt for the listeners, slack_sdk's signature check).
"""
