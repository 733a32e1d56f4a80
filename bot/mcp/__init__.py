"""External MCP servers (TANKA_BOT_MCP_CONFIG): their read-only tools offered to the agent.

    hub = McpHub(settings.mcp); hub.start()
    registry.add_source(McpTools(hub))      # tools named mcp__<server>__<tool>

The only user of the `mcp` SDK (an import-linter contract in pyproject.toml).
"""
