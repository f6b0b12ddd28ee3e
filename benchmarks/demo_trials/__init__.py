"""Trials of `critic-loop demo` against one model: how often it passes, in how many rounds."""
