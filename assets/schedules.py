"""Schedules: the tail poll, every minute.

`tail_schedule` asks for one tail pass a minute (Dagster's finest schedule), unless the
previous one is still queued or running; its runs go before every other kind in the run
queue and always find a free slot (assets/tags.py). It skips while no news server or no
group is configured, so a `dagster dev` over a demo corpus only shows skipped ticks.
"""

import dagster as dg

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
    if not nntp.server() or not capture.group_list():
        return dg.SkipReason("no news server or no group configured")
    if in_flight(context.instance, TAIL):
        return dg.SkipReason("the previous tail pass is still queued or running")
    return dg.RunRequest()
