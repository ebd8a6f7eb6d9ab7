"""Profiler outputs (ncu, nsys, rocprof, rocprof-compute) → one normalized ProfileReport.

Use `aka.profile.registry.parse_file(path)`; nothing is imported or run here.
"""
