"""`tanka-bot eval`: a suite of Tanka tasks that measures the agent with any provider and model.

tasks (the task files, validated), repos (fresh git repositories per run), checks (scoring a
checkout), runner (runs the agent, isolated runs, --jobs/--repeat), selfcheck (--check-tasks),
report (JSON and Markdown), command (the CLI).
"""
