"""Tests of the inspector: analysis engine, reports and commands."""
