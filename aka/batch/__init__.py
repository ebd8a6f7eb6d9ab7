"""Batch runs over benchmark suites: suites and their importers, local and Ray executors, the run
folder with its journal, and the scoreboard."""
