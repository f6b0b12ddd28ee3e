"""The effectiveness benchmark: does critic-loop's revision loop beat one shot?

`python -m benchmarks.effectiveness` runs several loop configurations on the task set in
`tasks/` against an OpenAI-compatible server and reports pass rates; see README.md.
"""
