"""The judge: plans the cases, runs the candidate in a runner process of its own, compares its outputs with the reference, and decides."""
