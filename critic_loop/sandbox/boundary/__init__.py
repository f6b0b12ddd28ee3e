"""Copied into both sandboxes; only plain data crosses (`wire`), no object the draft made."""
