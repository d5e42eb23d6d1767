"""Reflection and memory-gate evaluation suites, run through real reflections."""
