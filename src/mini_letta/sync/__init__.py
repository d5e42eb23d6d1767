"""Memory beyond one machine: syncing the memory repository through its git remote."""
