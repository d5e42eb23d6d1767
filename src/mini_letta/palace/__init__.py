"""The memory palace (one self-contained HTML page of what the agent knows and how it learned
it) and the memory doctor (an audit of memory as it is now). Read-only over memory: nothing
here writes a memory file; the doctor's fix goes through a normal reflection run."""
