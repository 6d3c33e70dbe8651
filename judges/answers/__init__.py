"""Judges of the agent's replies: exact answers (completion), facts of the gold answer, answers by meaning,
asking before guessing (clarification), and the normalisation they share; each beside its run-summary reduction."""
