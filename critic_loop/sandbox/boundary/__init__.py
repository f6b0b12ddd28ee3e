"""The code that runs inside the two sandboxes of a `tests` criterion.

A test suite's verdict is decided in a process the drafted code does not run in:

- the **draft process** (`artifact`) imports the drafted module and answers calls to its
  functions, one at a time, over a socket;
- the **harness process** (`plugin`, a pytest plugin) runs the tests; the drafted module
  it imports is a stand-in whose functions send their arguments over that socket and
  return what comes back. It alone holds the pipe the report goes to.

Only plain data crosses the socket (`wire`): an object of the drafted code's own making
(a forged `__eq__`, a lying `__bool__`, an `int` subclass) cannot reach the tests, so the
tests compare values they made themselves.

These modules are copied into each sandbox as the package `critic_loop_boundary`, where
critic-loop itself is not importable: they use the standard library only (and pytest,
in the harness process), and import each other relatively.
"""
