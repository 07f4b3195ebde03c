"""Benchmarks: performance targets live here, never in timed tests. See the README for the command."""
