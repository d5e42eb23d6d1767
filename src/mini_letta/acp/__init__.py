"""mini-letta as an Agent Client Protocol agent: an editor drives the agent over stdio.

Only `mini-letta acp` loads this package (and the `acp` SDK, with pydantic): the protocol
server (server.py), the main-thread turn runner that makes a cancel act as Ctrl-C
(runner.py), the calls from that thread into the protocol's loop (bridge.py), how turns and
history read as session updates (updates.py), approvals (permission.py) and the slash
commands an editor lists (commands.py).
"""
