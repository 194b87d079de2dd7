#!/usr/bin/env python3
"""Judges a replicas_clients.py run; prints the figures and one PASS/FAIL line, exits 1 on FAIL.

  replicas_judge.py kill    RESULT.json --name replicas-nginx --killed 127.0.0.1:PORT|hubN
  replicas_judge.py rolling RESULT.json --name rolling-restart-nginx

kill (Tests/system/robustness/replicas.sh), PASS when:
  - every failed request was in flight on the killed replica when it was killed (started
    before the kill, ended after it, answered by the balancer for that replica);
  - every session continued: after the kill it was served again, with the same token and a
    count consistent with its actions (the count lives upstream, so a rebuild must show it);
  - every stream that was on the killed replica reconnected with Last-Event-ID, and every
    client's stream holds the current view at the end;
  - the survivors counted rebuilds.
rolling (Tests/system/robustness/rolling-restart.sh), PASS when no request failed and every
count was consistent; stream convergence and rebuilds are reported.
"""
import argparse
import json
import sys


def replica_of(record):
    """The replica that answered (the last one the balancer tried), and every one it tried."""
    value = record.get("replica") or ""
    tried = [part.strip() for part in value.split(",") if part.strip()]
    return (tried[-1] if tried else None), tried


def problem_code(record):
    """The `code` of an RFC 9457 problem body the balancer answered, or None."""
    try:
        return json.loads(record.get("body") or "").get("code")
    except ValueError:
        return None


def failed(record):
    return record.get("status") is None or not 200 <= record["status"] < 300


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["kill", "rolling"])
    parser.add_argument("result")
    parser.add_argument("--name", required=True)
    parser.add_argument("--killed")
    args = parser.parse_args()
    data = json.load(open(args.result))
    clients = [c for c in data["clients"] if c["token"]]
    records = [r for c in data["clients"] for r in c["records"]]
    failures = [r for r in records if failed(r)]
    violations = [v for c in clients for v in c["violations"]]
    problems = []
    if len(clients) != len(data["clients"]):
        problems.append(f"{len(data['clients']) - len(clients)} clients never opened a session")
    stuck = sum(1 for c in data["clients"] if c["alive"])
    if stuck:
        problems.append(f"{stuck} client loops did not finish")

    by_kind = {}
    for record in records:
        by_kind.setdefault(record["kind"], [0, 0])
        by_kind[record["kind"]][0] += 1
        by_kind[record["kind"]][1] += failed(record)
    print(f"{args.name}: {len(clients)} sessions, {len(records)} requests in {data['ended_at']:.0f} s "
          + ", ".join(f"{kind} {n} ({bad} failed)" for kind, (n, bad) in sorted(by_kind.items())))
    if failures:
        statuses = {}
        for record in failures:
            key = record.get("status") or record.get("error", "")[:60]
            statuses[key] = statuses.get(key, 0) + 1
        print(f"  failed requests: {statuses}")
        for record in failures[:3]:
            print(f"    {record}")
    if violations:
        problems.append(f"{len(violations)} inconsistent answers (first: {violations[0]})")

    converged = sum(1 for c in clients if c["converged"] is not None)
    reconnects = sum(max(0, len(c["connects"]) - 1) for c in clients)
    with_last_id = sum(1 for c in clients for e in c["connects"][1:] if e.get("last_event_id_sent"))
    print(f"  streams: {len(clients)} listeners, {reconnects} reconnects ({with_last_id} with Last-Event-ID), "
          f"{converged} of {len(clients)} hold the current view at the end")
    end = data["rebuilt_at_end"]
    if args.mode == "kill":
        killed_at = data["killed_at"]
        if killed_at is None:
            problems.append("the replica was never killed")
            killed_at = float("inf")
        in_flight = [r for r in failures if r["t0"] <= killed_at + 0.001 and r["t1"] >= killed_at
                     and args.killed in replica_of(r)[1]]
        others = [r for r in failures if r not in in_flight]
        retried = [r for r in records if not failed(r) and args.killed in replica_of(r)[1][:-1]]
        print(f"  killed {args.killed} at {killed_at:.2f} s: {len(in_flight)} requests in flight on it failed "
              f"({sum(1 for r in in_flight if r['kind'] == 'action')} actions), {len(others)} other failures"
              + (f"; {len(retried)} requests the balancer retried on another replica succeeded "
                 f"({sum(1 for r in retried if r['kind'] == 'action')} actions: connects refused)" if retried else ""))
        if others:
            problems.append(f"{len(others)} failures not in flight on the killed replica (first: {others[0]})")
        unexplained = [r for r in in_flight if not problem_code(r)]
        if unexplained:
            problems.append(f"{len(unexplained)} failures without a problem body from the balancer (first: {unexplained[0]})")
        moved, continued, to_opener = 0, 0, 0
        for client in clients:
            before = [r for r in client["records"] if r["t1"] < killed_at and not failed(r) and r["kind"] != "open"]
            after = [r for r in client["records"] if r["t0"] > killed_at and not failed(r)]
            opened = [r for r in client["records"] if r["kind"] == "open" and not failed(r)]
            if before and replica_of(before[-1])[0] == args.killed:
                moved += 1
                if {r["kind"] for r in after} >= {"get", "action"} and not client["violations"]:
                    continued += 1
                if after and opened and replica_of(after[0])[0] == replica_of(opened[-1])[0]:
                    to_opener += 1
        print(f"  {moved} sessions were on the killed replica; {continued} continued on another one "
              f"({to_opener} on the replica that had opened them, which still held them)")
        if continued != moved or moved == 0:
            problems.append(f"{moved - continued} of {moved} sessions of the killed replica did not continue")
        streams_there = 0
        reconnected = 0
        for client in clients:
            live = [e for e in client["connects"] if e["t"] <= killed_at and e.get("ended", float("inf")) >= killed_at
                    and e.get("status") == 200]
            if live and live[-1].get("replica") == args.killed:
                streams_there += 1
                later = [e for e in client["connects"] if e["t"] > killed_at]
                if any(e.get("last_event_id_sent") and e.get("status") == 200 for e in later):
                    reconnected += 1
        print(f"  {streams_there} streams were on the killed replica; {reconnected} reconnected with Last-Event-ID")
        if reconnected != streams_there:
            problems.append(f"{streams_there - reconnected} streams of the killed replica did not reconnect with Last-Event-ID")
        before = data["rebuilt_before_kill"] or {}
        rebuilt = sum(end.get(port, 0) - before.get(port, 0) for port in end)
        print(f"  rebuilds counted by the survivors after the kill: {rebuilt:.0f} (hub_sessions_rebuilt_total)")
        if rebuilt < 1:
            problems.append("no rebuild was counted")
    else:
        if failures:
            problems.append(f"{len(failures)} requests failed")
        print(f"  rebuilds counted by the replicas since they (re)started: {sum(end.values()):.0f}")
    if converged != len(clients):
        problems.append(f"{len(clients) - converged} streams do not hold the current view at the end")

    if problems:
        print(f"FAIL {args.name}: " + "; ".join(problems))
        return 1
    summary = (f"{len(records)} requests, {len(failures)} failed, all in flight on the killed replica; "
               f"every session continued, every stream reconnected and holds the current view"
               if args.mode == "kill" else
               f"{len(records)} requests, 0 failed, every count consistent, every stream holds the current view")
    print(f"PASS {args.name}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
