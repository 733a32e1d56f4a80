"""The agent core: the provider-neutral conversation, the loop, budgets, retries, providers.

Knows nothing of Slack, the terminal or the settings object: front ends (bot.chat, the Slack
service) build it from settings and watch it through events.

The lowest layer of bot/: imports only bot.errors and tools/ (import-linter checks it).
"""
