"""The memory gate: what a run may merge without a human looking, and the budgets memory keeps."""
