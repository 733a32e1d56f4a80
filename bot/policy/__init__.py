"""Who may do what: the teams settings (channels, allowed users, approval rules), the rules
that decide steering and approvals (rules), and the cached Slack user-group lookup (groups).

Pure rules over settings; refusals fail closed. May import only bot.domain.
"""
