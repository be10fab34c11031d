"""Settings from the environment or `.env`; one class, read through a cached getter."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_PASSWORD = "vaultkg-local-pw"


class Settings(BaseSettings):
    """Everything vaultkg reads from its environment."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # Unset, the local server's address (VAULTKG_NEO4J_BOLT_PORT): see `_local_by_default`.
    neo4j_uri: str = Field("bolt://127.0.0.1:7687", alias="NEO4J_URI")
    neo4j_user: str = Field("neo4j", alias="NEO4J_USER")
    neo4j_password: SecretStr = Field(SecretStr(DEFAULT_PASSWORD), alias="NEO4J_PASSWORD")
    neo4j_database: str = Field("neo4j", alias="NEO4J_DATABASE")
    neo4j_version: str = Field("5.26.30", alias="NEO4J_VERSION")
    neo4j_home: Path = Field(Path(".neo4j/home"), alias="VAULTKG_NEO4J_HOME")
    neo4j_bolt_port: int = Field(7687, alias="VAULTKG_NEO4J_BOLT_PORT")
    neo4j_heap: str = Field("1g", alias="VAULTKG_NEO4J_HEAP")
    # The local server's page cache: the store files it keeps in memory (a 100k-page graph
    # is ~2 GB on disk; 256m makes its queries read from disk).
    neo4j_pagecache: str = Field("256m", alias="VAULTKG_NEO4J_PAGECACHE")
    query_timeout_s: float = Field(10.0, alias="VAULTKG_QUERY_TIMEOUT")
    api_key: SecretStr | None = Field(None, alias="VAULTKG_API_KEY")
    read_requires_key: bool = Field(False, alias="VAULTKG_READ_REQUIRES_KEY")
    vault_roots: list[Path] = Field(default_factory=list, alias="VAULTKG_VAULT_ROOTS")
    rdf_base: str = Field("https://vaultkg.example/id/", alias="VAULTKG_RDF_BASE")

    @model_validator(mode="after")
    def _local_by_default(self) -> Settings:
        """Without NEO4J_URI, connect to the local server where it listens: with only
        VAULTKG_NEO4J_BOLT_PORT set, `vaultkg neo4j start` used that port while every command
        connected to 7687, another database or none (the offline import refused to run)."""
        if "neo4j_uri" not in self.model_fields_set:
            self.neo4j_uri = f"bolt://127.0.0.1:{self.neo4j_bolt_port}"
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once on first use (never at import)."""
    return Settings()
