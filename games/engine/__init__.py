"""Pure-Python mahjong rules engine. No Django imports anywhere under this package."""
