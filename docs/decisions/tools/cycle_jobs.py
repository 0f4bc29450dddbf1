"""ADR 0006, fifth cuts: every SQL statement and Spark job of one cycle, as measured there.

Run from the project root with the project's environment (LAKEREP_HOME and DBT_PROFILES_DIR
set as the Makefile sets them), alone on the machine:
    python docs/decisions/tools/cycle_jobs.py [HISTORY_RECORDS] [CYCLE_RECORDS]
It resets the lake, captures a history, lands one cycle of records and runs it, then two cycles
with nothing landed, all in one session run. Per cycle it prints the Spark jobs, seconds and
statements, the statements grouped by their job count, with STMTKINDS=1 grouped by their first
three words, the TOP slowest statements (env TOP), with JOBNAMES=N the stage names of
statements with N jobs or more, and with JOBDESC=1 the jobs by description (Delta file listing,
snapshot computation, AQE stage, MERGE passes). With JFR=FILE it records the driver JVM with Java
Flight Recorder (settings=profile) over the 10k cycle alone, for tools/jfr_samples.py.
"""

import collections
import contextlib
import os
import re
import subprocess
import sys
import time
import uuid

from lakerep import dbt, landing
from lakerep.lake import lake_session, reset_lake
from lakerep.pipeline import land_refresh_snapshots, land_workload, run_cycle

records = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
cyc = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
lake_session()
reset_lake()
spark = lake_session()
run_vars = {"lakerep_run_id": f"bench-{uuid.uuid4()}"}
# One parse of the project for the run's cycles, as `lakerep run` does (PARSE_ONCE=0: dbt's own
# parse in every cycle, as before).
parse_scope = contextlib.ExitStack()
if os.environ.get("PARSE_ONCE", "1") == "1":
    parse_scope.enter_context(dbt.parse_once())
h = land_workload(records=records, seed=42, batch_records=10000)
# Snapshots from which the history cycle refreshes the members, so that later cycles apply (as
# `make bench` does since 2026-11-26; the harness figures in ADR 0006 before that are of cycles
# whose members waited for a snapshot). SNAPSHOTS=0: none.
if os.environ.get("SNAPSHOTS", "1") == "1":
    land_refresh_snapshots(h.workload)
t = time.perf_counter()
run_cycle(quiet=True, command="run", run_vars=run_vars)
print("history cycle", time.perf_counter() - t)


def jobs():
    return spark.sparkContext._jsc.sc().dagScheduler().numTotalJobs()


def measure(label):
    j0 = jobs()
    stmts = []
    pending = {}

    def cb(event):
        n = event.info.name
        if n == "SQLQuery":
            sql = " ".join(event.data.sql.split())
            node = re.search(r'"node_id": "([\w.]+)"', sql)
            body = re.sub(r"/\*.*?\*/", "", sql).strip()
            pending["s"] = (node.group(1).split(".")[-1] if node else "-", body[:110], time.perf_counter())
            pending["j"] = jobs()
        elif n == "SQLQueryStatus":
            node, body, t0 = pending.pop("s", ("?", "?", time.perf_counter()))
            j0 = pending.pop("j", 0)
            j1 = jobs()
            stmts.append((time.perf_counter() - t0, node, f"[{j1 - j0} jobs] " + body))
            if j1 - j0 >= int(__import__("os").environ.get("JOBNAMES", "999")):
                names = collections.Counter()
                st = spark.sparkContext.statusTracker()
                for jid in range(j0, j1):
                    info = st.getJobInfo(jid)
                    if info is None:
                        names["?"] += 1
                        continue
                    stage = st.getStageInfo(max(info.stageIds)) if info.stageIds else None
                    names[(stage.name if stage else "?")[:70]] += 1
                print("   JOBS", node, dict(names))

    dbt.EVENT_CALLBACKS.append(cb)
    t = time.perf_counter()
    r = run_cycle(quiet=True, command="run", run_vars=run_vars)
    total = time.perf_counter() - t
    dbt.EVENT_CALLBACKS.remove(cb)
    print(
        f"== {label}: {jobs() - j0} jobs, {total:.1f} s, {len(stmts)} statements, in statements {sum(s[0] for s in stmts):.1f} s"
    )
    kinds = collections.defaultdict(lambda: [0, 0.0])
    for s, node, body in stmts:
        k = " ".join(body.split()[:2]).lower()
        kinds[k][0] += 1
        kinds[k][1] += s
    for k, (c, s) in sorted(kinds.items(), key=lambda x: -x[1][1]):
        print(f"  {k:<30} {c:4d} {s:6.1f}")
    if __import__("os").environ.get("STMTKINDS"):
        by_words = collections.defaultdict(lambda: [0, 0.0])
        for s, node, body in stmts:
            words = re.sub(r"^\[\d+ jobs\] (-- back compat for old kwarg name )?", "", body).split()[:3]
            kind = by_words[" ".join(words).lower()]
            kind[0] += 1
            kind[1] += s
        for k, (c, s) in sorted(by_words.items(), key=lambda x: -x[1][1]):
            print(f"   kind {k:<45} {c:4d} {s:6.1f}")
    for s, node, body in sorted(stmts, key=lambda x: -x[0])[: int(__import__("os").environ.get("TOP", "40"))]:
        print(f"  {s:5.2f} {node:<32} {body[:90]}")
    if __import__("os").environ.get("JOBDESC"):
        store = spark.sparkContext._jsc.sc().statusStore()
        jl = store.jobsList(None)
        descs = collections.Counter()
        for i in range(jl.size()):
            jd = jl.apply(i)
            if jd.jobId() < j0:
                continue
            d = jd.description()
            d = d.get() if d.isDefined() else jd.name()
            descs[re.sub(r"[0-9]+", "N", " ".join(str(d).split()))[:100]] += 1
        for d, c in descs.most_common(40):
            print(f"   {c:4d} {d}")
    models = sorted(r.model_seconds.items(), key=lambda x: -x[1])
    print("  models:", ", ".join(f"{m} {s:.1f}" for m, s in models[:25]))


landing.land_log_records(spark, h.workload.next_batch(cyc).records)
recording = os.environ.get("JFR")
if recording:
    pid = str(spark._jvm.java.lang.ProcessHandle.current().pid())
    subprocess.run(["jcmd", pid, "JFR.start", "name=cycle", "settings=profile", f"filename={recording}"], check=True)
measure("10k cycle")
if recording:
    subprocess.run(["jcmd", pid, "JFR.stop", "name=cycle"], check=True)
measure("idle dbt")
measure("idle dbt 2")
