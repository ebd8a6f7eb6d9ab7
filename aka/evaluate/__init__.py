"""The judge: isolated worker, correctness, honesty guards, timing and roofline."""
