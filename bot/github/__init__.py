"""GitHub as the code host: authentication (token or App), the PyGithub adapter, its typed
errors, the owner/name of the repository, and keeping tokens out of logs.

Outbound only (the webhook receiver is bot.inbound's). The only package that imports PyGithub;
takes its settings as values (bot.compose builds it from them); may import bot.errors.
"""
