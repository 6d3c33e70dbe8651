"""τ²-bench's own reward inside squall (``tau2_reward``): the product over a task's reward basis (database, actions,
what must be said; natural-language and environment assertions reported as not judged), beside its reduction."""
