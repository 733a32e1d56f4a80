"""`tanka-bot chat`: the agent in a terminal (REPL and one-shot), its /approve, its display.

A front end like the Slack service: may import the agent core, publish, github and tools;
nothing imports it but bot.cli.
"""
