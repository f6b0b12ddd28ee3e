"""The judge benchmark: how often the critic's judge agrees with labels any reader agrees on."""
