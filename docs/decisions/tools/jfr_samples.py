"""Shares of a JFR recording's execution samples by thread, by Spark/JDK area and by top frame (ADR 0006).

Usage: python3 jfr_samples.py cycle.jfr   (record with `jcmd <driver pid> JFR.start settings=profile
filename=cycle.jfr` when the cycle starts, `jcmd <pid> JFR.stop name=...` when it ends).
"""
import json, subprocess, sys, collections
path = sys.argv[1]
out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", path], capture_output=True, text=True).stdout
events = json.loads(out)["recording"]["events"]
threads = collections.Counter(); cats = collections.Counter(); tops = collections.Counter()
RULES = [
    ("Janino / code generation", ("org.codehaus", "codegen.CodeGenerator", "CodeFormatter", "GenerateUnsafeProjection", "GeneratePredicate", "WholeStageCodegen")),
    ("Delta snapshot / log", ("delta.Snapshot", "delta.DeltaLog", "delta.SnapshotManagement", "delta.Checkpoint", "delta.LogSegment", "delta.util.FileNames", "InMemoryLogReplay", "delta.actions")),
    ("Delta commit / write", ("OptimisticTransaction", "delta.files.TransactionalWrite", "delta.stats", "delta.commands")),
    ("Catalyst analysis", ("catalyst.analysis", "sql.catalyst.parser", "sql.execution.SparkSqlParser")),
    ("Catalyst optimizer / planning", ("catalyst.optimizer", "catalyst.planning", "execution.SparkStrategies", "execution.QueryExecution.createSparkPlan", "adaptive")),
    ("Hive metastore / catalog", ("hive", "derby", "datanucleus", "catalog.SessionCatalog")),
    ("Parquet / file I/O", ("parquet", "hadoop.fs", "execution.datasources.FileScan")),
    ("task serialization (closures, ObjectOutputStream)", ("ObjectOutputStream", "ClosureCleaner", "xbean.asm9")),
    ("scheduler / RPC", ("scheduler", "spark.rpc", "serializer", "netty", "py4j")),
    ("JSON parsing", ("jackson", "JsonToStructs", "json.")),
]
for e in events:
    v = e["values"]
    tname = (v.get("sampledThread") or {}).get("javaName") or "?"
    group = "executor task" if tname.startswith("Executor task") else ("py4j / statement" if tname.startswith("Thread-") else tname.split(" ")[0].rstrip("-0123456789"))
    threads[group] += 1
    frames = [(f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"]) for f in (v.get("stackTrace") or {}).get("frames", [])]
    cat = "other"
    for name, keys in RULES:
        if any(any(k in fr for k in keys) for fr in frames):
            cat = name; break
    cats[cat] += 1
    if frames: tops[frames[0]] += 1
n = len(events)
print("samples", n)
for k, c in threads.most_common(10): print(f"  thread {k:40s} {100*c/n:5.1f} %")
for k, c in cats.most_common(): print(f"  {k:40s} {100*c/n:5.1f} %")
for k, c in tops.most_common(12): print(f"  top {k[:90]:90s} {100*c/n:5.1f} %")
# package of the first frame outside java.*/scala.* for each sample
pk = collections.Counter()
for e in events:
    frames = [f["method"]["type"]["name"].replace("/", ".") for f in (e["values"].get("stackTrace") or {}).get("frames", [])]
    own = next((f for f in frames if not f.startswith(("java.", "scala.", "jdk.", "sun."))), "jdk-only")
    pk[".".join(own.split(".")[:6])] += 1
for k, c in pk.most_common(25): print(f"  first-non-jdk {k:70s} {100*c/n:5.1f} %")
jd = collections.Counter()
for e in events:
    frames = [f["method"]["type"]["name"].replace("/", ".") for f in (e["values"].get("stackTrace") or {}).get("frames", [])]
    if all(f.startswith(("java.", "scala.", "jdk.", "sun.")) for f in frames):
        kinds = {"ObjectOutputStream" if any("ObjectOutputStream" in f for f in frames) else None,
                 "ObjectInputStream" if any("ObjectInputStream" in f for f in frames) else None}
        jd[",".join(sorted(k for k in kinds if k)) or (frames[0] if frames else "none")] += 1
for k, c in jd.most_common(8): print(f"  jdk-only {k:70s} {100*c/n:5.1f} %")
