"""The embedded Postgres lets in only whoever has its password, old data folders included.

`perdure serve` without DATABASE_URL (and the tests) run it on 127.0.0.1, as a superuser:
any local user who could connect without credentials would own every tenant's data. Each
test connects for real (psycopg, and psql where it shows the client's view) with no
password, a wrong one, and the right one.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.embedded_pg import BIN_DIR, FAST_UNSAFE_SETTINGS, SUPERUSER, EmbeddedPostgres, free_port
from tests.pg import libpq_url

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(autouse=True)
def no_client_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """libpq reads a password from the environment or ~/.pgpass: neither may help here."""
    for name in ("PGPASSWORD", "PGUSER", "PGHOST", "PGPORT", "PGDATABASE", "PGSERVICE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmbeddedPostgres]:
    embedded = EmbeddedPostgres(tmp_path / "data", settings=FAST_UNSAFE_SETTINGS)
    yield embedded
    embedded.stop("immediate")


def connect(port: int, password: str | None = None) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(
        host="127.0.0.1",
        port=port,
        user=SUPERUSER,
        dbname="postgres",
        password=password,
        connect_timeout=10,
        autocommit=True,
    )


def assert_refused_without_the_password(port: int) -> None:
    with pytest.raises(psycopg.OperationalError, match="password"):
        connect(port).close()
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        connect(port, "postgres").close()
    where = ["-h", "127.0.0.1", "-p", str(port), "-U", SUPERUSER, "-d", "postgres"]
    psql = subprocess.run(
        [str(BIN_DIR / "psql"), *where, "-w", "-c", "SELECT 1"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert psql.returncode != 0, psql.stdout
    assert "password" in psql.stderr


def rules(url: str) -> list[tuple[str, str]]:
    """(connection type, auth method) of each pg_hba.conf line the server reads."""
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT type, auth_method FROM pg_hba_file_rules ORDER BY rule_number"
        ).fetchall()
    return [(str(kind), str(method)) for kind, method in rows]


def test_embedded_pg__refuses_a_superuser_without_the_password(server: EmbeddedPostgres) -> None:
    server.start()
    assert server.port is not None

    assert_refused_without_the_password(server.port)

    with psycopg.connect(libpq_url(server.url()), autocommit=True) as conn:
        row = conn.execute(
            "SELECT current_user, rolpassword, current_setting('unix_socket_directories') "
            "FROM pg_authid WHERE rolname = current_user"
        ).fetchone()
    assert row is not None
    user, verifier, sockets = row
    assert user == SUPERUSER
    assert str(verifier).startswith("SCRAM-SHA-256$")  # stored as a verifier, not in clear
    assert sockets == ""  # TCP only: no socket file for anyone to find
    assert {method for _, method in rules(server.url())} == {"scram-sha-256"}

    secret = server.password_file
    mode = secret.stat()
    assert stat.S_IMODE(mode.st_mode) == 0o600
    assert mode.st_uid == os.geteuid()
    password = secret.read_text().strip()
    assert len(password) >= 40
    assert password in server.url()
    assert password not in repr(server)
    assert password not in server.log_file.read_text(errors="replace")


def test_embedded_pg__attach_uses_the_running_servers_password(server: EmbeddedPostgres) -> None:
    server.start()
    beside = EmbeddedPostgres(server.data_dir)  # `perdure keys` beside a `perdure serve`

    assert beside.attach()

    assert beside.url() == server.url()
    with psycopg.connect(libpq_url(beside.url()), autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def make_trusting_cluster(server: EmbeddedPostgres) -> None:
    """A data folder as `perdure serve` made it before passwords: `initdb --auth=trust`,
    no password, some data."""
    server._prepare_data_dir()
    pgdata, port = str(server.pgdata), free_port()
    server._run("initdb", ["-D", pgdata, "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8"])
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories=''"
    server._run("pg_ctl", ["-D", pgdata, "-l", str(server.log_file), "-w", "-o", options, "start"])
    try:
        with connect(port) as conn:  # no password: that was the hole
            conn.execute("CREATE TABLE kept (note text)")
            conn.execute("INSERT INTO kept VALUES ('made under trust')")
    finally:
        server._run("pg_ctl", ["-D", pgdata, "-m", "fast", "-w", "stop"])


def test_embedded_pg__a_folder_made_with_trust_is_secured_on_its_next_start(
    server: EmbeddedPostgres,
) -> None:
    make_trusting_cluster(server)

    server.start()
    assert server.port is not None

    assert_refused_without_the_password(server.port)
    with psycopg.connect(libpq_url(server.url()), autocommit=True) as conn:
        assert conn.execute("SELECT note FROM kept").fetchall() == [("made under trust",)]
    assert "trust" not in {method for _, method in rules(server.url())}

    # The next start keeps the password it set, and stays shut.
    url = server.url()
    server.stop()
    server.port = None
    server.start()
    assert server.port is not None
    assert_refused_without_the_password(server.port)
    assert server.url().split("@")[0] == url.split("@")[0]
    with psycopg.connect(libpq_url(server.url()), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone() == (1,)
