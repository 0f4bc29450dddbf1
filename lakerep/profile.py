"""Reads the Spark settings of the dbt profile, so that every Spark lakerep starts is configured
from that one place (profiles/profiles.yml, output `local`)."""

from __future__ import annotations

import os
from collections.abc import Mapping

import jinja2
import yaml

from lakerep import PROJECT_DIR

PROFILES_FILE = PROJECT_DIR / "profiles" / "profiles.yml"


def spark_settings(output: str = "local", environment: Mapping[str, str] | None = None) -> dict[str, str]:
    """The `server_side_parameters` of a profile output, rendered as dbt renders them
    (env_var reads `environment`, by default this process's environment)."""
    variables = os.environ if environment is None else environment

    def env_var(name: str, default: str | None = None) -> str:
        value = variables.get(name, default)
        if value is None:
            raise KeyError(f"environment variable {name} is required by {PROFILES_FILE}")
        return value

    jinja = jinja2.Environment(undefined=jinja2.StrictUndefined)
    jinja.globals["env_var"] = env_var
    jinja.filters["as_number"] = lambda value: value
    rendered = jinja.from_string(PROFILES_FILE.read_text(encoding="utf-8")).render()
    profile = yaml.safe_load(rendered)["lakerep"]["outputs"][output]
    return {str(key): str(value) for key, value in profile.get("server_side_parameters", {}).items()}
