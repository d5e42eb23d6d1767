"""The MCP client: the servers a project or the user configured, their tools in our tool set."""
