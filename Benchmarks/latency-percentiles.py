"""Prints p50, p99, p99.9 and the maximum, in milliseconds, of an h2load --log-file.

Usage: python3 Benchmarks/latency-percentiles.py LOG
Each line of the log is one request: start time, status, microseconds until the response ended.
"""
import sys

v = sorted(int(line.split("\t")[2]) for line in open(sys.argv[1]))
if not v:
    sys.exit(f"{sys.argv[1]}: no requests logged")


def p(q):
    return v[min(len(v) - 1, int(q * len(v)))] / 1000


print(f"{p(0.5):.2f} {p(0.99):.2f} {p(0.999):.2f} {v[-1] / 1000:.2f}")
