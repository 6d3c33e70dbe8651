"""The run level: the run summary built from every registered judge's reduction, and the run's identity (agent,
world, stressors) it is labelled with."""
