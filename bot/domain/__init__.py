"""The values every layer shares: what people ask (requests), GitHub's news on a pull request
(pr_events) and what the bot remembers of it (pr_state), a session and its thread key, a
proposal (the change as shown, from its making to its pull request), the `/tanka` commands,
model prices, and the `ChatClient` port the Slack adapter implements.

Pure values and rules, no I/O. May import only bot.agent (a session keeps the agent's
conversation) and bot.errors; every other bot package may import it.
"""
