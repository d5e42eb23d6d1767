"""Looking back at runs: reports, provenance, undo, accept or discard, health."""
