"""A plugin module whose import fails (see tests/test_plugins.py); nothing else imports it."""

raise RuntimeError("this plugin fails when imported")
