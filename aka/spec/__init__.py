"""Records that cross the loop's boundaries; no torch, GPU or LLM imports here."""
