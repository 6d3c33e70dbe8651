"""`squall bench`: the harness measured against the mock endpoint, side by side with a static peer runner."""
