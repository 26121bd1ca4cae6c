"""The settings of pubfetch: :class:`FetchConfig`, a tree of value records (``fetching``, ``endpoints``, ``http``,
``batching``, ``run``) whose every setting is declared once in :mod:`pubfetch.config.defaults`.

One precedence: environment < config file < command line or keyword options. The environment is read in
:mod:`pubfetch.config.environment` only; everything else is handed a configuration.
"""

from pubfetch.config.defaults import Batching, Endpoints, HttpSettings, RunSettings
from pubfetch.config.environment import (
    default_file,
    environment_value,
    rate_db_default,
    result_backend_default,
)
from pubfetch.config.files import settings_from_file
from pubfetch.config.registry import JOB_SETTINGS, SETTINGS, WORKER_SETTINGS, cli_options
from pubfetch.config.tree import FetchConfig

__all__ = ["JOB_SETTINGS", "SETTINGS", "WORKER_SETTINGS", "Batching", "Endpoints", "FetchConfig",
           "HttpSettings", "RunSettings", "cli_options", "default_file", "environment_value", "rate_db_default",
           "result_backend_default", "settings_from_file"]
