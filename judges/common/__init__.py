"""What every judge builds on: the trace views and per-episode memo, Score building, asking a judge model, value
normalisation, the Reduction protocol of run summaries, statistics and summary rows."""
