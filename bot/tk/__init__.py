"""`tanka-bot tk ...`: tk's read-only commands on the in-process engine (tools.tanka)."""
