"""`perdure runs|approvals|sessions …`: find stuck runs, see why a run failed, resume,
cancel, decide approvals, read a transcript. Each prints a table (or `--json`) and exits
non-zero with the problem's code when the API refuses (cli.main does that)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import deque
from collections.abc import Callable
from typing import Any

from app.runbook.client import Api, ClientSettings
from app.runbook.tables import compact, fields, moment, table

Handler = Callable[[Api, argparse.Namespace], Any]


def emit(args: argparse.Namespace, data: Any, human: Callable[[Any], str]) -> None:
    sys.stdout.write(
        (json.dumps(data, indent=2, ensure_ascii=False) if args.json else human(data)) + "\n"
    )


def _error_code(run: dict[str, Any]) -> str:
    error = run.get("last_error") or {}
    return str(error.get("code") or error.get("type") or "") if isinstance(error, dict) else ""


def metadata_pair(text: str) -> tuple[str, str]:
    """`--metadata KEY=VALUE` as the query parameter `metadata.KEY=VALUE`."""
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--metadata takes KEY=VALUE, not {text!r}")
    return f"metadata.{key}", value


# -- runs --------------------------------------------------------------------------------


RUN_COLUMNS = [
    "ID",
    "SESSION",
    "STATUS",
    "ATTEMPTS",
    "LEASE OWNER",
    "LEASE EXPIRES",
    "CREATED",
    "ERROR",
]


def runs_ls(api: Api, args: argparse.Namespace) -> None:
    params: list[tuple[str, Any]] = [("status", s) for s in args.status or []]
    if args.session:
        params.append(("session_id", args.session))
    if args.agent:
        params.append(("agent_id", args.agent))
    if args.stuck:
        params.append(("stuck", "true"))
    params += args.metadata or []
    found = list(api.items("/v1/runs", params, most=args.limit))
    emit(
        args,
        found,
        lambda runs: table(
            RUN_COLUMNS,
            [
                [
                    r["id"],
                    r["session_id"],
                    r["status"],
                    r["attempts"],
                    r.get("lease_owner"),
                    moment(r.get("lease_expires_at")) if r.get("lease_owner") else "",
                    moment(r["created_at"]),
                    _error_code(r),
                ]
                for r in runs
            ],
        ),
    )


def _show_run(data: dict[str, Any]) -> str:
    run, events = data["run"], data["events"]
    error = run.get("last_error")
    parts = [
        fields(
            [
                ("run", run["id"]),
                ("session", run["session_id"]),
                ("status", run["status"]),
                ("finish reason", run.get("finish_reason") or "-"),
                ("attempts", run["attempts"]),
                ("steps", f"{run['steps']} of {run['max_steps']}"),
                ("lease owner", run.get("lease_owner") or "-"),
                ("lease expires", moment(run.get("lease_expires_at"))),
                ("created", moment(run["created_at"])),
                ("updated", moment(run["updated_at"])),
                ("last error", json.dumps(error, ensure_ascii=False) if error else "-"),
                ("metadata", json.dumps(run.get("metadata") or {}, ensure_ascii=False)),
            ]
        ),
        "",
        "pending approvals:",
        table(
            ["APPROVAL", "TOOL", "ARGUMENTS", "EXPIRES"],
            [
                [a["id"], a["tool"], compact(a["arguments"]), moment(a.get("expires_at"))]
                for a in run.get("pending_approvals", [])
            ],
        ),
        "",
        f"last {len(events)} events:",
        table(
            ["ID", "TIME", "TYPE", "DATA"],
            [[e["id"], moment(e["created_at"]), e["type"], compact(e["data"])] for e in events],
        ),
    ]
    return "\n".join(parts)


def runs_show(api: Api, args: argparse.Namespace) -> None:
    run = api.call("GET", f"/v1/runs/{args.id}")
    # Events come oldest first: read them all, keep the last few.
    last = deque(api.items(f"/v1/runs/{args.id}/events", []), maxlen=args.events)
    emit(args, {"run": run, "events": list(last)}, _show_run)


def _moved(run: dict[str, Any]) -> str:
    pending = run.get("cancel_requested") and run["status"] != "cancelled"
    return f"run {run['id']}: {run['status']}" + (" (cancel requested)" if pending else "")


def runs_resume(api: Api, args: argparse.Namespace) -> None:
    emit(args, api.call("POST", f"/v1/runs/{args.id}/resume"), _moved)


def runs_cancel(api: Api, args: argparse.Namespace) -> None:
    emit(args, api.call("POST", f"/v1/runs/{args.id}/cancel"), _moved)


# -- approvals ---------------------------------------------------------------------------


def approvals_ls(api: Api, args: argparse.Namespace) -> None:
    params: list[tuple[str, Any]] = [("status", args.status)]
    if args.session:
        params.append(("session_id", args.session))
    if args.run:
        params.append(("run_id", args.run))
    found = list(api.items("/v1/approvals", params, most=args.limit))
    emit(
        args,
        found,
        lambda approvals: table(
            ["ID", "STATUS", "TOOL", "ARGUMENTS", "RUN", "SESSION", "CREATED", "EXPIRES"],
            [
                [
                    a["id"],
                    a["status"],
                    a["tool"],
                    compact(a["arguments"], 40),
                    a["run_id"],
                    a["session_id"],
                    moment(a["created_at"]),
                    moment(a.get("expires_at")),
                ]
                for a in approvals
            ],
        ),
    )


def _decide(api: Api, args: argparse.Namespace, approved: bool) -> None:
    body: dict[str, Any] = {"approved": approved}
    if args.reason is not None:
        body["reason"] = args.reason
    decided = api.call("POST", f"/v1/approvals/{args.id}/decision", body=body)
    emit(args, decided, lambda a: f"approval {a['id']}: {a['status']} (run {a['run_id']})")


def approvals_approve(api: Api, args: argparse.Namespace) -> None:
    _decide(api, args, approved=True)


def approvals_reject(api: Api, args: argparse.Namespace) -> None:
    _decide(api, args, approved=False)


# -- sessions ----------------------------------------------------------------------------


def sessions_ls(api: Api, args: argparse.Namespace) -> None:
    params: list[tuple[str, Any]] = [("status", s) for s in args.status or []]
    if args.agent:
        params.append(("agent_id", args.agent))
    params += args.metadata or []
    found = list(api.items("/v1/sessions", params, most=args.limit))
    emit(
        args,
        found,
        lambda sessions: table(
            ["ID", "AGENT", "STATUS", "RUNS", "LAST RUN", "UPDATED"],
            [
                [
                    s["id"],
                    f"{s['agent_id']}@{s['agent_version']}",
                    s["status"],
                    s["run_count"],
                    s.get("last_run_id"),
                    moment(s["updated_at"]),
                ]
                for s in sessions
            ],
        ),
    )


def _line(message: dict[str, Any]) -> list[str]:
    seq, role = message["seq"], message["role"]
    if role == "tool":
        call = f"{message.get('name')} [{message.get('status')}] ({message.get('tool_call_id')})"
        head = f"#{seq} tool {call}"
        return [f"{head}: {compact(message['content'], 200)}"]
    lines = [f"#{seq} {role}: {compact(message['content'], 200)}"]
    for call in message.get("tool_calls") or []:
        lines.append(f"    → {call['name']}({compact(call['arguments'], 120)}) [{call['id']}]")
    return lines


def _show_session(data: dict[str, Any]) -> str:
    session, messages = data["session"], data["messages"]
    head = fields(
        [
            ("session", session["id"]),
            ("agent", f"{session['agent_id']} version {session['agent_version']}"),
            ("status", session["status"]),
            ("last run", session.get("last_run_id") or "-"),
            ("runs", session["run_count"]),
            ("metadata", json.dumps(session.get("metadata") or {}, ensure_ascii=False)),
        ]
    )
    transcript = [line for m in messages for line in _line(m)] or ["(no messages)"]
    return "\n".join([head, "", "transcript:", *transcript])


def sessions_show(api: Api, args: argparse.Namespace) -> None:
    session = api.call("GET", f"/v1/sessions/{args.id}")
    messages = list(api.items(f"/v1/sessions/{args.id}/messages", []))
    emit(args, {"session": session, "messages": messages}, _show_session)


# -- the parser --------------------------------------------------------------------------


def _run(handler: Handler) -> Callable[[argparse.Namespace], None]:
    def call(args: argparse.Namespace) -> None:
        with Api(ClientSettings()) as api:
            handler(api, args)

    return call


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `runs`, `approvals` and `sessions` to the `perdure` command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the API's JSON")

    def command(
        group: argparse._SubParsersAction[argparse.ArgumentParser],
        name: str,
        handler: Handler,
        help_text: str,
    ) -> argparse.ArgumentParser:
        parser = group.add_parser(name, parents=[common], help=help_text)
        parser.set_defaults(func=_run(handler))
        return parser

    where = " (the API at PERDURE_URL, with PERDURE_API_KEY)"
    runs = sub.add_parser("runs", help="find, inspect, resume and cancel runs" + where)
    run_cmds = runs.add_subparsers(dest="action", required=True)
    ls = command(run_cmds, "ls", runs_ls, "list runs, newest first")
    ls.add_argument("--status", action="append", help="repeat for several")
    ls.add_argument("--session")
    ls.add_argument("--agent")
    ls.add_argument("--metadata", action="append", type=metadata_pair, metavar="KEY=VALUE")
    ls.add_argument(
        "--stuck",
        action="store_true",
        help="running under an expired lease, or queued past PERDURE_STUCK_QUEUED_S",
    )
    ls.add_argument("--limit", type=int, default=50)
    show = command(run_cmds, "show", runs_show, "a run: status, error, lease, approvals, events")
    show.add_argument("id")
    show.add_argument("--events", type=int, default=10, help="how many of the last events")
    command(run_cmds, "resume", runs_resume, "queue a failed run again").add_argument("id")
    command(run_cmds, "cancel", runs_cancel, "cancel a run").add_argument("id")

    approvals = sub.add_parser("approvals", help="list and decide approvals" + where)
    approval_cmds = approvals.add_subparsers(dest="action", required=True)
    ls = command(approval_cmds, "ls", approvals_ls, "approvals, oldest first")
    ls.add_argument("--status", default="pending")
    ls.add_argument("--session")
    ls.add_argument("--run")
    ls.add_argument("--limit", type=int, default=50)
    for name, handler in (("approve", approvals_approve), ("reject", approvals_reject)):
        decide = command(approval_cmds, name, handler, f"{name} a gated tool call")
        decide.add_argument("id")
        decide.add_argument("--reason")

    sessions = sub.add_parser("sessions", help="list sessions, read a transcript" + where)
    session_cmds = sessions.add_subparsers(dest="action", required=True)
    ls = command(session_cmds, "ls", sessions_ls, "sessions, newest first")
    ls.add_argument("--status", action="append", help="repeat for several")
    ls.add_argument("--agent")
    ls.add_argument("--metadata", action="append", type=metadata_pair, metavar="KEY=VALUE")
    ls.add_argument("--limit", type=int, default=50)
    show = command(session_cmds, "show", sessions_show, "a session and its transcript")
    show.add_argument("id")
