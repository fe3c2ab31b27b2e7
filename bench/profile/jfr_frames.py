#!/usr/bin/env python3
import sys, re, collections
from jfr_samples import read_samples
# Usage: python3 jfr_frames.py join.txt ["Executor task launch"] [top_n]  (input as for jfr_stages.py)
# Aggregates `jfr print --events jdk.ExecutionSample` output: top (self) frames and inclusive frames
# (a frame counted once per sample it appears in), for threads whose name contains a filter.
path = sys.argv[1]; thread_filter = sys.argv[2] if len(sys.argv) > 2 else "Executor task launch"
top_n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
samples = read_samples(path)
for s in samples:
    # Method names only: drop line numbers and parameter lists so one method counts as one frame.
    names = (re.sub(r'\(.*\)$', '', re.sub(r'\s+line: \d+.*$', '', f)) for f in s['frames'])
    s['frames'] = [f for f in names if f and f != '...']
sel = [s for s in samples if thread_filter in s['thread']]
print(f"samples: {len(samples)} total, {len(sel)} in threads matching '{thread_filter}'")
self_c = collections.Counter(s['frames'][0] for s in sel if s['frames'])
incl = collections.Counter()
for s in sel:
    for f in set(s['frames']):
        incl[f] += 1
print("\n== top (self) frames ==")
for f, c in self_c.most_common(top_n):
    print(f"{100*c/len(sel):5.1f}%  {f}")
print("\n== inclusive frames ==")
for f, c in incl.most_common(top_n * 2):
    print(f"{100*c/len(sel):5.1f}%  {f}")
