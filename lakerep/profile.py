"""Reads the Spark settings of the dbt profile, so that every Spark lakerep starts is configured
from that one place (profiles/profiles.yml, output `local`), and checks the environment variables
the profile renders before anything renders them."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

import jinja2
import yaml

from lakerep import PROJECT_DIR

PROFILES_FILE = PROJECT_DIR / "profiles" / "profiles.yml"

_ENV_VAR = re.compile(r"""env_var\(\s*['"](\w+)['"]""")
_UNSAFE = "'\"\\`"


def profile_outputs() -> list[str]:
    """The outputs of the profile (local, cluster, thrift): what LAKEREP_TARGET may name."""
    return list(yaml.safe_load(PROFILES_FILE.read_text(encoding="utf-8"))["lakerep"]["outputs"])


# Variables whose values have a form of their own, beyond the characters every one may not hold:
# name -> (whether a value has it, what the value must be). Nothing here reads the profile on
# import (a wheel's modules import without the project). A value of another form would reach
# Spark's or dbt's start as a traceback (a memory size, a number, an output), or name something
# else (a schema with a dot is a two-part name).
_WHOLE_NUMBER = re.compile(r"[1-9][0-9]*")


def _is_port(value: str) -> bool:
    return bool(_WHOLE_NUMBER.fullmatch(value)) and int(value) <= 65535


VALUE_RULES: dict[str, tuple[Callable[[str], bool], str | Callable[[], str]]] = {
    "LAKEREP_DRIVER_MEMORY": (
        # A unit is required: Spark's launcher passes the value to -Xmx as it is (4096 is bytes).
        re.compile(r"[1-9][0-9]*[kKmMgGtT]").fullmatch,
        "a JVM memory size: digits, then k, m, g or t (6g, 512m)",
    ),
    "LAKEREP_SHUFFLE_PARTITIONS": (_WHOLE_NUMBER.fullmatch, "a whole number of partitions, 1 or more"),
    "LAKEREP_SCHEMA": (
        re.compile(r"[A-Za-z_][A-Za-z0-9_]*").fullmatch,
        "a schema name: letters, digits and underscores, not starting with a digit",
    ),
    "LAKEREP_TARGET": (
        lambda value: value in profile_outputs(),
        lambda: f"an output of {PROFILES_FILE.name}: " + " or ".join(profile_outputs()),
    ),
    "LAKEREP_THRIFT_PORT": (_is_port, "a TCP port, 1 to 65535"),
    "LAKEREP_CONNECT_PORT": (_is_port, "a TCP port, 1 to 65535"),
}


def check_environment(environment: Mapping[str, str] | None = None) -> None:
    """ValueError naming the first variable the profile renders (LAKEREP_HOME, LAKEREP_SCHEMA,
    ...) whose value is empty, or holds a quote, double quote, backslash, backtick, whitespace or
    other control character, or is not of its variable's form (VALUE_RULES). The profile puts
    these values inside quoted YAML and into spark.driver.extraJavaOptions, which Spark splits at
    whitespace and unquotes: such a character would end the value early and add settings or JVM
    options of its own. `environment`: by default this process's."""
    variables = os.environ if environment is None else environment
    for name in dict.fromkeys(_ENV_VAR.findall(PROFILES_FILE.read_text(encoding="utf-8"))):
        value = variables.get(name)
        if value is None:
            continue
        if not value:
            raise ValueError(f"environment variable {name} is empty: unset it, or give it a value")
        for index, character in enumerate(value, start=1):
            if character in _UNSAFE or character.isspace() or not character.isprintable():
                raise ValueError(
                    f"environment variable {name} holds {character!r} (U+{ord(character):04X}) at "
                    f"character {index}: {PROFILES_FILE.name} renders it into Spark's settings, so it "
                    "may not hold quotes, backslashes, backticks, whitespace or control characters"
                )
        if name in VALUE_RULES:
            has_form, form = VALUE_RULES[name]
            if not has_form(value):
                described = form() if callable(form) else form  # read from the profile when needed
                raise ValueError(f"environment variable {name} is {value!r}: it must be {described}")


def spark_settings(output: str = "local", environment: Mapping[str, str] | None = None) -> dict[str, str]:
    """The `server_side_parameters` of a profile output, rendered as dbt renders them
    (env_var reads `environment`, by default this process's environment, once check_environment
    has passed it)."""
    variables = os.environ if environment is None else environment
    check_environment(variables)

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


def active_output(environment: Mapping[str, str] | None = None) -> str:
    """The profile output dbt and the runner use: LAKEREP_TARGET, by default `local`."""
    variables = os.environ if environment is None else environment
    return variables.get("LAKEREP_TARGET", "local")


def connect_url(environment: Mapping[str, str] | None = None) -> str | None:
    """The Spark Connect server the active output reaches (its `spark.remote`), or None when the
    output starts Spark in this process (`local`) or reaches it through dbt only (`thrift`)."""
    return spark_settings(active_output(environment), environment).get("spark.remote")
