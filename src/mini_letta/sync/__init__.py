"""Memory beyond one machine: git remote sync of the memory repository."""
