"""Run monitoring: a run whose process is gone is failed, so its group is free again.

Dagster's own run monitoring (`run_monitoring` in the instance's dagster.yaml, which the
main job writes) fails runs that never start or never finish cancelling, but it cannot
tell whether a started run's worker still lives under the default run launcher (which
has no health check). A run killed mid-range (SIGKILL, the OOM killer, a machine lost)
then stays STARTED for good, and its group counts as being indexed (`busy_groups`) or
captured for good.

So every step of ours holds a *lease* while it works (`lease`): its run's tags name the
process (`usenet-indexer/worker`: host, pid and the process's start time, so a reused
pid is told apart) and a heartbeat (`usenet-indexer/heartbeat`, every HEARTBEAT_SECONDS).
The `run_watchdog` sensor looks at every started run with a lease:

- on this host, the run is lost once its step's process is gone (or a zombie) and the
  run worker Dagster recorded is gone too (a live run worker fails a run whose step died
  by itself; past LEASE_SECONDS it is lost anyway); with no run worker recorded (another
  executor), GRACE_SECONDS after the step's last heartbeat;
- on another host, once its heartbeat is older than LEASE_SECONDS;
- a run that started but whose step never took its lease is judged by the run worker
  process Dagster recorded, under the local run launcher.

A lost run is tagged `usenet-indexer/lost` (why) and reported failed. Its group is then
free, and what it left is redone by whoever asks next: the index sensor asks for the
range again (its run key names the run that did not finish, `interrupted`: lost, or
failed by Dagster because its run worker was terminated, never started or its step's
process died), the range scheduler finds it due (no range log or no window snapshot:
the snapshot is written last), and a redo replaces every partition whole. A capture's
next pass plans from what is stored.

Under `dagster dev` (the default run launcher) a run worker killed while its code server
lives is failed by Dagster itself (UNEXPECTED_TERMINATION); the watchdog covers the rest:
the code server gone with it (the machine), `dagster job execute`, other launchers.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import dagster as dg

from assets.tags import KIND_TAG

HEARTBEAT_SECONDS = 15.0
LEASE_SECONDS = 120.0  # a heartbeat older than this: the run's process is lost
GRACE_SECONDS = 30.0  # a step gone with no run worker known: this long after its last beat

WORKER_TAG = "usenet-indexer/worker"
HEARTBEAT_TAG = "usenet-indexer/heartbeat"
LOST_TAG = "usenet-indexer/lost"


@dataclass(frozen=True)
class Worker:
    host: str
    pid: int
    started: str  # the process's start time as the OS has it ("" when unknown)

    def tag(self) -> str:
        return f"{self.host}:{self.pid}:{self.started}"

    @classmethod
    def parse(cls, tag: str) -> Worker | None:
        host, _, rest = tag.rpartition(":")
        host, _, pid = host.rpartition(":")
        if not host or not pid.isdigit():
            return None
        return cls(host, int(pid), rest)


def this_host() -> str:
    return socket.gethostname()


def process_started(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), "" when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return ""
    # the command name (field 2) may hold spaces and parentheses: fields after its ")"
    fields = stat[stat.rindex(b")") + 2 :].split()
    return fields[19].decode()  # field 22, starttime


def process_alive(pid: int, started: str = "") -> bool:
    """Whether the process runs (not a zombie) and, when `started` is given, is the same
    process that had that start time (a pid is reused once its process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here: ask the kernel whether the pid exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    fields = stat[stat.rindex(b")") + 2 :].split()
    if fields[0] in (b"Z", b"X"):  # a zombie: dead, only not reaped yet
        return False
    return not started or fields[19].decode() == started


def this_worker() -> Worker:
    pid = os.getpid()
    return Worker(this_host(), pid, process_started(pid))


@contextmanager
def lease(context: dg.OpExecutionContext | dg.AssetExecutionContext) -> Iterator[None]:
    """Hold the run's lease while the block runs: the worker tag, and a heartbeat."""
    instance, run_id = context.instance, context.run.run_id
    instance.add_run_tags(
        run_id, {WORKER_TAG: this_worker().tag(), HEARTBEAT_TAG: str(int(time.time()))}
    )
    done = threading.Event()

    def beat() -> None:
        while not done.wait(HEARTBEAT_SECONDS):
            try:
                instance.add_run_tags(run_id, {HEARTBEAT_TAG: str(int(time.time()))})
            except Exception as exc:  # a missed beat is no reason to stop the work
                context.log.warning(f"heartbeat not written: {exc}")

    thread = threading.Thread(target=beat, name="usenet-indexer-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(5)
        try:  # a last beat: the run ends within moments of its step
            instance.add_run_tags(run_id, {HEARTBEAT_TAG: str(int(time.time()))})
        except Exception as exc:
            context.log.warning(f"heartbeat not written: {exc}")


# the engine events in which Dagster names a run worker's pid: the local run launcher's
# worker as it starts, and the in-process and multiprocess executors in the run worker
LAUNCHED = "Started process for run"
RUN_WORKER_EVENTS = (LAUNCHED, "Executing steps in process", "Executing steps using multiprocess")


def run_worker_pids(instance: dg.DagsterInstance, run_id: str, launched: bool = False) -> list[int]:
    """The pids Dagster recorded for the run's worker (`launched`: only the local run
    launcher's)."""
    prefixes = (LAUNCHED,) if launched else RUN_WORKER_EVENTS
    records = instance.get_records_for_run(
        run_id, of_type=dg.DagsterEventType.ENGINE_EVENT, limit=50
    ).records
    pids = []
    for record in records:
        event = record.event_log_entry.dagster_event
        message = record.event_log_entry.message or ""
        if event is None or not message.startswith(prefixes):
            continue
        pid = event.engine_event_data.metadata.get("pid")
        if pid is not None and str(pid.value).isdigit():
            pids.append(int(str(pid.value)))
    return pids


def _local_launcher(instance: dg.DagsterInstance) -> bool:
    return type(instance.run_launcher).__name__ == "DefaultRunLauncher"


def lost_reason(
    instance: dg.DagsterInstance, run: dg.DagsterRun, now: float, host: str
) -> str | None:
    """Why a started run is lost (its process is gone), or None while it may still live."""
    worker = Worker.parse(run.tags.get(WORKER_TAG, ""))
    beat = float(run.tags.get(HEARTBEAT_TAG, "0") or 0)
    silent = now - beat
    if worker is None:
        # before its step began: only the local launcher's run worker runs on this host
        if not _local_launcher(instance):
            return None
        pids = run_worker_pids(instance, run.run_id, launched=True)
        if not pids or any(process_alive(pid) for pid in pids):
            return None
        return f"its run worker (pid {pids[0]} on {host}) is gone, before its step began"
    if worker.host != host:
        if silent <= LEASE_SECONDS:
            return None
        return f"no heartbeat from {worker.host} (pid {worker.pid}) for {silent:.0f} s"
    if process_alive(worker.pid, worker.started):
        return None
    # the step's process is gone; its run worker (the same host under these executors)
    # fails the run by itself while it lives
    known = run_worker_pids(instance, run.run_id)
    others = [p for p in known if p != worker.pid]
    if any(process_alive(p) for p in others) and silent <= LEASE_SECONDS:
        return None
    # no run worker known (another executor): the step may just have ended and its run be
    # about to; GRACE_SECONDS after its last heartbeat it is not
    if not known and silent <= GRACE_SECONDS:
        return None
    return f"its process (pid {worker.pid} on {host}) is gone"


def lost_runs(instance: dg.DagsterInstance, now: float | None = None) -> list[tuple[str, str]]:
    """(run id, why) of every started run whose process is gone."""
    now = time.time() if now is None else now
    host = this_host()
    lost = []
    started = instance.get_run_records(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
    for record in started:
        tags = record.dagster_run.tags
        if WORKER_TAG not in tags and KIND_TAG not in tags:
            continue  # not a run of ours (another code location's, maybe on another host)
        why = lost_reason(instance, record.dagster_run, now, host)
        if why is not None:
            lost.append((record.dagster_run.run_id, why))
    return lost


def fail_lost(instance: dg.DagsterInstance, run_id: str, why: str) -> bool:
    """Tag the run lost and report it failed; False when it ended meanwhile."""
    run = instance.get_run_by_id(run_id)
    if run is None or run.status != dg.DagsterRunStatus.STARTED:
        return False
    instance.add_run_tags(run_id, {LOST_TAG: why})
    instance.report_run_failed(
        run, f"usenet-indexer run watchdog: the run is lost: {why}; its group is free again"
    )
    return True


# Dagster's reasons for a run that ended without its steps finishing or failing: its run
# worker was terminated, it never started (run monitoring), its worker was restarted
FAILURE_REASON_TAG = "dagster/failure_reason"
INTERRUPTED_REASONS = ("UNEXPECTED_TERMINATION", "START_TIMEOUT", "RUN_WORKER_RESTART")
CRASHED = "ChildProcessCrashException"  # a step's process died (SIGKILL, the OOM killer)


def interrupted(instance: dg.DagsterInstance, run: dg.DagsterRun) -> str:
    """Why a failed run did not get to finish its work, or "" when it failed by itself
    (a step that raised: asked for again, it would fail the same way)."""
    if run.status != dg.DagsterRunStatus.FAILURE:
        return ""
    if LOST_TAG in run.tags:
        return f"lost: {run.tags[LOST_TAG]}"
    reason = run.tags.get(FAILURE_REASON_TAG, "")
    if reason in INTERRUPTED_REASONS:
        return reason.lower().replace("_", " ")
    # a step whose process died fails its run with STEP_FAILURE or RUN_EXCEPTION
    failures = instance.get_records_for_run(
        run.run_id, of_type=dg.DagsterEventType.STEP_FAILURE
    ).records
    for record in failures:
        event = record.event_log_entry.dagster_event
        error = event.step_failure_data.error if event is not None else None
        if error is not None and error.cls_name == CRASHED:
            return "its step's process died"
    return ""


@dg.sensor(minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING)
def run_watchdog(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    """Fails started runs whose process is gone (killed, or its machine lost)."""
    failed = []
    for run_id, why in lost_runs(context.instance):
        if fail_lost(context.instance, run_id, why):
            context.log.warning(f"run {run_id} is lost: {why}; reported failed")
            failed.append(run_id)
    if failed:
        return dg.SkipReason(f"reported {len(failed)} lost runs failed: {', '.join(failed)}")
    return dg.SkipReason("no lost run")
