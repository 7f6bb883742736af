"""Memory registries: where named memories live and which are mounted."""
