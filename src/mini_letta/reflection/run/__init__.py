"""One reflection run: its launch, slices, side agents, worktree, finalisation and settlement."""
