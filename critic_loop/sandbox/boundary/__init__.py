"""The code that runs inside the two sandboxes of a `tests` criterion.

The draft process (`artifact`) answers calls to the drafted module; the harness
(`plugin`) runs the tests against a stand-in and alone holds the report pipe. Only plain
data crosses (`wire`), so no object of the draft's making (a forged `__eq__`) reaches the
tests. Copied in as `critic_loop_boundary`: the standard library (and pytest) only.
"""
