"""lakerep: log-based change-data-capture replication as a dbt project on Spark."""

from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
"""The dbt project root: lakerep runs from a checkout, next to dbt_project.yml."""
