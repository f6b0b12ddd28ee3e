"""What the effectiveness, judge and memory benchmarks share.

Configurations, the report file, the run over (configuration, task) cells, the command line
and the tables.
"""
