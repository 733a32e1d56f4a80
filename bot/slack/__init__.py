"""Slack at the edge: payloads turned into domain values (pure), the Web API client, message
rendering (pure) and the Bolt listeners. The only package (with bot.app) that imports slack_sdk
or slack_bolt; handlers see only the small `ChatClient` port.
"""
