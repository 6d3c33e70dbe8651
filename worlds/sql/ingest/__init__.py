"""A question set to a world: the importer (per question, or in the SEL or SLOT style), the world folder it writes
and ``--world PATH`` reads, the quality filters, and augmentation (nested variants, swapped literals)."""
