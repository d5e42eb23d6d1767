"""Memory shared with other tools: an MCP server, and CLAUDE.md / AGENTS.md import and export."""
