"""The error-handling judge (replies after a failure, rated 1-5 against the reference response by embedding or by
a judge model), its reduction, and its calibration against the hand-labelled set in ``data/``."""
