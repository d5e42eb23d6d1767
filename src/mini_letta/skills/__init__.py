"""Agent Skills (agentskills.io): SKILL.md folders the agent discovers, loads on demand and learns.

format.py parses and validates one SKILL.md (frontmatter.py reads its YAML), discover.py finds
skills in their five sources by precedence, prompt.py lists them in the system prompt under a
token cap, load.py shows one when it is loaded, validate.py and learned.py check and stamp the
skills a reflection run writes, transfer.py imports and exports skill folders.
"""
