"""Schedules: the tail poll, every minute; the health sweep, every hour.

`tail_schedule` asks for one tail pass a minute (Dagster's finest schedule), unless the
previous one is still queued or running; its runs go before every other kind in the run
queue and always find a free slot (assets/tags.py). It skips while no news server or no
group is configured, so a `dagster dev` over a demo corpus only shows skipped ticks.

`health_schedule` asks for one health sweep an hour (each checks what the cadence says is
due, so an hourly tick costs little when little is due), unless one is still queued or
running; it skips while no news server is configured.
"""

import dagster as dg

from assets.health import HEALTH_JOB, sweep_in_flight
from assets.resources import CaptureResource, NNTPResource
from assets.tags import TAIL, in_flight


@dg.schedule(
    cron_schedule="* * * * *",
    job_name="tail_job",  # by name: the job binds its resources in the definitions
    default_status=dg.DefaultScheduleStatus.RUNNING,
    execution_timezone="UTC",
)
def tail_schedule(
    context: dg.ScheduleEvaluationContext, nntp: NNTPResource, capture: CaptureResource
) -> dg.RunRequest | dg.SkipReason:
    """One tail pass a minute over the configured groups."""
    if not nntp.configured() or not capture.group_list():
        return dg.SkipReason("no news server or no group configured")
    if in_flight(context.instance, TAIL):
        return dg.SkipReason("the previous tail pass is still queued or running")
    return dg.RunRequest()


@dg.schedule(
    cron_schedule="17 * * * *",
    job_name=HEALTH_JOB,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    execution_timezone="UTC",
)
def health_schedule(
    context: dg.ScheduleEvaluationContext, nntp: NNTPResource
) -> dg.RunRequest | dg.SkipReason:
    """One health sweep an hour."""
    if not nntp.configured():
        return dg.SkipReason("no news server configured")
    if sweep_in_flight(context.instance):
        return dg.SkipReason("the previous health sweep is still queued or running")
    return dg.RunRequest()
