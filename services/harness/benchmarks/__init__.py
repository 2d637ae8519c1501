"""Benchmarks behind `cachecoh bench`: each returns a report that prints as JSON."""
