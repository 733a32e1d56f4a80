"""From approval to pull request: making the proposal (bot.domain.proposal: what was shown,
bound by its diff hash) and checking it is unchanged, the branch name and PR text, and the
pipeline that commits, pushes and opens the pull request.

The only code that publishes; it runs outside the model's reach.

May import bot.git, bot.github and bot.domain; called by bot.handlers (and bot.chat's /approve).
"""
