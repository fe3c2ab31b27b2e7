#!/usr/bin/env python3
import sys, re, collections
from jfr_samples import read_samples
# Usage: jfr print --stack-depth 200 --events jdk.ExecutionSample join.jfr > join.txt; python3 jfr_stages.py join.txt
# Splits executor-thread samples of a RowmatchHashJoin query into stages: each sample goes to the
# innermost frame that names a stage (so shuffle reads inside the build count as shuffle reads).
path = sys.argv[1]
stages = [  # (label, frame substring), checked innermost frame first
    ("shuffle read (deserialize rows)", "UnsafeRowSerializerInstance$$anon$2$$anon$3"),
    ("rows -> Arrow (RowsToArrowBatches)", "RowsToArrowBatches"),
    ("Arrow shuffle read (ShuffleBatchDecoder)", "ShuffleBatchDecoder"),
    ("Arrow shuffle: partition ids", "PartitionIds"),
    ("Arrow shuffle: encode (PartitionedBatchEncoder)", "PartitionedBatchEncoder"),
    ("Arrow shuffle: bytes to Spark's shuffle writer", "ShuffleRecordSerializer"),
    ("columnar scan -> Arrow (ColumnarToArrowBatches)", "ColumnarToArrowBatches"),
    ("probe: hash + lookup + key compare (JoinProbe.lookup)", "JoinProbe.lookup"),
    ("probe: pair emission (JoinProbe.nextPairs)", "JoinProbe.nextPairs"),
    ("output gather (JoinOutput.gather)", "JoinOutput.gather"),
    ("build (JoinBuildSide)", "JoinBuildSide"),
    ("join other (HashJoinRunner)", "HashJoinRunner"),
    ("map side: scan + shuffle write", "ShuffleMapTask.runTask"),
    ("after the join: columnar->row, to Row, count", "ResultTask.runTask"),
]
samples = read_samples(path)
sel = [s for s in samples if 'Executor task launch' in s['thread']]
c = collections.Counter()
for s in sel:
    label = "other"
    for f in s['frames']:
        hit = next((l for l, sub in stages if sub in f), None)
        if hit:
            label = hit; break
    c[label] += 1
print(f"{len(sel)} executor samples")
for l, _ in stages + [("other", "")]:
    print(f"| {l} | {100*c[l]/len(sel):.1f}% |")
