"""Where the plugin hooks were before ``zpm_plugin`` (deprecated: import from ``zpm_plugin``)."""
