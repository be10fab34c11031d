"""Benchmarks: a seeded synthetic vault generator, ingest and query benchmarks (`make bench`)."""
