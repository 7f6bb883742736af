"""Storage adapters: where memories live on disk (and the volatile fakes)."""
