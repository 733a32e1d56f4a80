"""Guardrails: the ways the bot says no before an approval becomes a pull request, or before a
turn spends money (the settings file's `freezes`, `policy_owners`, `budgets`; `admins` is read
with the teams, bot.policy.teams).

One concept per module: durations (`62h`, `7d`), windows (cron arithmetic), freezes, waivers
(and admins' overrides), holds (one bot pull request per environment), staleness, budgets, and
gate, the one place an approval asks them all. Rules, like bot.policy: pure over the settings,
a clock and the guard store (bot.store.guard_store); nothing here posts to Slack.
"""
