"""Evaluators: the interface, the built-ins, report evaluators and the model grader."""
