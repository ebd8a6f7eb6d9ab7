"""Replaying a session from its files alone: load (read-only), the normalized story, text, HTML,
the Textual inspector and re-running recorded candidates with today's harness."""
